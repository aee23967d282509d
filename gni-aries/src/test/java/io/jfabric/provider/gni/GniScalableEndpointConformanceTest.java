package io.jfabric.provider.gni;

import io.jfabric.AvAttr;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.EpAttr;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.ScalableEndpoint;
import io.jfabric.conformance.Pair;
import io.jfabric.conformance.ScalableEndpointConformance;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ScalableEndpointConformance} over the {@code gni} provider. Overridden by its gni form: the limits case
 * ({@link GniDifferences#CONTEXTS_FILL_THE_DOMAIN}): 128 + 128 contexts need 256 endpoint indices, the runtime's
 * count per domain, so in the pair's domain, which holds the pair's endpoint, the maxima are {@code ENOSPC}; in a
 * fresh domain of the pair's fabric they open and every context is usable.
 */
class GniScalableEndpointConformanceTest extends ScalableEndpointConformance
{
    GniScalableEndpointConformanceTest()
    {
        super(GniConformance.FACTORY);
    }

    private Info sepInfo(final int contexts)
    {
        return info(Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.NAMED_RX_CTX)
            .epAttr(EpAttr.builder().txCtxCnt(contexts).rxCtxCnt(contexts).build())
            .domainAttr(DomainAttr.builder().dataProgress(Progress.AUTO).build())
            .build());
    }

    @Override
    @Test
    @DisplayName("gni CONTEXTS_FILL_THE_DOMAIN: 128 + 128 contexts ENOSPC beside the pair's endpoint; open in a " +
        "fresh domain")
    protected void shouldReportAndEnforceTheContextLimits()
    {
        final Info info = sepInfo(0);
        final long maxTx = info.domainAttr().maxEpTxCtx();
        final long maxRx = info.domainAttr().maxEpRxCtx();
        assertEquals(GniProvider.MAX_CONTEXTS, maxTx);
        assertEquals(GniProvider.MAX_CONTEXTS, maxRx);
        assertTrue(info.epAttr().txCtxCnt() <= maxTx && info.epAttr().rxCtxCnt() <= maxRx);
        final int most = (int) Math.min(maxTx, maxRx);
        assertEquals(most, sepInfo(most).epAttr().txCtxCnt());
        assertEquals(most, sepInfo(most).epAttr().rxCtxCnt());
        final FabricException above = assertThrows(FabricException.class, () -> Fabric.getInfo(Info.builder()
            .epAttr(EpAttr.builder().txCtxCnt(maxTx + 1).build())
            .fabricAttr(FabricAttr.builder().provName(provider()).build()).build()));
        assertEquals(Errno.ENODATA, above.errno());
        try (Pair p = pair(Progress.AUTO))
        {
            final Info tooMany = info.toBuilder().epAttr(info.epAttr().toBuilder().rxCtxCnt(maxRx + 1).build())
                .build();
            assertEquals(Errno.EINVAL,
                assertThrows(FabricException.class, () -> p.domainA.scalableEndpoint(tooMany)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> p.domainA.addressVector(
                AvAttr.builder().rxCtxBits(AvAttr.MAX_RX_CTX_BITS + 1).build())).errno());
            final Info all = info.toBuilder().epAttr(info.epAttr().toBuilder().txCtxCnt(maxTx).rxCtxCnt(maxRx)
                .build()).build();
            assertEquals(Errno.ENOSPC,
                assertThrows(FabricException.class, () -> p.domainB.scalableEndpoint(all)).errno());
            try (Domain fresh = p.fabric.domain(all, "yield"))
            {
                final List<Endpoint> opened = new ArrayList<>();
                final ScalableEndpoint sep = fresh.scalableEndpoint(all);
                assertEquals(maxTx, sep.txContextCount());
                assertEquals(maxRx, sep.rxContextCount());
                for (int i = 0; i < maxTx; i++)
                {
                    opened.add(sep.txContext(i, null));
                }
                for (int i = 0; i < maxRx; i++)
                {
                    opened.add(sep.rxContext(i, null));
                }
                assertEquals(maxTx + maxRx, opened.size());
                for (final Endpoint e : opened)
                {
                    e.close();
                }
                sep.close();
            }
        }
    }
}
