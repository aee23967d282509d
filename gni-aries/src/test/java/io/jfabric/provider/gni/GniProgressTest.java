package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.MrMode;
import io.jfabric.Progress;
import io.jfabric.conformance.Pair;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The progress rules as gni keeps them (GNI.md §2.11, §3; GNI-PROVIDER.md "Progress"): with {@code FI_PROGRESS_AUTO}
 * the receiver's agent pulls rendezvous messages with no application call, while an eager message waits in its
 * mailbox until the application progresses the receiving domain (here: reads its CQ), as upstream's progress thread
 * wakes only for rendezvous traffic; with {@code GNI_EAGER_AUTO_PROGRESS} 1 eager messages are matched with no call
 * too. With {@code FI_PROGRESS_MANUAL} a rendezvous message is not pulled until the receiver progresses, however much
 * the sender does.
 */
@Timeout(60)
class GniProgressTest
{
    private static final long DEADLINE_NS = 20_000_000_000L;
    private static final int LARGE = 100_000;
    private static final int MARKERS = 20;

    @Test
    void shouldHoldEagerArrivalsUnderAutoUntilTheReceiverReadsItsCqAndPullRendezvousWithoutCalls()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.AUTO))
        {
            assertEquals(0, p.domainB.openOps(GniOps.FI_GNI_DOMAIN_OPS_1).get(GniOps.GNI_EAGER_AUTO_PROGRESS));
            final UnsafeBuffer small = direct(64);
            final UnsafeBuffer large = direct(LARGE);
            assertEquals(0, p.b.trecv(small, 0, 64, AddressVector.ADDR_UNSPEC, 1, 0, 1));
            assertEquals(0, p.b.trecv(large, 0, LARGE, AddressVector.ADDR_UNSPEC, 2, 0, 2));
            final UnsafeBuffer largeSource = pattern(LARGE, 4);
            assertEquals(0, p.a.tsend(largeSource, 0, LARGE, p.addrBFromA, 2, 4));
            // Rendezvous: the receiver's agent pulls it with no call on the receiver's domain.
            awaitBytes(large, largeSource, LARGE, "rendezvous");
            assertEquals(4, readOne(p.cqA).context());

            assertEquals(0, p.a.tsend(pattern(64, 3), 0, 64, p.addrBFromA, 1, 3));
            // The sender's completion is the NIC's local SMSG event: the message is in the receiver's mailbox.
            assertEquals(3, readOne(p.cqA).context());
            // Markers: the receiver's agent sends MARKERS messages back, one per duty cycle at least (each waits
            // for the previous one's arrival), with that mailbox message before it every time; nobody reads the
            // receiver's CQ, so it stays there.
            final UnsafeBuffer marker = direct(8);
            final UnsafeBuffer back = direct(8);
            for (int i = 0; i < MARKERS; i++)
            {
                marker.putLong(0, i);
                assertEquals(0, p.a.trecv(back, 0, 8, AddressVector.ADDR_UNSPEC, 9, 0, 100 + i));
                assertEquals(0, p.b.tsend(marker, 0, 8, p.addrAFromB, 9, 200 + i));
                assertEquals(100 + i, readOne(p.cqA).context());
                assertEquals(i, back.getLong(0));
            }
            for (int i = 0; i < 64; i++)
            {
                assertEquals(0, small.getByte(i), "an eager message matched under AUTO with no read, byte " + i);
            }
            // The application reads the receiver's CQ: the rendezvous receive and the marker sends' completions,
            // written meanwhile, then the eager receive, matched once the reads began.
            assertEquals(2, readOne(p.cqB).context());
            for (int i = 0; i < MARKERS; i++)
            {
                assertEquals(200 + i, readOne(p.cqB).context());
            }
            assertEquals(1, readOne(p.cqB).context());
            assertPattern(small, 0, 64, 3);
            assertPattern(large, 0, LARGE, 4);
        }
    }

    @Test
    void shouldMatchEagerArrivalsUnderAutoWithoutCallsWhenEagerAutoProgressIsSet()
    {
        // Read when the NIC is allocated (the domain's first endpoint), as upstream: set before it.
        try (GniOptionPair p = new GniOptionPair(
            GniOpsTest.info(MrMode.MMU_NOTIFY, Progress.AUTO, null, Flags.MSG | Flags.TAGGED),
            ops -> ops.set(GniOps.GNI_EAGER_AUTO_PROGRESS, 1)))
        {
            assertEquals(1, p.opsB.get(GniOps.GNI_EAGER_AUTO_PROGRESS));
            final UnsafeBuffer small = direct(64);
            final UnsafeBuffer large = direct(LARGE);
            assertEquals(0, p.b.trecv(small, 0, 64, AddressVector.ADDR_UNSPEC, 1, 0, 1));
            assertEquals(0, p.b.trecv(large, 0, LARGE, AddressVector.ADDR_UNSPEC, 2, 0, 2));
            final UnsafeBuffer smallSource = pattern(64, 3);
            final UnsafeBuffer largeSource = pattern(LARGE, 4);
            assertEquals(0, p.a.tsend(smallSource, 0, 64, p.addrBFromA, 1, 3));
            assertEquals(0, p.a.tsend(largeSource, 0, LARGE, p.addrBFromA, 2, 4));
            // No call on the receiver's domain: its agent matches the eager message and pulls the rendezvous one.
            awaitBytes(small, smallSource, 64, "eager");
            awaitBytes(large, largeSource, LARGE, "rendezvous");
            assertPattern(small, 0, 64, 3);
            assertPattern(large, 0, LARGE, 4);
            assertEquals(3, one(p.cqA).context());
            assertEquals(4, one(p.cqA).context());
            assertEquals(1, one(p.cqB).context());
            assertEquals(2, one(p.cqB).context());
        }
    }

    @Test
    void shouldNotPullARendezvousUnderManualUntilTheReceiverProgresses()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.MANUAL))
        {
            final UnsafeBuffer large = direct(LARGE);
            assertEquals(0, p.b.trecv(large, 0, LARGE, AddressVector.ADDR_UNSPEC, 2, 0, 2));
            assertEquals(0, p.a.tsend(pattern(LARGE, 5), 0, LARGE, p.addrBFromA, 2, 6));
            for (int i = 0; i < 500; i++)
            {
                p.domainA.progress();
                Thread.yield();
            }
            for (int i = 0; i < LARGE; i += 4096)
            {
                assertEquals(0, large.getByte(i), "pulled without the receiver's progress, byte " + i);
            }
            assertEquals(2, one(p.cqB).context());
            assertEquals(6, one(p.cqA).context());
            assertPattern(large, 0, LARGE, 5);
        }
    }

    /**
     * Read one completion from {@code cq} alone (bounded, with backoff): unlike {@code Pair.one}, no other domain is
     * progressed, so the other side's domain sees no application call.
     */
    private static CompletionEntry readOne(final CompletionQueue cq)
    {
        final CompletionEntry entry = new CompletionEntry();
        final BackoffIdleStrategy idle = new BackoffIdleStrategy(1, 10, 1_000, 1_000_000);
        final long deadline = System.nanoTime() + DEADLINE_NS;
        int n;
        while (1 != (n = cq.read(entry)))
        {
            assertEquals(Errno.EAGAIN.negated(), n, "cq.read");
            assertTrue(System.nanoTime() < deadline, "no completion before the deadline");
            idle.idle();
        }
        return entry;
    }

    /** Wait (bounded, with backoff) until {@code buffer} holds {@code source}'s bytes, reading nothing else. */
    private static void awaitBytes(
        final UnsafeBuffer buffer, final UnsafeBuffer source, final int length, final String what)
    {
        final BackoffIdleStrategy idle = new BackoffIdleStrategy(1, 10, 1_000, 1_000_000);
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (!sameBytes(buffer, source, length))
        {
            assertTrue(System.nanoTime() < deadline, "the " + what + " message was not delivered without calls");
            idle.idle();
        }
    }

    private static boolean sameBytes(final UnsafeBuffer a, final UnsafeBuffer b, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (a.getByte(i) != b.getByte(i))
            {
                return false;
            }
        }
        return true;
    }
}
