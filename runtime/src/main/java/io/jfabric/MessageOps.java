package io.jfabric;

import io.jfabric.agent.CommandDescriptor;
import io.jfabric.agent.CommandProxy;
import io.jfabric.agent.EndpointState;
import io.jfabric.agent.PinTable;
import io.jfabric.ring.CompletionRing;
import org.agrona.DirectBuffer;

import static io.jfabric.PostChecks.COPY;
import static io.jfabric.PostChecks.NO_REMOTE;

/**
 * The post paths of an endpoint's msg, tagged and RMA calls (they differ only by opcode and by the fields the
 * command carries): one buffer, a copied payload (inject), an iov, the msg forms, and receives. Each path checks
 * the arguments, resolves the peer, applies flow control, reserves a completion and pins the buffers
 * ({@link Reservations}), then makes one call to the domain's {@link CommandProxy}; when the command cannot be
 * written everything taken is given back and the call answers {@code -EAGAIN}.
 * <p>
 * Threading: safe from any number of posting threads (no mutable state of its own). Allocation-free.
 */
final class MessageOps
{
    private final Endpoint endpoint;
    private final Reservations reservations;
    private final CommandProxy proxy;
    private final int index;
    private final long maxMessageSize;
    private final long injectSize;
    private final int txIovLimit;
    private final int rxIovLimit;
    private final int rmaIovLimit;
    private final int txSize;
    /** FI_DIRECTED_RECV enabled: without it a receive's src_addr is ignored. */
    private final boolean directedRecv;
    /** The answer for a destination with no peer: ENOTCONN on a MSG endpoint, else EINVAL (negated). */
    private final int noPeer;

    MessageOps(
        final Endpoint endpoint,
        final Reservations reservations,
        final CommandProxy proxy,
        final long maxMessageSize,
        final long injectSize,
        final int txIovLimit,
        final int rxIovLimit,
        final int rmaIovLimit,
        final int txSize,
        final boolean directedRecv)
    {
        this.endpoint = endpoint;
        this.reservations = reservations;
        this.proxy = proxy;
        this.index = endpoint.index();
        this.maxMessageSize = maxMessageSize;
        this.injectSize = injectSize;
        this.txIovLimit = txIovLimit;
        this.rxIovLimit = rxIovLimit;
        this.rmaIovLimit = rmaIovLimit;
        this.txSize = txSize;
        this.directedRecv = directedRecv;
        this.noPeer = endpoint.noPeer();
    }

    /**
     * A msg form of a send ({@code fi_sendmsg}, {@code fi_tsendmsg}): one buffer, copied with FI_INJECT, or an iov.
     *
     * @param op    the opcode.
     * @param msg   the message.
     * @param flags the application's flags.
     * @return 0 or a negative errno.
     */
    int postMsg(final int op, final Message msg, final long flags)
    {
        if (null == msg)
        {
            return Errno.EINVAL.negated();
        }
        final long f = PostChecks.copyOnInject(flags);
        if (msg.iovCount > 0)
        {
            return postIov(op, f, msg.context, msg.iov, msg.iovCount, msg.addr, msg.tag, msg.data, 0, null);
        }
        if ((f & COPY) != 0)
        {
            return postInline(op, f, msg.context, msg.buffer, msg.offset, -1, null, 0, msg.length, msg.addr, msg.tag,
                msg.data, 0, null);
        }
        return post(op, f, msg.context, msg.buffer, PostChecks.address(msg.buffer, msg.offset, msg.length),
            msg.length, msg.addr, msg.tag, msg.data, 0, null);
    }

    /**
     * A msg form of a receive ({@code fi_recvmsg}, {@code fi_trecvmsg}): one buffer, a one-element iov, no buffer
     * for PEEK or DISCARD, or several buffers.
     *
     * @param op    the opcode.
     * @param msg   the message.
     * @param flags the application's flags.
     * @return 0 or a negative errno.
     */
    int postRecvMsg(final int op, final Message msg, final long flags)
    {
        if (null == msg)
        {
            return Errno.EINVAL.negated();
        }
        if (msg.iovCount > 1)
        {
            return postRecvIov(op, flags, msg.context, msg.iov, msg.iovCount, msg.addr, msg.tag, msg.ignore);
        }
        final DirectBuffer buffer;
        final long address;
        final long length;
        if (1 == msg.iovCount)
        {
            buffer = null == msg.iov || msg.iov.length < 1 ? null : msg.iov[0];
            address = null == buffer ? -1 : PostChecks.target(buffer, 0, buffer.capacity());
            length = null == buffer ? 0 : buffer.capacity();
        }
        else if (null == msg.buffer && (flags & (Flags.PEEK | Flags.DISCARD)) != 0)
        {
            buffer = null;
            address = 0;
            length = 0;
        }
        else
        {
            buffer = msg.buffer;
            address = PostChecks.target(msg.buffer, msg.offset, msg.length);
            length = msg.length;
        }
        return postRecv(op, flags, msg.context, buffer, address, length, msg.addr, msg.tag, msg.ignore);
    }

    /**
     * Flow control: a send answers {@code -EAGAIN} while this endpoint already has a transmit queue's worth
     * ({@code tx_attr->size}) of sends waiting in the agent for a peer's credit (see {@code FlowControl}).
     */
    private boolean creditsExhausted(final int op)
    {
        final EndpointState s = endpoint.agentState();
        return (CommandDescriptor.OP_SEND == op || CommandDescriptor.OP_TSEND == op) && null != s &&
            s.deferredSends() >= txSize;
    }

    /**
     * Post one buffer of a msg or tagged call: {@link #post(int, long, long, Object, long, long, long, long, long,
     * long, Message)} with no key and no remote list.
     *
     * @param op      the opcode.
     * @param flags   the flags.
     * @param context the operation's context.
     * @param buffer  the buffer object, or null.
     * @param address its native address, -1 when refused.
     * @param length  bytes.
     * @param dest    destination fi_addr.
     * @param tag     the tag.
     * @param data    remote CQ data.
     * @return 0 or a negative errno.
     */
    int post(
        final int op,
        final long flags,
        final long context,
        final Object buffer,
        final long address,
        final long length,
        final long dest,
        final long tag,
        final long data)
    {
        return post(op, flags, context, buffer, address, length, dest, tag, data, 0, null);
    }

    /**
     * Post one buffer ({@code buffer} is pinned until the operation completes); {@code remote} (RMA only, may be
     * null) carries a remote list ({@link Message#rmaIov}).
     *
     * @param op      the opcode.
     * @param flags   the flags ({@link PostChecks#COPY} copies the payload).
     * @param context the operation's context.
     * @param buffer  the buffer object (pinned), or null for raw memory.
     * @param address its native address ({@link PostChecks#address}), -1 when refused.
     * @param length  bytes.
     * @param dest    destination fi_addr.
     * @param tag     tag, or the remote address of an RMA.
     * @param data    remote CQ data.
     * @param key     the remote key of an RMA.
     * @param remote  a message carrying a remote list, or null.
     * @return 0 or a negative errno.
     */
    int post(
        final int op,
        final long flags,
        final long context,
        final Object buffer,
        final long address,
        final long length,
        final long dest,
        final long tag,
        final long data,
        final long key,
        final Message remote)
    {
        if ((flags & COPY) != 0)
        {
            // FI_INJECT from op_flags: copy now (a read has nothing to copy; its buffer is the destination).
            return CommandDescriptor.OP_READ == op ?
                post(op, flags & ~COPY, context, buffer, address, length, dest, tag, data, key, remote) :
                postInline(op, flags, context, null, 0, address, null, 0, length, dest, tag, data, key, remote);
        }
        if (!endpoint.enabled())
        {
            return Errno.EOPBADSTATE.negated();
        }
        if (address < 0)
        {
            return Errno.EINVAL.negated();
        }
        if (length > maxMessageSize)
        {
            return Errno.EMSGSIZE.negated();
        }
        final Message r = PostChecks.remoteList(remote);
        if (NO_REMOTE != r && !PostChecks.remoteListFits(r, length, rmaIovLimit))
        {
            return Errno.EINVAL.negated();
        }
        final long peer = endpoint.peerOf(dest);
        if (peer < 0)
        {
            return noPeer;
        }
        if (creditsExhausted(op))
        {
            return Errno.EAGAIN.negated();
        }
        final Reservations reservations = this.reservations;
        if (!reservations.reserveTx(flags))
        {
            return Errno.EAGAIN.negated();
        }
        final int pin = reservations.pinTransmit(PostChecks.holder(buffer), PinTable.NONE, context);
        if (pin < 0)
        {
            reservations.releaseTx(flags);
            return Errno.EAGAIN.negated();
        }
        // The proxy commits with a release store of the record length: the agent sees every field it wrote.
        if (proxy.transmit(op, index, flags, context, address, length, peer, tag, data, key, pin,
            r.rmaCount, r.rmaAddresses, r.rmaLengths, r.rmaKeys) < 0)
        {
            reservations.release(pin);
            reservations.releaseTx(flags);
            return Errno.EAGAIN.negated();
        }
        return 0;
    }

    /**
     * An inject call ({@code fi_inject} and kin): the payload is copied and nothing completes.
     *
     * @param op     the opcode.
     * @param flags  the flags ({@link Flags#INJECT} is added).
     * @param buffer any buffer (heap allowed).
     * @param offset start.
     * @param length bytes, at most the inject size.
     * @param dest   destination.
     * @param tag    tag, or the remote address of an RMA.
     * @param data   remote CQ data.
     * @param key    the remote key of an RMA.
     * @return 0 or a negative errno.
     */
    int postInject(
        final int op,
        final long flags,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final long dest,
        final long tag,
        final long data,
        final long key)
    {
        return postInline(op, flags | Flags.INJECT, 0, buffer, offset, -1, null, 0, length, dest, tag, data, key,
            null);
    }

    /**
     * Copy the payload into the command: from {@code buffer} at {@code offset}, or (null buffer) from
     * {@code iov}'s {@code count} whole buffers, or (no iov) from the native {@code address}. With
     * {@link Flags#INJECT} (the inject calls) nothing completes; with {@link PostChecks#COPY} (FI_INJECT given as
     * op_flags or to a msg form) the buffer is reusable on return and the operation completes as usual.
     *
     * @param op      the opcode.
     * @param flags   the flags.
     * @param context the operation's context.
     * @param buffer  the source buffer, or null.
     * @param offset  start in it.
     * @param address native source address when neither buffer nor iov is given.
     * @param iov     source buffers, or null.
     * @param count   how many.
     * @param length  bytes.
     * @param dest    destination.
     * @param tag     tag, or the remote address of an RMA.
     * @param data    remote CQ data.
     * @param key     the remote key of an RMA.
     * @param remote  a message carrying a remote list, or null.
     * @return 0 or a negative errno.
     */
    int postInline(
        final int op,
        final long flags,
        final long context,
        final DirectBuffer buffer,
        final int offset,
        final long address,
        final DirectBuffer[] iov,
        final int count,
        final long length,
        final long dest,
        final long tag,
        final long data,
        final long key,
        final Message remote)
    {
        if (!endpoint.enabled())
        {
            return Errno.EOPBADSTATE.negated();
        }
        final boolean silent = (flags & Flags.INJECT) != 0;
        if (null != buffer ? offset < 0 || length < 0 || (long) offset + length > buffer.capacity() :
            (null != iov ? length < 0 : address < 0 || length < 0))
        {
            return Errno.EINVAL.negated();
        }
        if (length > injectSize)
        {
            return Errno.EMSGSIZE.negated();
        }
        final Message r = PostChecks.remoteList(remote);
        if (NO_REMOTE != r && !PostChecks.remoteListFits(r, length, rmaIovLimit))
        {
            return Errno.EINVAL.negated();
        }
        final long peer = endpoint.peerOf(dest);
        if (peer < 0)
        {
            return noPeer;
        }
        if (creditsExhausted(op))
        {
            return Errno.EAGAIN.negated();
        }
        final Reservations reservations = this.reservations;
        if (!silent && !reservations.reserveTx(flags))
        {
            return Errno.EAGAIN.negated();
        }
        // A copied operation that completes names itself in the target's answer by a pin slot holding its context
        // (nothing to keep reachable: the payload is in the command); an inject call needs none.
        final int pin = silent ? PinTable.NONE : reservations.pinTransmit(null, PinTable.NONE, context);
        if (!silent && pin < 0)
        {
            reservations.releaseTx(flags);
            return Errno.EAGAIN.negated();
        }
        if (proxy.transmitInline(op, index, flags, context, buffer, offset, address, iov, count, length, peer, tag,
            data, key, pin, r.rmaCount, r.rmaAddresses, r.rmaLengths, r.rmaKeys) < 0)
        {
            if (!silent)
            {
                reservations.release(pin);
                reservations.releaseTx(flags);
            }
            return Errno.EAGAIN.negated();
        }
        return 0;
    }

    /**
     * Post whole buffers of a msg or tagged call: {@link #postIov(int, long, long, DirectBuffer[], int, long, long,
     * long, long, Message)} with no key and no remote list.
     *
     * @param op      the opcode.
     * @param flags   the flags.
     * @param context the operation's context.
     * @param iov     the buffers.
     * @param count   how many.
     * @param dest    destination.
     * @param tag     the tag.
     * @param data    remote CQ data.
     * @return 0 or a negative errno.
     */
    int postIov(
        final int op,
        final long flags,
        final long context,
        final DirectBuffer[] iov,
        final int count,
        final long dest,
        final long tag,
        final long data)
    {
        return postIov(op, flags, context, iov, count, dest, tag, data, 0, null);
    }

    /**
     * Post whole buffers (sendv, tsendv, writev, readv, *msg with an iov): sends up to the eager threshold are
     * gathered into one frame, larger ones go by rendezvous over the buffers; RMA moves the bytes in order
     * between the buffers and the remote range(s) ({@code remote} may carry a remote list).
     *
     * @param op      the opcode.
     * @param flags   the flags.
     * @param context the operation's context.
     * @param iov     the buffers.
     * @param count   how many.
     * @param dest    destination.
     * @param tag     tag, or the remote address of an RMA.
     * @param data    remote CQ data.
     * @param key     the remote key of an RMA.
     * @param remote  a message carrying a remote list, or null.
     * @return 0 or a negative errno.
     */
    int postIov(
        final int op,
        final long flags,
        final long context,
        final DirectBuffer[] iov,
        final int count,
        final long dest,
        final long tag,
        final long data,
        final long key,
        final Message remote)
    {
        if (!endpoint.enabled())
        {
            return Errno.EOPBADSTATE.negated();
        }
        final long total = PostChecks.iovBytes(iov, count, txIovLimit, 1);
        if (total < 0 || (CommandDescriptor.OP_READ == op && PostChecks.readOnly(iov, count)))
        {
            return Errno.EINVAL.negated();
        }
        if ((flags & COPY) != 0)
        {
            // FI_INJECT (op_flags or a msg form): gathered into the command now; a read has nothing to copy.
            return CommandDescriptor.OP_READ == op ?
                postIov(op, flags & ~COPY, context, iov, count, dest, tag, data, key, remote) :
                postInline(op, flags, context, null, 0, 0, iov, count, total, dest, tag, data, key, remote);
        }
        if (total > maxMessageSize)
        {
            return Errno.EMSGSIZE.negated();
        }
        final Message r = PostChecks.remoteList(remote);
        if (NO_REMOTE != r && !PostChecks.remoteListFits(r, total, rmaIovLimit))
        {
            return Errno.EINVAL.negated();
        }
        final long peer = endpoint.peerOf(dest);
        if (peer < 0)
        {
            return noPeer;
        }
        if (creditsExhausted(op))
        {
            return Errno.EAGAIN.negated();
        }
        final Reservations reservations = this.reservations;
        if (!reservations.reserveTx(flags))
        {
            return Errno.EAGAIN.negated();
        }
        final int pin = reservations.pinTransmit(null, reservations.pinIov(iov, count, PinTable.NONE), context);
        if (pin < 0)
        {
            reservations.releaseTx(flags);
            return Errno.EAGAIN.negated();
        }
        if (proxy.transmitIov(op, index, flags, context, iov, count, total, peer, tag, data, key, pin,
            r.rmaCount, r.rmaAddresses, r.rmaLengths, r.rmaKeys) < 0)
        {
            reservations.release(pin);
            reservations.releaseTx(flags);
            return Errno.EAGAIN.negated();
        }
        return 0;
    }

    /**
     * Post a receive scattering into several whole buffers (one buffer takes the single-buffer path).
     *
     * @param op      the opcode.
     * @param flags   the flags.
     * @param context the receive's context.
     * @param iov     the buffers.
     * @param count   how many (1 to the rx iov limit).
     * @param src     source or ADDR_UNSPEC.
     * @param tag     the tag.
     * @param ignore  the ignore mask.
     * @return 0 or a negative errno.
     */
    int postRecvIov(
        final int op,
        final long flags,
        final long context,
        final DirectBuffer[] iov,
        final int count,
        final long src,
        final long tag,
        final long ignore)
    {
        if (!endpoint.enabled())
        {
            return Errno.EOPBADSTATE.negated();
        }
        final long total = PostChecks.iovBytes(iov, count, rxIovLimit, 1);
        if (total < 0 || (count > 1 && (flags & Flags.MULTI_RECV) != 0) || PostChecks.readOnly(iov, count))
        {
            // A multi-recv buffer is one buffer; a read-only buffer cannot take a message.
            return Errno.EINVAL.negated();
        }
        if (1 == count)
        {
            return postRecv(op, flags, context, iov[0], iov[0].addressOffset(), total, src, tag, ignore);
        }
        final Reservations reservations = this.reservations;
        final CompletionRing ring = reservations.receiveRing(flags);
        if (null != ring && !ring.reserve())
        {
            return Errno.EAGAIN.negated();
        }
        final int pin = reservations.pinIov(iov, count, PinTable.NONE);
        final int i = Reservations.PIN_FULL == pin ? -1 : proxy.receiveIov(op, index, flags, context, iov, count,
            total, directedRecv ? src : AddressVector.ADDR_UNSPEC, tag, ignore, pin);
        if (i < 0)
        {
            reservations.release(pin);
            if (null != ring)
            {
                ring.release(1);
            }
            return Errno.EAGAIN.negated();
        }
        return 0;
    }

    /**
     * Post a receive into one buffer.
     *
     * @param op      the opcode.
     * @param flags   the flags.
     * @param context the receive's context.
     * @param buffer  the buffer object (pinned), or null.
     * @param address its native address ({@link PostChecks#target}), -1 when refused.
     * @param length  capacity.
     * @param src     source or ADDR_UNSPEC.
     * @param tag     the tag.
     * @param ignore  the ignore mask.
     * @return 0 or a negative errno.
     */
    int postRecv(
        final int op,
        final long flags,
        final long context,
        final Object buffer,
        final long address,
        final long length,
        final long src,
        final long tag,
        final long ignore)
    {
        if (!endpoint.enabled())
        {
            return Errno.EOPBADSTATE.negated();
        }
        if (address < 0)
        {
            return Errno.EINVAL.negated();
        }
        final Reservations reservations = this.reservations;
        // Under rx selective completion a receive without FI_COMPLETION produces no successful completion.
        final CompletionRing ring = reservations.receiveRing(flags);
        if (null != ring && !ring.reserve())
        {
            return Errno.EAGAIN.negated();
        }
        final Object holder = PostChecks.holder(buffer);
        final int pin = reservations.pinReceive(holder);
        final int i = null != holder && pin < 0 ? -1 : proxy.receive(op, index, flags, context, address, length,
            directedRecv ? src : AddressVector.ADDR_UNSPEC, tag, ignore, pin);
        if (i < 0)
        {
            reservations.release(pin);
            if (null != ring)
            {
                ring.release(1);
            }
            return Errno.EAGAIN.negated();
        }
        return 0;
    }
}
