package io.jfabric.provider.aeron;

import io.aeron.driver.MediaDriver;
import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.Message;
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
 * A peer wrongly found down must not lose a send that completed: two domains in one JVM, each on its own media
 * driver (UDP loopback), A with a 30 s liveness timeout (it never finds B down by itself), B with 2 s, a grant of
 * 64 messages. While A streams tagged 8-byte sequence numbers to B, by turns {@code tinject}, {@code tsend} and a
 * delivery-complete {@code tsendmsg} (a send's context names its number), B is cut from A's driver
 * ({@link DelayedLinks#partition}) until B has found A down and 1.5 s longer; then the cut heals and A streams 3000
 * more. Both processes stay alive throughout: the fall is wrong.
 * <ul>
 *   <li>Only A's status messages cut at B (B's publications lose their connection, B's images of A stay): a send
 *   that completed without error arrived exactly once and in order, an inject that did not arrive left an error
 *   entry in A's CQ. Before, B dropped what A sent while B had it down: a grant of completed sends lost.</li>
 *   <li>Both directions cut at B: B's images of A time out and Aeron makes them again at A's sender position, so what
 *   A's publication sent into the cut is lost in Aeron. A delivery-complete send that completed arrived; a
 *   transmit-complete one offered before the cut healed may be missing (at most two grants); everything offered after
 *   it arrived, and the stream never stalls.</li>
 *   <li>Both directions cut, and B comes back (its status messages healed first) before Aeron made its image of A
 *   again: A's new grant goes one inject at a time, 40 into the cut, the rest once the data is healed too. B must
 *   see the gap of the image made again before it counts what follows (issue 14's stall: B counted what arrived,
 *   less than half a grant, and never sent credit).</li>
 * </ul>
 * In both, B's arrivals are strictly increasing (nothing twice, nothing reordered), every send completes (with
 * {@code EIO} or {@code EHOSTUNREACH} when it fails) and nothing stalls. Bounded by deadlines and the class's
 * watchdog, never timed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AeronWronglyDownTest
{
    private static final long STEADY_LIVENESS_MS = 30_000;
    private static final long QUICK_LIVENESS_MS = 2_000;
    private static final long DATA_TAG = 1;
    private static final int POSTED = 256;
    /** Send buffers: a send's slot is reused only after its completion. */
    private static final int SLOTS = 8192;
    private static final int CAPACITY = 1 << 16;
    private static final int WINDOW = 2048;
    private static final int GRANT = 64;
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(30);
    /** How long the cut is held after B found A down (a second fall path: its publications' connection). */
    private static final long HOLD_NS = TimeUnit.MILLISECONDS.toNanos(1500);
    /** Injects of A's new grant sent into the cut after B came back (more than half a grant: B never sends credit). */
    private static final int LOST_AFTER_RETURN = 40;
    /** The pace of A's injects after the cut healed: the image made again takes some, its gap the others. */
    private static final long PACE_NS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final byte PENDING = 0;
    private static final byte DONE = 1;
    private static final byte FAILED = 2;
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
        AeronTests.stopSharedDriver(driverB);
        AeronTests.stopSharedDriver(driverA);
    }

    @Test
    void shouldDeliverEveryCompletedSendOnceAndInOrderToAPeerThatFoundTheSenderDownWhileItsImagesStayed()
    {
        // B's publications lose A's status messages, A's data still reaches B: B finds A down (not connected) while
        // its images of A stay and A's frames keep arriving. Nothing is lost in Aeron: every completed send must
        // arrive.
        run(false, true, 1200, false);
    }

    @Test
    void shouldDeliverEveryCompletedSendOnceAndInOrderWhenBothDirectionsAreCutAtTheReceiver()
    {
        // Everything from A's driver is cut at B: B's images of A time out in B's driver and are made again when
        // the cut heals, at A's sender position (Aeron recovers no gap across an image). What A's publication sent
        // into the cut is lost in Aeron: delivery-complete sends among it fail (A hears B's return), transmit-
        // complete ones had completed. Everything A offered after the cut must arrive.
        run(true, false, 1200, false);
    }

    @Test
    void shouldKeepStreamingToAReceiverFoundDownBeforeItEverSentAnything()
    {
        // B has only received (16 injects: less than the half grant after which it would send credit) when its
        // images of A time out: it finds A down before it ever used its publications. It must come back by itself
        // (A, LIVE, never says hello again), or its credit never reaches A and A's stream stalls for good.
        run(true, false, 16, true);
    }

    @Test
    void shouldKeepStreamingWhenTheReceiverComesBackBeforeAeronMadeItsImageOfTheSenderAgain()
    {
        // As the third case, but the cut heals in two steps: A's status messages first (B's publications connect
        // again, B comes back and A mirrors it: its account starts over), A's data 40 injects later. A sends its new
        // grant one inject at a time, so that most of it is lost in the cut and the rest arrives, in order, on the
        // image Aeron makes again: B must see that image's gap before it counts what follows (before, its liveness
        // scan mostly came too late, B counted only what arrived, never sent credit, and A stalled for good).
        System.setProperty(FlowControl.CREDITS_PROP, Integer.toString(GRANT));
        try (AeronDriverSide a = new AeronDriverSide(dirA, STEADY_LIVENESS_MS, Progress.AUTO);
            AeronDriverSide b = new AeronDriverSide(dirB, QUICK_LIVENESS_MS, Progress.AUTO))
        {
            final long bInA = a.av.insert(b.ep.name());
            b.av.insert(a.ep.name());
            final Stream stream = new Stream(a, bInA, b, true);
            stream.runUntil(16, () -> 16 == stream.posted && stream.settled(), "before the cut");

            final long downBefore = peersDown();
            linksB.partition(true, true);
            // No more than A's grant: nothing waits for credit at A when B comes back.
            stream.runUntil(GRANT, () -> peersDown() > downBefore, "B never found A down while cut off");
            final long holdUntil = System.nanoTime() + HOLD_NS;
            stream.runUntil(GRANT, () -> System.nanoTime() - holdUntil >= 0, "hold");
            final long mirroredBefore = a.ownPeersDown();
            linksB.partition(true, false);
            // B comes back as soon as its hellos can be offered; when that first try fails, it waits for its images of
            // A (still cut), and this case runs as the third one.
            final boolean mirrored = stream.runUntil(GRANT, () -> a.ownPeersDown() > mirroredBefore, null);
            for (int i = 0; mirrored && i < LOST_AFTER_RETURN; i++)
            {
                final long cut = linksB.cut();
                stream.runUntil(stream.posted + 1, () -> linksB.cut() > cut, "A's inject never reached the cut");
            }
            linksB.partition(false, false);
            // What A sends before B's driver made the image again is lost too: the bound is B's first arrival.
            stream.healOnNextArrival();
            while (mirrored && stream.posted < GRANT + GRANT)
            {
                final long next = System.nanoTime() + PACE_NS;
                stream.runUntil(stream.posted + 1, () -> System.nanoTime() - next >= 0, "pace");
            }
            final int total = stream.posted + 3000;
            final boolean settled = stream.runUntil(total, () -> total == stream.posted && stream.settled(), null);
            assertTrue(settled, "stalled after the cut healed: " + stream);
            stream.check(false);
            System.out.println("aeron wrongly down (both directions cut at B, B back before its image of A" +
                (mirrored ? "" : ": B waited for its images") + "): " + stream + ", falls in all " +
                (peersDown() - downBefore) + ", " + linksB.cut() + " datagrams cut");
        }
    }

    private void run(final boolean dataCut, final boolean strict, final int warmUp, final boolean injectsOnly)
    {
        // A small grant: what is in flight when the cut comes is a grant's worth, and a stall shows after 64.
        System.setProperty(FlowControl.CREDITS_PROP, Integer.toString(GRANT));
        try (AeronDriverSide a = new AeronDriverSide(dirA, STEADY_LIVENESS_MS, Progress.AUTO);
            AeronDriverSide b = new AeronDriverSide(dirB, QUICK_LIVENESS_MS, Progress.AUTO))
        {
            final long bInA = a.av.insert(b.ep.name());
            b.av.insert(a.ep.name());
            final Stream stream = new Stream(a, bInA, b, injectsOnly);
            stream.runUntil(warmUp, () -> warmUp == stream.posted && stream.settled(), "before the cut");

            final long downBefore = peersDown();
            linksB.partition(dataCut, true);
            stream.runUntil(Integer.MAX_VALUE, () -> peersDown() > downBefore, "B never found A down while cut off");
            final long holdUntil = System.nanoTime() + HOLD_NS;
            stream.runUntil(Integer.MAX_VALUE, () -> System.nanoTime() - holdUntil >= 0, "hold");
            linksB.partition(false, false);
            stream.healed = stream.posted;
            final long downInCut = peersDown() - downBefore;
            assertTrue(linksB.cut() > 0, "the partition dropped nothing");

            final int total = stream.posted + 3000;
            final boolean settled = stream.runUntil(total, () -> total == stream.posted && stream.settled(), null);
            assertTrue(settled, "stalled after the cut healed: " + stream);
            stream.check(strict);
            System.out.println("aeron wrongly down (" + (dataCut ? "both directions" : "status messages") +
                " cut at B" + (injectsOnly ? ", B only received" : "") + "): " + stream + ", falls during the cut " +
                downInCut + ", in all " + (peersDown() - downBefore) + ", " + linksB.cut() + " datagrams cut");
        }
    }

    /**
     * A's stream to B and what became of each message: sequence number {@code seq} is an inject when
     * {@code seq % 3 == 0}, a send when 1, a delivery-complete send when 2 (or all injects).
     */
    private static final class Stream
    {
        final AeronDriverSide from;
        final boolean injectsOnly;
        final long dest;
        final AeronDriverSide to;
        final UnsafeBuffer sendBuffers = AeronNode.direct(SLOTS * 8);
        final UnsafeBuffer value = AeronNode.direct(8);
        final UnsafeBuffer[] slots = new UnsafeBuffer[POSTED];
        final Message message = new Message();
        /** Per sequence number: a send's state ({@link #PENDING}, {@link #DONE}, {@link #FAILED}). */
        final byte[] sendState = new byte[CAPACITY];
        final boolean[] received = new boolean[CAPACITY];
        final CompletionEntry entry = new CompletionEntry();
        final CompletionErrorEntry error = new CompletionErrorEntry();
        final IdleStrategy idle = new BackoffIdleStrategy(1, 10, 1_000, 1_000_000);
        int posted;
        int healed = Integer.MAX_VALUE;
        boolean healOnArrival;
        int sendsPosted;
        int sendsDone;
        int sendsFailed;
        int injectErrors;
        int receivedCount;
        int injectsReceived;
        int lostInCut;
        long lastReceived = -1;

        Stream(final AeronDriverSide from, final long dest, final AeronDriverSide to, final boolean injectsOnly)
        {
            this.injectsOnly = injectsOnly;
            this.from = from;
            this.dest = dest;
            this.to = to;
            for (int i = 0; i < POSTED; i++)
            {
                slots[i] = AeronNode.direct(8);
                assertEquals(0, to.ep.trecv(slots[i], 0, 8, AddressVector.ADDR_UNSPEC, DATA_TAG, 0, i));
            }
        }

        /**
         * The cut healed, but what is sent before the receiver's driver made its image again is lost: messages
         * posted before the next arrival count as offered into the cut.
         */
        void healOnNextArrival()
        {
            healOnArrival = true;
        }

        boolean isInject(final int seq)
        {
            return injectsOnly || 0 == seq % 3;
        }

        boolean isDeliveryComplete(final int seq)
        {
            return !injectsOnly && 2 == seq % 3;
        }

        /**
         * Post (up to {@code limit} messages in all) and take completions until {@code condition} holds.
         *
         * @param what the failure when the condition does not hold within {@link #WAIT_NS}; null: no failure.
         * @return true when the condition holds.
         */
        boolean runUntil(final int limit, final BooleanSupplier condition, final String what)
        {
            final long deadline = System.nanoTime() + WAIT_NS;
            while (!condition.getAsBoolean())
            {
                if (System.nanoTime() - deadline >= 0)
                {
                    assertTrue(null == what, what + ": " + this);
                    return false;
                }
                idle.idle(post(limit) + senderCompletions() + arrivals());
            }
            return true;
        }

        private int post(final int limit)
        {
            int work = 0;
            // At most a window of messages neither arrived nor failed: A streams on through the cut, boundedly.
            while (posted < Math.min(limit, CAPACITY) && posted - receivedCount - sendsFailed - injectErrors < WINDOW)
            {
                final int seq = posted;
                final int rc;
                if (isInject(seq))
                {
                    value.putLong(0, seq);
                    rc = from.ep.tinject(value, 0, 8, dest, DATA_TAG);
                }
                else
                {
                    final int slot = seq % SLOTS;
                    if (seq >= SLOTS && !isInject(seq - SLOTS) && PENDING == sendState[seq - SLOTS])
                    {
                        // Its buffer is still in use: wait for that send's completion (a stall is reported).
                        break;
                    }
                    sendBuffers.putLong(slot * 8, seq);
                    if (isDeliveryComplete(seq))
                    {
                        message.buffer(sendBuffers, slot * 8, 8).addr(dest).tag(DATA_TAG).context(seq + 1);
                        rc = from.ep.tsendmsg(message, Flags.COMPLETION | Flags.DELIVERY_COMPLETE);
                    }
                    else
                    {
                        rc = from.ep.tsend(sendBuffers, slot * 8, 8, dest, DATA_TAG, seq + 1);
                    }
                }
                if (Errno.EAGAIN.negated() == rc)
                {
                    break;
                }
                assertEquals(0, rc, "post " + seq);
                if (!isInject(seq))
                {
                    sendsPosted++;
                }
                posted++;
                work++;
            }
            return work;
        }

        private int senderCompletions()
        {
            int work = 0;
            int n;
            while (Errno.EAGAIN.negated() != (n = from.cq.read(entry)))
            {
                work++;
                if (1 == n)
                {
                    final int seq = (int) entry.context() - 1;
                    assertTrue(seq >= 0 && !isInject(seq) && PENDING == sendState[seq], "completion of " + seq);
                    sendState[seq] = DONE;
                    sendsDone++;
                }
                else if (Errno.EAVAIL.negated() == n)
                {
                    assertEquals(1, from.cq.readErr(error));
                    assertTrue(Errno.EIO.value() == error.err() || Errno.EHOSTUNREACH.value() == error.err(),
                        "sender error " + error.err());
                    if (0 == error.context())
                    {
                        injectErrors++;
                    }
                    else
                    {
                        final int seq = (int) error.context() - 1;
                        assertTrue(seq >= 0 && !isInject(seq) && PENDING == sendState[seq], "error of " + seq);
                        sendState[seq] = FAILED;
                        sendsFailed++;
                    }
                }
                else
                {
                    fail("sender CQ read " + n);
                }
            }
            return work;
        }

        private int arrivals()
        {
            int work = 0;
            int n;
            while (1 == (n = to.cq.read(entry)))
            {
                work++;
                if (healOnArrival)
                {
                    healOnArrival = false;
                    healed = posted;
                }
                final int slot = (int) entry.context();
                final long seq = slots[slot].getLong(0);
                if (seq <= lastReceived || seq >= posted)
                {
                    fail(seq + " arrived after " + lastReceived + " (duplicated, reordered or never sent): " + this);
                }
                lastReceived = seq;
                received[(int) seq] = true;
                receivedCount++;
                if (isInject((int) seq))
                {
                    injectsReceived++;
                }
                assertEquals(0, to.ep.trecv(slots[slot], 0, 8, AddressVector.ADDR_UNSPEC, DATA_TAG, 0, slot));
            }
            if (Errno.EAVAIL.negated() == n)
            {
                to.cq.readErr(error);
                fail("receiver error completion " + error.err() + ": " + this);
            }
            return work;
        }

        /**
         * @return true when every send completed and the last message arrived (arrivals are in order: nothing
         * earlier can arrive later).
         */
        boolean settled()
        {
            return sendsDone + sendsFailed == sendsPosted && (0 == posted || lastReceived == posted - 1 ||
                (!isInject(posted - 1) && FAILED == sendState[posted - 1]));
        }

        /**
         * @param strict true: every message not reported failed must have arrived; false: transmit-complete ones
         *               offered before the cut healed may be missing (lost in Aeron), delivery-complete ones not.
         */
        void check(final boolean strict)
        {
            final StringBuilder wrong = new StringBuilder();
            int wrongCount = 0;
            int injectsMissing = 0;
            for (int seq = 0; seq < posted; seq++)
            {
                final boolean lost = !received[seq] && (isInject(seq) || DONE == sendState[seq]);
                if (isInject(seq) && lost)
                {
                    injectsMissing++;
                }
                if (!lost)
                {
                    continue;
                }
                if (strict || isDeliveryComplete(seq) || seq >= healed)
                {
                    if (isInject(seq) && strict)
                    {
                        continue;
                    }
                    if (wrongCount++ < 8)
                    {
                        wrong.append(' ').append(seq).append(isInject(seq) ? " inject" : " send").append(" lost;");
                    }
                }
                else
                {
                    lostInCut++;
                }
            }
            assertEquals(0, wrongCount, "completed, not delivered:" + wrong + " " + this);
            if (strict)
            {
                assertEquals(injectErrors, injectsMissing, "injects lost without an error: " + this);
            }
            // What A's publication can have sent while B had no image of it: a grant into the cut, and a second one
            // when B comes back (and A mirrors it, its account starting over) before Aeron made that image again.
            assertTrue(lostInCut <= 2 * GRANT, "lost in the cut: " + this);
        }

        @Override
        public String toString()
        {
            return posted + " posted (" + sendsDone + " sends completed, " + sendsFailed + " failed, " +
                injectErrors + " inject errors), " + receivedCount + " arrived (" + injectsReceived +
                " injects), last " + lastReceived + ", " + lostInCut + " transmit-complete lost in the cut";
        }
    }
}
