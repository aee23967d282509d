package io.jfabric.provider.aeron;

import io.aeron.driver.MediaDriver;
import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.Errno;
import io.jfabric.Progress;
import io.jfabric.agent.FlowControl;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static io.jfabric.provider.aeron.AeronDriverSide.peersDown;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Liveness corners of a peer that finds the other down while the other sees nothing: two domains in one JVM, each
 * on its own media driver (UDP loopback), A with a 30 s liveness timeout (it never finds B down here), B with 2 s.
 * B's publications lose what A's driver sends back to them for a few seconds ({@link DelayedLinks#partition}: B's
 * send endpoints drop A's status messages, while A's data still reaches B and B's reaches A): B finds A down (its
 * publications are not connected) and comes back when the cut heals, with A's images at B there throughout; A
 * stays LIVE throughout.
 * <ul>
 *   <li>Flow control after such a return: B's epoch of A changed (its accounts started over), A's did not. A's
 *   stream to B then stalled for good once it had sent a grant's worth more than B's new counts could
 *   acknowledge; now A, hearing B's hello again from the same incarnation, reports B down and changes its epoch
 *   too.</li>
 *   <li>A return whose hellos cannot be offered: A (manual progress) stops reading while B's stream fills A's
 *   receive window, so that B's hello waits behind it; B's CONNECTING times out with its publications connected
 *   and A's images there, a state no disconnection or image loss would end, and A (LIVE) never says hello. B stayed
 *   down for good after A read again; now B tries again once per liveness timeout.</li>
 * </ul>
 * Bounded by deadlines and the class's watchdog, never timed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AeronOneSidedDownTest
{
    private static final long STEADY_LIVENESS_MS = 30_000;
    private static final long QUICK_LIVENESS_MS = 2_000;
    private static final long DATA_TAG = 1;
    private static final long PROBE_TAG = 2;
    private static final int POSTED = 64;
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(20);
    private MediaDriver driverA;
    private MediaDriver driverB;
    private String dirA;
    private String dirB;
    private final DelayedLinks linksA = new DelayedLinks(0, 0, 0);
    private final DelayedLinks linksB = new DelayedLinks(0, 0, 0);

    @BeforeEach
    void startDrivers()
    {
        System.setProperty(AeronConfiguration.IPC_PROP, "false");
        dirA = AeronFabricBackend.embeddedDirectory();
        driverA = MediaDriver.launch(linksA.install(AeronFabricBackend.driverContext(dirA, STEADY_LIVENESS_MS)));
        dirB = AeronFabricBackend.embeddedDirectory();
        driverB = MediaDriver.launch(linksB.install(AeronFabricBackend.driverContext(dirB, QUICK_LIVENESS_MS)));
    }

    @AfterEach
    void stopDrivers()
    {
        System.clearProperty(FlowControl.CREDITS_PROP);
        System.clearProperty(AeronConfiguration.TERM_LENGTH_PROP);
        AeronTests.stopSharedDriver(driverB);
        AeronTests.stopSharedDriver(driverA);
    }

    @Test
    void shouldKeepStreamingToAPeerThatWentDownAndCameBackOnItsSideAlone()
    {
        // A small grant: a stall shows after 64 messages, not 65536.
        System.setProperty(FlowControl.CREDITS_PROP, "64");
        try (AeronDriverSide a = new AeronDriverSide(dirA, STEADY_LIVENESS_MS, Progress.AUTO);
            AeronDriverSide b = new AeronDriverSide(dirB, QUICK_LIVENESS_MS, Progress.AUTO))
        {
            final long bInA = a.av.insert(b.ep.name());
            final long aInB = b.av.insert(a.ep.name());
            stream(a, bInA, b, 1000);
            final long downBefore = peersDown();

            // B's publications lose A's status messages while A's data still reaches B (B's images of A stay, so
            // that B comes back once, when its publications connect again).
            linksB.partition(false, true);
            await(() -> peersDown() > downBefore, "B never found A down while cut off");
            linksB.partition(false, false);
            awaitProbe(b, aInB, a);
            assertTrue(linksB.cut() > 0, "the partition dropped nothing");

            // B's accounts of A started over, A's must too: 1000 more (15 grants) arrive, in order, and A reported
            // B's return as a fall (what it awaited from B may have been dropped).
            stream(a, bInA, b, 1000);
            assertTrue(peersDown() >= downBefore + 2, "A did not report B's return: " + (peersDown() - downBefore));
            // And the other way, on credit that A's answers bring back to B.
            stream(b, aInB, a, 1000);
        }
    }

    @Test
    void shouldReachAPeerAgainWhoseHellosCouldNotBeOfferedWhileItsWindowWasFull()
    {
        // Terms of 64 KiB: a publication blocks once the receiver's window (half a term) and its own term window
        // (another half) are full, 64 KiB instead of 4 MiB.
        System.setProperty(AeronConfiguration.TERM_LENGTH_PROP, Integer.toString(64 * 1024));
        try (AeronDriverSide a = new AeronDriverSide(dirA, STEADY_LIVENESS_MS, Progress.MANUAL);
            AeronDriverSide b = new AeronDriverSide(dirB, QUICK_LIVENESS_MS, Progress.AUTO))
        {
            final long bInA = a.av.insert(b.ep.name());
            final long aInB = b.av.insert(a.ep.name());
            stream(a, bInA, b, 10);
            stream(b, aInB, a, 10);

            // A reads nothing from here on: B's stream fills its publication to A to the last few bytes,
            // big messages first, then empty ones, so that not even a hello fits behind them.
            final UnsafeBuffer big = AeronNode.direct(4096);
            final long fillDeadline = System.nanoTime() + WAIT_NS;
            for (int i = 0; i < 64; i++)
            {
                int rc;
                while (Errno.EAGAIN.negated() == (rc = b.ep.tinject(big, 0, 4096, aInB, DATA_TAG)))
                {
                    assertTrue(System.nanoTime() - fillDeadline < 0, "B's big injects were never taken");
                    drain(b);
                    Thread.yield();
                }
                assertEquals(0, rc, "tinject");
            }
            for (int i = 0; i < 1000; i++)
            {
                if (0 != b.ep.tinject(big, 0, 0, aInB, DATA_TAG))
                {
                    break;
                }
            }
            // B's publications lose A's status messages (A's data still reaches B: B's images of A stay): B finds
            // A down (not connected), and back (connected again) says hello into the full window, where it does
            // not fit: its CONNECTING times out with everything connected, a second fall.
            final long downBefore = peersDown();
            linksB.partition(false, true);
            await(() -> peersDown() > downBefore, "B never found A down while cut off");
            linksB.partition(false, false);
            await(() -> peersDown() > downBefore + 1, "B's hellos went through the window (scenario not reached)");

            // A reads again: its window opens, and B must reach it.
            awaitProbe(b, aInB, a);
        }
    }

    /**
     * Stream {@code count} tagged sequence numbers from one side to the other and check each arrives once, in
     * order.
     */
    private static void stream(final AeronDriverSide from, final long dest, final AeronDriverSide to, final int count)
    {
        final int posted = Math.min(POSTED, count);
        final UnsafeBuffer[] slots = new UnsafeBuffer[posted];
        for (int i = 0; i < posted; i++)
        {
            slots[i] = AeronNode.direct(8);
            assertEquals(0, to.ep.trecv(slots[i], 0, 8, AddressVector.ADDR_UNSPEC, DATA_TAG, 0, i));
        }
        final UnsafeBuffer value = AeronNode.direct(8);
        final CompletionEntry entry = new CompletionEntry();
        final CompletionErrorEntry error = new CompletionErrorEntry();
        final long deadline = System.nanoTime() + WAIT_NS;
        int sent = 0;
        int received = 0;
        while (received < count)
        {
            while (sent < count)
            {
                value.putLong(0, sent);
                final int rc = from.ep.tinject(value, 0, 8, dest, DATA_TAG);
                if (Errno.EAGAIN.negated() == rc)
                {
                    break;
                }
                assertEquals(0, rc, "tinject " + sent);
                sent++;
            }
            if (Errno.EAVAIL.negated() == from.cq.read(entry))
            {
                from.cq.readErr(error);
                fail("sender error completion " + error.errno() + " at " + sent);
            }
            int n;
            while (1 == (n = to.cq.read(entry)))
            {
                final int slot = (int) entry.context();
                assertEquals(received, slots[slot].getLong(0), "lost, duplicated or reordered");
                received++;
                if (received + posted <= count)
                {
                    assertEquals(0, to.ep.trecv(slots[slot], 0, 8, AddressVector.ADDR_UNSPEC, DATA_TAG, 0, slot));
                }
            }
            if (Errno.EAVAIL.negated() == n)
            {
                to.cq.readErr(error);
                fail("receiver error completion " + error.errno());
            }
            assertTrue(System.nanoTime() - deadline < 0, "stream stalled: " + received + " of " + count +
                " received, " + sent + " sent");
            Thread.yield();
        }
    }

    /**
     * Probe from {@code from} every 20 ms until one reaches {@code to}: {@code from} may find the peer down (fail
     * fast) for a while.
     */
    private static void awaitProbe(final AeronDriverSide from, final long dest, final AeronDriverSide to)
    {
        final UnsafeBuffer slot = AeronNode.direct(8);
        assertEquals(0, to.ep.trecv(slot, 0, 8, AddressVector.ADDR_UNSPEC, PROBE_TAG, 0, -1));
        final UnsafeBuffer probe = AeronNode.direct(8);
        final CompletionEntry entry = new CompletionEntry();
        final long deadline = System.nanoTime() + WAIT_NS;
        long nextProbeNs = System.nanoTime();
        while (true)
        {
            if (System.nanoTime() - nextProbeNs >= 0)
            {
                from.ep.tinject(probe, 0, 8, dest, PROBE_TAG);
                nextProbeNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
            }
            drain(from);
            int n;
            while (1 == (n = to.cq.read(entry)))
            {
                if (-1 == entry.context())
                {
                    return;
                }
            }
            if (Errno.EAVAIL.negated() == n)
            {
                to.cq.readErr(new CompletionErrorEntry());
            }
            assertTrue(System.nanoTime() - deadline < 0, "no probe reached the peer again");
            Thread.yield();
        }
    }

    private static void drain(final AeronDriverSide side)
    {
        final CompletionEntry entry = new CompletionEntry();
        final CompletionErrorEntry error = new CompletionErrorEntry();
        int n;
        while (0 != (n = side.cq.read(entry)))
        {
            if (Errno.EAVAIL.negated() == n)
            {
                side.cq.readErr(error);
            }
            else if (n < 0)
            {
                break;
            }
        }
    }

    private static void await(final BooleanSupplier condition, final String failure)
    {
        final long deadline = System.nanoTime() + WAIT_NS;
        final IdleStrategy idle = new BackoffIdleStrategy(1, 10, 1_000, 10_000_000);
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() - deadline < 0, failure);
            idle.idle();
        }
    }
}
