package io.jfabric.provider.gni;

import io.jfabric.Errno;
import io.jfabric.aries.GniNic;
import io.jfabric.aries.GniRc;
import io.jfabric.aries.MemHandle;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;

/**
 * The rendezvous START (tag 19, GNI.md §2.4) after the 40-byte message header: the sender's source pieces, each
 * registered with its NIC read-only for the receiver's GETs. One piece (a send of one buffer): its NIC handle and
 * address at {@value #HANDLE1}..{@value #ADDRESS}, and the bytes of the message's unaligned head and tail words at
 * {@value #HEAD} and {@value #TAIL}, so that the receiver GETs only aligned words. Several (an iov send, upstream's
 * tag 23 with its per-buffer data): each buffer registered as it is, no gather copy, listed after the fixed part as
 * {handle, address, length}; the receiver bounces the unaligned words of every piece ({@link GniPullPlan}).
 * <p>
 * Layout: 40 handle qword 1, 48 qword 2, 56 address, 64 the sender's operation id (for the FIN), 68 head bytes,
 * 72 tail bytes, 76 pieces (0 or 1: one), 80.. {@value #PIECE_BYTES} bytes a piece when there are several.
 */
final class GniRendezvousStart
{
    static final int HANDLE1 = 40;
    static final int HANDLE2 = 48;
    static final int ADDRESS = 56;
    static final int OP_ID = 64;
    static final int HEAD = 68;
    static final int TAIL = 72;
    static final int PIECES = 76;
    /** The fixed part: a START of one piece. */
    static final int BASE_LENGTH = 80;
    static final int PIECE_BYTES = 32;
    /** The longest START: {@value GniPullPlan#MAX_PIECES} pieces. */
    static final int MAX_LENGTH = BASE_LENGTH + PIECE_BYTES * GniPullPlan.MAX_PIECES;

    private GniRendezvousStart()
    {
    }

    /**
     * Register each non-empty local segment of a send read-only with the NIC, in {@code op.handle(j)}, j = 0, 1, ...
     * (released by the back-end's {@code releaseLocal} on the FIN or a failure).
     *
     * @return 0, or {@code -ENOMEM} when the NIC refuses one (those already registered are kept for the release).
     */
    static int register(final GniOp op, final GniNic nic)
    {
        int j = 0;
        for (int i = 0; i < op.segments; i++)
        {
            final long n = op.segmentLength[i];
            if (n > 0)
            {
                if (GniRc.SUCCESS != nic.memRegister(op.segmentAddress[i], n, null, GniNic.MEM_READ_ONLY, 0,
                    op.handle(j)))
                {
                    return -Errno.ENOMEM.value();
                }
                op.handleCount = ++j;
            }
        }
        op.registered = true;
        return 0;
    }

    /**
     * Write the START's body after the message header already in {@code header} (the handles from {@link #register}).
     *
     * @return the START's length.
     */
    static int write(final MutableDirectBuffer header, final GniOp op)
    {
        final int pieces = op.handleCount;
        header.putInt(OP_ID, op.id);
        header.putInt(HEAD, 0);
        header.putInt(TAIL, 0);
        header.putInt(PIECES, pieces);
        int j = 0;
        for (int i = 0; i < op.segments && j < pieces; i++)
        {
            final long n = op.segmentLength[i];
            if (n > 0)
            {
                final MemHandle h = op.handles[j];
                if (0 == j)
                {
                    header.putLong(HANDLE1, h.qword1());
                    header.putLong(HANDLE2, h.qword2());
                    header.putLong(ADDRESS, op.segmentAddress[i]);
                }
                if (pieces > 1)
                {
                    final int at = BASE_LENGTH + j * PIECE_BYTES;
                    header.putLong(at, h.qword1());
                    header.putLong(at + 8, h.qword2());
                    header.putLong(at + 16, op.segmentAddress[i]);
                    header.putLong(at + 24, n);
                }
                j++;
            }
        }
        if (1 == pieces)
        {
            // The bytes of the unaligned head and tail words travel in the START (GniPullPlan's headEnd/tailStart).
            final long a = header.getLong(ADDRESS);
            final long n = op.length;
            final long headEnd = Math.min(n, ((a + 3) & ~3L) - a);
            final long tailStart = Math.max(headEnd, ((a + n) & ~3L) - a);
            for (int i = 0; i < headEnd; i++)
            {
                header.putByte(HEAD + i, UnsafeApi.getByte(a + i));
            }
            for (long i = tailStart; i < n; i++)
            {
                header.putByte(TAIL + (int) (i - tailStart), UnsafeApi.getByte(a + i));
            }
        }
        return length(pieces);
    }

    /**
     * @return a START's length with that many pieces.
     */
    static int length(final int pieces)
    {
        return pieces > 1 ? BASE_LENGTH + pieces * PIECE_BYTES : BASE_LENGTH;
    }

    /**
     * @return the pieces of the START at {@code o} (1 for a one-piece START).
     */
    static int pieces(final DirectBuffer m, final int o)
    {
        final int pieces = m.getInt(o + PIECES);
        return pieces <= 1 ? 1 : Math.min(pieces, GniPullPlan.MAX_PIECES);
    }

    /**
     * @return piece {@code j}'s NIC handle qword 1.
     */
    static long handle1(final DirectBuffer m, final int o, final int j)
    {
        return m.getLong(o + (pieces(m, o) > 1 ? BASE_LENGTH + j * PIECE_BYTES : HANDLE1));
    }

    /**
     * @return piece {@code j}'s NIC handle qword 2.
     */
    static long handle2(final DirectBuffer m, final int o, final int j)
    {
        return m.getLong(o + (pieces(m, o) > 1 ? BASE_LENGTH + j * PIECE_BYTES + 8 : HANDLE2));
    }

    /**
     * @return piece {@code j}'s address at the sender.
     */
    static long address(final DirectBuffer m, final int o, final int j)
    {
        return m.getLong(o + (pieces(m, o) > 1 ? BASE_LENGTH + j * PIECE_BYTES + 16 : ADDRESS));
    }

    /**
     * @return piece {@code j}'s length ({@code messageLength} for a one-piece START).
     */
    static long length(final DirectBuffer m, final int o, final int j, final long messageLength)
    {
        return pieces(m, o) > 1 ? m.getLong(o + BASE_LENGTH + j * PIECE_BYTES + 24) : messageLength;
    }
}
