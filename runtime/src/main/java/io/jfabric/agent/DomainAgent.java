package io.jfabric.agent;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.matching.MatchFlags;
import io.jfabric.matching.MatchResult;
import io.jfabric.matching.MatchStatus;
import io.jfabric.matching.MatchingEngine;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.FrameHandler;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static io.jfabric.agent.CommandDescriptor.ADDRESS_OFFSET;
import static io.jfabric.agent.CommandDescriptor.CONTEXT_OFFSET;
import static io.jfabric.agent.CommandDescriptor.COUNT_OFFSET;
import static io.jfabric.agent.CommandDescriptor.DATA_OFFSET;
import static io.jfabric.agent.CommandDescriptor.ENDPOINT_OFFSET;
import static io.jfabric.agent.CommandDescriptor.FLAGS_OFFSET;
import static io.jfabric.agent.CommandDescriptor.IGNORE_OFFSET;
import static io.jfabric.agent.CommandDescriptor.LENGTH_OFFSET;
import static io.jfabric.agent.CommandDescriptor.PEER_OFFSET;
import static io.jfabric.agent.CommandDescriptor.TAG_OFFSET;

/**
 * The duty cycle of one domain: drains the control ring, the receive ring (receives first, so that arrivals find
 * posted buffers), the transport's inbound frames and the send ring, each in bounded batches; matches through the
 * {@code matching} module; copies payloads; publishes completions and counters.
 * <p>
 * Back-pressure never drops anything: when a completion queue, the unexpected storage or the peer's inbound ring
 * is full the command or frame stays where it is ({@code ABORT}) and is retried on a later duty cycle.
 * <p>
 * Threading: one thread at a time runs {@link #doWork()} (an {@code AgentRunner} thread with
 * {@code FI_PROGRESS_AUTO}, or the application thread that holds the domain's progress guard with
 * {@code FI_PROGRESS_MANUAL}). The command rings are many-producer; everything else here is single-writer.
 */
public final class DomainAgent implements Agent
{
    /** Largest number of endpoints per domain. */
    public static final int MAX_ENDPOINTS = 256;
    /** Largest number of address vectors per domain. */
    public static final int MAX_AVS = 64;
    private static final int BATCH = 64;
    private static final int ACK_CAPACITY = 256;
    private static final int PULL_CAPACITY = 64;
    private static final int CHUNK = 256 * 1024;
    private static final long ADDR_NOTAVAIL = -1L;
    /** Reply slot: status of the last MR control command (0 or a positive errno). */
    public static final int REPLY_STATUS = 0;
    /** Reply slot: key of the last registration. */
    public static final int REPLY_KEY = 1;
    /** Reply slot: sequence of the last answered MR control command. */
    public static final int REPLY_SEQUENCE = 2;
    private static final int REPLY_LENGTH = 3;

    private final String roleName;
    private final DomainTransport transport;
    private final ManyToOneRingBuffer controlRing;
    private final ManyToOneRingBuffer recvRing;
    private final ManyToOneRingBuffer sendRing;
    private final AtomicReferenceArray<EndpointState> endpoints = new AtomicReferenceArray<>(MAX_ENDPOINTS);
    private final Long2LongHashMap[] avReverse = new Long2LongHashMap[MAX_AVS];
    private final MatchResult result = new MatchResult();
    private final UnsafeBuffer header =
        new UnsafeBuffer(ByteBuffer.allocateDirect(FrameDescriptor.RMA_HEADER_LENGTH));
    private final MemoryRegistry registry;
    private final AtomicExecutor executor;
    private final UnsafeBuffer ackScratch;
    private final int atomicMaxBytes;
    private final AtomicLongArray replies = new AtomicLongArray(REPLY_LENGTH);
    private final UnsafeBuffer payloadView = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer gather;
    private final long[] ackPeer = new long[ACK_CAPACITY];
    private final long[] ackCookie = new long[ACK_CAPACITY];
    private final long[] ackFlags = new long[ACK_CAPACITY];
    private final long[] ackKind = new long[ACK_CAPACITY];
    private final long[] ackData = new long[ACK_CAPACITY];
    private final long[] ackLength = new long[ACK_CAPACITY];
    private final long[] ackPayload = new long[ACK_CAPACITY];
    private final int[] ackPayloadLength = new int[ACK_CAPACITY];
    private final byte[] ackOpcode = new byte[ACK_CAPACITY];
    private final long[] ackExtension = new long[ACK_CAPACITY];
    private final long[] pullPeer = new long[PULL_CAPACITY];
    private final long[] pullSource = new long[PULL_CAPACITY];
    private final long[] pullDestination = new long[PULL_CAPACITY];
    private final long[] pullRemaining = new long[PULL_CAPACITY];
    private final long[] pullSlot = new long[PULL_CAPACITY];
    private final int[] pullEndpoint = new int[PULL_CAPACITY];
    private int pullHead;
    private int pullCount;
    private final int eagerThreshold;
    private final int chunk;
    private final int[] ackEndpoint = new int[ACK_CAPACITY];
    private int ackHead;
    private int ackCount;
    private long sequence;
    private final ControlledMessageHandler controlHandler = this::onControl;
    private final ControlledMessageHandler recvHandler = this::onRecvCommand;
    private final ControlledMessageHandler sendHandler = this::onSendCommand;
    private final FrameHandler frameHandler = this::onFrame;

    /**
     * Create the agent of a domain.
     *
     * @param roleName       the agent's role name ({@code jfabric-<provider>-<domain>}).
     * @param transport      the domain's back-end.
     * @param ringCapacity   bytes of each command ring (a power of two).
     * @param maxMessageSize the largest message (the gather buffer for iov sends).
     * @param mrMode         the domain's MR mode (for the memory registry).
     * @param mrIovLimit     the domain's {@code mr_iov_limit}.
     * @param atomics        the atomic operations this domain executes as a target.
     */
    public DomainAgent(
        final String roleName,
        final DomainTransport transport,
        final int ringCapacity,
        final int maxMessageSize,
        final long mrMode,
        final int mrIovLimit,
        final AtomicCapabilities atomics)
    {
        this.registry = new MemoryRegistry(mrMode, Math.max(1, mrIovLimit));
        this.eagerThreshold = transport.eagerThreshold();
        this.chunk = Math.max(1, Math.min(CHUNK, transport.maxFrameLength() - FrameDescriptor.HEADER_LENGTH));
        this.executor = new AtomicExecutor(atomics);
        this.atomicMaxBytes = atomics.maxBytes();
        this.ackScratch = new UnsafeBuffer(ByteBuffer.allocateDirect(ACK_CAPACITY * atomicMaxBytes));
        this.roleName = roleName;
        this.transport = transport;
        this.controlRing = newRing(ringCapacity);
        this.recvRing = newRing(ringCapacity);
        this.sendRing = newRing(ringCapacity);
        this.gather = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(256, Math.min(maxMessageSize,
            transport.eagerThreshold()))));
    }

    private static ManyToOneRingBuffer newRing(final int capacity)
    {
        return new ManyToOneRingBuffer(new UnsafeBuffer(
            ByteBuffer.allocateDirect(capacity + RingBufferDescriptor.TRAILER_LENGTH)));
    }

    /**
     * @return the control ring (cancel, AV changes, options); many producers.
     */
    public ManyToOneRingBuffer controlRing()
    {
        return controlRing;
    }

    /**
     * @return the receive command ring; many producers.
     */
    public ManyToOneRingBuffer recvRing()
    {
        return recvRing;
    }

    /**
     * @return the send command ring; many producers.
     */
    public ManyToOneRingBuffer sendRing()
    {
        return sendRing;
    }

    /**
     * @return the domain's transport.
     */
    public DomainTransport transport()
    {
        return transport;
    }

    /**
     * Answers to MR control commands ({@link #REPLY_STATUS}, {@link #REPLY_KEY}, {@link #REPLY_SEQUENCE}): the
     * agent stores status and key, then the sequence (volatile), which the waiting control thread polls.
     *
     * @return the reply slots.
     */
    public AtomicLongArray replies()
    {
        return replies;
    }

    /**
     * Publish an endpoint (control path; a volatile array store orders its bindings before the agent sees it).
     *
     * @param state the endpoint's state, or null to withdraw it.
     * @param index its index.
     */
    public void endpoint(final int index, final EndpointState state)
    {
        endpoints.set(index, state);
    }

    /**
     * Create the reverse map of an address vector (control path, before any endpoint binds it).
     *
     * @param avId the AV id.
     */
    public void addressVector(final int avId)
    {
        avReverse[avId] = new Long2LongHashMap(ADDR_NOTAVAIL);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public int doWork()
    {
        int work = controlRing.controlledRead(controlHandler, BATCH);
        work += recvRing.controlledRead(recvHandler, BATCH);
        work += flushAcks();
        work += flushPulls();
        work += transport.poll(frameHandler, BATCH);
        work += sendRing.controlledRead(sendHandler, BATCH);
        return work;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String roleName()
    {
        return roleName;
    }

    private ControlledMessageHandler.Action onControl(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        switch (msgTypeId)
        {
            case CommandDescriptor.OP_AV_INSERT:
                return onAvInsert(buffer, index);
            case CommandDescriptor.OP_AV_REMOVE:
            {
                final Long2LongHashMap map = avReverse[(int) buffer.getLong(index + CONTEXT_OFFSET)];
                if (null != map)
                {
                    map.remove(buffer.getLong(index + PEER_OFFSET));
                }
                return ControlledMessageHandler.Action.CONTINUE;
            }
            case CommandDescriptor.OP_MR_REG:
            {
                long status = 0;
                long key = 0;
                try
                {
                    final int segments = buffer.getInt(index + COUNT_OFFSET);
                    if (segments > 0)
                    {
                        // regv: the segments follow the header (control path: the arrays are copied anyway).
                        final long[] addresses = new long[segments];
                        final long[] lengths = new long[segments];
                        for (int i = 0; i < segments; i++)
                        {
                            final int entry =
                                index + CommandDescriptor.HEADER_LENGTH + i * CommandDescriptor.IOV_ENTRY_LENGTH;
                            addresses[i] = buffer.getLong(entry);
                            lengths[i] = buffer.getLong(entry + 8);
                        }
                        key = registry.register(addresses, lengths, segments, buffer.getLong(index + FLAGS_OFFSET),
                            buffer.getLong(index + TAG_OFFSET));
                    }
                    else
                    {
                        key = registry.register(
                            buffer.getLong(index + ADDRESS_OFFSET), buffer.getLong(index + LENGTH_OFFSET),
                            buffer.getLong(index + FLAGS_OFFSET), buffer.getLong(index + TAG_OFFSET));
                    }
                }
                catch (final FabricException ex)
                {
                    status = ex.errno().value();
                }
                reply(status, key, buffer.getLong(index + DATA_OFFSET));
                return ControlledMessageHandler.Action.CONTINUE;
            }
            case CommandDescriptor.OP_MR_CLOSE:
            {
                final int status = registry.close(buffer.getLong(index + TAG_OFFSET));
                reply(-status, 0, buffer.getLong(index + DATA_OFFSET));
                return ControlledMessageHandler.Action.CONTINUE;
            }
            case CommandDescriptor.OP_MIN_MULTI_RECV:
            {
                final EndpointState ep = endpoints.get(buffer.getInt(index + ENDPOINT_OFFSET));
                if (null != ep)
                {
                    ep.engine.minMultiRecv(buffer.getLong(index + LENGTH_OFFSET));
                }
                return ControlledMessageHandler.Action.CONTINUE;
            }
            default:
                return ControlledMessageHandler.Action.CONTINUE;
        }
    }

    private void reply(final long status, final long key, final long sequence)
    {
        replies.set(REPLY_STATUS, status);
        replies.set(REPLY_KEY, key);
        // Volatile store last: the control thread reads the sequence, then status and key.
        replies.set(REPLY_SEQUENCE, sequence);
    }

    private ControlledMessageHandler.Action onAvInsert(final MutableDirectBuffer buffer, final int index)
    {
        final int avId = (int) buffer.getLong(index + CONTEXT_OFFSET);
        final long key = buffer.getLong(index + PEER_OFFSET);
        final long fiAddr = buffer.getLong(index + TAG_OFFSET);
        final Long2LongHashMap map = avReverse[avId];
        if (null == map)
        {
            return ControlledMessageHandler.Action.CONTINUE;
        }
        map.put(key, fiAddr);
        for (int i = 0; i < MAX_ENDPOINTS; i++)
        {
            final EndpointState ep = endpoints.get(i);
            if (null != ep && ep.avId == avId)
            {
                // Unexpected messages from this source, queued before it was known, now match directed receives.
                ep.engine.avInsert(key, fiAddr);
                final MatchResult r = result;
                while (ep.rxCq != null && ep.rxCq.hasSpace() && ep.rxCq.hasErrorSpace() && ackCount < ACK_CAPACITY &&
                    MatchStatus.MATCHED == ep.engine.pollRehomedMatch(r))
                {
                    deliverFromSlot(ep, r);
                }
                int answer;
                while (ep.rxCq != null && ep.rxCq.hasSpace() && ep.rxCq.hasErrorSpace() &&
                    0 != (answer = ep.engine.pollSearchEvent(r)))
                {
                    publishSearch(ep, answer, 0, r.context(), r);
                }
            }
        }
        return ControlledMessageHandler.Action.CONTINUE;
    }

    /**
     * kfabric {@code tsearch} answered at once; the caller must have exclusive use of the agent (it holds the
     * domain's manual-progress guard, so no duty cycle runs concurrently).
     *
     * @param endpointIndex the endpoint.
     * @param source        fi_addr or ADDR_UNSPEC.
     * @param tag           the tag.
     * @param ignore        ignore mask.
     * @param flags         CLAIM, DISCARD or 0.
     * @param context       the search context (for CLAIM and a deferred answer).
     * @param sink          receives the hit at index 0 (context, flags, length, 0, data, tag, source).
     * @return 1 on a hit, 0 when the answer comes later as a completion, or a negative errno ({@code -ENOMSG},
     * {@code -EINVAL}, {@code -EAGAIN}, {@code -ENOENT} for an endpoint that is not enabled).
     */
    public int tsearchNow(
        final int endpointIndex,
        final long source,
        final long tag,
        final long ignore,
        final long flags,
        final long context,
        final CompletionRing.CompletionSink sink)
    {
        final EndpointState ep = endpoints.get(endpointIndex);
        if (null == ep)
        {
            return Errno.ENOENT.negated();
        }
        final MatchResult r = result;
        final int answer = ep.engine.tsearch(source, tag, ignore, flags & (MatchFlags.CLAIM | MatchFlags.DISCARD),
            context, r);
        if (1 == answer)
        {
            if ((flags & MatchFlags.DISCARD) != 0)
            {
                releaseDiscarded(ep, (int) r.payloadHandle());
            }
            sink.onCompletion(0, context, Flags.RECV | Flags.TAGGED, r.messageLength(), 0, r.data(), r.tag(),
                source(r));
        }
        return answer;
    }

    private void publishSearch(
        final EndpointState ep, final int answer, final long flags, final long context, final MatchResult r)
    {
        final CompletionRing cq = ep.rxCq;
        if (1 == answer)
        {
            if ((flags & MatchFlags.DISCARD) != 0)
            {
                releaseDiscarded(ep, (int) r.payloadHandle());
            }
            if (null != cq)
            {
                cq.write(r.context(), Flags.RECV | Flags.TAGGED, r.messageLength(), 0, r.data(), r.tag(), source(r));
            }
        }
        else if (answer < 0 && null != cq)
        {
            cq.writeError(context, Flags.RECV | Flags.TAGGED, 0, 0, 0, r.tag(), 0, -answer, 0, ADDR_NOTAVAIL);
        }
    }

    private ControlledMessageHandler.Action onRecvCommand(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final EndpointState ep = endpoints.get(buffer.getInt(index + ENDPOINT_OFFSET));
        if (null == ep)
        {
            return ControlledMessageHandler.Action.CONTINUE;
        }
        final CompletionRing cq = ep.rxCq;
        // A match may need a CTS (rendezvous) or a FIN (discard): keep room in the answer queue.
        if ((null != cq && (!cq.hasSpace() || !cq.hasErrorSpace())) || ackCount >= ACK_CAPACITY - 1)
        {
            return ControlledMessageHandler.Action.ABORT;
        }
        final long context = buffer.getLong(index + CONTEXT_OFFSET);
        final MatchResult r = result;
        if (CommandDescriptor.OP_CANCEL == msgTypeId)
        {
            final int cancelled = ep.engine.cancel(context, r);
            if (MatchStatus.ECANCELED == cancelled)
            {
                ep.silentReceives.remove(r.receiveHandle());
            }
            if (MatchStatus.ECANCELED == cancelled && null != cq)
            {
                cq.writeError(context, r.flags(), 0, r.bufferAddress(), 0, r.tag(), 0,
                    Errno.ECANCELED.value(), 0, ADDR_NOTAVAIL);
            }
            return ControlledMessageHandler.Action.CONTINUE;
        }

        if (CommandDescriptor.OP_TSEARCH == msgTypeId)
        {
            final int answer = ep.engine.tsearch(
                buffer.getLong(index + PEER_OFFSET),
                buffer.getLong(index + TAG_OFFSET),
                buffer.getLong(index + IGNORE_OFFSET),
                buffer.getLong(index + FLAGS_OFFSET) & (MatchFlags.CLAIM | MatchFlags.DISCARD),
                context,
                r);
            publishSearch(ep, answer, buffer.getLong(index + FLAGS_OFFSET), context, r);
            return ControlledMessageHandler.Action.CONTINUE;
        }

        final boolean tagged = CommandDescriptor.OP_TRECV == msgTypeId;
        final long flags = buffer.getLong(index + FLAGS_OFFSET);
        final long matchFlags =
            flags & (MatchFlags.PEEK | MatchFlags.CLAIM | MatchFlags.DISCARD | MatchFlags.MULTI_RECV);
        final MatchingEngine engine = ep.engine;
        final int status = engine.postReceive(
            tagged,
            buffer.getLong(index + PEER_OFFSET),
            buffer.getLong(index + TAG_OFFSET),
            buffer.getLong(index + IGNORE_OFFSET),
            context,
            buffer.getLong(index + ADDRESS_OFFSET),
            buffer.getLong(index + LENGTH_OFFSET),
            matchFlags,
            r);
        final long kind = tagged ? Flags.TAGGED : Flags.MSG;
        final boolean silent = ep.rxSelective && (flags & Flags.COMPLETION) == 0;
        ep.immediateSilent = silent;
        if (silent && (MatchStatus.MATCHED == status || MatchStatus.POSTED == status) && -1 != r.receiveHandle())
        {
            ep.silentReceives.put(r.receiveHandle(), (matchFlags & MatchFlags.MULTI_RECV) != 0 ? 2 : 1);
        }
        switch (status)
        {
            case MatchStatus.MATCHED:
                deliverFromSlot(ep, r);
                if ((matchFlags & MatchFlags.MULTI_RECV) != 0)
                {
                    final long handle = r.receiveHandle();
                    while (null != cq && cq.hasSpace() && cq.hasErrorSpace() && ackCount < ACK_CAPACITY &&
                        MatchStatus.MATCHED == engine.drainMultiRecv(handle, r))
                    {
                        deliverFromSlot(ep, r);
                    }
                }
                break;
            case MatchStatus.POSTED:
                break;
            case MatchStatus.PEEKED:
                if (null != cq)
                {
                    cq.write(context, Flags.RECV | kind, r.messageLength(), 0, r.data(), r.tag(), source(r));
                }
                break;
            case MatchStatus.DISCARDED:
                releaseDiscarded(ep, (int) r.payloadHandle());
                if (null != cq)
                {
                    cq.write(context, Flags.RECV | kind, 0, 0, r.data(), r.tag(), source(r));
                }
                break;
            case MatchStatus.EAGAIN:
                // Posted-receive pool full: keep the command until a receive completes.
                return ControlledMessageHandler.Action.ABORT;
            case MatchStatus.ENOMSG:
                if (null != cq)
                {
                    cq.writeError(context, Flags.RECV | kind, 0, 0, 0, buffer.getLong(index + TAG_OFFSET), 0,
                        Errno.ENOMSG.value(), 0, ADDR_NOTAVAIL);
                }
                break;
            default:
                if (null != cq)
                {
                    cq.writeError(context, Flags.RECV | kind, 0, 0, 0, 0, 0, Errno.EINVAL.value(), 0, ADDR_NOTAVAIL);
                }
                break;
        }
        return ControlledMessageHandler.Action.CONTINUE;
    }

    private ControlledMessageHandler.Action onSendCommand(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final EndpointState ep = endpoints.get(buffer.getInt(index + ENDPOINT_OFFSET));
        if (null == ep)
        {
            return ControlledMessageHandler.Action.CONTINUE;
        }
        final long flags = buffer.getLong(index + FLAGS_OFFSET);
        final long context = buffer.getLong(index + CONTEXT_OFFSET);
        final CompletionRing cq = ep.txCq;
        final boolean wantCompletion = null != cq && (flags & Flags.INJECT) == 0 &&
            (!ep.txSelective || (flags & Flags.COMPLETION) != 0);
        final boolean atomic = CommandDescriptor.OP_ATOMIC == msgTypeId;
        final boolean rma = CommandDescriptor.OP_WRITE == msgTypeId || CommandDescriptor.OP_READ == msgTypeId || atomic;
        final boolean delivery = (flags & Flags.DELIVERY_COMPLETE) != 0 && (flags & Flags.INJECT) == 0 && !rma;
        if (wantCompletion && (!cq.hasSpace() || !cq.hasErrorSpace()))
        {
            return ControlledMessageHandler.Action.ABORT;
        }
        // FI_FENCE: wait until every earlier operation of this endpoint that needs a target answer has it.
        if ((flags & Flags.FENCE) != 0 && ep.outstanding > 0)
        {
            return ControlledMessageHandler.Action.ABORT;
        }

        DirectBuffer payload = null;
        int payloadOffset = 0;
        int payloadLength = 0;
        final int count = buffer.getInt(index + COUNT_OFFSET);
        if (CommandDescriptor.OP_READ == msgTypeId)
        {
            payloadLength = 0;
        }
        else if (atomic)
        {
            // Operands, then (compare family) the compare vector, gathered into one payload.
            final long operands = buffer.getLong(index + LENGTH_OFFSET);
            final long code = buffer.getLong(index + DATA_OFFSET);
            final boolean compare = (code >>> 16) == 2;
            final UnsafeBuffer g = gather;
            if ((flags & CommandDescriptor.FLAG_INLINE) != 0)
            {
                g.putBytes(0, buffer, index + CommandDescriptor.ATOMIC_HEADER_LENGTH, (int) operands);
            }
            else if (operands > 0 && 0 != buffer.getLong(index + ADDRESS_OFFSET))
            {
                UnsafeApi.copyMemory(buffer.getLong(index + ADDRESS_OFFSET), g.addressOffset(), operands);
            }
            if (compare)
            {
                UnsafeApi.copyMemory(buffer.getLong(index + CommandDescriptor.COMPARE_ADDRESS_OFFSET),
                    g.addressOffset() + operands, operands);
            }
            payload = g;
            payloadLength = (int) (compare ? 2 * operands : operands);
        }
        else if ((flags & CommandDescriptor.FLAG_INLINE) != 0)
        {
            payload = buffer;
            payloadOffset = index + CommandDescriptor.HEADER_LENGTH;
            payloadLength = count;
        }
        else if ((flags & CommandDescriptor.FLAG_IOV) != 0)
        {
            int total = 0;
            final UnsafeBuffer g = gather;
            for (int i = 0; i < count; i++)
            {
                final int entry = index + CommandDescriptor.HEADER_LENGTH + i * CommandDescriptor.IOV_ENTRY_LENGTH;
                final long address = buffer.getLong(entry);
                final int len = (int) buffer.getLong(entry + 8);
                UnsafeApi.copyMemory(address, g.addressOffset() + total, len);
                total += len;
            }
            payload = g;
            payloadLength = total;
        }
        else
        {
            payloadLength = (int) buffer.getLong(index + LENGTH_OFFSET);
            payloadView.wrap(buffer.getLong(index + ADDRESS_OFFSET), payloadLength);
            payload = payloadView;
        }
        final long messageLength = CommandDescriptor.OP_READ == msgTypeId || atomic ?
            buffer.getLong(index + LENGTH_OFFSET) : payloadLength;

        final long peer = buffer.getLong(index + PEER_OFFSET);
        // A single-buffer message above the eager threshold goes by rendezvous: only a request travels now.
        final boolean rendezvous = !rma && payload == payloadView && payloadLength > eagerThreshold;
        final long kind;
        final byte opcode;
        switch (msgTypeId)
        {
            case CommandDescriptor.OP_TSEND:
                kind = Flags.TAGGED;
                opcode = FrameDescriptor.OPCODE_TAGGED;
                break;
            case CommandDescriptor.OP_WRITE:
                kind = Flags.RMA | Flags.WRITE;
                opcode = FrameDescriptor.OPCODE_WRITE;
                break;
            case CommandDescriptor.OP_READ:
                kind = Flags.RMA | Flags.READ;
                opcode = FrameDescriptor.OPCODE_READ_REQ;
                break;
            case CommandDescriptor.OP_ATOMIC:
                kind = (buffer.getLong(index + DATA_OFFSET) >>> 16) == 0 ?
                    Flags.ATOMIC | Flags.WRITE : Flags.ATOMIC | Flags.READ;
                opcode = FrameDescriptor.OPCODE_ATOMIC;
                break;
            default:
                kind = Flags.MSG;
                opcode = FrameDescriptor.OPCODE_MSG;
                break;
        }
        final UnsafeBuffer h = header;
        h.putByte(FrameDescriptor.VERSION_OFFSET, FrameDescriptor.VERSION);
        h.putByte(FrameDescriptor.OPCODE_OFFSET, rendezvous ? FrameDescriptor.OPCODE_RTS : opcode);
        h.putInt(FrameDescriptor.DST_ENDPOINT_OFFSET, transport.endpointIndex(peer));
        h.putLong(FrameDescriptor.SRC_KEY_OFFSET, transport.localKey(ep.index));
        h.putLong(FrameDescriptor.TAG_OFFSET, atomic ? buffer.getLong(index + CommandDescriptor.RESULT_ADDRESS_OFFSET) :
            (rma ? 0 : buffer.getLong(index + TAG_OFFSET)));
        h.putLong(FrameDescriptor.DATA_OFFSET, CommandDescriptor.OP_READ == msgTypeId ?
            buffer.getLong(index + ADDRESS_OFFSET) : buffer.getLong(index + DATA_OFFSET));
        h.putLong(FrameDescriptor.LENGTH_OFFSET, messageLength);
        h.putLong(FrameDescriptor.FLAGS_OFFSET,
            ((flags & Flags.REMOTE_CQ_DATA) != 0 ? FrameDescriptor.FLAG_REMOTE_CQ_DATA : 0) |
            (delivery ? FrameDescriptor.FLAG_ACK_REQUESTED : 0) |
            (wantCompletion ? FrameDescriptor.FLAG_WANT_COMPLETION : 0) |
            (atomic && (kind & Flags.READ) != 0 ? FrameDescriptor.FLAG_FETCHING : 0) |
            (rendezvous && Flags.TAGGED == kind ? FrameDescriptor.FLAG_TAGGED : 0));
        h.putLong(FrameDescriptor.COOKIE_OFFSET, context);
        h.putLong(FrameDescriptor.SEQUENCE_OFFSET, sequence);
        int headerLength = FrameDescriptor.HEADER_LENGTH;
        if (rma)
        {
            h.putLong(FrameDescriptor.RMA_ADDRESS_OFFSET, buffer.getLong(index + TAG_OFFSET));
            h.putLong(FrameDescriptor.RMA_KEY_OFFSET, buffer.getLong(index + IGNORE_OFFSET));
            headerLength = FrameDescriptor.RMA_HEADER_LENGTH;
        }
        else if (rendezvous)
        {
            h.putLong(FrameDescriptor.RMA_ADDRESS_OFFSET, buffer.getLong(index + ADDRESS_OFFSET));
            h.putLong(FrameDescriptor.RMA_KEY_OFFSET, 0);
            headerLength = FrameDescriptor.RMA_HEADER_LENGTH;
        }

        final int sent = transport.offer(peer, h, 0, headerLength, payload, payloadOffset,
            rendezvous ? 0 : payloadLength);
        if (0 == sent)
        {
            return ControlledMessageHandler.Action.ABORT;
        }
        sequence++;
        if (sent < 0)
        {
            if (wantCompletion)
            {
                cq.writeError(context, kind | (rma ? 0 : Flags.SEND), 0, 0, 0, 0, 0, -sent, 0, ADDR_NOTAVAIL);
            }
            final CounterCell counter = txCounter(ep, kind);
            if (null != counter)
            {
                counter.addError(1);
            }
            return ControlledMessageHandler.Action.CONTINUE;
        }
        // RMA completes on the target's answer (RMA_ACK or READ_RESP), a delivery-complete send on its ACK.
        if (delivery || rma || rendezvous)
        {
            ep.outstanding++;
        }
        else
        {
            if (wantCompletion)
            {
                cq.write(context, Flags.SEND | kind, 0, 0, 0, 0, ADDR_NOTAVAIL);
            }
            if (null != ep.sendCounter)
            {
                ep.sendCounter.add(1);
            }
        }
        return ControlledMessageHandler.Action.CONTINUE;
    }

    private static CounterCell txCounter(final EndpointState ep, final long kind)
    {
        if ((kind & Flags.READ) != 0)
        {
            return ep.readCounter;
        }
        return (kind & Flags.WRITE) != 0 ? ep.writeCounter : ep.sendCounter;
    }

    private boolean enqueueAck(
        final byte opcode,
        final long peer,
        final int endpoint,
        final long cookie,
        final long frameFlags,
        final long tag,
        final long data,
        final long length,
        final long payloadAddress,
        final int payloadLength)
    {
        if (ackCount == ACK_CAPACITY)
        {
            return false;
        }
        final int i = (ackHead + ackCount) % ACK_CAPACITY;
        ackOpcode[i] = opcode;
        ackPeer[i] = peer;
        ackEndpoint[i] = endpoint;
        ackCookie[i] = cookie;
        ackFlags[i] = frameFlags;
        ackKind[i] = tag;
        ackData[i] = data;
        ackLength[i] = length;
        ackPayload[i] = payloadAddress;
        ackPayloadLength[i] = payloadLength;
        ackCount++;
        return true;
    }

    private boolean onAtomicFrame(
        final EndpointState ep,
        final DirectBuffer buffer,
        final int offset,
        final long frameFlags,
        final long srcKey,
        final long cookie,
        final long operandBytes,
        final long code)
    {
        if (ackCount == ACK_CAPACITY)
        {
            return false;
        }
        final int kindOrdinal = (int) (code >>> 16);
        final AtomicOp op = AtomicOp.fromValue((int) (code >>> 8) & 0xFF);
        final AtomicDatatype datatype = AtomicDatatype.fromValue((int) code & 0xFF);
        final long resultAddress = buffer.getLong(offset + FrameDescriptor.TAG_OFFSET);
        final int slot = (ackHead + ackCount) % ACK_CAPACITY;
        final long scratch = ackScratch.addressOffset() + (long) slot * atomicMaxBytes;
        int status;
        if (null == op || null == datatype || kindOrdinal > 2 || operandBytes % datatype.size() != 0 ||
            operandBytes > atomicMaxBytes)
        {
            status = null == op || null == datatype ? Errno.EOPNOTSUPP.value() : Errno.EINVAL.value();
        }
        else
        {
            final AtomicCapabilities.Kind kind = AtomicCapabilities.Kind.values()[kindOrdinal];
            // MR check before touching target memory.
            final long raw = registry.verify(buffer.getLong(offset + FrameDescriptor.RMA_KEY_OFFSET),
                buffer.getLong(offset + FrameDescriptor.RMA_ADDRESS_OFFSET), operandBytes,
                AtomicExecutor.remoteAccess(kind, op));
            if (raw < 0)
            {
                status = (int) -raw;
            }
            else
            {
                final long operands = buffer.addressOffset() + offset + FrameDescriptor.RMA_HEADER_LENGTH;
                final int count = (int) (operandBytes / datatype.size());
                final int result;
                switch (kind)
                {
                    case FETCH:
                        result = executor.fetchAtomic(op, datatype, raw, operands, scratch, count);
                        break;
                    case COMPARE:
                        result = executor.compareAtomic(
                            op, datatype, raw, operands, operands + operandBytes, scratch, count);
                        break;
                    default:
                        result = executor.atomic(op, datatype, raw, operands, count);
                        break;
                }
                status = -result;
                if (0 == result)
                {
                    final CounterCell counter =
                        AtomicOp.ATOMIC_READ == op ? ep.remoteReadCounter : ep.remoteWriteCounter;
                    if (null != counter)
                    {
                        counter.add(1);
                    }
                }
            }
        }
        final int resultLength = 0 == status && kindOrdinal != 0 ? (int) operandBytes : 0;
        enqueueAck(FrameDescriptor.OPCODE_ATOMIC_RESP, srcKey, ep.index, cookie, frameFlags, resultAddress, status,
            resultLength, resultLength > 0 ? scratch : 0, resultLength);
        return true;
    }

    private boolean onRmaFrame(
        final byte opcode, final EndpointState ep, final DirectBuffer buffer, final int offset, final long frameFlags)
    {
        final long srcKey = buffer.getLong(offset + FrameDescriptor.SRC_KEY_OFFSET);
        final long cookie = buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET);
        final long length = buffer.getLong(offset + FrameDescriptor.LENGTH_OFFSET);
        final long data = buffer.getLong(offset + FrameDescriptor.DATA_OFFSET);
        switch (opcode)
        {
            case FrameDescriptor.OPCODE_WRITE:
            {
                final CompletionRing cq = ep.rxCq;
                final boolean remoteData = (frameFlags & FrameDescriptor.FLAG_REMOTE_CQ_DATA) != 0;
                if (ackCount == ACK_CAPACITY || (remoteData && null != cq && !cq.hasSpace()))
                {
                    return false;
                }
                // MR check before touching target memory: bad key EINVAL, rights or bounds EACCES.
                final long raw = registry.verify(buffer.getLong(offset + FrameDescriptor.RMA_KEY_OFFSET),
                    buffer.getLong(offset + FrameDescriptor.RMA_ADDRESS_OFFSET), length, Flags.REMOTE_WRITE);
                if (raw >= 0)
                {
                    if (length > 0)
                    {
                        UnsafeApi.copyMemory(
                            buffer.addressOffset() + offset + FrameDescriptor.RMA_HEADER_LENGTH, raw, length);
                    }
                    if (remoteData && null != cq)
                    {
                        cq.write(0, Flags.REMOTE_WRITE | Flags.RMA | Flags.REMOTE_CQ_DATA, length, 0, data, 0,
                            ADDR_NOTAVAIL);
                    }
                    if (null != ep.remoteWriteCounter)
                    {
                        ep.remoteWriteCounter.add(1);
                    }
                }
                enqueueAck(FrameDescriptor.OPCODE_RMA_ACK, srcKey, ep.index, cookie, frameFlags,
                    Flags.RMA | Flags.WRITE, raw < 0 ? -raw : 0, length, 0, 0);
                return true;
            }
            case FrameDescriptor.OPCODE_READ_REQ:
            {
                if (ackCount == ACK_CAPACITY)
                {
                    return false;
                }
                final long raw = registry.verify(buffer.getLong(offset + FrameDescriptor.RMA_KEY_OFFSET),
                    buffer.getLong(offset + FrameDescriptor.RMA_ADDRESS_OFFSET), length, Flags.REMOTE_READ);
                if (raw >= 0 && null != ep.remoteReadCounter)
                {
                    ep.remoteReadCounter.add(1);
                }
                // The response's payload is copied from the registered memory when the answer is sent.
                enqueueAck(FrameDescriptor.OPCODE_READ_RESP, srcKey, ep.index, cookie, frameFlags, data,
                    raw < 0 ? -raw : 0, length, raw < 0 ? 0 : raw, raw < 0 ? 0 : (int) length);
                return true;
            }
            case FrameDescriptor.OPCODE_ATOMIC:
                return onAtomicFrame(ep, buffer, offset, frameFlags, srcKey, cookie, length, data);
            case FrameDescriptor.OPCODE_ATOMIC_RESP:
            case FrameDescriptor.OPCODE_READ_RESP:
            case FrameDescriptor.OPCODE_RMA_ACK:
            {
                final boolean read = FrameDescriptor.OPCODE_RMA_ACK != opcode;
                final CompletionRing cq = ep.txCq;
                final boolean complete = null != cq && (frameFlags & FrameDescriptor.FLAG_WANT_COMPLETION) != 0;
                if (complete && (!cq.hasSpace() || !cq.hasErrorSpace()))
                {
                    return false;
                }
                ep.outstanding--;
                final int status = (int) data;
                final long kind = FrameDescriptor.OPCODE_ATOMIC_RESP == opcode ?
                    ((frameFlags & FrameDescriptor.FLAG_FETCHING) != 0 ?
                    Flags.ATOMIC | Flags.READ : Flags.ATOMIC | Flags.WRITE) :
                    (read ? Flags.RMA | Flags.READ : Flags.RMA | Flags.WRITE);
                if (read && 0 == status && length > 0)
                {
                    UnsafeApi.copyMemory(buffer.addressOffset() + offset + FrameDescriptor.HEADER_LENGTH,
                        buffer.getLong(offset + FrameDescriptor.TAG_OFFSET), length);
                }
                final CounterCell counter = (kind & Flags.READ) != 0 ? ep.readCounter : ep.writeCounter;
                if (0 == status)
                {
                    if (complete)
                    {
                        cq.write(cookie, kind, 0, 0, 0, 0, ADDR_NOTAVAIL);
                    }
                    if (null != counter)
                    {
                        counter.add(1);
                    }
                }
                else
                {
                    if (complete)
                    {
                        cq.writeError(cookie, kind, 0, 0, 0, 0, 0, status, 0, ADDR_NOTAVAIL);
                    }
                    if (null != counter)
                    {
                        counter.addError(1);
                    }
                }
                return true;
            }
            default:
                return true;
        }
    }

    private boolean onFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte opcode = buffer.getByte(offset + FrameDescriptor.OPCODE_OFFSET);
        final EndpointState ep = endpoints.get(buffer.getInt(offset + FrameDescriptor.DST_ENDPOINT_OFFSET));
        if (null == ep)
        {
            // The destination endpoint is closed: RDM drops the frame.
            return true;
        }
        final long frameFlags = buffer.getLong(offset + FrameDescriptor.FLAGS_OFFSET);
        if (opcode >= FrameDescriptor.OPCODE_CTS)
        {
            return onRendezvousFrame(opcode, ep, buffer, offset, frameFlags);
        }
        if (opcode >= FrameDescriptor.OPCODE_WRITE && FrameDescriptor.OPCODE_RTS != opcode)
        {
            return onRmaFrame(opcode, ep, buffer, offset, frameFlags);
        }
        if (FrameDescriptor.OPCODE_ACK == opcode)
        {
            final long status = buffer.getLong(offset + FrameDescriptor.DATA_OFFSET);
            if (0 != status)
            {
                return failTransmit(ep, buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET),
                    Flags.SEND | buffer.getLong(offset + FrameDescriptor.TAG_OFFSET), status);
            }
            final CompletionRing cq = ep.txCq;
            final boolean complete = null != cq && (frameFlags & FrameDescriptor.FLAG_WANT_COMPLETION) != 0;
            if (complete && !cq.hasSpace())
            {
                return false;
            }
            ep.outstanding--;
            if (complete)
            {
                cq.write(buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET),
                    Flags.SEND | buffer.getLong(offset + FrameDescriptor.TAG_OFFSET), 0, 0, 0, 0, ADDR_NOTAVAIL);
            }
            if (null != ep.sendCounter)
            {
                ep.sendCounter.add(1);
            }
            return true;
        }

        final CompletionRing cq = ep.rxCq;
        if ((null != cq && (!cq.hasSpace() || !cq.hasErrorSpace())) || ackCount == ACK_CAPACITY)
        {
            return false;
        }
        final int slot = ep.allocateSlot();
        if (slot < 0)
        {
            return false;
        }
        // The payload handle is the slot: it also carries whether the sender attached remote CQ data.
        ep.remoteData[slot] = (frameFlags & FrameDescriptor.FLAG_REMOTE_CQ_DATA) != 0;
        final boolean rts = FrameDescriptor.OPCODE_RTS == opcode;
        final boolean tagged = FrameDescriptor.OPCODE_TAGGED == opcode ||
            (rts && (frameFlags & FrameDescriptor.FLAG_TAGGED) != 0);
        final long srcKey = buffer.getLong(offset + FrameDescriptor.SRC_KEY_OFFSET);
        final long tag = buffer.getLong(offset + FrameDescriptor.TAG_OFFSET);
        final long data = buffer.getLong(offset + FrameDescriptor.DATA_OFFSET);
        final long messageLength = buffer.getLong(offset + FrameDescriptor.LENGTH_OFFSET);
        final Long2LongHashMap map = ep.avId >= 0 ? avReverse[ep.avId] : null;
        final long fiAddr = null == map ? ADDR_NOTAVAIL : map.get(srcKey);
        final MatchResult r = result;
        final int status = ADDR_NOTAVAIL != fiAddr ?
            ep.engine.onArrival(fiAddr, tagged, tag, messageLength, data, slot, r) :
            ep.engine.onUnresolvedArrival(srcKey, tagged, tag, messageLength, data, slot, r);
        final int payloadOffset = offset + FrameDescriptor.HEADER_LENGTH;
        switch (status)
        {
            case MatchStatus.MATCHED:
                if (rts)
                {
                    holdRendezvous(ep, slot, buffer, offset, srcKey, frameFlags);
                    startPull(ep, slot, r);
                    return true;
                }
                ep.freeSlot(slot);
                copyOut(buffer.addressOffset() + payloadOffset, r);
                complete(ep, r);
                break;
            case MatchStatus.QUEUED:
                if (rts)
                {
                    holdRendezvous(ep, slot, buffer, offset, srcKey, frameFlags);
                    return true;
                }
                UnsafeApi.copyMemory(buffer.addressOffset() + payloadOffset, ep.slotAddress(slot), messageLength);
                break;
            case MatchStatus.EAGAIN:
                ep.freeSlot(slot);
                return false;
            default:
                ep.freeSlot(slot);
                break;
        }
        if ((frameFlags & FrameDescriptor.FLAG_ACK_REQUESTED) != 0)
        {
            enqueueAck(FrameDescriptor.OPCODE_ACK, srcKey, ep.index,
                buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET),
                frameFlags & FrameDescriptor.FLAG_WANT_COMPLETION, tagged ? Flags.TAGGED : Flags.MSG, 0,
                messageLength, 0, 0);
        }
        return true;
    }

    private int flushAcks()
    {
        int sent = 0;
        final UnsafeBuffer h = header;
        while (ackCount > 0)
        {
            final int i = ackHead;
            h.putByte(FrameDescriptor.VERSION_OFFSET, FrameDescriptor.VERSION);
            h.putByte(FrameDescriptor.OPCODE_OFFSET, ackOpcode[i]);
            h.putInt(FrameDescriptor.DST_ENDPOINT_OFFSET, transport.endpointIndex(ackPeer[i]));
            h.putLong(FrameDescriptor.SRC_KEY_OFFSET, transport.localKey(ackEndpoint[i]));
            h.putLong(FrameDescriptor.TAG_OFFSET, ackKind[i]);
            h.putLong(FrameDescriptor.DATA_OFFSET, ackData[i]);
            h.putLong(FrameDescriptor.LENGTH_OFFSET, ackLength[i]);
            h.putLong(FrameDescriptor.FLAGS_OFFSET, ackFlags[i]);
            h.putLong(FrameDescriptor.COOKIE_OFFSET, ackCookie[i]);
            h.putLong(FrameDescriptor.SEQUENCE_OFFSET, sequence);
            final int payloadLength = ackPayloadLength[i];
            if (payloadLength > 0)
            {
                payloadView.wrap(ackPayload[i], payloadLength);
            }
            int headerLength = FrameDescriptor.HEADER_LENGTH;
            if (FrameDescriptor.OPCODE_CTS == ackOpcode[i])
            {
                h.putLong(FrameDescriptor.RMA_ADDRESS_OFFSET, ackExtension[i]);
                h.putLong(FrameDescriptor.RMA_KEY_OFFSET, 0);
                headerLength = FrameDescriptor.RMA_HEADER_LENGTH;
            }
            final int result = transport.offer(ackPeer[i], h, 0, headerLength,
                payloadLength > 0 ? payloadView : null, 0, payloadLength);
            if (0 == result)
            {
                break;
            }
            sequence++;
            ackHead = (ackHead + 1) % ACK_CAPACITY;
            ackCount--;
            sent++;
        }
        return sent;
    }

    private void deliverFromSlot(final EndpointState ep, final MatchResult r)
    {
        final int slot = (int) r.payloadHandle();
        if (ep.rendezvous[slot])
        {
            startPull(ep, slot, r);
            return;
        }
        copyOut(ep.slotAddress(slot), r);
        ep.freeSlot(slot);
        complete(ep, r);
    }

    private void holdRendezvous(
        final EndpointState ep,
        final int slot,
        final DirectBuffer buffer,
        final int offset,
        final long srcKey,
        final long frameFlags)
    {
        ep.rendezvous[slot] = true;
        ep.rvSenderKey[slot] = srcKey;
        ep.rvSenderAddress[slot] = buffer.getLong(offset + FrameDescriptor.RMA_ADDRESS_OFFSET);
        ep.rvCookie[slot] = buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET);
        ep.rvFrameFlags[slot] = frameFlags;
    }

    /**
     * A rendezvous message matched: remember the receive's completion and ask the sender for the data (CTS).
     */
    private void startPull(final EndpointState ep, final int slot, final MatchResult r)
    {
        ep.rvContext[slot] = r.context();
        ep.rvFlags[slot] = (r.flags() & (Flags.MSG | Flags.TAGGED | Flags.RECV | Flags.MULTI_RECV)) |
            (hasRemoteData(ep, r) ? Flags.REMOTE_CQ_DATA : 0);
        ep.rvLength[slot] = r.length();
        ep.rvBuffer[slot] = r.bufferAddress() + r.offset();
        ep.rvTag[slot] = r.tag();
        ep.rvData[slot] = r.data();
        ep.rvSource[slot] = source(r);
        ep.rvOverflow[slot] = r.overflow();
        ep.rvReceiveHandle[slot] = r.receiveHandle();
        ep.rvSilent[slot] = silent(ep, r);
        final boolean queued = enqueueAck(FrameDescriptor.OPCODE_CTS, ep.rvSenderKey[slot], ep.index,
            ep.rvCookie[slot], ep.rvFrameFlags[slot], ep.rvBuffer[slot], slot, r.length(), 0, 0);
        if (queued)
        {
            ackExtension[(ackHead + ackCount - 1) % ACK_CAPACITY] = ep.rvSenderAddress[slot];
        }
    }

    private void releaseDiscarded(final EndpointState ep, final int slot)
    {
        if (ep.rendezvous[slot])
        {
            // The sender's buffer is no longer needed: finish its send.
            enqueueAck(FrameDescriptor.OPCODE_FIN, ep.rvSenderKey[slot], ep.index, ep.rvCookie[slot],
                ep.rvFrameFlags[slot], (ep.rvFrameFlags[slot] & FrameDescriptor.FLAG_TAGGED) != 0 ?
                Flags.TAGGED : Flags.MSG, 0, 0, 0, 0);
        }
        ep.freeSlot(slot);
    }

    private boolean onRendezvousFrame(
        final byte opcode, final EndpointState ep, final DirectBuffer buffer, final int offset, final long frameFlags)
    {
        switch (opcode)
        {
            case FrameDescriptor.OPCODE_CTS:
            {
                if (pullCount == PULL_CAPACITY)
                {
                    return false;
                }
                final int i = (pullHead + pullCount) % PULL_CAPACITY;
                pullPeer[i] = buffer.getLong(offset + FrameDescriptor.SRC_KEY_OFFSET);
                pullSource[i] = buffer.getLong(offset + FrameDescriptor.RMA_ADDRESS_OFFSET);
                pullDestination[i] = buffer.getLong(offset + FrameDescriptor.TAG_OFFSET);
                pullRemaining[i] = buffer.getLong(offset + FrameDescriptor.LENGTH_OFFSET);
                pullSlot[i] = buffer.getLong(offset + FrameDescriptor.DATA_OFFSET);
                pullEndpoint[i] = ep.index;
                pullCount++;
                return true;
            }
            case FrameDescriptor.OPCODE_RDATA:
            {
                final boolean last = (frameFlags & FrameDescriptor.FLAG_LAST) != 0;
                final CompletionRing cq = ep.rxCq;
                if (last && (ackCount == ACK_CAPACITY || (null != cq && (!cq.hasSpace() || !cq.hasErrorSpace()))))
                {
                    return false;
                }
                final long status = buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET);
                if (last && 0 != status)
                {
                    failRendezvous(ep, (int) buffer.getLong(offset + FrameDescriptor.DATA_OFFSET), (int) status);
                    return true;
                }
                final long length = buffer.getLong(offset + FrameDescriptor.LENGTH_OFFSET);
                if (length > 0)
                {
                    UnsafeApi.copyMemory(buffer.addressOffset() + offset + FrameDescriptor.HEADER_LENGTH,
                        buffer.getLong(offset + FrameDescriptor.TAG_OFFSET), length);
                }
                if (last)
                {
                    finishRendezvous(ep, (int) buffer.getLong(offset + FrameDescriptor.DATA_OFFSET));
                }
                return true;
            }
            case FrameDescriptor.OPCODE_FIN:
            {
                final long status = buffer.getLong(offset + FrameDescriptor.DATA_OFFSET);
                if (0 != status)
                {
                    return failTransmit(ep, buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET),
                        Flags.SEND | buffer.getLong(offset + FrameDescriptor.TAG_OFFSET), status);
                }
                final CompletionRing cq = ep.txCq;
                final boolean complete = null != cq && (frameFlags & FrameDescriptor.FLAG_WANT_COMPLETION) != 0;
                if (complete && !cq.hasSpace())
                {
                    return false;
                }
                ep.outstanding--;
                if (complete)
                {
                    cq.write(buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET),
                        Flags.SEND | buffer.getLong(offset + FrameDescriptor.TAG_OFFSET), 0, 0, 0, 0, ADDR_NOTAVAIL);
                }
                if (null != ep.sendCounter)
                {
                    ep.sendCounter.add(1);
                }
                return true;
            }
            default:
                return true;
        }
    }

    private void finishRendezvous(final EndpointState ep, final int slot)
    {
        ep.engine.multiRecvSegmentComplete(ep.rvReceiveHandle[slot]);
        final CompletionRing cq = ep.rxCq;
        if (ep.rvOverflow[slot] > 0)
        {
            if (null != cq)
            {
                cq.writeError(ep.rvContext[slot], ep.rvFlags[slot], ep.rvLength[slot], ep.rvBuffer[slot],
                    ep.rvData[slot], ep.rvTag[slot], ep.rvOverflow[slot], Errno.ETRUNC.value(), 0, ep.rvSource[slot]);
            }
            if (null != ep.recvCounter)
            {
                ep.recvCounter.addError(1);
            }
        }
        else
        {
            if (null != cq && !ep.rvSilent[slot])
            {
                cq.write(ep.rvContext[slot], ep.rvFlags[slot], ep.rvLength[slot], ep.rvBuffer[slot], ep.rvData[slot],
                    ep.rvTag[slot], ep.rvSource[slot]);
            }
            if (null != ep.recvCounter)
            {
                ep.recvCounter.add(1);
            }
        }
        enqueueAck(FrameDescriptor.OPCODE_FIN, ep.rvSenderKey[slot], ep.index, ep.rvCookie[slot],
            ep.rvFrameFlags[slot], (ep.rvFrameFlags[slot] & FrameDescriptor.FLAG_TAGGED) != 0 ?
            Flags.TAGGED : Flags.MSG, 0, 0, 0, 0);
        ep.freeSlot(slot);
    }

    /**
     * A transport reported that the rendezvous transfer into {@code slot} cannot finish (its sender died): the
     * receive completes with {@code status} as an error, and the slot is released. No FIN is sent: there is nobody
     * to send it to.
     */
    private void failRendezvous(final EndpointState ep, final int slot, final int status)
    {
        ep.engine.multiRecvSegmentComplete(ep.rvReceiveHandle[slot]);
        final CompletionRing cq = ep.rxCq;
        if (null != cq)
        {
            // Errors are reported even for receives posted without FI_COMPLETION (selective completion).
            cq.writeError(ep.rvContext[slot], ep.rvFlags[slot], 0, ep.rvBuffer[slot], ep.rvData[slot],
                ep.rvTag[slot], 0, status, 0, ep.rvSource[slot]);
        }
        if (null != ep.recvCounter)
        {
            ep.recvCounter.addError(1);
        }
        ep.freeSlot(slot);
    }

    /**
     * A transport answered a delivery-complete send or a rendezvous send with an error status in place of the
     * target's ACK or FIN (the target died): the send completes with that error.
     *
     * @return false to retry later when the CQ's error queue is full.
     */
    private boolean failTransmit(final EndpointState ep, final long cookie, final long kind, final long status)
    {
        final CompletionRing cq = ep.txCq;
        if (null != cq && !cq.hasErrorSpace())
        {
            return false;
        }
        ep.outstanding--;
        if (null != cq)
        {
            // Errors are always reported, also for sends posted without FI_COMPLETION (selective completion).
            cq.writeError(cookie, kind, 0, 0, 0, 0, 0, (int) status, 0, ADDR_NOTAVAIL);
        }
        if (null != ep.sendCounter)
        {
            ep.sendCounter.addError(1);
        }
        return true;
    }

    /**
     * Send rendezvous data chunks the receivers asked for, as far as their inbound rings take them.
     */
    private int flushPulls()
    {
        int sent = 0;
        final UnsafeBuffer h = header;
        while (pullCount > 0)
        {
            final int i = pullHead;
            final long length = Math.min(pullRemaining[i], chunk);
            final boolean last = length == pullRemaining[i];
            h.putByte(FrameDescriptor.VERSION_OFFSET, FrameDescriptor.VERSION);
            h.putByte(FrameDescriptor.OPCODE_OFFSET, FrameDescriptor.OPCODE_RDATA);
            h.putInt(FrameDescriptor.DST_ENDPOINT_OFFSET, transport.endpointIndex(pullPeer[i]));
            h.putLong(FrameDescriptor.SRC_KEY_OFFSET, transport.localKey(pullEndpoint[i]));
            h.putLong(FrameDescriptor.TAG_OFFSET, pullDestination[i]);
            h.putLong(FrameDescriptor.DATA_OFFSET, pullSlot[i]);
            h.putLong(FrameDescriptor.LENGTH_OFFSET, length);
            h.putLong(FrameDescriptor.FLAGS_OFFSET, last ? FrameDescriptor.FLAG_LAST : 0);
            h.putLong(FrameDescriptor.COOKIE_OFFSET, 0);
            h.putLong(FrameDescriptor.SEQUENCE_OFFSET, sequence);
            if (length > 0)
            {
                payloadView.wrap(pullSource[i], (int) length);
            }
            final int result = transport.offer(pullPeer[i], h, 0, FrameDescriptor.HEADER_LENGTH,
                length > 0 ? payloadView : null, 0, (int) length);
            if (0 == result)
            {
                break;
            }
            sequence++;
            sent++;
            if (last || result < 0)
            {
                pullHead = (pullHead + 1) % PULL_CAPACITY;
                pullCount--;
            }
            else
            {
                pullSource[i] += length;
                pullDestination[i] += length;
                pullRemaining[i] -= length;
            }
        }
        return sent;
    }

    private static void copyOut(final long from, final MatchResult r)
    {
        final long length = r.length();
        if (length > 0)
        {
            UnsafeApi.copyMemory(from, r.bufferAddress() + r.offset(), length);
        }
    }

    /**
     * Rx selective completion: is this receive's successful completion suppressed? Consumes the record once the
     * posted receive is used up.
     */
    private static boolean silent(final EndpointState ep, final MatchResult r)
    {
        if (!ep.rxSelective)
        {
            return false;
        }
        final long handle = r.receiveHandle();
        if (-1 == handle)
        {
            return ep.immediateSilent;
        }
        final long kind = ep.silentReceives.get(handle);
        if (0 == kind)
        {
            return false;
        }
        if (1 == kind || (r.flags() & MatchFlags.MULTI_RECV) != 0)
        {
            ep.silentReceives.remove(handle);
        }
        return true;
    }

    private void complete(final EndpointState ep, final MatchResult r)
    {
        final boolean silent = silent(ep, r);
        ep.engine.multiRecvSegmentComplete(r.receiveHandle());
        final CompletionRing cq = ep.rxCq;
        final long flags = (r.flags() & (Flags.MSG | Flags.TAGGED | Flags.RECV | Flags.MULTI_RECV)) |
            (hasRemoteData(ep, r) ? Flags.REMOTE_CQ_DATA : 0);
        final long source = source(r);
        if (r.overflow() > 0)
        {
            if (null != cq)
            {
                cq.writeError(r.context(), flags, r.length(), r.bufferAddress() + r.offset(), r.data(), r.tag(),
                    r.overflow(), Errno.ETRUNC.value(), 0, source);
            }
            if (null != ep.recvCounter)
            {
                ep.recvCounter.addError(1);
            }
            return;
        }
        if (null != cq && !silent)
        {
            cq.write(r.context(), flags, r.length(), r.bufferAddress() + r.offset(), r.data(), r.tag(), source);
        }
        if (null != ep.recvCounter)
        {
            ep.recvCounter.add(1);
        }
    }

    private static boolean hasRemoteData(final EndpointState ep, final MatchResult r)
    {
        final long slot = r.payloadHandle();
        return slot >= 0 && slot < ep.remoteData.length ? ep.remoteData[(int) slot] : r.data() != 0;
    }

    private static long source(final MatchResult r)
    {
        return (r.flags() & MatchFlags.SOURCE_UNRESOLVED) != 0 ? ADDR_NOTAVAIL : r.source();
    }
}
