package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.MrMode;
import io.jfabric.OpenOps;
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
 * the receiver's data progress runs with no application call, for rendezvous traffic and for eager traffic alike
 * (what upstream's {@code GNI_EAGER_AUTO_PROGRESS = 1} gives; the option is kept and read back and changes nothing);
 * with {@code FI_PROGRESS_MANUAL} a rendezvous message is not pulled until the receiver progresses, however much the
 * sender does.
 */
@Timeout(60)
class GniProgressTest
{
    private static final long DEADLINE_NS = 20_000_000_000L;
    private static final int LARGE = 100_000;

    @Test
    void shouldProgressEagerAndRendezvousArrivalsUnderAutoWithoutApplicationCalls()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.AUTO))
        {
            final OpenOps opsB = p.domainB.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
            assertEquals(0, opsB.get(GniOps.GNI_EAGER_AUTO_PROGRESS));
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
