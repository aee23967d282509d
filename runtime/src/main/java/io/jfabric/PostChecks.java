package io.jfabric;

import io.jfabric.agent.CommandDescriptor;
import io.jfabric.agent.CommandProxy;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;

import java.nio.ByteBuffer;

/**
 * The argument checks every family of posts shares: buffer addresses (direct, in bounds, writable where the
 * runtime writes), iovs of whole buffers, remote lists, flag normalisation and pin holders.
 * <p>
 * Stateless: static methods only, called on the posting thread. Allocation-free.
 */
final class PostChecks
{
    /** Bits an application must not set: the command encoding's own. */
    static final long INTERNAL_FLAGS = CommandProxy.INTERNAL_FLAGS;
    /**
     * FI_INJECT on a call that still completes (tx op_flags, the msg forms): {@link #copyOnInject} turns it into
     * this internal bit, so that only the inject calls, which keep {@link Flags#INJECT}, complete silently.
     */
    static final long COPY = CommandDescriptor.FLAG_INLINE;
    /** The remote list of a post that has none. */
    static final Message NO_REMOTE = new Message();

    private PostChecks()
    {
    }

    /**
     * FI_INJECT given to a call that completes (op_flags, a msg form) becomes {@link #COPY}: copied at post,
     * completed as usual (fi_msg(3): only the inject calls generate no completion).
     *
     * @param flags the application's flags.
     * @return the flags the post encodes.
     */
    static long copyOnInject(final long flags)
    {
        final long f = flags & ~INTERNAL_FLAGS;
        return (f & Flags.INJECT) != 0 ? (f & ~Flags.INJECT) | COPY : f;
    }

    /**
     * The native address of {@code length} bytes at {@code offset} of a direct buffer.
     *
     * @param buffer the buffer (heap buffers are refused).
     * @param offset start.
     * @param length bytes.
     * @return the address, or -1 for a null, heap or too short buffer.
     */
    static long address(final DirectBuffer buffer, final int offset, final int length)
    {
        if (null == buffer || null != buffer.byteArray() || offset < 0 || length < 0 ||
            (long) offset + length > buffer.capacity())
        {
            return -1;
        }
        return buffer.addressOffset() + offset;
    }

    /**
     * As {@link #address(DirectBuffer, int, int)} for a {@link ByteBuffer}.
     *
     * @param buffer the buffer (must be direct).
     * @param offset start.
     * @param length bytes.
     * @return the address, or -1.
     */
    static long address(final ByteBuffer buffer, final int offset, final int length)
    {
        if (null == buffer || !buffer.isDirect() || offset < 0 || length < 0 ||
            (long) offset + length > buffer.capacity())
        {
            return -1;
        }
        return BufferUtil.address(buffer) + offset;
    }

    /**
     * The address of a buffer the runtime will write into (a receive, an RMA read's destination, atomic results):
     * as {@link #address(DirectBuffer, int, int)}, and -1 for a read-only buffer.
     *
     * @param buffer the buffer.
     * @param offset start.
     * @param length bytes.
     * @return the address, or -1.
     */
    static long target(final DirectBuffer buffer, final int offset, final int length)
    {
        return null != buffer && readOnly(buffer.byteBuffer()) ? -1 : address(buffer, offset, length);
    }

    /**
     * As {@link #target(DirectBuffer, int, int)} for a {@link ByteBuffer}.
     *
     * @param buffer the buffer.
     * @param offset start.
     * @param length bytes.
     * @return the address, or -1.
     */
    static long target(final ByteBuffer buffer, final int offset, final int length)
    {
        return readOnly(buffer) ? -1 : address(buffer, offset, length);
    }

    private static boolean readOnly(final ByteBuffer buffer)
    {
        return null != buffer && buffer.isReadOnly();
    }

    /**
     * Is one of the first {@code count} buffers read-only? (Call after {@link #iovBytes} accepted them.)
     *
     * @param iov   the buffers.
     * @param count how many to look at.
     * @return true when one of them cannot be written.
     */
    static boolean readOnly(final DirectBuffer[] iov, final int count)
    {
        for (int k = 0; k < count; k++)
        {
            if (readOnly(iov[k].byteBuffer()))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Bytes of an iov of whole direct buffers ({@code count} from 1 to {@code limit}, each a multiple of
     * {@code elementSize}), or -1 when it is not one.
     *
     * @param iov         the buffers.
     * @param count       how many.
     * @param limit       the iov limit.
     * @param elementSize bytes each buffer must be a multiple of.
     * @return the total, or -1.
     */
    static long iovBytes(final DirectBuffer[] iov, final int count, final int limit, final int elementSize)
    {
        if (null == iov || count < 1 || count > limit || count > iov.length)
        {
            return -1;
        }
        long total = 0;
        for (int k = 0; k < count; k++)
        {
            final DirectBuffer buffer = iov[k];
            if (null == buffer || address(buffer, 0, buffer.capacity()) < 0 || 0 != buffer.capacity() % elementSize)
            {
                return -1;
            }
            total += buffer.capacity();
        }
        return total;
    }

    /**
     * A message with a remote list ({@link Message#rmaIov}); else the command carries none.
     *
     * @param remote the message, or null.
     * @return {@code remote}, or {@link #NO_REMOTE}.
     */
    static Message remoteList(final Message remote)
    {
        return null == remote || remote.rmaCount <= 0 ? NO_REMOTE : remote;
    }

    /**
     * A remote list is usable: 1 to {@code limit} entries, arrays long enough, lengths not negative and adding up
     * to the local total.
     *
     * @param remote the list (from {@link #remoteList}, not {@link #NO_REMOTE}).
     * @param total  the local total in bytes.
     * @param limit  the endpoint's {@code rma_iov_limit}.
     * @return true when usable.
     */
    static boolean remoteListFits(final Message remote, final long total, final int limit)
    {
        final int n = remote.rmaCount;
        if (n > limit || null == remote.rmaAddresses || null == remote.rmaLengths || null == remote.rmaKeys ||
            remote.rmaAddresses.length < n || remote.rmaLengths.length < n || remote.rmaKeys.length < n)
        {
            return false;
        }
        long sum = 0;
        for (int k = 0; k < n; k++)
        {
            if (remote.rmaLengths[k] < 0)
            {
                return false;
            }
            sum += remote.rmaLengths[k];
        }
        return sum == total;
    }

    /**
     * The object that owns a buffer's memory, to pin while an operation uses it: a {@link ByteBuffer} (an Agrona
     * buffer's {@code byteBuffer()}: the wrapper itself may be re-wrapped by the application), or null for raw
     * memory the collector does not manage.
     *
     * @param buffer a {@link DirectBuffer}, a {@link ByteBuffer} or null.
     * @return the holder, or null.
     */
    static Object holder(final Object buffer)
    {
        return buffer instanceof DirectBuffer ? ((DirectBuffer) buffer).byteBuffer() : buffer;
    }
}
