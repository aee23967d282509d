package io.jfabric.provider.gni;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * The GETs of a read into several local buffers (fi_readv / readmsg with a local iov) from one remote range whose
 * pieces need not be 4-byte aligned, planned as upstream's unaligned GETs (GNI.md 2.5): a GET's remote address and
 * length must be multiples of 4, the local side may be anywhere.
 * <ul>
 *     <li>Below {@link GniBackend#CHAINED_THRESHOLD} bytes in all (upstream's INDIRECT): one GET of the covering
 *     words into the operation's bounce slot, then each buffer's bytes copied out of it.</li>
 *     <li>Otherwise (CHAINED): for each buffer the 4-aligned middle of its remote piece straight into the buffer (FMA
 *     or BTE by its size), and each word that holds a piece's unaligned head or tail (the read's ends and the
 *     boundaries between buffers that fall inside a word) once into the bounce slot, its bytes copied out to the
 *     one or two buffers that share it when every GET is done.</li>
 * </ul>
 * One planner per back-end (agent thread only); the plan is read right after {@link #plan(GniOp)}, the copies are
 * kept in the operation until its posts complete ({@link #copyOut(GniOp, UnsafeBuffer, int, UnsafeBuffer)}).
 * Allocation-free.
 */
final class GniSplitRead
{
    /** Most GETs of one plan: a middle per buffer and a word per boundary. */
    static final int MAX_GETS = GniOp.MAX_SEGMENTS * 2 + 1;
    /** Post index of the first bounce word (middles use the buffer's index). */
    static final int WORD_POST_BASE = GniOp.MAX_SEGMENTS;

    private final long[] local = new long[MAX_GETS];
    private final long[] remote = new long[MAX_GETS];
    private final long[] length = new long[MAX_GETS];
    private final int[] segment = new int[MAX_GETS];
    private final int[] postIndex = new int[MAX_GETS];
    private final long[] words = new long[GniOp.MAX_SEGMENTS + 1];

    /**
     * Plan the GETs of {@code op} (a read: its local segments, {@code targetRaw} and {@code length} set) and record
     * its copies in the operation.
     *
     * @param op the read.
     * @return the number of GETs planned.
     */
    int plan(final GniOp op)
    {
        op.splitCopies = 0;
        final long r = op.targetRaw;
        final long n = op.length;
        if (n < GniBackend.CHAINED_THRESHOLD)
        {
            final long start = r & ~3L;
            long at = r;
            for (int i = 0; i < op.segments; i++)
            {
                final long piece = op.segmentLength[i];
                if (piece > 0)
                {
                    addCopy(op, op.segmentAddress[i], (int) (at - start), (int) piece);
                    at += piece;
                }
            }
            set(0, 0, start, ((r + n + 3) & ~3L) - start, -1, WORD_POST_BASE);
            return 1;
        }
        int wordCount = 0;
        long at = r;
        for (int i = 0; i <= op.segments; i++)
        {
            if (0 != (at & 3) && (0 == wordCount || words[wordCount - 1] != (at & ~3L)))
            {
                words[wordCount++] = at & ~3L;
            }
            if (i < op.segments)
            {
                at += op.segmentLength[i];
            }
        }
        int gets = 0;
        for (int k = 0; k < wordCount; k++)
        {
            set(gets++, 4L * k, words[k], 4, -1, WORD_POST_BASE + k);
        }
        at = r;
        for (int i = 0; i < op.segments; i++)
        {
            final long s = at;
            final long e = s + op.segmentLength[i];
            at = e;
            if (s == e)
            {
                continue;
            }
            final long up = (s + 3) & ~3L;
            final long down = e & ~3L;
            final long headEnd = Math.min(up, e);
            if (headEnd > s)
            {
                addCopy(op, op.segmentAddress[i], wordOffset(wordCount, s), (int) (headEnd - s));
            }
            final long tailStart = Math.max(down, headEnd);
            if (e > tailStart)
            {
                addCopy(op, op.segmentAddress[i] + (tailStart - s), wordOffset(wordCount, tailStart),
                    (int) (e - tailStart));
            }
            if (down > up)
            {
                set(gets++, op.segmentAddress[i] + (up - s), up, down - up, i, i);
            }
        }
        return gets;
    }

    private int wordOffset(final int wordCount, final long address)
    {
        final long word = address & ~3L;
        for (int k = 0; k < wordCount; k++)
        {
            if (words[k] == word)
            {
                return 4 * k + (int) (address - word);
            }
        }
        throw new IllegalStateException("no bounce word for " + address);
    }

    private static void addCopy(final GniOp op, final long to, final int from, final int bytes)
    {
        final int c = op.splitCopies++;
        op.splitCopyTo[c] = to;
        op.splitCopyFrom[c] = from;
        op.splitCopyLength[c] = bytes;
    }

    private void set(final int k, final long to, final long from, final long bytes, final int seg, final int post)
    {
        local[k] = to;
        remote[k] = from;
        length[k] = bytes;
        segment[k] = seg;
        postIndex[k] = post;
    }

    /**
     * @param k a GET of the last plan.
     * @return its local address: in the bounce slot (an offset into it) when {@link #segment(int)} is -1, else in
     * that buffer.
     */
    long local(final int k)
    {
        return local[k];
    }

    /**
     * @param k a GET of the last plan.
     * @return its remote address (4-aligned).
     */
    long remote(final int k)
    {
        return remote[k];
    }

    /**
     * @param k a GET of the last plan.
     * @return its length (a multiple of 4).
     */
    long length(final int k)
    {
        return length[k];
    }

    /**
     * @param k a GET of the last plan.
     * @return the local buffer it lands in, -1 for the bounce slot.
     */
    int segment(final int k)
    {
        return segment[k];
    }

    /**
     * @param k a GET of the last plan.
     * @return its post index in the operation.
     */
    int postIndex(final int k)
    {
        return postIndex[k];
    }

    /**
     * Copy the pieces that came through the bounce slot into the buffers, once every GET of {@code op} is done.
     *
     * @param op     the read.
     * @param bounce the bounce area.
     * @param at     the operation's slot in it.
     * @param view   a scratch view.
     */
    static void copyOut(final GniOp op, final UnsafeBuffer bounce, final int at, final UnsafeBuffer view)
    {
        for (int c = 0; c < op.splitCopies; c++)
        {
            view.wrap(op.splitCopyTo[c], op.splitCopyLength[c]);
            view.putBytes(0, bounce, at + op.splitCopyFrom[c], op.splitCopyLength[c]);
        }
        op.splitCopies = 0;
    }
}
