package io.jfabric.provider.gni;

import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.MemoryRegion;
import io.jfabric.Message;
import io.jfabric.MrMode;
import io.jfabric.OpenOps;
import io.jfabric.Progress;
import io.jfabric.conformance.Pair;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static io.jfabric.conformance.Pair.assertEmpty;
import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code FI_MORE} for RMA (fi_gni(7) "Additional Features", GNI.md §2.3): one-sided writes and reads posted with
 * {@code FI_MORE} wait, in posting order, until the endpoint's next call without it, then go out as one chained FMA
 * post ({@code GNI_CtPostFma}, {@link GniOps#GNI_STAT_FMA_CHAINS}); what one FMA post cannot carry, a fence, and a
 * VC not yet connected go out at once; a fenced command behind held operations sends them instead of waiting for
 * ever; an endpoint closed with held operations drops them without touching the target.
 */
@Timeout(60)
class GniMoreChainTest
{
    private static final int SPINS = 300;

    @Test
    void shouldHoldWritesAndReadsPostedWithMoreUntilACallWithoutItAndSendThemAsOneChain()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.MANUAL))
        {
            final UnsafeBuffer target = direct(8192);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 8192,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 7))
            {
                connect(p, mr, target);
                final OpenOps ops = p.domainA.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
                final long chains = ops.get(GniOps.GNI_STAT_FMA_CHAINS);
                final long fma = ops.get(GniOps.GNI_STAT_FMA_POSTS);
                target.putLong(7000, 0x1122334455667788L);

                final Message m = new Message();
                final UnsafeBuffer first = pattern(100, 1);
                final UnsafeBuffer second = pattern(3000, 2);
                final UnsafeBuffer readBack = direct(8);
                assertEquals(0, p.a.writemsg(m.buffer(first, 0, 100).addr(p.addrBFromA).rma(1000, mr.key())
                    .context(10), Flags.MORE));
                assertEquals(0, p.a.writemsg(m.buffer(second, 0, 3000).addr(p.addrBFromA).rma(2000, mr.key())
                    .context(11), Flags.MORE));
                assertEquals(0, p.a.readmsg(m.buffer(readBack, 0, 8).addr(p.addrBFromA).rma(7000, mr.key())
                    .context(12), Flags.MORE));
                idle(p);
                assertEmpty(p.cqA);
                assertEquals(0, target.getByte(1000), "a held write moved nothing");
                assertEquals(0, target.getByte(2000));
                assertEquals(0, readBack.getLong(0), "a held read moved nothing");
                assertEquals(chains, ops.get(GniOps.GNI_STAT_FMA_CHAINS));
                assertEquals(fma, ops.get(GniOps.GNI_STAT_FMA_POSTS));

                // The call without FI_MORE sends the chain, then itself.
                final UnsafeBuffer last = pattern(64, 3);
                assertEquals(0, p.a.write(last, 0, 64, p.addrBFromA, 6000, mr.key(), 13));
                assertEquals(List.of(10L, 11L, 12L, 13L), contexts(p, 4));
                assertPattern(target, 1000, 100, 1);
                assertPattern(target, 2000, 3000, 2);
                assertPattern(target, 6000, 64, 3);
                assertEquals(0x1122334455667788L, readBack.getLong(0));
                assertEquals(chains + 1, ops.get(GniOps.GNI_STAT_FMA_CHAINS), "one chained post for the three");
                assertEquals(fma + 4, ops.get(GniOps.GNI_STAT_FMA_POSTS), "three chained elements and the last");
            }
        }
    }

    @Test
    void shouldSendAtOnceWhatOneFmaPostCannotCarryOrAFenceAndWhatGoesBeforeTheVcIsConnected()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.MANUAL))
        {
            final UnsafeBuffer target = direct(64 * 1024);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 64 * 1024,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 8))
            {
                final OpenOps ops = p.domainA.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
                final long chains = ops.get(GniOps.GNI_STAT_FMA_CHAINS);
                final Message m = new Message();
                // No VC yet: the flag is dropped (upstream's rule), the write goes out.
                assertEquals(0, p.a.writemsg(m.buffer(pattern(64, 4), 0, 64).addr(p.addrBFromA).rma(0, mr.key())
                    .context(20), Flags.MORE));
                assertEquals(20, one(p.cqA).context());
                assertPattern(target, 0, 64, 4);
                // At or above GNI_RMA_RDMA_THRESHOLD (8192): a BTE post, not chained.
                assertEquals(0, p.a.writemsg(m.buffer(pattern(20_000, 5), 0, 20_000).addr(p.addrBFromA)
                    .rma(8192, mr.key()).context(21), Flags.MORE));
                assertEquals(21, one(p.cqA).context());
                assertPattern(target, 8192, 20_000, 5);
                // A read of an unaligned remote range takes its own bounce or chained posts.
                final UnsafeBuffer back = direct(64);
                assertEquals(0, p.a.readmsg(m.buffer(back, 0, 61).addr(p.addrBFromA).rma(8193, mr.key())
                    .context(22), Flags.MORE));
                assertEquals(22, one(p.cqA).context());
                for (int i = 0; i < 61; i++)
                {
                    assertEquals(target.getByte(8193 + i), back.getByte(i), "byte " + i);
                }
                // Fenced: never held.
                assertEquals(0, p.a.writemsg(m.buffer(pattern(64, 6), 0, 64).addr(p.addrBFromA).rma(40_000, mr.key())
                    .context(23), Flags.MORE | Flags.FENCE));
                assertEquals(23, one(p.cqA).context());
                assertPattern(target, 40_000, 64, 6);
                assertEquals(chains, ops.get(GniOps.GNI_STAT_FMA_CHAINS), "nothing was chained");
            }
        }
    }

    @Test
    void shouldSendHeldWritesWhenAFencedCommandWaitsForThem()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.MANUAL))
        {
            final UnsafeBuffer target = direct(8192);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 8192, Flags.REMOTE_WRITE, 9))
            {
                connect(p, mr, target);
                final Message m = new Message();
                assertEquals(0, p.a.writemsg(m.buffer(pattern(200, 7), 0, 200).addr(p.addrBFromA).rma(0, mr.key())
                    .context(30), Flags.MORE));
                assertEquals(0, p.a.writemsg(m.buffer(pattern(200, 8), 0, 200).addr(p.addrBFromA).rma(200, mr.key())
                    .context(31), Flags.MORE));
                // The runtime holds a fenced command until the endpoint's operations completed: the held writes
                // must go, then the fenced one.
                assertEquals(0, p.a.writemsg(m.buffer(pattern(200, 9), 0, 200).addr(p.addrBFromA).rma(400, mr.key())
                    .context(32), Flags.FENCE));
                assertEquals(List.of(30L, 31L, 32L), contexts(p, 3));
                assertPattern(target, 0, 200, 7);
                assertPattern(target, 200, 200, 8);
                assertPattern(target, 400, 200, 9);
            }
        }
    }

    @Test
    void shouldDropHeldOperationsOfAClosedEndpointWithoutTouchingTheTarget()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.MANUAL))
        {
            final UnsafeBuffer target = direct(8192);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 8192, Flags.REMOTE_WRITE, 10))
            {
                connect(p, mr, target);
                final OpenOps ops = p.domainA.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
                final long fma = ops.get(GniOps.GNI_STAT_FMA_POSTS);
                assertEquals(0, p.a.writemsg(new Message().buffer(pattern(100, 1), 0, 100).addr(p.addrBFromA)
                    .rma(3000, mr.key()).context(40), Flags.MORE));
                p.a.close();
                idle(p);
                assertEmpty(p.cqA);
                for (int i = 0; i < 100; i++)
                {
                    assertEquals(0, target.getByte(3000 + i), "byte " + i);
                }
                assertEquals(fma, ops.get(GniOps.GNI_STAT_FMA_POSTS), "the held write was never posted");
            }
        }
    }

    @Test
    void shouldRetransmitAChainWholeAndFailEveryOperationOfAChainBeyondMaxRetransmits()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.MANUAL))
        {
            final UnsafeBuffer target = direct(8192);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 8192, Flags.REMOTE_WRITE, 11))
            {
                connect(p, mr, target);
                final OpenOps ops = p.domainA.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
                final Message m = new Message();
                // Each transmission of a request fails twice before one reaches the NIC: the chain is one request.
                ops.set(GniOps.GNI_ERR_INJECT_COUNT, 2);
                final long chains = ops.get(GniOps.GNI_STAT_FMA_CHAINS);
                assertEquals(0, p.a.writemsg(m.buffer(pattern(100, 1), 0, 100).addr(p.addrBFromA).rma(0, mr.key())
                    .context(50), Flags.MORE));
                assertEquals(0, p.a.writemsg(m.buffer(pattern(100, 2), 0, 100).addr(p.addrBFromA).rma(100, mr.key())
                    .context(51), Flags.MORE));
                assertEquals(0, p.a.write(pattern(100, 3), 0, 100, p.addrBFromA, 200, mr.key(), 52));
                assertEquals(List.of(50L, 51L, 52L), contexts(p, 3));
                assertPattern(target, 0, 100, 1);
                assertPattern(target, 100, 100, 2);
                assertPattern(target, 200, 100, 3);
                assertEquals(chains + 1, ops.get(GniOps.GNI_STAT_FMA_CHAINS), "the injected posts never reached it");

                // Every transmission fails (1 + GNI_MAX_RETRANSMITS): each operation of the chain fails, none lands.
                target.setMemory(0, 8192, (byte) 0);
                ops.set(GniOps.GNI_ERR_INJECT_COUNT, 6);
                ops.set(GniOps.GNI_MAX_RETRANSMITS, 5);
                assertEquals(0, p.a.writemsg(m.buffer(pattern(100, 4), 0, 100).addr(p.addrBFromA).rma(0, mr.key())
                    .context(60), Flags.MORE));
                assertEquals(0, p.a.writemsg(m.buffer(pattern(100, 5), 0, 100).addr(p.addrBFromA).rma(100, mr.key())
                    .context(61), Flags.MORE));
                assertEquals(0, p.a.write(pattern(100, 6), 0, 100, p.addrBFromA, 200, mr.key(), 62));
                final List<Long> failed = new ArrayList<>();
                for (int i = 0; i < 3; i++)
                {
                    final CompletionErrorEntry e = error(p.cqA);
                    assertEquals(Errno.ECANCELED, e.errno());
                    assertEquals(Errno.ECANCELED.negated(), e.provErrno());
                    assertEquals(Flags.RMA | Flags.WRITE, e.flags());
                    failed.add(e.context());
                }
                failed.sort(null);
                assertEquals(List.of(60L, 61L, 62L), failed);
                for (int i = 0; i < 300; i++)
                {
                    assertEquals(0, target.getByte(i), "byte " + i);
                }
                assertEquals(chains + 1, ops.get(GniOps.GNI_STAT_FMA_CHAINS), "no failing chain reached the NIC");
                ops.set(GniOps.GNI_ERR_INJECT_COUNT, 0);
            }
        }
    }

    /** A first write: the VC connects (its RMA done waits for the handshake), so later writes may be held. */
    private static void connect(final Pair p, final MemoryRegion mr, final UnsafeBuffer target)
    {
        assertEquals(0, p.a.write(pattern(8, 0), 0, 8, p.addrBFromA, 8184, mr.key(), 1));
        assertEquals(1, one(p.cqA).context());
        target.setMemory(0, 8192, (byte) 0);
    }

    private static void idle(final Pair p)
    {
        for (int i = 0; i < SPINS; i++)
        {
            Pair.progressAll();
        }
    }

    private static List<Long> contexts(final Pair p, final int count)
    {
        final List<Long> seen = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            final CompletionEntry e = one(p.cqA);
            seen.add(e.context());
        }
        assertEquals(Errno.EAGAIN.negated(), p.cqA.read(new CompletionEntry()));
        return seen;
    }
}
