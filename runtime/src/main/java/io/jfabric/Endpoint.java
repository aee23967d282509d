package io.jfabric;

import io.jfabric.agent.AtomicCapabilities;
import io.jfabric.agent.CommandDescriptor;
import io.jfabric.agent.CommandProxy;
import io.jfabric.agent.CounterCell;
import io.jfabric.agent.DomainAgent;
import io.jfabric.agent.EndpointState;
import io.jfabric.agent.FlowControl;
import io.jfabric.agent.PinTable;
import io.jfabric.spi.Operation;
import io.jfabric.spi.ProviderCapabilities;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;

import java.nio.ByteBuffer;

/**
 * An endpoint ({@code fi_endpoint}, type {@code FI_EP_RDM}): binds to completion queues, counters, an address
 * vector and an event queue, and posts msg and tagged operations.
 * <p>
 * Data path: every call encodes one command into the domain's command ring and returns {@code 0}, or a negative
 * errno: {@code -EAGAIN} when a queue or the completion queue is full (resource management: drain completions
 * and retry; nothing is dropped), {@code -EINVAL} for bad arguments (heap buffers outside INJECT, bad address),
 * {@code -EMSGSIZE} above the size limits, {@code -EOPBADSTATE} before {@link #enable()}. No call throws or
 * allocates. Buffers must stay untouched until their completion, except with INJECT, which copies the payload.
 * The endpoint keeps them reachable meanwhile (a pre-sized pin table, released by the agent at completion or by
 * {@link #close()}; a full table answers {@code -EAGAIN}), so a direct buffer the application drops while it is
 * posted is never freed under the transfer. A read-only buffer is refused ({@code -EINVAL}) where the operation
 * would write into it.
 * <p>
 * Threading: data-path calls are safe from any number of threads at once ({@code FI_THREAD_SAFE}; the command
 * rings are many-producer). Bind, enable, options and close are control-path calls, thread-safe.
 */
public final class Endpoint implements AutoCloseable
{
    /** {@code FI_OPT_MIN_MULTI_RECV}. */
    public static final int OPT_MIN_MULTI_RECV = 0;
    /** {@code FI_OPT_CM_DATA_SIZE} (read only): the most bytes of connection data connect/accept/reject carry. */
    public static final int OPT_CM_DATA_SIZE = 1;
    /** Bytes of user data a connection request, accept or reject carries at most ({@link #OPT_CM_DATA_SIZE}). */
    public static final int CM_DATA_SIZE = 256;

    private static final long CQ_BIND_FLAGS = Flags.TRANSMIT | Flags.RECV | Flags.SELECTIVE_COMPLETION;
    private static final long CNTR_BIND_FLAGS = Flags.SEND | Flags.RECV | Flags.READ | Flags.WRITE |
        Flags.REMOTE_READ | Flags.REMOTE_WRITE;
    /** A pin helper's answer: the pin table is full (the post answers {@code -EAGAIN}). */
    private static final int PIN_FULL = -2;
    /** Bits an application must not set: the command encoding's own. */
    private static final long INTERNAL_FLAGS = CommandProxy.INTERNAL_FLAGS;
    /** The remote list of a post that has none. */
    private static final Message NO_REMOTE = new Message();
    /**
     * FI_INJECT on a call that still completes (tx op_flags, the msg forms): {@link #copyOnInject} turns it into
     * this internal bit, so that only the inject calls, which keep {@link Flags#INJECT}, complete silently.
     */
    private static final long COPY = CommandDescriptor.FLAG_INLINE;

    private final Domain domain;
    private final Info info;
    private final int index;
    /** The provider's description: refused operations and the atomic table. */
    private final ProviderCapabilities capabilities;
    private final long refusedOperations;
    private final AtomicCapabilities atomics;
    /** Encodes every command this endpoint puts on the domain's command rings. */
    private final CommandProxy proxy;
    private final long txOpFlags;
    private final long rxOpFlags;
    /** FI_DIRECTED_RECV enabled (rx caps, else the endpoint's caps): without it a receive's src_addr is ignored. */
    private final boolean directedRecv;
    private final long maxMessageSize;
    private final long injectSize;
    private final int txIovLimit;
    private final int rxIovLimit;
    private final int rmaIovLimit;
    private final int rxSize;
    private final int txSize;
    /** The agent's state of this endpoint once enabled (flow control: sends waiting for credit). */
    private volatile EndpointState state;
    private CompletionQueue txCq;
    private CompletionQueue rxCq;
    private boolean txSelective;
    private boolean rxSelective;
    private Counter sendCounter;
    private Counter recvCounter;
    private Counter readCounter;
    private Counter writeCounter;
    private Counter remoteReadCounter;
    private Counter remoteWriteCounter;
    private AddressVector av;
    private EventQueue eq;
    private long minMultiRecv = 64;
    private volatile boolean enabled;
    private final EndpointType type;
    /** Connected peer key of a MSG endpoint, -1 when not connected (volatile: set by connect/accept/shutdown). */
    private volatile long connectedPeer = -1;
    private ConnectionRequest pendingRequest;
    private ConnectionRequest acceptedFrom;
    /** A MSG endpoint that was connected once: shutting it down again is not an error. */
    private boolean wasConnected;
    private boolean closed;
    /** Buffers of operations in flight (issue 10); created by enable, before {@link #enabled} is set. */
    private PinTable pins;

    Endpoint(final Domain domain, final Info info, final int index)
    {
        this.domain = domain;
        this.info = info;
        this.index = index;
        this.capabilities = domain.capabilities();
        this.refusedOperations = capabilities.refusedOperations();
        this.atomics = capabilities.atomics();
        this.proxy = domain.proxy();
        this.txOpFlags = copyOnInject(info.txAttr().opFlags());
        this.rxOpFlags = info.rxAttr().opFlags();
        this.directedRecv = ((0 != info.rxAttr().caps() ? info.rxAttr().caps() : info.caps()) &
            Flags.DIRECTED_RECV) != 0;
        final long providerMax = domain.info().epAttr().maxMsgSize();
        this.maxMessageSize = info.epAttr().maxMsgSize() > 0 ? Math.min(info.epAttr().maxMsgSize(), providerMax) :
            providerMax;
        this.injectSize = info.txAttr().injectSize();
        this.txIovLimit = (int) Math.max(1, Math.min(DomainAgent.MAX_IOV, info.txAttr().iovLimit()));
        this.rxIovLimit = (int) Math.max(1, Math.min(DomainAgent.MAX_IOV, info.rxAttr().iovLimit()));
        this.rmaIovLimit = (int) Math.max(1, Math.min(DomainAgent.MAX_IOV, info.txAttr().rmaIovLimit()));
        this.rxSize = (int) Math.max(1, Math.min(1 << 16, info.rxAttr().size() > 0 ? info.rxAttr().size() : 1024));
        this.txSize = (int) Math.max(1, Math.min(1 << 16, info.txAttr().size() > 0 ? info.txAttr().size() : 1024));
        this.type = EndpointType.UNSPEC == info.epAttr().type() ? EndpointType.RDM : info.epAttr().type();
    }

    /**
     * @return the endpoint's index in its domain.
     */
    public int index()
    {
        return index;
    }

    /**
     * @return the info it was opened with.
     */
    public Info info()
    {
        return info;
    }

    /**
     * {@code fi_getname}: this endpoint's address, to insert into peers' address vectors.
     *
     * @return the address bytes.
     */
    public byte[] name()
    {
        return domain.transport().endpointAddress(index);
    }

    /**
     * {@code fi_ep_bind} to a completion queue.
     *
     * @param cq    the queue (same domain).
     * @param flags {@link Flags#TRANSMIT} and/or {@link Flags#RECV}, optionally
     *              {@link Flags#SELECTIVE_COMPLETION}.
     * @return this.
     * @throws FabricException EBADFLAGS for other flags or neither direction; EINVAL for another domain's queue or
     *                         a direction already bound; EOPBADSTATE after enable.
     */
    public synchronized Endpoint bind(final CompletionQueue cq, final long flags)
    {
        checkBindable();
        if ((flags & ~CQ_BIND_FLAGS) != 0 || (flags & (Flags.TRANSMIT | Flags.RECV)) == 0)
        {
            throw new FabricException(Errno.EBADFLAGS, "cq bind flags 0x" + Long.toHexString(flags));
        }
        if (cq.domain() != domain)
        {
            throw new FabricException(Errno.EINVAL, "completion queue belongs to another domain");
        }
        final boolean tx = (flags & Flags.TRANSMIT) != 0;
        final boolean rx = (flags & Flags.RECV) != 0;
        if ((tx && null != txCq) || (rx && null != rxCq))
        {
            throw new FabricException(Errno.EINVAL, "a completion queue is already bound for that direction");
        }
        if (tx)
        {
            txCq = cq;
            txSelective = (flags & Flags.SELECTIVE_COMPLETION) != 0;
            cq.bound(1);
        }
        if (rx)
        {
            rxCq = cq;
            rxSelective = (flags & Flags.SELECTIVE_COMPLETION) != 0;
            cq.bound(1);
        }
        return this;
    }

    /**
     * {@code fi_ep_bind} to a counter.
     *
     * @param counter the counter (same domain).
     * @param flags   a non-empty subset of SEND, RECV, READ, WRITE, REMOTE_READ, REMOTE_WRITE.
     * @return this.
     * @throws FabricException EBADFLAGS for other flags; EINVAL for another domain's counter.
     */
    public synchronized Endpoint bind(final Counter counter, final long flags)
    {
        checkBindable();
        if ((flags & ~CNTR_BIND_FLAGS) != 0 || 0 == flags)
        {
            throw new FabricException(Errno.EBADFLAGS, "counter bind flags 0x" + Long.toHexString(flags));
        }
        if (counter.domain() != domain)
        {
            throw new FabricException(Errno.EINVAL, "counter belongs to another domain");
        }
        if ((flags & Flags.SEND) != 0)
        {
            sendCounter = counter;
            counter.bound(1);
        }
        if ((flags & Flags.RECV) != 0)
        {
            recvCounter = counter;
            counter.bound(1);
        }
        if ((flags & Flags.READ) != 0)
        {
            readCounter = counter;
            counter.bound(1);
        }
        if ((flags & Flags.WRITE) != 0)
        {
            writeCounter = counter;
            counter.bound(1);
        }
        if ((flags & Flags.REMOTE_READ) != 0)
        {
            remoteReadCounter = counter;
            counter.bound(1);
        }
        if ((flags & Flags.REMOTE_WRITE) != 0)
        {
            remoteWriteCounter = counter;
            counter.bound(1);
        }
        return this;
    }

    /**
     * {@code fi_ep_bind} to an address vector.
     *
     * @param addressVector the AV (same domain).
     * @param flags         0.
     * @return this.
     * @throws FabricException EBADFLAGS for non-zero flags; EINVAL when one is already bound.
     */
    public synchronized Endpoint bind(final AddressVector addressVector, final long flags)
    {
        checkBindable();
        if (0 != flags)
        {
            throw new FabricException(Errno.EBADFLAGS, "av bind flags 0x" + Long.toHexString(flags));
        }
        if (addressVector.domain() != domain || null != av)
        {
            throw new FabricException(Errno.EINVAL, "address vector of another domain, or one already bound");
        }
        av = addressVector;
        addressVector.bound(1);
        return this;
    }

    /**
     * {@code fi_ep_bind} to an event queue.
     *
     * @param eventQueue the EQ.
     * @param flags      0.
     * @return this.
     * @throws FabricException EBADFLAGS for non-zero flags.
     */
    public synchronized Endpoint bind(final EventQueue eventQueue, final long flags)
    {
        checkBindable();
        if (0 != flags)
        {
            throw new FabricException(Errno.EBADFLAGS, "eq bind flags 0x" + Long.toHexString(flags));
        }
        eq = eventQueue;
        return this;
    }

    /**
     * {@code fi_enable}: publish the endpoint to the domain agent; data-path calls work from now on.
     *
     * @return this.
     * @throws FabricException ENOAV when no address vector is bound.
     */
    public synchronized Endpoint enable()
    {
        checkBindable();
        if (null == av && EndpointType.MSG != type)
        {
            throw new FabricException(Errno.ENOAV, "an RDM or DGRAM endpoint needs an address vector before enable");
        }
        pins = new PinTable(pinCapacity());
        final EndpointState state = new EndpointState(
            index, rxSize, FlowControl.unexpectedEntries(), domain.transport().eagerThreshold(), maxMessageSize)
            .txCq(null == txCq ? null : txCq.ring(), txSelective)
            .rxCq(null == rxCq ? null : rxCq.ring(), rxSelective)
            .sendCounter(null == sendCounter ? null : sendCounter.cell())
            .recvCounter(null == recvCounter ? null : recvCounter.cell())
            .rmaCounters(cell(readCounter), cell(writeCounter), cell(remoteReadCounter), cell(remoteWriteCounter))
            .avId(null == av ? -1 : av.id())
            .pins(pins)
            .sourceErr((info.caps() & (Flags.SOURCE | Flags.SOURCE_ERR)) == (Flags.SOURCE | Flags.SOURCE_ERR))
            .multiRecvSeparate(ProviderCapabilities.MultiRecvCompletion.SEPARATE_ENTRY ==
                capabilities.multiRecvCompletion());
        if (state.multiRecvSeparate() && null != rxCq)
        {
            // A multi-recv release written as its own entry follows its message: keep a slot for it.
            rxCq.ring().keepHeadroom(1);
        }
        domain.agent().endpoint(index, state);
        this.state = state;
        enabled = true;
        if (64 != minMultiRecv)
        {
            setOption(OPT_MIN_MULTI_RECV, minMultiRecv);
        }
        return this;
    }

    /**
     * {@code fi_setopt}.
     *
     * @param option {@link #OPT_MIN_MULTI_RECV}.
     * @param value  the value (at least 1).
     * @return this.
     * @throws FabricException ENOPROTOOPT for an unknown option; EINVAL for a bad value.
     */
    public synchronized Endpoint setOption(final int option, final long value)
    {
        if (OPT_MIN_MULTI_RECV != option)
        {
            throw new FabricException(Errno.ENOPROTOOPT, "option " + option);
        }
        if (value < 1)
        {
            throw new FabricException(Errno.EINVAL, "FI_OPT_MIN_MULTI_RECV must be at least 1");
        }
        minMultiRecv = value;
        if (enabled)
        {
            proxy.minMultiRecv(index, value);
        }
        return this;
    }

    /**
     * {@code fi_getopt}.
     *
     * @param option {@link #OPT_MIN_MULTI_RECV} or {@link #OPT_CM_DATA_SIZE}.
     * @return the value.
     * @throws FabricException ENOPROTOOPT for an unknown option.
     */
    public synchronized long option(final int option)
    {
        if (OPT_CM_DATA_SIZE == option)
        {
            return CM_DATA_SIZE;
        }
        if (OPT_MIN_MULTI_RECV != option)
        {
            throw new FabricException(Errno.ENOPROTOOPT, "option " + option);
        }
        return minMultiRecv;
    }

    /**
     * {@code fi_open_ops} on the endpoint: a named provider extension.
     *
     * @param name the extension's name (the provider documents its names).
     * @return the extension.
     * @throws FabricException ENOSYS when the provider has no endpoint extension of that name; EINVAL for a null
     *                         name or a closed endpoint.
     */
    public synchronized OpenOps openOps(final String name)
    {
        if (closed)
        {
            throw new FabricException(Errno.EINVAL, "endpoint is closed");
        }
        return OpenOps.of(null == name ? null : domain.transport().openOps(index, name), name, "endpoint " + index);
    }

    /**
     * The provider's answer to a call it does not offer ({@code -ENOSYS} or {@code -EOPNOTSUPP}), or 0. Allocates
     * nothing: one mask test for every offered call.
     */
    private int refusal(final Operation operation)
    {
        return 0 == (refusedOperations & operation.bit()) ? 0 : capabilities.refusal(operation);
    }

    /**
     * Drive progress ({@code fi_ep_progress} style): one inline duty cycle with manual progress, else nothing.
     *
     * @return work done.
     */
    public int progress()
    {
        return domain.progress();
    }

    // ------------------------------------------------------------------ msg

    /**
     * {@code fi_send}.
     *
     * @param buffer  direct buffer.
     * @param offset  start.
     * @param length  bytes.
     * @param dest    destination fi_addr.
     * @param context op context.
     * @return 0 or a negative errno.
     */
    public int send(final DirectBuffer buffer, final int offset, final int length, final long dest, final long context)
    {
        final int refused = refusal(Operation.SEND);
        if (0 != refused)
        {
            return refused;
        }
        return post(CommandDescriptor.OP_SEND, txOpFlags, context, buffer, address(buffer, offset, length), length,
            dest, 0, 0);
    }

    /**
     * {@code fi_send} from a direct {@link ByteBuffer}.
     *
     * @param buffer  direct byte buffer.
     * @param offset  start.
     * @param length  bytes.
     * @param dest    destination.
     * @param context op context.
     * @return 0 or a negative errno.
     */
    public int send(final ByteBuffer buffer, final int offset, final int length, final long dest, final long context)
    {
        final int refused = refusal(Operation.SEND);
        if (0 != refused)
        {
            return refused;
        }
        return post(CommandDescriptor.OP_SEND, txOpFlags, context, buffer, address(buffer, offset, length), length,
            dest, 0, 0);
    }

    /**
     * {@code fi_sendv}: gather whole buffers.
     *
     * @param iov     direct buffers.
     * @param count   how many (at most tx iov_limit).
     * @param dest    destination.
     * @param context op context.
     * @return 0 or a negative errno.
     */
    public int sendv(final DirectBuffer[] iov, final int count, final long dest, final long context)
    {
        final int refused = refusal(Operation.SENDV);
        if (0 != refused)
        {
            return refused;
        }
        return postIov(CommandDescriptor.OP_SEND, txOpFlags, context, iov, count, dest, 0, 0);
    }

    /**
     * {@code fi_sendmsg}.
     *
     * @param msg   the message (buffer or iov, addr, context, data).
     * @param flags operation flags (COMPLETION, INJECT, REMOTE_CQ_DATA, *_COMPLETE, MORE ...).
     * @return 0 or a negative errno.
     */
    public int sendmsg(final Message msg, final long flags)
    {
        final int refused = refusal(Operation.SENDMSG);
        if (0 != refused)
        {
            return refused;
        }
        return postMsg(CommandDescriptor.OP_SEND, msg, flags);
    }

    /**
     * {@code fi_inject}: the buffer is reusable on return; no completion.
     *
     * @param buffer any buffer (heap allowed: the payload is copied).
     * @param offset start.
     * @param length bytes, at most the inject size.
     * @param dest   destination.
     * @return 0 or a negative errno.
     */
    public int inject(final DirectBuffer buffer, final int offset, final int length, final long dest)
    {
        final int refused = refusal(Operation.INJECT);
        if (0 != refused)
        {
            return refused;
        }
        return postInject(CommandDescriptor.OP_SEND, txOpFlags | Flags.INJECT, buffer, offset, length, dest, 0, 0);
    }

    /**
     * {@code fi_senddata}: send with remote CQ data.
     *
     * @param buffer  direct buffer.
     * @param offset  start.
     * @param length  bytes.
     * @param data    remote CQ data.
     * @param dest    destination.
     * @param context op context.
     * @return 0 or a negative errno.
     */
    public int senddata(
        final DirectBuffer buffer, final int offset, final int length, final long data, final long dest,
        final long context)
    {
        final int refused = refusal(Operation.SENDDATA);
        if (0 != refused)
        {
            return refused;
        }
        return post(CommandDescriptor.OP_SEND, txOpFlags | Flags.REMOTE_CQ_DATA, context,
            buffer, address(buffer, offset, length), length, dest, 0, data);
    }

    /**
     * {@code fi_injectdata}.
     *
     * @param buffer any buffer.
     * @param offset start.
     * @param length bytes.
     * @param data   remote CQ data.
     * @param dest   destination.
     * @return 0 or a negative errno.
     */
    public int injectdata(
        final DirectBuffer buffer, final int offset, final int length, final long data, final long dest)
    {
        final int refused = refusal(Operation.INJECTDATA);
        if (0 != refused)
        {
            return refused;
        }
        return postInject(CommandDescriptor.OP_SEND, txOpFlags | Flags.INJECT | Flags.REMOTE_CQ_DATA,
            buffer, offset, length, dest, 0, data);
    }

    /**
     * {@code fi_recv}.
     *
     * @param buffer  direct buffer.
     * @param offset  start.
     * @param length  capacity.
     * @param src     source fi_addr or {@link AddressVector#ADDR_UNSPEC}.
     * @param context op context.
     * @return 0 or a negative errno.
     */
    public int recv(final DirectBuffer buffer, final int offset, final int length, final long src, final long context)
    {
        final int refused = refusal(Operation.RECV);
        if (0 != refused)
        {
            return refused;
        }
        return postRecv(CommandDescriptor.OP_RECV, rxOpFlags, context, buffer, target(buffer, offset, length), length,
            src, 0, 0);
    }

    /**
     * {@code fi_recv} into a direct {@link ByteBuffer}.
     *
     * @param buffer  direct byte buffer.
     * @param offset  start.
     * @param length  capacity.
     * @param src     source or ADDR_UNSPEC.
     * @param context op context.
     * @return 0 or a negative errno.
     */
    public int recv(final ByteBuffer buffer, final int offset, final int length, final long src, final long context)
    {
        final int refused = refusal(Operation.RECV);
        if (0 != refused)
        {
            return refused;
        }
        return postRecv(CommandDescriptor.OP_RECV, rxOpFlags, context, buffer, target(buffer, offset, length), length,
            src, 0, 0);
    }

    /**
     * {@code fi_recvv}: scatter one message across whole buffers, in order (the completion's {@code buf} is the
     * first buffer).
     *
     * @param iov     direct buffers.
     * @param count   how many (1 to the rx {@code iov_limit}).
     * @param src     source or ADDR_UNSPEC.
     * @param context op context.
     * @return 0 or a negative errno ({@code -EINVAL} for more buffers than the rx iov limit, or a heap buffer).
     */
    public int recvv(final DirectBuffer[] iov, final int count, final long src, final long context)
    {
        final int refused = refusal(Operation.RECVV);
        if (0 != refused)
        {
            return refused;
        }
        return postRecvIov(CommandDescriptor.OP_RECV, rxOpFlags, context, iov, count, src, 0, 0);
    }

    /**
     * {@code fi_recvmsg}.
     *
     * @param msg   the message (one buffer or a one-element iov, addr, context).
     * @param flags COMPLETION, MULTI_RECV, MORE.
     * @return 0 or a negative errno.
     */
    public int recvmsg(final Message msg, final long flags)
    {
        final int refused = refusal(Operation.RECVMSG);
        if (0 != refused)
        {
            return refused;
        }
        return postRecvMsg(CommandDescriptor.OP_RECV, msg, flags);
    }

    // ------------------------------------------------------------------ tagged

    /**
     * {@code fi_tsend}.
     *
     * @param buffer  direct buffer.
     * @param offset  start.
     * @param length  bytes.
     * @param dest    destination.
     * @param tag     the tag.
     * @param context op context.
     * @return 0 or a negative errno.
     */
    public int tsend(
        final DirectBuffer buffer, final int offset, final int length, final long dest, final long tag,
        final long context)
    {
        final int refused = refusal(Operation.TSEND);
        if (0 != refused)
        {
            return refused;
        }
        return post(CommandDescriptor.OP_TSEND, txOpFlags, context, buffer, address(buffer, offset, length), length,
            dest, tag, 0);
    }

    /**
     * {@code fi_tsend} from a direct {@link ByteBuffer}.
     *
     * @param buffer  direct byte buffer.
     * @param offset  start.
     * @param length  bytes.
     * @param dest    destination.
     * @param tag     the tag.
     * @param context op context.
     * @return 0 or a negative errno.
     */
    public int tsend(
        final ByteBuffer buffer, final int offset, final int length, final long dest, final long tag,
        final long context)
    {
        final int refused = refusal(Operation.TSEND);
        if (0 != refused)
        {
            return refused;
        }
        return post(CommandDescriptor.OP_TSEND, txOpFlags, context, buffer, address(buffer, offset, length), length,
            dest, tag, 0);
    }

    /**
     * {@code fi_tsendv}.
     *
     * @param iov     direct buffers.
     * @param count   how many.
     * @param dest    destination.
     * @param tag     the tag.
     * @param context op context.
     * @return 0 or a negative errno.
     */
    public int tsendv(final DirectBuffer[] iov, final int count, final long dest, final long tag, final long context)
    {
        final int refused = refusal(Operation.TSENDV);
        if (0 != refused)
        {
            return refused;
        }
        return postIov(CommandDescriptor.OP_TSEND, txOpFlags, context, iov, count, dest, tag, 0);
    }

    /**
     * {@code fi_tsendmsg}.
     *
     * @param msg   the message (with tag).
     * @param flags operation flags.
     * @return 0 or a negative errno.
     */
    public int tsendmsg(final Message msg, final long flags)
    {
        final int refused = refusal(Operation.TSENDMSG);
        if (0 != refused)
        {
            return refused;
        }
        return postMsg(CommandDescriptor.OP_TSEND, msg, flags);
    }

    /**
     * {@code fi_tinject}.
     *
     * @param buffer any buffer.
     * @param offset start.
     * @param length bytes, at most the inject size.
     * @param dest   destination.
     * @param tag    the tag.
     * @return 0 or a negative errno.
     */
    public int tinject(final DirectBuffer buffer, final int offset, final int length, final long dest, final long tag)
    {
        final int refused = refusal(Operation.TINJECT);
        if (0 != refused)
        {
            return refused;
        }
        return postInject(CommandDescriptor.OP_TSEND, txOpFlags | Flags.INJECT, buffer, offset, length, dest, tag, 0);
    }

    /**
     * {@code fi_tsenddata}.
     *
     * @param buffer  direct buffer.
     * @param offset  start.
     * @param length  bytes.
     * @param data    remote CQ data.
     * @param dest    destination.
     * @param tag     the tag.
     * @param context op context.
     * @return 0 or a negative errno.
     */
    public int tsenddata(
        final DirectBuffer buffer, final int offset, final int length, final long data, final long dest,
        final long tag, final long context)
    {
        final int refused = refusal(Operation.TSENDDATA);
        if (0 != refused)
        {
            return refused;
        }
        return post(CommandDescriptor.OP_TSEND, txOpFlags | Flags.REMOTE_CQ_DATA, context,
            buffer, address(buffer, offset, length), length, dest, tag, data);
    }

    /**
     * {@code fi_tinjectdata}.
     *
     * @param buffer any buffer.
     * @param offset start.
     * @param length bytes.
     * @param data   remote CQ data.
     * @param dest   destination.
     * @param tag    the tag.
     * @return 0 or a negative errno.
     */
    public int tinjectdata(
        final DirectBuffer buffer, final int offset, final int length, final long data, final long dest,
        final long tag)
    {
        final int refused = refusal(Operation.TINJECTDATA);
        if (0 != refused)
        {
            return refused;
        }
        return postInject(CommandDescriptor.OP_TSEND, txOpFlags | Flags.INJECT | Flags.REMOTE_CQ_DATA,
            buffer, offset, length, dest, tag, data);
    }

    /**
     * {@code fi_trecv}.
     *
     * @param buffer  direct buffer.
     * @param offset  start.
     * @param length  capacity.
     * @param src     source or ADDR_UNSPEC.
     * @param tag     the tag.
     * @param ignore  ignore mask.
     * @param context op context.
     * @return 0 or a negative errno.
     */
    public int trecv(
        final DirectBuffer buffer, final int offset, final int length, final long src, final long tag,
        final long ignore, final long context)
    {
        final int refused = refusal(Operation.TRECV);
        if (0 != refused)
        {
            return refused;
        }
        return postRecv(CommandDescriptor.OP_TRECV, rxOpFlags, context, buffer, target(buffer, offset, length), length,
            src, tag, ignore);
    }

    /**
     * {@code fi_trecv} into a direct {@link ByteBuffer}.
     *
     * @param buffer  direct byte buffer.
     * @param offset  start.
     * @param length  capacity.
     * @param src     source or ADDR_UNSPEC.
     * @param tag     the tag.
     * @param ignore  ignore mask.
     * @param context op context.
     * @return 0 or a negative errno.
     */
    public int trecv(
        final ByteBuffer buffer, final int offset, final int length, final long src, final long tag,
        final long ignore, final long context)
    {
        final int refused = refusal(Operation.TRECV);
        if (0 != refused)
        {
            return refused;
        }
        return postRecv(CommandDescriptor.OP_TRECV, rxOpFlags, context, buffer, target(buffer, offset, length), length,
            src, tag, ignore);
    }

    /**
     * {@code fi_trecvv}: scatter one tagged message across whole buffers, in order.
     *
     * @param iov     direct buffers.
     * @param count   how many (1 to the rx {@code iov_limit}).
     * @param src     source or ADDR_UNSPEC.
     * @param tag     the tag.
     * @param ignore  ignore mask.
     * @param context op context.
     * @return 0 or a negative errno.
     */
    public int trecvv(
        final DirectBuffer[] iov, final int count, final long src, final long tag, final long ignore,
        final long context)
    {
        final int refused = refusal(Operation.TRECVV);
        if (0 != refused)
        {
            return refused;
        }
        return postRecvIov(CommandDescriptor.OP_TRECV, rxOpFlags, context, iov, count, src, tag, ignore);
    }

    /**
     * {@code fi_trecvmsg}: also {@link Flags#PEEK}, {@link Flags#CLAIM}, {@link Flags#DISCARD} (PEEK completes
     * with the message's length, tag and data, or with error ENOMSG; PEEK|CLAIM reserves the message for this
     * context; CLAIM receives it; DISCARD drops it).
     *
     * @param msg   the message (buffer, addr, tag, ignore, context).
     * @param flags COMPLETION, PEEK, CLAIM, DISCARD, MULTI_RECV, MORE.
     * @return 0 or a negative errno.
     */
    public int trecvmsg(final Message msg, final long flags)
    {
        final int refused = refusal(Operation.TRECVMSG);
        if (0 != refused)
        {
            return refused;
        }
        return postRecvMsg(CommandDescriptor.OP_TRECV, msg, flags);
    }

    // ------------------------------------------------------------------ rma

    /**
     * {@code fi_write}: write into the target's registered memory; executed by the target's agent after the MR
     * check (bad key {@code EINVAL}, missing {@code REMOTE_WRITE} or out of bounds {@code EACCES} complete with an
     * error here, target memory untouched). Completes when the target acknowledged.
     *
     * @param buffer        direct buffer.
     * @param offset        start.
     * @param length        bytes.
     * @param dest          target fi_addr.
     * @param remoteAddress offset in the target region.
     * @param key           the target region's key.
     * @param context       op context.
     * @return 0 or a negative errno.
     */
    public int write(
        final DirectBuffer buffer, final int offset, final int length, final long dest, final long remoteAddress,
        final long key, final long context)
    {
        final int refused = refusal(Operation.WRITE);
        if (0 != refused)
        {
            return refused;
        }
        return post(CommandDescriptor.OP_WRITE, txOpFlags, context, buffer, address(buffer, offset, length), length,
            dest, remoteAddress, 0, key);
    }

    /**
     * {@code fi_writev}: gather whole buffers into one remote range.
     *
     * @param iov           direct buffers.
     * @param count         how many (at most tx iov_limit).
     * @param dest          target.
     * @param remoteAddress offset in the target region.
     * @param key           region key.
     * @param context       op context.
     * @return 0 or a negative errno.
     */
    public int writev(
        final DirectBuffer[] iov, final int count, final long dest, final long remoteAddress, final long key,
        final long context)
    {
        final int refused = refusal(Operation.WRITEV);
        if (0 != refused)
        {
            return refused;
        }
        return postIov(CommandDescriptor.OP_WRITE, txOpFlags, context, iov, count, dest, remoteAddress, 0, key);
    }

    /**
     * {@code fi_writemsg}: one buffer or an iov, {@link Message#rma}, flags (COMPLETION, INJECT,
     * REMOTE_CQ_DATA with {@link Message#data}).
     *
     * @param msg   the message.
     * @param flags operation flags.
     * @return 0 or a negative errno.
     */
    public int writemsg(final Message msg, final long flags)
    {
        final int refused = refusal(Operation.WRITEMSG);
        if (0 != refused)
        {
            return refused;
        }
        if (null == msg)
        {
            return Errno.EINVAL.negated();
        }
        final long f = copyOnInject(flags);
        if (msg.iovCount > 0)
        {
            // With INJECT the buffers are gathered into the command (postIov).
            return postIov(CommandDescriptor.OP_WRITE, f, msg.context, msg.iov, msg.iovCount, msg.addr,
                msg.remoteAddress, msg.data, msg.key, msg);
        }
        if ((f & COPY) != 0)
        {
            return postInline(CommandDescriptor.OP_WRITE, f, msg.context, msg.buffer, msg.offset, -1, null, 0,
                msg.length, msg.addr, msg.remoteAddress, msg.data, msg.key, msg);
        }
        return post(CommandDescriptor.OP_WRITE, f, msg.context, msg.buffer,
            address(msg.buffer, msg.offset, msg.length), msg.length, msg.addr, msg.remoteAddress, msg.data, msg.key,
            msg);
    }

    /**
     * {@code fi_inject_write}: the buffer is reusable on return; no completion (counters still count).
     *
     * @param buffer        any buffer.
     * @param offset        start.
     * @param length        bytes, at most the inject size.
     * @param dest          target.
     * @param remoteAddress offset in the target region.
     * @param key           region key.
     * @return 0 or a negative errno.
     */
    public int injectWrite(
        final DirectBuffer buffer, final int offset, final int length, final long dest, final long remoteAddress,
        final long key)
    {
        final int refused = refusal(Operation.INJECT_WRITE);
        if (0 != refused)
        {
            return refused;
        }
        return postInject(CommandDescriptor.OP_WRITE, txOpFlags | Flags.INJECT, buffer, offset, length, dest,
            remoteAddress, 0, key);
    }

    /**
     * {@code fi_writedata}: write and deliver remote CQ data in a completion at the target (flags
     * {@code REMOTE_WRITE|RMA|REMOTE_CQ_DATA}, context 0).
     *
     * @param buffer        direct buffer.
     * @param offset        start.
     * @param length        bytes.
     * @param data          remote CQ data.
     * @param dest          target.
     * @param remoteAddress offset in the target region.
     * @param key           region key.
     * @param context       op context.
     * @return 0 or a negative errno.
     */
    public int writedata(
        final DirectBuffer buffer, final int offset, final int length, final long data, final long dest,
        final long remoteAddress, final long key, final long context)
    {
        final int refused = refusal(Operation.WRITEDATA);
        if (0 != refused)
        {
            return refused;
        }
        return post(CommandDescriptor.OP_WRITE, txOpFlags | Flags.REMOTE_CQ_DATA, context,
            buffer, address(buffer, offset, length), length, dest, remoteAddress, data, key);
    }

    /**
     * {@code fi_inject_writedata}.
     *
     * @param buffer        any buffer.
     * @param offset        start.
     * @param length        bytes, at most the inject size.
     * @param data          remote CQ data.
     * @param dest          target.
     * @param remoteAddress offset in the target region.
     * @param key           region key.
     * @return 0 or a negative errno.
     */
    public int injectWritedata(
        final DirectBuffer buffer, final int offset, final int length, final long data, final long dest,
        final long remoteAddress, final long key)
    {
        final int refused = refusal(Operation.INJECT_WRITEDATA);
        if (0 != refused)
        {
            return refused;
        }
        return postInject(CommandDescriptor.OP_WRITE, txOpFlags | Flags.INJECT | Flags.REMOTE_CQ_DATA, buffer,
            offset, length, dest, remoteAddress, data, key);
    }

    /**
     * {@code fi_read}: read from the target's registered memory (checked for {@code REMOTE_READ}) into the
     * buffer; completes when the data arrived.
     *
     * @param buffer        direct buffer.
     * @param offset        start.
     * @param length        bytes.
     * @param src           target fi_addr.
     * @param remoteAddress offset in the target region.
     * @param key           region key.
     * @param context       op context.
     * @return 0 or a negative errno.
     */
    public int read(
        final DirectBuffer buffer, final int offset, final int length, final long src, final long remoteAddress,
        final long key, final long context)
    {
        final int refused = refusal(Operation.READ);
        if (0 != refused)
        {
            return refused;
        }
        return post(CommandDescriptor.OP_READ, txOpFlags, context, buffer, target(buffer, offset, length), length, src,
            remoteAddress, 0, key);
    }

    /**
     * {@code fi_readv}: read one remote range into whole buffers, in order.
     *
     * @param iov           direct buffers.
     * @param count         how many (1 to the tx {@code iov_limit}).
     * @param src           target.
     * @param remoteAddress offset in the target region.
     * @param key           region key.
     * @param context       op context.
     * @return 0 or a negative errno ({@code -EINVAL} for more buffers than the iov limit, or a heap buffer).
     */
    public int readv(
        final DirectBuffer[] iov, final int count, final long src, final long remoteAddress, final long key,
        final long context)
    {
        final int refused = refusal(Operation.READV);
        if (0 != refused)
        {
            return refused;
        }
        if (1 == count && null != iov && iov.length > 0 && null != iov[0])
        {
            return read(iov[0], 0, iov[0].capacity(), src, remoteAddress, key, context);
        }
        return postIov(CommandDescriptor.OP_READ, txOpFlags, context, iov, count, src, remoteAddress, 0, key, null);
    }

    /**
     * {@code fi_readmsg}: one buffer or an iov, and {@link Message#rma} or {@link Message#rmaIov} (the remote
     * ranges are read in order into the local buffers; their lengths must add up to the local total).
     *
     * @param msg   the message.
     * @param flags operation flags (COMPLETION).
     * @return 0 or a negative errno.
     */
    public int readmsg(final Message msg, final long flags)
    {
        final int refused = refusal(Operation.READMSG);
        if (0 != refused)
        {
            return refused;
        }
        if (null == msg)
        {
            return Errno.EINVAL.negated();
        }
        if (msg.iovCount > 0)
        {
            return postIov(CommandDescriptor.OP_READ, flags & ~(Flags.INJECT | COPY), msg.context, msg.iov,
                msg.iovCount, msg.addr, msg.remoteAddress, 0, msg.key, msg);
        }
        return post(CommandDescriptor.OP_READ, flags & ~(Flags.INJECT | COPY), msg.context, msg.buffer,
            target(msg.buffer, msg.offset, msg.length), msg.length, msg.addr, msg.remoteAddress, 0, msg.key, msg);
    }

    // ------------------------------------------------------------------ atomic

    /**
     * {@code fi_atomicvalid}: how many elements one base atomic of this op and datatype may carry.
     *
     * @param datatype the datatype.
     * @param op       the op.
     * @return the count (at least 1), or {@code -EOPNOTSUPP}.
     */
    public long atomicValid(final AtomicDatatype datatype, final AtomicOp op)
    {
        return atomics.valid(AtomicCapabilities.Kind.ATOMIC, op, datatype);
    }

    /**
     * {@code fi_fetch_atomicvalid}.
     *
     * @param datatype the datatype.
     * @param op       the op.
     * @return the count, or {@code -EOPNOTSUPP}.
     */
    public long fetchAtomicValid(final AtomicDatatype datatype, final AtomicOp op)
    {
        return atomics.valid(AtomicCapabilities.Kind.FETCH, op, datatype);
    }

    /**
     * {@code fi_compare_atomicvalid}.
     *
     * @param datatype the datatype.
     * @param op       the op.
     * @return the count, or {@code -EOPNOTSUPP}.
     */
    public long compareAtomicValid(final AtomicDatatype datatype, final AtomicOp op)
    {
        return atomics.valid(AtomicCapabilities.Kind.COMPARE, op, datatype);
    }

    /**
     * {@code fi_atomic}: {@code target[i] = op(target[i], operand[i])} at the target, executed by its agent after
     * the MR check ({@code REMOTE_WRITE}). Completes with {@code FI_ATOMIC|FI_WRITE}.
     *
     * @param operands      direct buffer of {@code count} elements.
     * @param offset        start of the first element.
     * @param count         elements, 1 to {@link #atomicValid}.
     * @param dest          target.
     * @param remoteAddress offset in the target region.
     * @param key           region key.
     * @param datatype      element type.
     * @param op            the op.
     * @param context       op context.
     * @return 0 or a negative errno ({@code -EOPNOTSUPP} for an unsupported pair, {@code -EMSGSIZE} above the
     * valid count).
     */
    public int atomic(
        final DirectBuffer operands, final int offset, final int count, final long dest, final long remoteAddress,
        final long key, final AtomicDatatype datatype, final AtomicOp op, final long context)
    {
        final int refused = refusal(Operation.ATOMIC);
        if (0 != refused)
        {
            return refused;
        }
        return postAtomic(AtomicCapabilities.Kind.ATOMIC, txOpFlags, operands, offset, count, null, 0, null, 0, dest,
            remoteAddress, key, datatype, op, context);
    }

    /**
     * {@code fi_inject_atomic}: as {@link #atomic} with the operands copied; no completion.
     *
     * @param operands      any buffer.
     * @param offset        start.
     * @param count         elements.
     * @param dest          target.
     * @param remoteAddress offset in the target region.
     * @param key           region key.
     * @param datatype      element type.
     * @param op            the op.
     * @return 0 or a negative errno.
     */
    public int injectAtomic(
        final DirectBuffer operands, final int offset, final int count, final long dest, final long remoteAddress,
        final long key, final AtomicDatatype datatype, final AtomicOp op)
    {
        final int refused = refusal(Operation.INJECT_ATOMIC);
        if (0 != refused)
        {
            return refused;
        }
        return postAtomic(AtomicCapabilities.Kind.ATOMIC, txOpFlags | Flags.INJECT, operands, offset, count, null, 0,
            null, 0, dest, remoteAddress, key, datatype, op, 0);
    }

    /**
     * {@code fi_fetch_atomic}: the old target values land in {@code result}; the MR needs {@code REMOTE_READ} and
     * {@code REMOTE_WRITE} ({@code REMOTE_READ} only for {@link AtomicOp#ATOMIC_READ}, whose operands may be null).
     * Completes with {@code FI_ATOMIC|FI_READ} once the results are in place.
     *
     * @param operands      direct buffer of {@code count} elements (null for ATOMIC_READ).
     * @param offset        start.
     * @param count         elements.
     * @param result        direct buffer receiving the old values.
     * @param resultOffset  start in it.
     * @param dest          target.
     * @param remoteAddress offset in the target region.
     * @param key           region key.
     * @param datatype      element type.
     * @param op            the op.
     * @param context       op context.
     * @return 0 or a negative errno.
     */
    public int fetchAtomic(
        final DirectBuffer operands, final int offset, final int count, final DirectBuffer result,
        final int resultOffset, final long dest, final long remoteAddress, final long key,
        final AtomicDatatype datatype, final AtomicOp op, final long context)
    {
        final int refused = refusal(Operation.FETCH_ATOMIC);
        if (0 != refused)
        {
            return refused;
        }
        return postAtomic(AtomicCapabilities.Kind.FETCH, txOpFlags, operands, offset, count, null, 0, result,
            resultOffset, dest, remoteAddress, key, datatype, op, context);
    }

    /**
     * {@code fi_compare_atomic}: conditional or masked swap (CSWAP*, MSWAP) with {@code compare}; old values land
     * in {@code result}.
     *
     * @param operands      direct buffer of swap values.
     * @param offset        start.
     * @param count         elements.
     * @param compare       direct buffer of compare values (or masks).
     * @param compareOffset start in it.
     * @param result        direct buffer receiving the old values.
     * @param resultOffset  start in it.
     * @param dest          target.
     * @param remoteAddress offset in the target region.
     * @param key           region key.
     * @param datatype      element type.
     * @param op            the op.
     * @param context       op context.
     * @return 0 or a negative errno.
     */
    public int compareAtomic(
        final DirectBuffer operands, final int offset, final int count, final DirectBuffer compare,
        final int compareOffset, final DirectBuffer result, final int resultOffset, final long dest,
        final long remoteAddress, final long key, final AtomicDatatype datatype, final AtomicOp op,
        final long context)
    {
        final int refused = refusal(Operation.COMPARE_ATOMIC);
        if (0 != refused)
        {
            return refused;
        }
        return postAtomic(AtomicCapabilities.Kind.COMPARE, txOpFlags, operands, offset, count, compare,
            compareOffset, result, resultOffset, dest, remoteAddress, key, datatype, op, context);
    }

    /**
     * {@code fi_atomicv}: the operands are gathered from whole buffers in order (each a whole number of elements);
     * the element count is their total over the datatype size.
     *
     * @param iov           direct buffers of operands.
     * @param count         how many (1 to the tx {@code iov_limit}).
     * @param dest          target.
     * @param remoteAddress offset in the target region.
     * @param key           region key.
     * @param datatype      element type.
     * @param op            the op.
     * @param context       op context.
     * @return 0 or a negative errno ({@code -EINVAL} for too many buffers or a partial element).
     */
    public int atomicv(
        final DirectBuffer[] iov, final int count, final long dest, final long remoteAddress, final long key,
        final AtomicDatatype datatype, final AtomicOp op, final long context)
    {
        final int refused = refusal(Operation.ATOMICV);
        if (0 != refused)
        {
            return refused;
        }
        return postAtomicIov(AtomicCapabilities.Kind.ATOMIC, txOpFlags, iov, count, null, 0, null, 0, dest,
            remoteAddress, key, null, datatype, op, context);
    }

    /**
     * {@code fi_atomicmsg}: operands from {@link Message#buffer} or its iov, target from {@link Message#addr} and
     * {@link Message#rma} or {@link Message#rmaIov} (several ranges, in bytes of whole elements, filled in order);
     * flags COMPLETION, INJECT, FENCE.
     *
     * @param msg      the message.
     * @param datatype element type.
     * @param op       the op.
     * @param flags    operation flags.
     * @return 0 or a negative errno.
     */
    public int atomicmsg(final Message msg, final AtomicDatatype datatype, final AtomicOp op, final long flags)
    {
        final int refused = refusal(Operation.ATOMICMSG);
        if (0 != refused)
        {
            return refused;
        }
        if (null == msg)
        {
            return Errno.EINVAL.negated();
        }
        if (msg.iovCount > 0)
        {
            return postAtomicIov(AtomicCapabilities.Kind.ATOMIC, copyOnInject(flags), msg.iov, msg.iovCount, null,
                0, null, 0, msg.addr, msg.remoteAddress, msg.key, msg, datatype, op, msg.context);
        }
        final int elements = elements(msg, datatype);
        if (elements < 0)
        {
            return elements;
        }
        return postAtomic(AtomicCapabilities.Kind.ATOMIC, copyOnInject(flags), msg.buffer, msg.offset, elements,
            null, 0, null, 0, msg.addr, msg.remoteAddress, msg.key, msg, datatype, op, msg.context);
    }

    /**
     * {@code fi_fetch_atomicv}: operands gathered from {@code iov}, old values scattered into {@code resultIov}
     * (both whole elements, the same total).
     *
     * @param iov           direct buffers of operands (null or count 0 for ATOMIC_READ).
     * @param count         how many.
     * @param resultIov     direct buffers for the old values.
     * @param resultCount   how many.
     * @param dest          target.
     * @param remoteAddress offset in the target region.
     * @param key           region key.
     * @param datatype      element type.
     * @param op            the op.
     * @param context       op context.
     * @return 0 or a negative errno.
     */
    public int fetchAtomicv(
        final DirectBuffer[] iov, final int count, final DirectBuffer[] resultIov, final int resultCount,
        final long dest, final long remoteAddress, final long key, final AtomicDatatype datatype, final AtomicOp op,
        final long context)
    {
        final int refused = refusal(Operation.FETCH_ATOMICV);
        if (0 != refused)
        {
            return refused;
        }
        return postAtomicIov(AtomicCapabilities.Kind.FETCH, txOpFlags, iov, count, null, 0, resultIov, resultCount,
            dest, remoteAddress, key, null, datatype, op, context);
    }

    /**
     * {@code fi_fetch_atomicmsg} with one result buffer.
     *
     * @param msg          operands, target and context.
     * @param result       direct buffer for the old values.
     * @param resultOffset start in it.
     * @param datatype     element type.
     * @param op           the op.
     * @param flags        operation flags.
     * @return 0 or a negative errno.
     */
    public int fetchAtomicmsg(
        final Message msg, final DirectBuffer result, final int resultOffset, final AtomicDatatype datatype,
        final AtomicOp op, final long flags)
    {
        final int refused = refusal(Operation.FETCH_ATOMICMSG);
        if (0 != refused)
        {
            return refused;
        }
        if (null == msg)
        {
            return Errno.EINVAL.negated();
        }
        if (msg.iovCount > 0)
        {
            return Errno.EINVAL.negated();
        }
        final int elements = elements(msg, datatype);
        if (elements < 0)
        {
            return elements;
        }
        return postAtomic(AtomicCapabilities.Kind.FETCH, flags & ~Flags.INJECT, msg.buffer,
            msg.offset, elements, null, 0, result, resultOffset, msg.addr, msg.remoteAddress, msg.key, msg,
            datatype, op, msg.context);
    }

    /**
     * {@code fi_fetch_atomicmsg} with the operands as {@link Message#buffer} or an iov and the old values scattered
     * into {@code resultIov}.
     *
     * @param msg         operands, target and context.
     * @param resultIov   direct buffers for the old values.
     * @param resultCount how many.
     * @param datatype    element type.
     * @param op          the op.
     * @param flags       operation flags.
     * @return 0 or a negative errno.
     */
    public int fetchAtomicmsg(
        final Message msg, final DirectBuffer[] resultIov, final int resultCount, final AtomicDatatype datatype,
        final AtomicOp op, final long flags)
    {
        final int refused = refusal(Operation.FETCH_ATOMICMSG);
        if (0 != refused)
        {
            return refused;
        }
        if (null == msg)
        {
            return Errno.EINVAL.negated();
        }
        if (msg.iovCount <= 0)
        {
            return Errno.EINVAL.negated();
        }
        return postAtomicIov(AtomicCapabilities.Kind.FETCH, flags & ~Flags.INJECT, msg.iov, msg.iovCount, null, 0,
            resultIov, resultCount, msg.addr, msg.remoteAddress, msg.key, msg, datatype, op, msg.context);
    }

    /**
     * {@code fi_compare_atomicv}: swap values, compare values and old values each as whole buffers (whole elements,
     * the same total).
     *
     * @param iov           direct buffers of swap values.
     * @param count         how many.
     * @param compareIov    direct buffers of compare values.
     * @param compareCount  how many.
     * @param resultIov     direct buffers for the old values.
     * @param resultCount   how many.
     * @param dest          target.
     * @param remoteAddress offset in the target region.
     * @param key           region key.
     * @param datatype      element type.
     * @param op            the op.
     * @param context       op context.
     * @return 0 or a negative errno.
     */
    public int compareAtomicv(
        final DirectBuffer[] iov, final int count, final DirectBuffer[] compareIov, final int compareCount,
        final DirectBuffer[] resultIov, final int resultCount, final long dest, final long remoteAddress,
        final long key, final AtomicDatatype datatype, final AtomicOp op, final long context)
    {
        final int refused = refusal(Operation.COMPARE_ATOMICV);
        if (0 != refused)
        {
            return refused;
        }
        return postAtomicIov(AtomicCapabilities.Kind.COMPARE, txOpFlags, iov, count, compareIov, compareCount,
            resultIov, resultCount, dest, remoteAddress, key, null, datatype, op, context);
    }

    /**
     * {@code fi_compare_atomicmsg} with one compare buffer and one result buffer.
     *
     * @param msg           swap values, target and context.
     * @param compare       direct buffer of compare values.
     * @param compareOffset start in it.
     * @param result        direct buffer for the old values.
     * @param resultOffset  start in it.
     * @param datatype      element type.
     * @param op            the op.
     * @param flags         operation flags.
     * @return 0 or a negative errno.
     */
    public int compareAtomicmsg(
        final Message msg, final DirectBuffer compare, final int compareOffset, final DirectBuffer result,
        final int resultOffset, final AtomicDatatype datatype, final AtomicOp op, final long flags)
    {
        final int refused = refusal(Operation.COMPARE_ATOMICMSG);
        if (0 != refused)
        {
            return refused;
        }
        if (null == msg)
        {
            return Errno.EINVAL.negated();
        }
        if (msg.iovCount > 0)
        {
            return Errno.EINVAL.negated();
        }
        final int elements = elements(msg, datatype);
        if (elements < 0)
        {
            return elements;
        }
        return postAtomic(AtomicCapabilities.Kind.COMPARE, flags & ~Flags.INJECT, msg.buffer,
            msg.offset, elements, compare, compareOffset, result, resultOffset, msg.addr, msg.remoteAddress, msg.key,
            msg, datatype, op, msg.context);
    }

    /**
     * {@code fi_compare_atomicmsg} with swap values from the message's iov and compare and old values as iovs.
     *
     * @param msg          swap values (an iov), target and context.
     * @param compareIov   direct buffers of compare values.
     * @param compareCount how many.
     * @param resultIov    direct buffers for the old values.
     * @param resultCount  how many.
     * @param datatype     element type.
     * @param op           the op.
     * @param flags        operation flags.
     * @return 0 or a negative errno.
     */
    public int compareAtomicmsg(
        final Message msg, final DirectBuffer[] compareIov, final int compareCount, final DirectBuffer[] resultIov,
        final int resultCount, final AtomicDatatype datatype, final AtomicOp op, final long flags)
    {
        final int refused = refusal(Operation.COMPARE_ATOMICMSG);
        if (0 != refused)
        {
            return refused;
        }
        if (null == msg)
        {
            return Errno.EINVAL.negated();
        }
        if (msg.iovCount <= 0)
        {
            return Errno.EINVAL.negated();
        }
        return postAtomicIov(AtomicCapabilities.Kind.COMPARE, flags & ~Flags.INJECT, msg.iov, msg.iovCount,
            compareIov, compareCount, resultIov, resultCount, msg.addr, msg.remoteAddress, msg.key, msg, datatype, op,
            msg.context);
    }

    private static int elements(final Message msg, final AtomicDatatype datatype)
    {
        if (null == msg.buffer || null == datatype || 0 != msg.length % datatype.size())
        {
            return Errno.EINVAL.negated();
        }
        return msg.length / datatype.size();
    }

    private int postAtomic(
        final AtomicCapabilities.Kind kind,
        final long flags,
        final DirectBuffer operands,
        final int offset,
        final int count,
        final DirectBuffer compare,
        final int compareOffset,
        final DirectBuffer result,
        final int resultOffset,
        final long dest,
        final long remoteAddress,
        final long key,
        final AtomicDatatype datatype,
        final AtomicOp op,
        final long context)
    {
        return postAtomic(kind, flags, operands, offset, count, compare, compareOffset, result, resultOffset, dest,
            remoteAddress, key, null, datatype, op, context);
    }

    private int postAtomic(
        final AtomicCapabilities.Kind kind,
        final long flags,
        final DirectBuffer operands,
        final int offset,
        final int count,
        final DirectBuffer compare,
        final int compareOffset,
        final DirectBuffer result,
        final int resultOffset,
        final long dest,
        final long remoteAddress,
        final long key,
        final Message remote,
        final AtomicDatatype datatype,
        final AtomicOp op,
        final long context)
    {
        if (!enabled)
        {
            return Errno.EOPBADSTATE.negated();
        }
        if (null == datatype || null == op)
        {
            return Errno.EINVAL.negated();
        }
        final long max = atomics.valid(kind, op, datatype);
        if (max < 0)
        {
            return Errno.EOPNOTSUPP.negated();
        }
        if (count < 1)
        {
            return Errno.EINVAL.negated();
        }
        if (count > max)
        {
            return Errno.EMSGSIZE.negated();
        }
        final int bytes = count * datatype.size();
        final boolean inject = (flags & Flags.INJECT) != 0 || (AtomicCapabilities.Kind.ATOMIC == kind &&
            (flags & COPY) != 0);
        final boolean readOnly = AtomicCapabilities.Kind.FETCH == kind && AtomicOp.ATOMIC_READ == op;
        long operandAddress = 0;
        if (!inject && !(readOnly && null == operands))
        {
            operandAddress = address(operands, offset, bytes);
            if (operandAddress < 0)
            {
                return Errno.EINVAL.negated();
            }
        }
        if (inject && (null == operands || offset < 0 || (long) offset + bytes > operands.capacity()))
        {
            return Errno.EINVAL.negated();
        }
        final long compareAddress = AtomicCapabilities.Kind.COMPARE == kind ?
            address(compare, compareOffset, bytes) : 0;
        final long resultAddress = AtomicCapabilities.Kind.ATOMIC != kind ? target(result, resultOffset, bytes) : 0;
        if (compareAddress < 0 || resultAddress < 0)
        {
            return Errno.EINVAL.negated();
        }
        final Message r = remoteList(remote);
        if (NO_REMOTE != r && !remoteListFits(r, bytes))
        {
            return Errno.EINVAL.negated();
        }
        final long peer = peerOf(dest);
        if (peer < 0)
        {
            return EndpointType.MSG == type ? Errno.ENOTCONN.negated() : Errno.EINVAL.negated();
        }
        if (!reserveTx(flags))
        {
            return Errno.EAGAIN.negated();
        }
        // The inject call copies the operands now and returns nothing: no pin. FI_INJECT as op_flags or to the msg
        // form copies them too but completes: a holder-less pin carries its context (any long, bit 63 included).
        // Otherwise operands, compare values and results are pinned.
        int pin = PinTable.NONE;
        if ((flags & Flags.INJECT) == 0)
        {
            pin = inject ? pinTransmit(null, PinTable.NONE, context) :
                pinTransmit(holder(result), pinTransmitChain(holder(compare), holder(operands)), context);
            if (pin < 0)
            {
                releaseTx(flags);
                return Errno.EAGAIN.negated();
            }
        }
        if (proxy.atomic(index, flags, inject, context, operands, offset, operandAddress, count, bytes,
            CommandDescriptor.atomicCode(kind.ordinal(), op.value(), datatype.value()), resultAddress, compareAddress,
            peer, remoteAddress, key, pin, r.rmaCount, r.rmaAddresses, r.rmaLengths, r.rmaKeys) < 0)
        {
            pins.release(pin);
            releaseTx(flags);
            return Errno.EAGAIN.negated();
        }
        return 0;
    }

    /**
     * Atomics with operands, compare values and results as iovs: the command carries segment lists, the agent
     * gathers operands and compare values and the target's answer is scattered into the result buffers.
     */
    private int postAtomicIov(
        final AtomicCapabilities.Kind kind,
        final long flags,
        final DirectBuffer[] operands,
        final int operandCount,
        final DirectBuffer[] compare,
        final int compareCount,
        final DirectBuffer[] result,
        final int resultCount,
        final long dest,
        final long remoteAddress,
        final long key,
        final Message remote,
        final AtomicDatatype datatype,
        final AtomicOp op,
        final long context)
    {
        if (!enabled)
        {
            return Errno.EOPBADSTATE.negated();
        }
        if (null == datatype || null == op)
        {
            return Errno.EINVAL.negated();
        }
        final long max = atomics.valid(kind, op, datatype);
        if (max < 0)
        {
            return Errno.EOPNOTSUPP.negated();
        }
        final int size = datatype.size();
        final boolean readOnly = AtomicCapabilities.Kind.FETCH == kind && AtomicOp.ATOMIC_READ == op;
        final boolean noOperands = readOnly && (null == operands || 0 == operandCount);
        final long operandBytes = noOperands ? 0 : iovBytes(operands, operandCount, txIovLimit, size);
        final long resultBytes = AtomicCapabilities.Kind.ATOMIC == kind ? 0 :
            iovBytes(result, resultCount, txIovLimit, size);
        if (resultBytes > 0 && readOnly(result, resultCount))
        {
            return Errno.EINVAL.negated();
        }
        final long bytes = noOperands ? resultBytes : operandBytes;
        if (operandBytes < 0 || resultBytes < 0 || bytes < size ||
            (AtomicCapabilities.Kind.ATOMIC != kind && resultBytes != bytes))
        {
            return Errno.EINVAL.negated();
        }
        final long compareBytes = AtomicCapabilities.Kind.COMPARE == kind ?
            iovBytes(compare, compareCount, txIovLimit, size) : 0;
        if (AtomicCapabilities.Kind.COMPARE == kind && compareBytes != bytes)
        {
            return Errno.EINVAL.negated();
        }
        if (bytes / size > max)
        {
            return Errno.EMSGSIZE.negated();
        }
        final boolean inject = (flags & Flags.INJECT) != 0 || (AtomicCapabilities.Kind.ATOMIC == kind &&
            (flags & COPY) != 0);
        if (inject && AtomicCapabilities.Kind.ATOMIC != kind)
        {
            return Errno.EINVAL.negated();
        }
        final Message r = remoteList(remote);
        if (NO_REMOTE != r && !remoteListFits(r, bytes))
        {
            return Errno.EINVAL.negated();
        }
        final long peer = peerOf(dest);
        if (peer < 0)
        {
            return EndpointType.MSG == type ? Errno.ENOTCONN.negated() : Errno.EINVAL.negated();
        }
        if (!reserveTx(flags))
        {
            return Errno.EAGAIN.negated();
        }
        final boolean hasCompare = AtomicCapabilities.Kind.COMPARE == kind;
        final boolean hasResult = AtomicCapabilities.Kind.ATOMIC != kind;
        int pin = PinTable.NONE;
        if (!inject)
        {
            // pinIov releases the chain it was given when the table is full: stop there.
            int chain = noOperands ? PinTable.NONE : pinIov(operands, operandCount, PinTable.NONE);
            chain = !hasCompare || PIN_FULL == chain ? chain : pinIov(compare, compareCount, chain);
            chain = !hasResult || PIN_FULL == chain ? chain : pinIov(result, resultCount, chain);
            pin = pinTransmit(null, chain, context);
            if (pin < 0)
            {
                releaseTx(flags);
                return Errno.EAGAIN.negated();
            }
        }
        if (proxy.atomicIov(index, flags, inject, context, noOperands ? null : operands, operandCount,
            hasCompare ? compare : null, compareCount, hasResult ? result : null, resultCount, (int) (bytes / size),
            bytes, CommandDescriptor.atomicCode(kind.ordinal(), op.value(), datatype.value()), peer, remoteAddress,
            key, pin, r.rmaCount, r.rmaAddresses, r.rmaLengths, r.rmaKeys) < 0)
        {
            pins.release(pin);
            releaseTx(flags);
            return Errno.EAGAIN.negated();
        }
        return 0;
    }

    /**
     * kfabric {@code kfi_tsearch}: search the unexpected tagged messages without receiving.
     * <p>
     * With manual progress the search runs at once on the calling thread (it takes the domain's progress guard):
     * 1 on a hit with {@code result} holding the length, tag, data and flags, and {@code source[0]} the source
     * fi_addr; {@code -ENOMSG} on a miss; 0 when a message from a source not yet in the address vector could match
     * (the answer comes later as a completion on the receive CQ, an error completion ENOMSG for a miss). With
     * {@link Flags#CLAIM} a hit is reserved for {@code context} (later searches skip it; a CLAIM receive with the
     * same context gets it); with {@link Flags#DISCARD} it is dropped. With automatic progress the answer always
     * comes as a completion and the call returns 0. Allocation-free.
     *
     * @param src     source or ADDR_UNSPEC.
     * @param tag     the tag.
     * @param ignore  ignore mask.
     * @param flags   CLAIM, DISCARD or 0.
     * @param context the search context.
     * @param result  receives an immediate hit (may be null with automatic progress).
     * @param source  receives the source fi_addr of an immediate hit at index 0, or null.
     * @return 1, 0, or a negative errno ({@code -ENOMSG}, {@code -EAGAIN} when another thread is progressing the
     * domain or the ring is full, {@code -EINVAL} for CLAIM|DISCARD, {@code -EOPBADSTATE} before enable).
     */
    public int tsearch(
        final long src,
        final long tag,
        final long ignore,
        final long flags,
        final long context,
        final CompletionEntry result,
        final long[] source)
    {
        final int refused = refusal(Operation.TSEARCH);
        if (0 != refused)
        {
            return refused;
        }
        if (!enabled)
        {
            return Errno.EOPBADSTATE.negated();
        }
        if ((flags & ~(Flags.CLAIM | Flags.DISCARD)) != 0 || (flags & Flags.CLAIM) != 0 && (flags & Flags.DISCARD) != 0)
        {
            return Errno.EINVAL.negated();
        }
        if (domain.manualProgress())
        {
            return domain.tsearchNow(index, directedRecv ? src : AddressVector.ADDR_UNSPEC, tag, ignore, flags,
                context, result, source);
        }
        final CompletionQueue cq = rxCq;
        if (null != cq && !cq.ring().reserve())
        {
            return Errno.EAGAIN.negated();
        }
        if (proxy.tsearch(index, flags, context, directedRecv ? src : AddressVector.ADDR_UNSPEC, tag, ignore) < 0)
        {
            if (null != cq)
            {
                cq.ring().release(1);
            }
            return Errno.EAGAIN.negated();
        }
        return 0;
    }

    /**
     * {@code fi_cancel}: cancel the oldest posted receive with this context; it completes with error
     * {@code ECANCELED} and {@code FI_RECV} (plus {@code FI_MULTI_RECV} for a multi-recv buffer). A receive that
     * already matched (or a context never posted) is not affected and the call answers 0.
     * <p>
     * The call waits for the domain agent's answer (it runs the agent itself with manual progress), so that
     * refusals reach the caller: {@code -EAGAIN} when the receive is a multi-recv buffer with a rendezvous
     * transfer still copying into it (retry once that message has completed), when the completion queue has no
     * room for the error entry, or when receives posted before the cancel are still held back in the receive
     * ring (a full CQ or posted-receive pool). Threading: any thread; cancels of one domain are serialised.
     * Allocation-free.
     *
     * @param context the receive's context.
     * @return 0, {@code -EAGAIN} as above or when the control ring is full, {@code -EOPBADSTATE} before enable.
     */
    public int cancel(final long context)
    {
        if (!enabled)
        {
            return Errno.EOPBADSTATE.negated();
        }
        return domain.cancel(index, context);
    }

    // ------------------------------------------------------------------ encoding

    private int postMsg(final int op, final Message msg, final long flags)
    {
        if (null == msg)
        {
            return Errno.EINVAL.negated();
        }
        final long f = copyOnInject(flags);
        if (msg.iovCount > 0)
        {
            return postIov(op, f, msg.context, msg.iov, msg.iovCount, msg.addr, msg.tag, msg.data);
        }
        if ((f & COPY) != 0)
        {
            return postInline(op, f, msg.context, msg.buffer, msg.offset, -1, null, 0, msg.length, msg.addr, msg.tag,
                msg.data, 0, null);
        }
        return post(op, f, msg.context, msg.buffer, address(msg.buffer, msg.offset, msg.length), msg.length,
            msg.addr, msg.tag,
            msg.data);
    }

    private int postRecvMsg(final int op, final Message msg, final long flags)
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
            address = null == buffer ? -1 : target(buffer, 0, buffer.capacity());
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
            address = target(msg.buffer, msg.offset, msg.length);
            length = msg.length;
        }
        return postRecv(op, flags, msg.context, buffer, address, length, msg.addr, msg.tag, msg.ignore);
    }

    /**
     * FI_INJECT given to a call that completes (op_flags, a msg form) becomes {@link #COPY}: copied at post,
     * completed as usual (fi_msg(3): only the inject calls generate no completion).
     */
    private static long copyOnInject(final long flags)
    {
        final long f = flags & ~INTERNAL_FLAGS;
        return (f & Flags.INJECT) != 0 ? (f & ~Flags.INJECT) | COPY : f;
    }

    private static long address(final DirectBuffer buffer, final int offset, final int length)
    {
        if (null == buffer || null != buffer.byteArray() || offset < 0 || length < 0 ||
            (long) offset + length > buffer.capacity())
        {
            return -1;
        }
        return buffer.addressOffset() + offset;
    }

    private static long address(final ByteBuffer buffer, final int offset, final int length)
    {
        if (null == buffer || !buffer.isDirect() || offset < 0 || length < 0 ||
            (long) offset + length > buffer.capacity())
        {
            return -1;
        }
        return BufferUtil.address(buffer) + offset;
    }

    /**
     * Flow control: a send answers {@code -EAGAIN} while this endpoint already has a transmit queue's worth
     * ({@code tx_attr->size}) of sends waiting in the agent for a peer's credit (see {@code FlowControl}).
     */
    private boolean creditsExhausted(final int op)
    {
        final EndpointState s = state;
        return (CommandDescriptor.OP_SEND == op || CommandDescriptor.OP_TSEND == op) && null != s &&
            s.deferredSends() >= txSize;
    }

    /**
     * The address of a buffer the runtime will write into (a receive, an RMA read's destination, atomic results):
     * as {@link #address(DirectBuffer, int, int)}, and -1 for a read-only buffer.
     */
    private static long target(final DirectBuffer buffer, final int offset, final int length)
    {
        return null != buffer && readOnly(buffer.byteBuffer()) ? -1 : address(buffer, offset, length);
    }

    private static long target(final ByteBuffer buffer, final int offset, final int length)
    {
        return readOnly(buffer) ? -1 : address(buffer, offset, length);
    }

    private static boolean readOnly(final ByteBuffer buffer)
    {
        return null != buffer && buffer.isReadOnly();
    }

    /**
     * Is one of the first {@code count} buffers read-only? (Call after {@link #iovBytes} accepted them.)
     */
    private static boolean readOnly(final DirectBuffer[] iov, final int count)
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
     * The object that owns a buffer's memory, to pin while an operation uses it: a {@link ByteBuffer} (an Agrona
     * buffer's {@code byteBuffer()}: the wrapper itself may be re-wrapped by the application), or null for raw
     * memory the collector does not manage.
     */
    private static Object holder(final Object buffer)
    {
        return buffer instanceof DirectBuffer ? ((DirectBuffer) buffer).byteBuffer() : buffer;
    }

    /**
     * Pin the holders of the first {@code count} buffers (those that have one), chained before {@code link}.
     *
     * @return the first slot, {@code link} when none has a holder, or {@link #PIN_FULL} (nothing pinned).
     */
    private int pinIov(final DirectBuffer[] iov, final int count, final int link)
    {
        int first = link;
        for (int k = count - 1; k >= 0; k--)
        {
            final ByteBuffer holder = null == iov || null == iov[k] ? null : iov[k].byteBuffer();
            if (null != holder)
            {
                final int slot = pins.pin(holder, first);
                if (slot < 0)
                {
                    pins.release(first);
                    return PIN_FULL;
                }
                first = slot;
            }
        }
        return first;
    }

    /**
     * Pin up to two holders (either may be null) of one operation, chained.
     *
     * @return the first slot, {@link PinTable#NONE} when neither has a holder, or {@link #PIN_FULL}.
     */
    private int pinTransmitChain(final Object first, final Object second)
    {
        int chain = PinTable.NONE;
        if (null != second)
        {
            chain = pins.pin(second, chain);
            if (chain < 0)
            {
                return PIN_FULL;
            }
        }
        if (null != first)
        {
            final int slot = pins.pin(first, chain);
            if (slot < 0)
            {
                pins.release(chain);
                return PIN_FULL;
            }
            chain = slot;
        }
        return chain;
    }

    /**
     * Pin a transmit: {@code holder} (may be null) chained before {@code chain} (slots from {@link #pinIov}, or
     * {@link PinTable#NONE}); a transmit always gets a slot, since a target's answer names the operation by it.
     *
     * @return the first slot holding {@code context}, or {@link #PIN_FULL} (nothing left pinned).
     */
    private int pinTransmit(final Object holder, final int chain, final long context)
    {
        if (PIN_FULL == chain)
        {
            return PIN_FULL;
        }
        final int slot = null == holder && chain >= 0 ? chain :
            pins.pin(null == holder ? PinTable.NO_HOLDER : holder, chain);
        if (slot < 0)
        {
            pins.release(chain);
            return PIN_FULL;
        }
        pins.context(slot, context);
        return slot;
    }

    /**
     * Pin-table slots: enough for every completion the bound queues can hold (each post reserves one), at least
     * the tx and rx sizes; more operations in flight at once (silent ones) answer {@code -EAGAIN}.
     */
    private int pinCapacity()
    {
        final long queues = (null == txCq ? 0L : txCq.size()) + (null == rxCq ? 0L : rxCq.size());
        final long sizes = Math.max(1, info.txAttr().size()) + (long) rxSize;
        return (int) Math.min(1 << 17, Math.max(256, Math.max(queues, sizes)) + DomainAgent.MAX_IOV);
    }

    private boolean reserveTx(final long flags)
    {
        final CompletionQueue cq = txCq;
        if (null == cq || (flags & Flags.INJECT) != 0 || (txSelective && (flags & Flags.COMPLETION) == 0))
        {
            return true;
        }
        return cq.ring().reserve();
    }

    private void releaseTx(final long flags)
    {
        final CompletionQueue cq = txCq;
        if (null != cq && (flags & Flags.INJECT) == 0 && (!txSelective || (flags & Flags.COMPLETION) != 0))
        {
            cq.ring().release(1);
        }
    }

    private int post(
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

    private int post(
        final int op,
        final long flags,
        final long context,
        final Object buffer,
        final long address,
        final long length,
        final long dest,
        final long tag,
        final long data,
        final long key)
    {
        return post(op, flags, context, buffer, address, length, dest, tag, data, key, null);
    }

    /**
     * Post one buffer ({@code buffer} is pinned until the operation completes); {@code remote} (RMA only, may be
     * null) carries a remote list ({@link Message#rmaIov}).
     */
    private int post(
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
        if (!enabled)
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
        final Message r = remoteList(remote);
        if (NO_REMOTE != r && !remoteListFits(r, length))
        {
            return Errno.EINVAL.negated();
        }
        final long peer = peerOf(dest);
        if (peer < 0)
        {
            return EndpointType.MSG == type ? Errno.ENOTCONN.negated() : Errno.EINVAL.negated();
        }
        if (creditsExhausted(op))
        {
            return Errno.EAGAIN.negated();
        }
        if (!reserveTx(flags))
        {
            return Errno.EAGAIN.negated();
        }
        final int pin = pinTransmit(holder(buffer), PinTable.NONE, context);
        if (pin < 0)
        {
            releaseTx(flags);
            return Errno.EAGAIN.negated();
        }
        // The proxy commits with a release store of the record length: the agent sees every field it wrote.
        if (proxy.transmit(op, index, flags, context, address, length, peer, tag, data, key, pin,
            r.rmaCount, r.rmaAddresses, r.rmaLengths, r.rmaKeys) < 0)
        {
            pins.release(pin);
            releaseTx(flags);
            return Errno.EAGAIN.negated();
        }
        return 0;
    }

    private int postInject(
        final int op,
        final long flags,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final long dest,
        final long tag,
        final long data)
    {
        return postInject(op, flags, buffer, offset, length, dest, tag, data, 0, null);
    }

    private int postInject(
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
        return postInject(op, flags, buffer, offset, length, dest, tag, data, key, null);
    }

    private int postInject(
        final int op,
        final long flags,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final long dest,
        final long tag,
        final long data,
        final long key,
        final Message remote)
    {
        return postInline(op, flags | Flags.INJECT, 0, buffer, offset, -1, null, 0, length, dest, tag, data, key,
            remote);
    }

    /**
     * Copy the payload into the command: from {@code buffer} at {@code offset}, or (null buffer) from
     * {@code iov}'s {@code count} whole buffers, or (no iov) from the native {@code address}. With
     * {@link Flags#INJECT} (the inject calls) nothing completes; with {@link #COPY} (FI_INJECT given as op_flags
     * or to a msg form) the buffer is reusable on return and the operation completes as usual.
     */
    private int postInline(
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
        if (!enabled)
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
        final Message r = remoteList(remote);
        if (NO_REMOTE != r && !remoteListFits(r, length))
        {
            return Errno.EINVAL.negated();
        }
        final long peer = peerOf(dest);
        if (peer < 0)
        {
            return EndpointType.MSG == type ? Errno.ENOTCONN.negated() : Errno.EINVAL.negated();
        }
        if (creditsExhausted(op))
        {
            return Errno.EAGAIN.negated();
        }
        if (!silent && !reserveTx(flags))
        {
            return Errno.EAGAIN.negated();
        }
        // A copied operation that completes names itself in the target's answer by a pin slot holding its context
        // (nothing to keep reachable: the payload is in the command); an inject call needs none.
        final int pin = silent ? PinTable.NONE : pinTransmit(null, PinTable.NONE, context);
        if (!silent && pin < 0)
        {
            releaseTx(flags);
            return Errno.EAGAIN.negated();
        }
        if (proxy.transmitInline(op, index, flags, context, buffer, offset, address, iov, count, length, peer, tag,
            data, key, pin, r.rmaCount, r.rmaAddresses, r.rmaLengths, r.rmaKeys) < 0)
        {
            if (!silent)
            {
                pins.release(pin);
                releaseTx(flags);
            }
            return Errno.EAGAIN.negated();
        }
        return 0;
    }

    private int postIov(
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

    private int postIov(
        final int op,
        final long flags,
        final long context,
        final DirectBuffer[] iov,
        final int count,
        final long dest,
        final long tag,
        final long data,
        final long key)
    {
        return postIov(op, flags, context, iov, count, dest, tag, data, key, null);
    }

    /**
     * Post whole buffers (sendv, tsendv, writev, readv, *msg with an iov): sends up to the eager threshold are
     * gathered into one frame, larger ones go by rendezvous over the buffers; RMA moves the bytes in order
     * between the buffers and the remote range(s) ({@code remote} may carry a remote list).
     */
    private int postIov(
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
        if (!enabled)
        {
            return Errno.EOPBADSTATE.negated();
        }
        final long total = iovBytes(iov, count, txIovLimit, 1);
        if (total < 0 || (CommandDescriptor.OP_READ == op && readOnly(iov, count)))
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
        final Message r = remoteList(remote);
        if (NO_REMOTE != r && !remoteListFits(r, total))
        {
            return Errno.EINVAL.negated();
        }
        final long peer = peerOf(dest);
        if (peer < 0)
        {
            return EndpointType.MSG == type ? Errno.ENOTCONN.negated() : Errno.EINVAL.negated();
        }
        if (creditsExhausted(op))
        {
            return Errno.EAGAIN.negated();
        }
        if (!reserveTx(flags))
        {
            return Errno.EAGAIN.negated();
        }
        final int pin = pinTransmit(null, pinIov(iov, count, PinTable.NONE), context);
        if (pin < 0)
        {
            releaseTx(flags);
            return Errno.EAGAIN.negated();
        }
        if (proxy.transmitIov(op, index, flags, context, iov, count, total, peer, tag, data, key, pin,
            r.rmaCount, r.rmaAddresses, r.rmaLengths, r.rmaKeys) < 0)
        {
            pins.release(pin);
            releaseTx(flags);
            return Errno.EAGAIN.negated();
        }
        return 0;
    }

    /**
     * Bytes of an iov of whole direct buffers ({@code count} from 1 to {@code limit}, each a multiple of
     * {@code elementSize}), or -1 when it is not one.
     */
    private static long iovBytes(final DirectBuffer[] iov, final int count, final int limit, final int elementSize)
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
     */
    private static Message remoteList(final Message remote)
    {
        return null == remote || remote.rmaCount <= 0 ? NO_REMOTE : remote;
    }

    /**
     * A remote list is usable: 1 to {@code rma_iov_limit} entries, arrays long enough, lengths not negative and
     * adding up to the local total.
     */
    private boolean remoteListFits(final Message remote, final long total)
    {
        final int n = remote.rmaCount;
        if (n > rmaIovLimit || null == remote.rmaAddresses || null == remote.rmaLengths || null == remote.rmaKeys ||
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
     * Post a receive scattering into several whole buffers (one buffer takes the single-buffer path).
     */
    private int postRecvIov(
        final int op,
        final long flags,
        final long context,
        final DirectBuffer[] iov,
        final int count,
        final long src,
        final long tag,
        final long ignore)
    {
        if (!enabled)
        {
            return Errno.EOPBADSTATE.negated();
        }
        final long total = iovBytes(iov, count, rxIovLimit, 1);
        if (total < 0 || (count > 1 && (flags & Flags.MULTI_RECV) != 0) || readOnly(iov, count))
        {
            // A multi-recv buffer is one buffer; a read-only buffer cannot take a message.
            return Errno.EINVAL.negated();
        }
        if (1 == count)
        {
            return postRecv(op, flags, context, iov[0], iov[0].addressOffset(), total, src, tag, ignore);
        }
        final CompletionQueue cq = rxSelective && (flags & Flags.COMPLETION) == 0 ? null : rxCq;
        if (null != cq && !cq.ring().reserve())
        {
            return Errno.EAGAIN.negated();
        }
        final int pin = pinIov(iov, count, PinTable.NONE);
        final int i = PIN_FULL == pin ? -1 : proxy.receiveIov(op, index, flags, context, iov, count, total,
            directedRecv ? src : AddressVector.ADDR_UNSPEC, tag, ignore, pin);
        if (i < 0)
        {
            pins.release(pin);
            if (null != cq)
            {
                cq.ring().release(1);
            }
            return Errno.EAGAIN.negated();
        }
        return 0;
    }

    private int postRecv(
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
        if (!enabled)
        {
            return Errno.EOPBADSTATE.negated();
        }
        if (address < 0)
        {
            return Errno.EINVAL.negated();
        }
        // Under rx selective completion a receive without FI_COMPLETION produces no successful completion.
        final CompletionQueue cq = rxSelective && (flags & Flags.COMPLETION) == 0 ? null : rxCq;
        if (null != cq && !cq.ring().reserve())
        {
            return Errno.EAGAIN.negated();
        }
        final Object holder = holder(buffer);
        final int pin = null == holder ? PinTable.NONE : pins.pin(holder, PinTable.NONE);
        final int i = null != holder && pin < 0 ? -1 : proxy.receive(op, index, flags, context, address, length,
            directedRecv ? src : AddressVector.ADDR_UNSPEC, tag, ignore, pin);
        if (i < 0)
        {
            pins.release(pin);
            if (null != cq)
            {
                cq.ring().release(1);
            }
            return Errno.EAGAIN.negated();
        }
        return 0;
    }

    /**
     * The peer key of a destination: the AV's entry for RDM and DGRAM; the connected peer for MSG (the address
     * argument is ignored, as for connected endpoints in libfabric).
     */
    private long peerOf(final long dest)
    {
        if (EndpointType.MSG == type)
        {
            return connectedPeer;
        }
        return av.peerKey(dest);
    }

    /**
     * @return the endpoint type (RDM, DGRAM or MSG).
     */
    public EndpointType type()
    {
        return type;
    }

    /**
     * @return true when a MSG endpoint is connected.
     */
    public boolean connected()
    {
        return connectedPeer >= 0;
    }

    /**
     * {@code fi_connect}: ask the passive endpoint at {@code address} for a connection; the answer arrives on this
     * endpoint's event queue ({@link EventQueue#CONNECTED}, or an error entry {@code ECONNREFUSED} when rejected).
     *
     * @param address the passive endpoint's name.
     * @param param   connection data delivered with the CONNREQ event, or null (at most {@link #CM_DATA_SIZE}
     *                bytes).
     * @return this.
     * @throws FabricException EOPNOTSUPP for a non-MSG endpoint, ENOEQ without an event queue, EOPBADSTATE when
     *                         not enabled or already connected, ECONNREFUSED when nothing listens there, EINVAL
     *                         for more connection data than {@link #CM_DATA_SIZE}.
     */
    public synchronized Endpoint connect(final byte[] address, final byte[] param)
    {
        checkConnectable();
        checkCmData(param);
        if (null != pendingRequest || connectedPeer >= 0)
        {
            throw new FabricException(Errno.EOPBADSTATE, "endpoint is already connecting or connected");
        }
        final PassiveEndpoint pep = PassiveEndpoint.listening(address);
        if (null == pep)
        {
            throw new FabricException(Errno.ECONNREFUSED, "nothing listens at " +
                new String(address, java.nio.charset.StandardCharsets.US_ASCII));
        }
        final ConnectionRequest request = new ConnectionRequest(this, param);
        pendingRequest = request;
        pep.connectionRequest(request);
        return this;
    }

    /**
     * {@code fi_accept}: accept the connection request this endpoint was opened with (its info's handle, from a
     * CONNREQ event); both sides get {@link EventQueue#CONNECTED}, the client's event carrying {@code param}
     * ({@link EqEntry#param()}).
     *
     * @param param connection data for the client, or null (at most {@link #CM_DATA_SIZE} bytes).
     * @return this.
     * @throws FabricException EINVAL when the info carried no connection request or it was already answered, or
     *                         for more connection data than {@link #CM_DATA_SIZE}; ENOEQ without an event queue.
     */
    public synchronized Endpoint accept(final byte[] param)
    {
        checkConnectable();
        checkCmData(param);
        if (!(info.handle() instanceof ConnectionRequest))
        {
            throw new FabricException(Errno.EINVAL, "endpoint was not opened from a connection request");
        }
        final ConnectionRequest request = (ConnectionRequest) info.handle();
        if (!request.answer())
        {
            throw new FabricException(Errno.EINVAL, "connection request already answered");
        }
        final Endpoint client = request.client();
        connectedPeer = client.domain.transport().localKey(client.index);
        acceptedFrom = request;
        wasConnected = true;
        client.connected(domain.transport().localKey(index), this, null == param ? null : param.clone());
        eq.writeConnection(EventQueue.CONNECTED, this, null, null);
        return this;
    }

    private synchronized void connected(final long serverKey, final Endpoint server, final byte[] param)
    {
        connectedPeer = serverKey;
        pendingRequest = null;
        acceptedFrom = new ConnectionRequest(server, null);
        wasConnected = true;
        eq.writeConnection(EventQueue.CONNECTED, this, null, param);
    }

    synchronized void rejected(final byte[] param)
    {
        pendingRequest = null;
        eq.writeConnectionError(EventQueue.CONNREQ, this, Errno.ECONNREFUSED.value(), param);
    }

    static void checkCmData(final byte[] param)
    {
        if (null != param && param.length > CM_DATA_SIZE)
        {
            throw new FabricException(Errno.EINVAL, "connection data of " + param.length + " bytes exceeds " +
                "FI_OPT_CM_DATA_SIZE (" + CM_DATA_SIZE + ")");
        }
    }

    /**
     * {@code fi_shutdown}: disconnect; both sides get {@link EventQueue#SHUTDOWN} (the connection is down at both
     * ends, as with rdma_cm's disconnect) and later posts on either side return {@code -ENOTCONN}. Shutting down a
     * connection that is already down (the peer shut it down first, or a second call) is not an error and
     * generates no second event.
     *
     * @param flags 0.
     * @return this.
     * @throws FabricException EOPBADSTATE when the endpoint was never connected.
     */
    public Endpoint shutdown(final long flags)
    {
        disconnect(true);
        return this;
    }

    private void disconnect(final boolean localEvent)
    {
        final Endpoint peer;
        synchronized (this)
        {
            if (connectedPeer < 0 || null == acceptedFrom)
            {
                if (wasConnected)
                {
                    return;
                }
                throw new FabricException(Errno.EOPBADSTATE, "endpoint is not connected");
            }
            peer = acceptedFrom.client();
            connectedPeer = -1;
            acceptedFrom = null;
            if (localEvent && null != eq)
            {
                eq.writeConnection(EventQueue.SHUTDOWN, this, null, null);
            }
        }
        peer.peerShutdown();
    }

    private synchronized void peerShutdown()
    {
        if (connectedPeer >= 0)
        {
            connectedPeer = -1;
            acceptedFrom = null;
            if (null != eq)
            {
                eq.writeConnection(EventQueue.SHUTDOWN, this, null, null);
            }
        }
    }

    private void checkConnectable()
    {
        if (EndpointType.MSG != type)
        {
            throw new FabricException(Errno.EOPNOTSUPP, "connection management needs a FI_EP_MSG endpoint");
        }
        if (null == eq)
        {
            throw new FabricException(Errno.ENOEQ, "a MSG endpoint needs an event queue for connection events");
        }
        if (!enabled)
        {
            throw new FabricException(Errno.EOPBADSTATE, "enable the endpoint before connect or accept");
        }
    }

    Domain domain()
    {
        return domain;
    }

    private static CounterCell cell(final Counter counter)
    {
        return null == counter ? null : counter.cell();
    }

    private void checkBindable()
    {
        if (closed)
        {
            throw new FabricException(Errno.EINVAL, "endpoint is closed");
        }
        if (enabled)
        {
            throw new FabricException(Errno.EOPBADSTATE, "endpoint is already enabled");
        }
    }

    /**
     * {@code fi_close}: disconnect a connected MSG endpoint (the peer gets SHUTDOWN), withdraw the endpoint from the
     * agent (pending operations are dropped) and unbind it.
     */
    @Override
    public void close()
    {
        if (EndpointType.MSG == type && connectedPeer >= 0 && null != acceptedFrom)
        {
            // Closing a connected endpoint disconnects it: the peer sees FI_SHUTDOWN.
            disconnect(false);
        }
        closeEndpoint();
    }

    private synchronized void closeEndpoint()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        enabled = false;
        // The agent lets go of the endpoint first (its streams stop reading our buffers), then the pins go.
        domain.withdrawEndpoint(index);
        if (null != pins)
        {
            // Operations in flight are dropped with the endpoint: their buffers may go.
            pins.releaseAll();
        }
        if (null != txCq)
        {
            txCq.bound(-1);
        }
        if (null != rxCq)
        {
            rxCq.bound(-1);
        }
        if (null != sendCounter)
        {
            sendCounter.bound(-1);
        }
        final Counter[] counters = {recvCounter, readCounter, writeCounter, remoteReadCounter, remoteWriteCounter};
        for (final Counter c : counters)
        {
            if (null != c)
            {
                c.bound(-1);
            }
        }
        if (null != av)
        {
            av.bound(-1);
        }
        eq = null;
        domain.childClosed();
    }
}
