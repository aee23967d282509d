package io.jfabric;

import io.jfabric.agent.CommandDescriptor;
import org.agrona.DirectBuffer;

import static io.jfabric.PostChecks.COPY;

/**
 * The RMA calls whose shape needs more than the generic post paths of {@link MessageOps}: the msg forms (one
 * buffer or an iov, a remote list) and a vector read of one buffer. The plain write and read calls go straight to
 * {@link MessageOps} (the tag field carries the remote address).
 * <p>
 * Threading: safe from any number of posting threads (no mutable state). Allocation-free.
 */
final class RmaOps
{
    private final MessageOps messages;

    RmaOps(final MessageOps messages)
    {
        this.messages = messages;
    }

    /**
     * {@code fi_writemsg}: one buffer (copied with FI_INJECT) or an iov (gathered into the command with INJECT).
     *
     * @param msg   the message.
     * @param flags the application's flags.
     * @return 0 or a negative errno.
     */
    int writemsg(final Message msg, final long flags)
    {
        if (null == msg)
        {
            return Errno.EINVAL.negated();
        }
        final long f = PostChecks.copyOnInject(flags);
        if (msg.iovCount > 0)
        {
            return messages.postIov(CommandDescriptor.OP_WRITE, f, msg.context, msg.iov, msg.iovCount, msg.addr,
                msg.remoteAddress, msg.data, msg.key, msg);
        }
        if ((f & COPY) != 0)
        {
            return messages.postInline(CommandDescriptor.OP_WRITE, f, msg.context, msg.buffer, msg.offset, -1, null,
                0, msg.length, msg.addr, msg.remoteAddress, msg.data, msg.key, msg);
        }
        return messages.post(CommandDescriptor.OP_WRITE, f, msg.context, msg.buffer,
            PostChecks.address(msg.buffer, msg.offset, msg.length), msg.length, msg.addr, msg.remoteAddress, msg.data,
            msg.key, msg);
    }

    /**
     * {@code fi_readv} over two or more buffers (the endpoint sends one buffer through {@code read}).
     *
     * @param flags         the flags.
     * @param iov           the buffers.
     * @param count         how many.
     * @param src           target.
     * @param remoteAddress offset in the target region.
     * @param key           region key.
     * @param context       op context.
     * @return 0 or a negative errno.
     */
    int readv(
        final long flags, final DirectBuffer[] iov, final int count, final long src, final long remoteAddress,
        final long key, final long context)
    {
        return messages.postIov(CommandDescriptor.OP_READ, flags, context, iov, count, src, remoteAddress, 0, key,
            null);
    }

    /**
     * {@code fi_readmsg}: one buffer or an iov, and a remote range or list; FI_INJECT means nothing for a read.
     *
     * @param msg   the message.
     * @param flags the application's flags.
     * @return 0 or a negative errno.
     */
    int readmsg(final Message msg, final long flags)
    {
        if (null == msg)
        {
            return Errno.EINVAL.negated();
        }
        final long f = flags & ~(Flags.INJECT | COPY);
        if (msg.iovCount > 0)
        {
            return messages.postIov(CommandDescriptor.OP_READ, f, msg.context, msg.iov, msg.iovCount, msg.addr,
                msg.remoteAddress, 0, msg.key, msg);
        }
        return messages.post(CommandDescriptor.OP_READ, f, msg.context, msg.buffer,
            PostChecks.target(msg.buffer, msg.offset, msg.length), msg.length, msg.addr, msg.remoteAddress, 0,
            msg.key, msg);
    }
}
