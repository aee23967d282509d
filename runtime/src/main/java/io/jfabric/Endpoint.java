package io.jfabric;

import io.jfabric.agent.CommandProxy;
import io.jfabric.agent.DomainAgent;
import io.jfabric.agent.EndpointState;
import io.jfabric.agent.FlowControl;
import io.jfabric.agent.PinTable;
import io.jfabric.ring.CompletionRing;
import io.jfabric.spi.Operation;
import io.jfabric.spi.ProviderCapabilities;
import org.agrona.DirectBuffer;

import java.nio.ByteBuffer;

import static io.jfabric.spi.AtomicCapabilities.Kind.ATOMIC;
import static io.jfabric.spi.AtomicCapabilities.Kind.COMPARE;
import static io.jfabric.spi.AtomicCapabilities.Kind.FETCH;
import static io.jfabric.agent.CommandDescriptor.OP_READ;
import static io.jfabric.agent.CommandDescriptor.OP_RECV;
import static io.jfabric.agent.CommandDescriptor.OP_SEND;
import static io.jfabric.agent.CommandDescriptor.OP_TRECV;
import static io.jfabric.agent.CommandDescriptor.OP_TSEND;
import static io.jfabric.agent.CommandDescriptor.OP_WRITE;

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

    private final Domain domain;
    private final Info info;
    private final int index;
    /** The provider's description: refused operations and the atomic table. */
    private final ProviderCapabilities capabilities;
    private long refusedOperations;
    /**
     * Operations this endpoint's role refuses with {@code -ENOSYS}: a scalable endpoint's context is one-way, a
     * shared receive context only receives, an endpoint bound to one receives through it (set before enable).
     */
    private long roleRefused;
    /** The scalable endpoint this is a context of, or null. */
    private final ScalableEndpoint parent;
    /** The transmit queue's size: the endpoint's, or its shared transmit context's (set before enable). */
    private int txSize;
    /** The shared contexts it is bound to, or that it is. */
    private final SharedContexts shared = new SharedContexts();
    /** Encodes every command this endpoint puts on the domain's command rings. */
    private final CommandProxy proxy;
    private final long txOpFlags;
    private final long rxOpFlags;
    /** FI_DIRECTED_RECV enabled (rx caps, else the endpoint's caps): without it a receive's src_addr is ignored. */
    private final boolean directedRecv;
    private final long maxMessageSize;
    private final int rxSize;
    private final EndpointType type;
    /** Completion reservations and buffer pins of every post (opened by enable). */
    private final Reservations reservations = new Reservations();
    /** The post paths of the msg, tagged and RMA calls. */
    private final MessageOps messages;
    /** The RMA msg forms. */
    private final RmaOps rma;
    /** The post paths of the atomic calls. */
    private final AtomicOps atomicOps;
    /** The agent's state of this endpoint once enabled (flow control: sends waiting for credit). */
    private volatile EndpointState state;
    /** The bound queues, counters, AV and EQ. */
    private final EndpointBindings bindings;
    /** The bound AV, taken by enable (posts read it only after reading {@link #enabled}). */
    private AddressVector av;
    private long minMultiRecv = 64;
    private volatile boolean enabled;
    /** Connection management of a MSG endpoint (its peer key is where posts go). */
    private final EndpointConnection connection = new EndpointConnection(this);
    private boolean closed;

    Endpoint(final Domain domain, final Info info, final int index)
    {
        this(domain, info, index, 0L, null);
    }

    Endpoint(final Domain domain, final Info info, final int index, final long roleRefused,
        final ScalableEndpoint parent)
    {
        this.domain = domain;
        this.info = info;
        this.index = index;
        this.bindings = new EndpointBindings(domain);
        this.capabilities = domain.capabilities();
        this.roleRefused = roleRefused;
        this.parent = parent;
        this.refusedOperations = capabilities.refusedOperations() | roleRefused | DatagramRules.open(info);
        this.txSize = queueSize(info.txAttr().size());
        this.proxy = domain.proxy();
        // FI_TRIGGER is taken from the msg forms' flags only (TriggeredPosts): not from op_flags.
        this.txOpFlags = PostChecks.copyOnInject(info.txAttr().opFlags()) & ~Flags.TRIGGER;
        this.rxOpFlags = info.rxAttr().opFlags();
        this.directedRecv = ((0 != info.rxAttr().caps() ? info.rxAttr().caps() : info.caps()) &
            Flags.DIRECTED_RECV) != 0;
        final long providerMax = domain.info().epAttr().maxMsgSize();
        this.maxMessageSize = info.epAttr().maxMsgSize() > 0 ? Math.min(info.epAttr().maxMsgSize(), providerMax) :
            providerMax;
        this.rxSize = queueSize(info.rxAttr().size());
        this.type = EndpointType.UNSPEC == info.epAttr().type() ? EndpointType.RDM : info.epAttr().type();
        final int txIovLimit = iovLimit(info.txAttr().iovLimit());
        final int rmaIovLimit = iovLimit(info.txAttr().rmaIovLimit());
        this.messages = new MessageOps(this, reservations, proxy, maxMessageSize, info.txAttr().injectSize(),
            txIovLimit, iovLimit(info.rxAttr().iovLimit()), rmaIovLimit, queueSize(info.txAttr().size()), directedRecv);
        this.rma = new RmaOps(messages);
        this.atomicOps = new AtomicOps(this, reservations, proxy, capabilities.atomics(), txIovLimit, rmaIovLimit);
    }

    private static int iovLimit(final long attribute)
    {
        return (int) Math.max(1, Math.min(DomainAgent.MAX_IOV, attribute));
    }

    private static int queueSize(final long attribute)
    {
        return (int) Math.max(1, Math.min(1 << 16, attribute > 0 ? attribute : 1024));
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
     * {@code fi_setname}: give this endpoint another source address, before it is enabled. The transport decides
     * ({@link io.jfabric.spi.DomainTransport#setEndpointAddress}); the address it has already is always accepted.
     * inproc and shm name an endpoint by its domain and its index in the domain (the domain's name is fixed when it
     * opens: {@code FI_SOURCE}/{@code domain_attr.name}), so they refuse any other address with EOPNOTSUPP.
     *
     * @param address the new address, in the provider's format.
     * @throws FabricException EINVAL for null or once enabled; EOPNOTSUPP when the transport cannot rebind.
     */
    public synchronized void setName(final byte[] address)
    {
        if (null == address || enabled)
        {
            throw new FabricException(Errno.EINVAL, null == address ? "fi_setname: no address" :
                "fi_setname: the endpoint is enabled");
        }
        final int rc = domain.transport().setEndpointAddress(index, address.clone());
        if (rc < 0)
        {
            throw new FabricException(Errno.of(-rc), "fi_setname: the " + domain.info().fabricAttr().provName() +
                " transport cannot give endpoint " + index + " this address");
        }
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
        bindings.bind(cq, flags);
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
        bindings.bind(counter, flags);
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
        bindings.bind(addressVector, flags);
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
        bindings.bind(eventQueue, flags);
        return this;
    }

    /**
     * {@code fi_ep_bind} to a shared receive context ({@link Domain#srxContext(RxAttr)}, {@code fi_srx_context}):
     * messages that arrive at this endpoint are matched against the receives posted on the context and wait in its
     * unexpected store; this endpoint's own receive calls then answer {@code -ENOSYS}. At enable the endpoint's
     * receive CQ must be the one of every other enabled endpoint bound to the context (the first one's is taken).
     *
     * @param srx   the shared receive context (same domain).
     * @param flags 0.
     * @return this.
     * @throws FabricException EBADFLAGS for non-zero flags; EINVAL for an endpoint that is not a shared receive
     *                         context, another domain's, a closed one or a second one; EOPBADSTATE after enable.
     */
    public synchronized Endpoint bind(final Endpoint srx, final long flags)
    {
        checkBindable();
        shared.bindReceive(this, srx, flags, domain);
        roleRefused |= ScalableEndpoint.RECEIVES;
        refusedOperations |= ScalableEndpoint.RECEIVES;
        return this;
    }

    /**
     * {@code fi_ep_bind} to a shared transmit context ({@link Domain#stxContext(TxAttr)}, {@code fi_stx_context}):
     * this endpoint's transmits take entries of the context's queue (see {@link SharedTxContext}).
     *
     * @param stx   the shared transmit context (same domain).
     * @param flags 0.
     * @return this.
     * @throws FabricException EBADFLAGS for non-zero flags; EINVAL for another domain's context, a closed one or a
     *                         second one; EOPBADSTATE after enable.
     */
    public synchronized Endpoint bind(final SharedTxContext stx, final long flags)
    {
        checkBindable();
        reservations.shareTransmitQueue(shared.bindTransmit(stx, flags, domain));
        txSize = stx.size();
        return this;
    }

    /**
     * {@code fi_enable}: publish the endpoint to the domain agent; data-path calls work from now on. A shared
     * receive context is enabled by the first endpoint bound to it that is enabled: enabling it directly does
     * nothing.
     *
     * @return this.
     * @throws FabricException ENOAV when no address vector is bound; EINVAL when bound to a shared receive context
     *                         whose receive CQ differs from this endpoint's.
     */
    public synchronized Endpoint enable()
    {
        if (shared.receiveContext() && !closed)
        {
            return this;
        }
        checkBindable();
        return publish();
    }

    /**
     * A shared receive context: an endpoint bound to it is being enabled. The first one lends the context its AV,
     * receive CQ and receive counters and enables it; every later one must have the same receive CQ.
     *
     * @param sharer the enabling endpoint's bindings.
     * @return the context's agent state.
     */
    synchronized EndpointState shareReceives(final EndpointBindings sharer)
    {
        if (closed)
        {
            throw new FabricException(Errno.EINVAL, "shared receive context is closed");
        }
        if (!enabled)
        {
            bindings.inherit(sharer, false, true);
            publish();
        }
        else if (bindings.rxRing() != sharer.rxRing())
        {
            throw new FabricException(Errno.EINVAL,
                "every endpoint bound to a shared receive context must bind the same receive CQ");
        }
        return state;
    }

    /**
     * A shared receive context: count one more bound endpoint (+1) or one less, when a bound endpoint closed (-1).
     *
     * @param change +1 or -1.
     * @throws FabricException EINVAL binding to a closed context.
     */
    synchronized void sharers(final int change)
    {
        if (change > 0 && closed)
        {
            throw new FabricException(Errno.EINVAL, "shared receive context is closed");
        }
        shared.sharers(change);
    }

    /**
     * @return its part in shared contexts.
     */
    SharedContexts sharedContexts()
    {
        return shared;
    }

    private Endpoint publish()
    {
        if (null != parent)
        {
            // A context takes its scalable endpoint's AV, and its CQ and counters where it bound none itself.
            parent.lend(bindings, roleRefused);
        }
        av = bindings.av();
        if (null == av && EndpointType.MSG != type)
        {
            throw new FabricException(Errno.ENOAV, "an RDM or DGRAM endpoint needs an address vector before enable");
        }
        final EndpointState sharedRx = null == shared.srx() ? null : shared.srx().shareReceives(bindings);
        final PinTable pins = bindings.open(reservations, info.txAttr().size(), rxSize);
        final EndpointState state = bindings.describe(new EndpointState(
            index, rxSize, FlowControl.unexpectedEntries(), domain.transport().eagerThreshold(), maxMessageSize))
            .pins(pins)
            .sharedRx(sharedRx)
            .sourceErr((info.caps() & (Flags.SOURCE | Flags.SOURCE_ERR)) == (Flags.SOURCE | Flags.SOURCE_ERR))
            .datagram(EndpointType.DGRAM == type)
            .multiRecvSeparate(ProviderCapabilities.MultiRecvCompletion.SEPARATE_ENTRY ==
                capabilities.multiRecvCompletion());
        if (state.multiRecvSeparate() && null != bindings.rxRing())
        {
            // A multi-recv release written as its own entry follows its message: keep a slot for it.
            bindings.rxRing().keepHeadroom(1);
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
        final long bit = operation.bit();
        return 0 == (refusedOperations & bit) ? 0 : 0 != ((roleRefused | DatagramRules.refusedOperations(type)) & bit) ?
            Errno.ENOSYS.negated() : capabilities.refusal(operation);
    }

    /**
     * {@code fi_tx_size_left}: a lower bound of the transmit operations that can be posted now without
     * {@code -EAGAIN} (more may fit, depending on the operations). The smallest of: {@code tx_attr.size} less the
     * sends waiting for a peer's credit, the bound transmit CQ's unreserved slots (without selective completion;
     * each completing post takes one until its completion is read) and the free slots of the endpoint's pin table
     * (each transmit holds one until it completes). So it drops by one per completing post and comes back as
     * completions are read. Not counted: the domain's shared command ring (1 MiB), full only when the agent falls
     * behind every endpoint. Allocation-free; a scan of the pin table.
     *
     * @return the count, or {@code -EOPBADSTATE} before {@link #enable()} (and after close), {@code -ENOSYS} on a
     * receive context.
     */
    public long txSizeLeft()
    {
        final EndpointState s = state;
        final long refused = sizeLeftRefused(Operation.SEND, s);
        return 0 != refused ? refused : Math.max(0, reservations.txRoom(txSize - (long) s.deferredSends()));
    }

    /**
     * {@code fi_rx_size_left}: a lower bound of the receives that can be posted now without {@code -EAGAIN}: the
     * smallest of {@code rx_attr.size}, the bound receive CQ's unreserved slots (without selective completion) and
     * the pin table's free slots. Allocation-free; a scan of the pin table.
     *
     * @return the count, or {@code -EOPBADSTATE} before {@link #enable()} (and after close), {@code -ENOSYS} on a
     * transmit context.
     */
    public long rxSizeLeft()
    {
        final long refused = sizeLeftRefused(Operation.RECV, state);
        return 0 != refused ? refused : Math.max(0, reservations.rxRoom(rxSize));
    }

    /** {@code -ENOSYS} for a direction this endpoint's role refuses, {@code -EOPBADSTATE} when not enabled, or 0. */
    private long sizeLeftRefused(final Operation direction, final EndpointState s)
    {
        return 0 != (roleRefused & direction.bit()) ? Errno.ENOSYS.negated() :
            !enabled || null == s ? Errno.EOPBADSTATE.negated() : 0;
    }

    /** {@link #refusal(Operation)}, then a triggered post's place in the domain's held store (TriggeredPosts). */
    private int refusal(final Operation operation, final Message msg, final long flags)
    {
        final int refused = 0 != DatagramRules.refusal(type, flags) ? Errno.EINVAL.negated() : refusal(operation);
        return 0 != refused ? refused : TriggeredPosts.take(domain, enabled, msg, flags);
    }

    /** Give back a triggered post's place when the post failed; answers {@code result}. */
    private int posted(final Message msg, final long flags, final int result)
    {
        return TriggeredPosts.done(domain, msg, flags, result);
    }

    /**
     * {@code fi_join}: join a multicast group; the group's {@code fi_mc_addr} then names it in sends. No provider
     * carries {@code FI_MULTICAST} yet (RUNTIME.md, "Datagram endpoints and multicast").
     *
     * @param groupAddress the group's address in the provider's format.
     * @param flags        0, {@code FI_SEND} or {@code FI_RECV}.
     * @param context      the join's context (for {@link EventQueue#JOIN_COMPLETE}).
     * @return the group.
     * @throws FabricException EINVAL without an address, EBADFLAGS for other flags, ENOSYS (every provider today).
     */
    public MulticastGroup join(final byte[] groupAddress, final long flags, final Object context)
    {
        return Multicast.join(info, groupAddress, flags);
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
        return 0 != refused ? refused : messages.post(OP_SEND, txOpFlags, context, buffer,
            PostChecks.address(buffer, offset, length), length, dest, 0, 0);
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
        return 0 != refused ? refused : messages.post(OP_SEND, txOpFlags, context, buffer,
            PostChecks.address(buffer, offset, length), length, dest, 0, 0);
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
        return 0 != refused ? refused : messages.postIov(OP_SEND, txOpFlags, context, iov, count, dest, 0, 0);
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
        final int refused = refusal(Operation.SENDMSG, msg, flags);
        return 0 != refused ? refused : posted(msg, flags, messages.postMsg(OP_SEND, msg, flags));
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
        return 0 != refused ? refused : messages.postInject(OP_SEND, txOpFlags, buffer, offset, length, dest, 0, 0, 0);
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
        return 0 != refused ? refused : messages.post(OP_SEND, txOpFlags | Flags.REMOTE_CQ_DATA, context, buffer,
            PostChecks.address(buffer, offset, length), length, dest, 0, data);
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
        return 0 != refused ? refused :
            messages.postInject(OP_SEND, txOpFlags | Flags.REMOTE_CQ_DATA, buffer, offset, length, dest, 0, data, 0);
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
        return 0 != refused ? refused : messages.postRecv(OP_RECV, rxOpFlags, context, buffer,
            PostChecks.target(buffer, offset, length), length, src, 0, 0);
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
        return 0 != refused ? refused : messages.postRecv(OP_RECV, rxOpFlags, context, buffer,
            PostChecks.target(buffer, offset, length), length, src, 0, 0);
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
        return 0 != refused ? refused : messages.postRecvIov(OP_RECV, rxOpFlags, context, iov, count, src, 0, 0);
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
        return 0 != refused ? refused : (flags & Flags.TRIGGER) != 0 ? TriggeredPosts.RECEIVE :
            messages.postRecvMsg(OP_RECV, msg, flags);
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
        return 0 != refused ? refused : messages.post(OP_TSEND, txOpFlags, context, buffer,
            PostChecks.address(buffer, offset, length), length, dest, tag, 0);
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
        return 0 != refused ? refused : messages.post(OP_TSEND, txOpFlags, context, buffer,
            PostChecks.address(buffer, offset, length), length, dest, tag, 0);
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
        return 0 != refused ? refused : messages.postIov(OP_TSEND, txOpFlags, context, iov, count, dest, tag, 0);
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
        final int refused = refusal(Operation.TSENDMSG, msg, flags);
        return 0 != refused ? refused : posted(msg, flags, messages.postMsg(OP_TSEND, msg, flags));
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
        return 0 != refused ? refused :
            messages.postInject(OP_TSEND, txOpFlags, buffer, offset, length, dest, tag, 0, 0);
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
        return 0 != refused ? refused : messages.post(OP_TSEND, txOpFlags | Flags.REMOTE_CQ_DATA, context, buffer,
            PostChecks.address(buffer, offset, length), length, dest, tag, data);
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
        return 0 != refused ? refused :
            messages.postInject(OP_TSEND, txOpFlags | Flags.REMOTE_CQ_DATA, buffer, offset, length, dest, tag, data, 0);
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
        return 0 != refused ? refused : messages.postRecv(OP_TRECV, rxOpFlags, context, buffer,
            PostChecks.target(buffer, offset, length), length, src, tag, ignore);
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
        return 0 != refused ? refused : messages.postRecv(OP_TRECV, rxOpFlags, context, buffer,
            PostChecks.target(buffer, offset, length), length, src, tag, ignore);
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
        return 0 != refused ? refused :
            messages.postRecvIov(OP_TRECV, rxOpFlags, context, iov, count, src, tag, ignore);
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
        return 0 != refused ? refused : (flags & Flags.TRIGGER) != 0 ? TriggeredPosts.RECEIVE :
            messages.postRecvMsg(OP_TRECV, msg, flags);
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
        return 0 != refused ? refused : messages.post(OP_WRITE, txOpFlags, context, buffer,
            PostChecks.address(buffer, offset, length), length, dest, remoteAddress, 0, key, null);
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
        return 0 != refused ? refused :
            messages.postIov(OP_WRITE, txOpFlags, context, iov, count, dest, remoteAddress, 0, key, null);
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
        final int refused = refusal(Operation.WRITEMSG, msg, flags);
        return 0 != refused ? refused : posted(msg, flags, rma.writemsg(msg, flags));
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
        return 0 != refused ? refused :
            messages.postInject(OP_WRITE, txOpFlags, buffer, offset, length, dest, remoteAddress, 0, key);
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
        return 0 != refused ? refused : messages.post(OP_WRITE, txOpFlags | Flags.REMOTE_CQ_DATA, context, buffer,
            PostChecks.address(buffer, offset, length), length, dest, remoteAddress, data, key, null);
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
        return 0 != refused ? refused : messages.postInject(OP_WRITE, txOpFlags | Flags.REMOTE_CQ_DATA, buffer, offset,
            length, dest, remoteAddress, data, key);
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
        return 0 != refused ? refused : messages.post(OP_READ, txOpFlags, context, buffer,
            PostChecks.target(buffer, offset, length), length, src, remoteAddress, 0, key, null);
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
        return rma.readv(txOpFlags, iov, count, src, remoteAddress, key, context);
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
        final int refused = refusal(Operation.READMSG, msg, flags);
        return 0 != refused ? refused : posted(msg, flags, rma.readmsg(msg, flags));
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
        return atomicOps.valid(ATOMIC, datatype, op);
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
        return atomicOps.valid(FETCH, datatype, op);
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
        return atomicOps.valid(COMPARE, datatype, op);
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
        return 0 != refused ? refused : atomicOps.postAtomic(ATOMIC, txOpFlags, operands, offset, count, null, 0,
            null, 0, dest, remoteAddress, key, null, datatype, op, context);
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
        return 0 != refused ? refused : atomicOps.postAtomic(ATOMIC, txOpFlags | Flags.INJECT, operands, offset, count,
            null, 0, null, 0, dest, remoteAddress, key, null, datatype, op, 0);
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
        return 0 != refused ? refused : atomicOps.postAtomic(FETCH, txOpFlags, operands, offset, count, null, 0, result,
            resultOffset, dest, remoteAddress, key, null, datatype, op, context);
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
        return 0 != refused ? refused : atomicOps.postAtomic(COMPARE, txOpFlags, operands, offset, count, compare,
            compareOffset, result, resultOffset, dest, remoteAddress, key, null, datatype, op, context);
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
        return 0 != refused ? refused : atomicOps.postAtomicIov(ATOMIC, txOpFlags, iov, count, null, 0, null, 0, dest,
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
        final int refused = refusal(Operation.ATOMICMSG, msg, flags);
        return 0 != refused ? refused : posted(msg, flags, atomicOps.atomicmsg(msg, datatype, op, flags));
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
        return 0 != refused ? refused : atomicOps.postAtomicIov(FETCH, txOpFlags, iov, count, null, 0, resultIov,
            resultCount, dest, remoteAddress, key, null, datatype, op, context);
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
        final int refused = refusal(Operation.FETCH_ATOMICMSG, msg, flags);
        return 0 != refused ? refused : posted(msg, flags,
            atomicOps.fetchmsg(FETCH, msg, null, 0, result, resultOffset, datatype, op, flags));
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
        final int refused = refusal(Operation.FETCH_ATOMICMSG, msg, flags);
        return 0 != refused ? refused : posted(msg, flags,
            atomicOps.fetchmsgIov(FETCH, msg, null, 0, resultIov, resultCount, datatype, op, flags));
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
        return 0 != refused ? refused : atomicOps.postAtomicIov(COMPARE, txOpFlags, iov, count, compareIov,
            compareCount, resultIov, resultCount, dest, remoteAddress, key, null, datatype, op, context);
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
        final int refused = refusal(Operation.COMPARE_ATOMICMSG, msg, flags);
        return 0 != refused ? refused : posted(msg, flags,
            atomicOps.fetchmsg(COMPARE, msg, compare, compareOffset, result, resultOffset, datatype, op, flags));
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
        final int refused = refusal(Operation.COMPARE_ATOMICMSG, msg, flags);
        return 0 != refused ? refused : posted(msg, flags,
            atomicOps.fetchmsgIov(COMPARE, msg, compareIov, compareCount, resultIov, resultCount, datatype, op, flags));
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
        final CompletionRing ring = reservations.rxRing();
        if (null != ring && !ring.reserve())
        {
            return Errno.EAGAIN.negated();
        }
        if (proxy.tsearch(index, flags, context, directedRecv ? src : AddressVector.ADDR_UNSPEC, tag, ignore) < 0)
        {
            if (null != ring)
            {
                ring.release(1);
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

    /**
     * The peer key of a destination: the AV's entry for RDM and DGRAM; the connected peer for MSG (the address
     * argument is ignored, as for connected endpoints in libfabric).
     */
    long peerOf(final long dest)
    {
        if (EndpointType.MSG == type)
        {
            return connection.peer();
        }
        return av.peerKey(dest);
    }

    /**
     * @return the answer to a post whose destination has no peer: {@code -ENOTCONN} on a MSG endpoint (not
     * connected), else {@code -EINVAL} (no such address).
     */
    int noPeer()
    {
        return EndpointType.MSG == type ? Errno.ENOTCONN.negated() : Errno.EINVAL.negated();
    }

    /**
     * @return true once {@link #enable()} published the endpoint (volatile read: what enable wrote before is
     * visible after it), false before and after close.
     */
    boolean enabled()
    {
        return enabled;
    }

    /**
     * @return the agent's state of this endpoint, null before enable (flow control reads its deferred sends).
     */
    EndpointState agentState()
    {
        return state;
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
        return connection.peer() >= 0;
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
        connection.connect(address, param);
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
        connection.accept(param);
        return this;
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
        connection.disconnect(true);
        return this;
    }

    /**
     * @return this endpoint's connection management (MSG endpoints).
     */
    EndpointConnection connection()
    {
        return connection;
    }

    /**
     * @return the endpoint's bindings (deferred work checks its completion counter against them).
     */
    EndpointBindings bindings()
    {
        return bindings;
    }

    /**
     * @return the bound event queue, or null (read under this endpoint's monitor).
     */
    EventQueue eventQueue()
    {
        return bindings.eq();
    }

    private void checkConnectable()
    {
        if (EndpointType.MSG != type)
        {
            throw new FabricException(Errno.EOPNOTSUPP, "connection management needs a FI_EP_MSG endpoint");
        }
        if (null == bindings.eq())
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
        if (EndpointType.MSG == type && connection.established())
        {
            // Closing a connected endpoint disconnects it: the peer sees FI_SHUTDOWN.
            connection.disconnect(false);
        }
        connection.closed();
        closeEndpoint();
    }

    private synchronized void closeEndpoint()
    {
        if (closed)
        {
            return;
        }
        shared.checkClosable();
        closed = true;
        enabled = false;
        // The agent lets go of the endpoint first (its streams stop reading our buffers), then the pins go.
        domain.withdrawEndpoint(index);
        // Operations in flight are dropped with the endpoint: their buffers may go.
        reservations.releaseAll();
        bindings.unbindAll();
        shared.unbind();
        domain.childClosed();
        if (null != parent)
        {
            parent.contextClosed(this);
        }
    }
}
