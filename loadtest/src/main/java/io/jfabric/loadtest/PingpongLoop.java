package io.jfabric.loadtest;

import io.jfabric.Errno;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;

/**
 * The measured loops of a ping-pong, one per side, over a {@link PingpongEndpoint}:
 * <ul>
 *     <li>{@link #ping}: (the client) post the receive, read the clock, send, wait for the answer, read the
 *     clock, record the round-trip time; repeat.</li>
 *     <li>{@link #pong}: (the server, whose first receive was posted with {@link PingpongEndpoint#postRecv} before
 *     the client was told to start) wait for a message, post the next receive, answer; repeat.</li>
 * </ul>
 * A receive is always posted before its message can arrive, so no message takes the unexpected path.
 * <p>
 * Round trips are recorded without coordinated omission: a ping-pong sends the next message only after the
 * previous answer, so there is no schedule a stall could hide measurements from; each round trip is timed on its
 * own with {@link System#nanoTime()} and recorded with {@link Histogram#recordValue(long)}.
 * <p>
 * With {@code check}, every payload is filled with a pattern that depends on the message's sequence number and
 * verified on arrival (outside the timed section on the pinging side).
 * <p>
 * The loops allocate nothing: buffers, the completion entry and the histogram exist before they start, and the
 * outcome goes into a reusable {@link Stats}. Not thread-safe: one thread per side.
 */
public final class PingpongLoop
{
    private static final byte[] ALPHABET =
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".getBytes(StandardCharsets.US_ASCII);
    private static final int SEED = 7;

    private PingpongLoop()
    {
    }

    /**
     * Run {@code count} round trips as the pinging side.
     *
     * @param side      the side.
     * @param size      message size in bytes.
     * @param count     round trips.
     * @param firstSeq  sequence number of the first message (for the integrity pattern).
     * @param check     fill and verify payloads.
     * @param histogram where round-trip times (ns) go; null for warm-up. Values above its highest trackable value
     *                  are recorded as that value.
     * @param stats     receives the outcome.
     */
    public static void ping(
        final PingpongEndpoint side, final int size, final int count, final int firstSeq, final boolean check,
        final Histogram histogram, final Stats stats)
    {
        final UnsafeBuffer tx = side.txBuffer();
        final UnsafeBuffer rx = side.rxBuffer();
        final long highest = null == histogram ? 0 : histogram.getHighestTrackableValue();
        stats.reset();
        final long start = System.nanoTime();
        int done = 0;
        int rc = 0;
        while (done < count)
        {
            final int seq = firstSeq + done;
            if (check)
            {
                fill(tx, size, seq);
            }
            rc = side.postRecv(size);
            if (0 != rc)
            {
                break;
            }
            final long t0 = System.nanoTime();
            rc = side.send(size);
            if (0 != rc)
            {
                break;
            }
            rc = side.awaitRecv(size);
            final long t1 = System.nanoTime();
            if (0 != rc)
            {
                break;
            }
            if (null != histogram)
            {
                histogram.recordValue(Math.min(t1 - t0, highest));
            }
            if (check)
            {
                final int bad = verify(rx, size, seq);
                if (bad >= 0)
                {
                    stats.corrupt(seq, bad);
                    rc = Errno.EIO.negated();
                    break;
                }
            }
            done++;
        }
        stats.finish(done, rc, System.nanoTime() - start);
    }

    /**
     * Answer {@code count} messages as the ponging side. The receive of the first one must already be posted;
     * no receive is left posted when the loop ends normally.
     *
     * @param side     the side.
     * @param size     message size.
     * @param count    messages to answer.
     * @param firstSeq sequence number of the first message.
     * @param more     whether another run of this size follows that needs a receive posted now (the measured
     *                 run after the warm-up).
     * @param check    verify the pings and fill the answers.
     * @param stats    receives the outcome.
     */
    public static void pong(
        final PingpongEndpoint side, final int size, final int count, final int firstSeq, final boolean more,
        final boolean check, final Stats stats)
    {
        final UnsafeBuffer tx = side.txBuffer();
        final UnsafeBuffer rx = side.rxBuffer();
        stats.reset();
        final long start = System.nanoTime();
        int done = 0;
        int rc = 0;
        while (done < count)
        {
            final int seq = firstSeq + done;
            rc = side.awaitRecv(size);
            if (0 != rc)
            {
                break;
            }
            if (check)
            {
                final int bad = verify(rx, size, seq);
                if (bad >= 0)
                {
                    stats.corrupt(seq, bad);
                    rc = Errno.EIO.negated();
                    break;
                }
                fill(tx, size, seq);
            }
            if (more || done + 1 < count)
            {
                rc = side.postRecv(size);
                if (0 != rc)
                {
                    break;
                }
            }
            rc = side.send(size);
            if (0 != rc)
            {
                break;
            }
            done++;
        }
        stats.finish(done, rc, System.nanoTime() - start);
    }

    /**
     * Fill {@code length} bytes with the pattern of message {@code seq}: letters and digits starting at an
     * offset that moves with the sequence number, so that a stale or misplaced payload does not verify.
     *
     * @param buffer the buffer.
     * @param length bytes.
     * @param seq    the message's sequence number.
     */
    public static void fill(final UnsafeBuffer buffer, final int length, final int seq)
    {
        final byte[] alphabet = ALPHABET;
        int k = start(seq);
        for (int i = 0; i < length; i++)
        {
            buffer.putByte(i, alphabet[k]);
            if (++k == alphabet.length)
            {
                k = 0;
            }
        }
    }

    /**
     * Verify the pattern {@link #fill} wrote.
     *
     * @param buffer the buffer.
     * @param length bytes.
     * @param seq    the message's sequence number.
     * @return -1 when intact, else the offset of the first wrong byte.
     */
    public static int verify(final UnsafeBuffer buffer, final int length, final int seq)
    {
        final byte[] alphabet = ALPHABET;
        int k = start(seq);
        for (int i = 0; i < length; i++)
        {
            if (buffer.getByte(i) != alphabet[k])
            {
                return i;
            }
            if (++k == alphabet.length)
            {
                k = 0;
            }
        }
        return -1;
    }

    private static int start(final int seq)
    {
        return (int) (((seq & 0xFFFF_FFFFL) * SEED) % ALPHABET.length);
    }

    /**
     * The outcome of one loop: round trips (or answers) completed, the status that ended it, the elapsed time,
     * and where a payload was found corrupted.
     * <p>
     * Mutable and reusable; not thread-safe.
     */
    public static final class Stats
    {
        private int completed;
        private int status;
        private long elapsedNs;
        private int corruptSeq = -1;
        private int corruptOffset = -1;

        void reset()
        {
            completed = 0;
            status = 0;
            elapsedNs = 0;
            corruptSeq = -1;
            corruptOffset = -1;
        }

        void corrupt(final int seq, final int offset)
        {
            corruptSeq = seq;
            corruptOffset = offset;
        }

        void finish(final int completed, final int status, final long elapsedNs)
        {
            this.completed = completed;
            this.status = status;
            this.elapsedNs = elapsedNs;
        }

        /**
         * @return round trips (pinging side) or answers (ponging side) completed.
         */
        public int completed()
        {
            return completed;
        }

        /**
         * @return 0 when every one completed, else the {@code -errno} that stopped the loop.
         */
        public int status()
        {
            return status;
        }

        /**
         * @return nanoseconds from the loop's start to its end.
         */
        public long elapsedNs()
        {
            return elapsedNs;
        }

        /**
         * @return sequence number of the corrupted message, or -1.
         */
        public int corruptSeq()
        {
            return corruptSeq;
        }

        /**
         * @return offset of the first wrong byte, or -1.
         */
        public int corruptOffset()
        {
            return corruptOffset;
        }
    }
}
