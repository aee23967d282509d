package io.jfabric.provider.gni;

import io.jfabric.DomainAttr;
import io.jfabric.EpAttr;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.conformance.Pair;
import io.jfabric.conformance.SharedContextConformance;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SharedContextConformance} over the {@code gni} provider: gni offers no shared contexts
 * ({@link GniDifferences#NO_SHARED_CONTEXTS}; {@code max_ep_stx_ctx} and {@code max_ep_srx_ctx} 0). Every case is
 * overridden by the gni form: getinfo asking {@code FI_SHARED_CONTEXT} for either side answers {@code ENODATA}
 * naming the reason, {@code fi_srx_context} and {@code fi_stx_context} on a gni domain are {@code ENOSYS}, and the
 * pair's endpoints keep their own contexts (a message goes through).
 */
class GniSharedContextConformanceTest extends SharedContextConformance
{
    GniSharedContextConformanceTest()
    {
        super(GniConformance.FACTORY);
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni NO_SHARED_CONTEXTS: getinfo ENODATA, fi_srx_context and fi_stx_context ENOSYS")
    protected void shouldReceiveMessagesToEveryBoundEndpointThroughTheSharedReceiveContext(final Progress progress)
    {
        assertNoSharedContexts(progress);
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni NO_SHARED_CONTEXTS: getinfo ENODATA, fi_srx_context and fi_stx_context ENOSYS")
    protected void shouldMatchUnexpectedMessagesWithReceivesPostedLaterOnTheSharedReceiveContext(
        final Progress progress)
    {
        assertNoSharedContexts(progress);
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni NO_SHARED_CONTEXTS: getinfo ENODATA, fi_srx_context and fi_stx_context ENOSYS")
    protected void shouldPeekClaimAndDiscardOnTheSharedReceiveContext(final Progress progress)
    {
        assertNoSharedContexts(progress);
    }

    @Override
    @Test
    @DisplayName("gni NO_SHARED_CONTEXTS: getinfo ENODATA, fi_srx_context and fi_stx_context ENOSYS")
    protected void shouldHonourDirectedReceivesOnTheSharedReceiveContext()
    {
        assertNoSharedContexts(Progress.AUTO);
    }

    @Override
    @Test
    @DisplayName("gni NO_SHARED_CONTEXTS: getinfo ENODATA, fi_srx_context and fi_stx_context ENOSYS")
    protected void shouldShareTheTransmitQueueOfASharedTransmitContext()
    {
        assertNoSharedContexts(Progress.AUTO);
    }

    @Override
    @Test
    @DisplayName("gni NO_SHARED_CONTEXTS: getinfo ENODATA, fi_srx_context and fi_stx_context ENOSYS")
    protected void shouldRefuseBadUseOfSharedContexts()
    {
        assertNoSharedContexts(Progress.AUTO);
    }

    @Override
    @Test
    @DisplayName("gni NO_SHARED_CONTEXTS: getinfo ENODATA, fi_srx_context and fi_stx_context ENOSYS")
    protected void shouldReportSharedContextsThroughGetInfo()
    {
        assertNoSharedContexts(Progress.AUTO);
    }

    private void assertNoSharedContexts(final Progress progress)
    {
        for (final EpAttr shared : new EpAttr[]{
            EpAttr.builder().txCtxCnt(EpAttr.SHARED_CONTEXT).build(),
            EpAttr.builder().rxCtxCnt(EpAttr.SHARED_CONTEXT).build()})
        {
            final FabricException refused = assertThrows(FabricException.class, () -> info(Info.builder()
                .caps(Flags.MSG | Flags.TAGGED).epAttr(shared)
                .domainAttr(DomainAttr.builder().dataProgress(progress).build()).build()));
            assertEquals(Errno.ENODATA, refused.errno());
            assertTrue(refused.getMessage().contains("shared"), refused.getMessage());
        }
        try (Pair p = pair(progress))
        {
            assertEquals(0, p.infoA.domainAttr().maxEpSrxCtx());
            assertEquals(0, p.infoA.domainAttr().maxEpStxCtx());
            assertEquals(Errno.ENOSYS, assertThrows(FabricException.class, () -> p.domainB.srxContext(null)).errno());
            assertEquals(Errno.ENOSYS, assertThrows(FabricException.class, () -> p.domainB.stxContext(null)).errno());
            final UnsafeBuffer rx = direct(32);
            assertEquals(0, p.b.trecv(rx, 0, 32, p.addrAFromB, 5, 0, 1));
            assertEquals(0, p.a.tsend(pattern(32, 3), 0, 32, p.addrBFromA, 5, 2));
            final long first = one(p.cqA).context() + one(p.cqB).context();
            assertEquals(3, first, "the send's and the receive's completions");
        }
    }
}
