package io.jfabric;

import io.jfabric.provider.inproc.InprocProvider;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code FI_SHARED_CONTEXT} as {@code ep_attr.tx_ctx_cnt} / {@code rx_ctx_cnt} of the hints (fi_endpoint(3)): the
 * endpoint will use a shared transmit or receive context, so only a provider that can share them (a non-zero
 * {@code max_ep_stx_ctx} / {@code max_ep_srx_ctx}) matches, and the output keeps the value; a provider that cannot
 * share contexts drops out with ENODATA.
 */
class GetInfoSharedContextTest
{
    /** Shares transmit contexts (max_ep_stx_ctx 4) but not receive contexts. */
    private final Discovery discovery = new Discovery(List.of(
        TestProviders.variant("stx", b -> b.domainAttr(TestProviders.alpha().infos().get(0).domainAttr().toBuilder()
            .maxEpStxCtx(4).build()), Flags.LOCAL_COMM),
        TestProviders.alpha()));

    private List<Info> getInfo(final EpAttr ep)
    {
        return discovery.getInfo(Version.CURRENT, null, null, 0, Info.alloc().toBuilder().epAttr(ep).build());
    }

    @Test
    void shouldMatchSharedTransmitContextOnlyAtAProviderThatSharesThem()
    {
        final List<Info> infos = getInfo(EpAttr.builder().txCtxCnt(EpAttr.SHARED_CONTEXT).build());

        assertEquals(List.of("stx"), infos.stream().map(Info::providerName).toList());
        assertEquals(EpAttr.SHARED_CONTEXT, infos.get(0).epAttr().txCtxCnt());
        assertEquals(1, infos.get(0).epAttr().rxCtxCnt());
    }

    @Test
    void shouldAnswerEnodataNamingSharedContextWhenNoProviderSharesReceiveContexts()
    {
        final FabricException ex = assertThrows(FabricException.class,
            () -> getInfo(EpAttr.builder().rxCtxCnt(EpAttr.SHARED_CONTEXT).build()));

        assertEquals(Errno.ENODATA, ex.errno());
        assertTrue(ex.getMessage().contains("rx_ctx_cnt FI_SHARED_CONTEXT") &&
            ex.getMessage().contains("max_ep_srx_ctx is 0"), ex.getMessage());
    }

    @Test
    void shouldStillRefuseAnOrdinaryContextCountAboveTheMaximum()
    {
        // SIZE_MAX means "shared", never "as many as possible": 2 contexts stay beyond the maximum 1
        // (three infos: stx, alpha RDM and alpha MSG)
        assertEquals(3, getInfo(EpAttr.builder().txCtxCnt(1).build()).size());
        assertEquals(Errno.ENODATA, assertThrows(FabricException.class,
            () -> getInfo(EpAttr.builder().txCtxCnt(2).build())).errno());
    }

    @Test
    void shouldOfferInprocSharedContexts()
    {
        final Discovery inproc = new Discovery(List.of(new InprocProvider()));
        final Info tx = Info.alloc().toBuilder().epAttr(EpAttr.builder().txCtxCnt(EpAttr.SHARED_CONTEXT).build())
            .build();

        final List<Info> infos = inproc.getInfo(Version.CURRENT, null, null, 0, tx);

        assertFalse(infos.isEmpty());
        for (final Info i : infos)
        {
            assertEquals(EpAttr.SHARED_CONTEXT, i.epAttr().txCtxCnt());
            assertEquals(1, i.domainAttr().maxEpStxCtx());
            assertEquals(1, i.domainAttr().maxEpSrxCtx());
        }
    }

    @Test
    void shouldPrintSharedContextAsSizeMax()
    {
        final Info info = getInfo(EpAttr.builder().txCtxCnt(EpAttr.SHARED_CONTEXT).build()).get(0);

        assertTrue(InfoFormat.verbose(info).contains("        tx_ctx_cnt: 18446744073709551615\n"),
            InfoFormat.verbose(info));
    }
}
