package io.jfabric.provider.gni;

/**
 * How a rendezvous receiver pulls a message (GNI.md §2.4) from the sender's source pieces (one registered buffer, or
 * each buffer of an iov send) into the receive's destination segments (one buffer, an iov, cut where the receive
 * truncates), with no staging buffer: the message's first {@link #length()} bytes are cut where a piece or a segment
 * ends; of each cut, the 4-aligned middle of its remote range goes with one GET straight into the segment, and the
 * remote words that hold its unaligned ends (a word straddling two pieces or two segments, the word where a receive
 * truncates: upstream's {@code GET_TAIL}) are fetched once each into the receiver's bounce area and copied out to the
 * one or more segments that share them. With one source piece the message's own head and tail bytes (the words
 * around its unaligned first and last byte) come in the START instead ({@link #headEnd()}, {@link #tailStart()}), as
 * upstream's.
 * <p>
 * At most {@value #MAX_PIECES} pieces and {@value #MAX_PIECES} segments: at most {@value #MAX_GETS} straight GETs,
 * {@value #MAX_WORDS} bounced words and {@value #MAX_WORDS} copies out of them.
 * <p>
 * Threading: the domain agent's thread only (one plan, reused per pull).
 */
final class GniPullPlan
{
    /** Source pieces, and destination segments, at most (fi_gni's msg iov limit). */
    static final int MAX_PIECES = GniOp.MAX_SEGMENTS;
    /** Cuts of the message: a piece or a segment ends at each, so at most pieces + segments - 1. */
    static final int MAX_GETS = 2 * MAX_PIECES;
    /** Each cut has at most two unaligned ends. */
    static final int MAX_WORDS = 2 * MAX_GETS;

    private final long[] pieceAddress = new long[MAX_PIECES];
    private final long[] pieceLength = new long[MAX_PIECES];
    private int pieces;
    private final long[] segmentAddress = new long[MAX_PIECES];
    private final long[] segmentLength = new long[MAX_PIECES];
    private int segments;

    private final int[] getPiece = new int[MAX_GETS];
    private final int[] getSegment = new int[MAX_GETS];
    private final long[] getRemote = new long[MAX_GETS];
    private final long[] getLocal = new long[MAX_GETS];
    private final long[] getLength = new long[MAX_GETS];
    private int gets;

    private final int[] wordPiece = new int[MAX_WORDS];
    private final long[] wordRemote = new long[MAX_WORDS];
    private int words;

    private final int[] copyWord = new int[MAX_WORDS];
    private final int[] copyFrom = new int[MAX_WORDS];
    private final long[] copyTo = new long[MAX_WORDS];
    private final int[] copyLength = new int[MAX_WORDS];
    private int copies;

    private long messageLength;
    private long length;
    private long headEnd;
    private long tailStart;

    /**
     * Start a plan.
     *
     * @param messageLength the message's length (the sum of the pieces' lengths).
     */
    void reset(final long messageLength)
    {
        this.messageLength = messageLength;
        pieces = 0;
        segments = 0;
        gets = 0;
        words = 0;
        copies = 0;
        length = 0;
    }

    /**
     * @param address the piece's first byte at the sender.
     * @param length  its bytes (0: skipped).
     * @return false when there are already {@value #MAX_PIECES}.
     */
    boolean piece(final long address, final long length)
    {
        if (0 == length)
        {
            return true;
        }
        if (pieces == MAX_PIECES)
        {
            return false;
        }
        pieceAddress[pieces] = address;
        pieceLength[pieces++] = length;
        return true;
    }

    /**
     * @param address the segment's first byte here.
     * @param length  bytes of the message it takes (0: skipped).
     * @return false when there are already {@value #MAX_PIECES}.
     */
    boolean segment(final long address, final long length)
    {
        if (0 == length)
        {
            return true;
        }
        if (segments == MAX_PIECES)
        {
            return false;
        }
        segmentAddress[segments] = address;
        segmentLength[segments++] = length;
        this.length += length;
        return true;
    }

    /**
     * Cut the message once pieces and segments are given.
     *
     * @return false when the segments take more than the message or the pieces do not add up to it.
     */
    boolean plan()
    {
        long sum = 0;
        for (int j = 0; j < pieces; j++)
        {
            sum += pieceLength[j];
        }
        if (sum != messageLength || length > messageLength)
        {
            return false;
        }
        if (1 == pieces)
        {
            final long a = pieceAddress[0];
            headEnd = Math.min(messageLength, ((a + 3) & ~3L) - a);
            tailStart = Math.max(headEnd, ((a + messageLength) & ~3L) - a);
        }
        else
        {
            headEnd = 0;
            tailStart = messageLength;
        }
        long at = 0;
        int j = 0;
        long inPiece = 0;
        int k = 0;
        long inSegment = 0;
        while (at < length)
        {
            final long cut = Math.min(pieceLength[j] - inPiece, segmentLength[k] - inSegment);
            cut(at, cut, j, pieceAddress[j] + inPiece, k, segmentAddress[k] + inSegment);
            at += cut;
            inPiece += cut;
            inSegment += cut;
            if (inPiece == pieceLength[j])
            {
                j++;
                inPiece = 0;
            }
            if (inSegment == segmentLength[k])
            {
                k++;
                inSegment = 0;
            }
        }
        return true;
    }

    private void cut(
        final long at, final long n, final int piece, final long remote, final int segment, final long local)
    {
        // Bytes the START carries are not pulled.
        final long lo = Math.max(at, headEnd);
        final long hi = Math.min(at + n, tailStart);
        if (lo >= hi)
        {
            return;
        }
        final long rs = remote + (lo - at);
        final long re = rs + (hi - lo);
        final long ls = local + (lo - at);
        final long middleStart = (rs + 3) & ~3L;
        final long middleEnd = re & ~3L;
        final long leadEnd = middleStart > rs ? Math.min(middleStart, re) : rs;
        if (leadEnd > rs)
        {
            bounce(piece, rs, ls, (int) (leadEnd - rs));
        }
        if (middleStart < middleEnd)
        {
            getPiece[gets] = piece;
            getSegment[gets] = segment;
            getRemote[gets] = middleStart;
            getLocal[gets] = ls + (middleStart - rs);
            getLength[gets++] = middleEnd - middleStart;
        }
        final long trailStart = Math.max(middleEnd, leadEnd);
        if (trailStart < re)
        {
            bounce(piece, trailStart, ls + (trailStart - rs), (int) (re - trailStart));
        }
    }

    private void bounce(final int piece, final long remote, final long local, final int n)
    {
        final long word = remote & ~3L;
        int w = words - 1;
        if (w < 0 || wordPiece[w] != piece || wordRemote[w] != word)
        {
            w = words++;
            wordPiece[w] = piece;
            wordRemote[w] = word;
        }
        copyWord[copies] = w;
        copyFrom[copies] = (int) (remote - word);
        copyTo[copies] = local;
        copyLength[copies++] = n;
    }

    /**
     * @return the address the message's byte {@code at} goes to (below {@link #length()}).
     */
    long localOf(final long at)
    {
        long from = 0;
        for (int k = 0; k < segments; k++)
        {
            if (at < from + segmentLength[k])
            {
                return segmentAddress[k] + (at - from);
            }
            from += segmentLength[k];
        }
        return 0;
    }

    /**
     * @return bytes moved: the segments' total.
     */
    long length()
    {
        return length;
    }

    /**
     * @return the message's bytes {@code [0, headEnd)} come from the START's head word (one source piece), else 0.
     */
    long headEnd()
    {
        return headEnd;
    }

    /**
     * @return the message's bytes {@code [tailStart, message length)} come from the START's tail word (one source
     * piece), else the message's length.
     */
    long tailStart()
    {
        return tailStart;
    }

    int pieces()
    {
        return pieces;
    }

    int segments()
    {
        return segments;
    }

    long segmentAddress(final int k)
    {
        return segmentAddress[k];
    }

    long segmentLength(final int k)
    {
        return segmentLength[k];
    }

    /**
     * @return whether segment {@code k} takes a straight GET (it is registered for the pull).
     */
    boolean segmentPulled(final int k)
    {
        for (int g = 0; g < gets; g++)
        {
            if (getSegment[g] == k)
            {
                return true;
            }
        }
        return false;
    }

    int gets()
    {
        return gets;
    }

    int getPiece(final int g)
    {
        return getPiece[g];
    }

    int getSegment(final int g)
    {
        return getSegment[g];
    }

    long getRemote(final int g)
    {
        return getRemote[g];
    }

    long getLocal(final int g)
    {
        return getLocal[g];
    }

    long getLength(final int g)
    {
        return getLength[g];
    }

    int words()
    {
        return words;
    }

    int wordPiece(final int w)
    {
        return wordPiece[w];
    }

    long wordRemote(final int w)
    {
        return wordRemote[w];
    }

    int copies()
    {
        return copies;
    }

    int copyWord(final int c)
    {
        return copyWord[c];
    }

    int copyFrom(final int c)
    {
        return copyFrom[c];
    }

    long copyTo(final int c)
    {
        return copyTo[c];
    }

    int copyLength(final int c)
    {
        return copyLength[c];
    }
}
