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
import io.jfabric.stat.DomainCounters;
import io.jfabric.spi.FrameHandler;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;

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
 * Back-pressure never drops anything: when a completion queue is full the command or frame stays where it is
 * ({@code ABORT}) and is retried on a later duty cycle. Unmatched messages never hold the inbound ring: a sender
 * spends credits of its peer endpoint ({@link FlowControl}), parks sends it has no credit for (or whose peer's ring
 * is full) in a per-peer FIFO, and the receiver stores what the credits allow; answers and data streams to a peer
 * whose ring is full wait without holding back those to other peers.
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
    /**
     * Most buffers on each side of one operation: local iov (send, receive, RMA, atomic operands, compare values
     * and results) and remote ranges ({@code fi_rma_iov}). Providers advertise at most this as {@code iov_limit}
     * and {@code rma_iov_limit}.
     */
    public static final int MAX_IOV = 8;
    private static final int BATCH = 64;
    /** A receiver reports consumed messages to a sender at least this often (see {@link #creditBack}). */
    private static final int CREDIT_REPORT_MESSAGES = 256;
    /** ... and at least every this many eager payload bytes. */
    private static final long CREDIT_REPORT_BYTES = 1 << 20;
    private static final int ACK_CAPACITY = 256;
    private static final int CLOSE_FLUSH_ATTEMPTS = 10_000;
    /** Status of the answer to a request for a closed endpoint of a live domain (fi_errno ECONNREFUSED). */
    private static final long CLOSED_ENDPOINT_STATUS = Errno.ECONNREFUSED.value();
    private static final int PULL_CAPACITY = 64;
    private static final int RMA_SLOTS = 64;
    /** Most data chunks one duty cycle sends (4 MiB at 256 KiB): a large stream never stalls the other work. */
    private static final int CHUNKS_PER_CYCLE = 16;
    private static final int CHUNK = 256 * 1024;
    private static final int SEGMENT_LIST_MAX =
        FrameDescriptor.LIST_COUNT_LENGTH + MAX_IOV * FrameDescriptor.SEGMENT_LENGTH;
    private static final int REMOTE_LIST_MAX =
        FrameDescriptor.LIST_COUNT_LENGTH + MAX_IOV * FrameDescriptor.REMOTE_ENTRY_LENGTH;
    private static final long ADDR_NOTAVAIL = -1L;
    /** {@code Kind.values()} copies the array on every call: keep one copy (the data path allocates nothing). */
    private static final AtomicCapabilities.Kind[] ATOMIC_KINDS = AtomicCapabilities.Kind.values();
    /** Reply slot: status of the last MR control command (0 or a positive errno). */
    public static final int REPLY_STATUS = 0;
    /** Reply slot: key of the last registration. */
    public static final int REPLY_KEY = 1;
    /** Reply slot: sequence of the last answered MR control command. */
    public static final int REPLY_SEQUENCE = 2;
    /** Reply slot: status of the last cancel (0, or a negative errno such as {@code -EAGAIN}). */
    public static final int REPLY_CANCEL_STATUS = 3;
    /** Reply slot: sequence of the last answered cancel. */
    public static final int REPLY_CANCEL_SEQUENCE = 4;
    private static final int REPLY_LENGTH = 5;

    private final String roleName;
    private final DomainTransport transport;
    private final DomainCounters counters;
    private final CommandQueue controlRing;
    private final CommandQueue recvRing;
    private final CommandQueue sendRing;
    private final AtomicReferenceArray<EndpointState> endpoints = new AtomicReferenceArray<>(MAX_ENDPOINTS);
    private final Long2LongHashMap[] avReverse = new Long2LongHashMap[MAX_AVS];
    private final MatchResult result = new MatchResult();
    /** Frame headers, with room for a remote list after the RMA extension. */
    private final UnsafeBuffer header =
        new UnsafeBuffer(ByteBuffer.allocateDirect(FrameDescriptor.RMA_HEADER_LENGTH + REMOTE_LIST_MAX));
    /** Payload of streamed requests (RTS, WRITE_RTS, streamed READ_REQ): a segment list and a remote list. */
    private final UnsafeBuffer lists = new UnsafeBuffer(ByteBuffer.allocateDirect(SEGMENT_LIST_MAX + REMOTE_LIST_MAX));
    /** Raw target segments of the remote list being checked. */
    private final long[] rangeAddress = new long[MAX_IOV];
    private final long[] rangeLength = new long[MAX_IOV];
    private final MemoryRegistry registry;
    private final AtomicExecutor executor;
    private final UnsafeBuffer ackScratch;
    // Scratch of pullDirect: the sender's segments as mapped here.
    private final long[] directSource = new long[MAX_IOV];
    private final long[] directSourceLength = new long[MAX_IOV];
    /** Bytes of scratch per answer slot: atomic results plus a segment list, or a CTS's two segment lists. */
    private final int scratchStride;
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
    // Streams this agent sends (rendezvous data, RMA write data, RMA read data): a FIFO of PULL_CAPACITY.
    private final long[] pullPeer = new long[PULL_CAPACITY];
    private final long[] pullRemaining = new long[PULL_CAPACITY];
    private final long[] pullSlot = new long[PULL_CAPACITY];
    private final long[] pullCookie = new long[PULL_CAPACITY];
    private final long[] pullFlags = new long[PULL_CAPACITY];
    private final int[] pullEndpoint = new int[PULL_CAPACITY];
    private final long[] pullSrcAddress = new long[PULL_CAPACITY * MAX_IOV];
    private final long[] pullSrcLength = new long[PULL_CAPACITY * MAX_IOV];
    private final int[] pullSrcCount = new int[PULL_CAPACITY];
    private final int[] pullSrcIndex = new int[PULL_CAPACITY];
    private final long[] pullSrcPosition = new long[PULL_CAPACITY];
    private final long[] pullDstAddress = new long[PULL_CAPACITY * MAX_IOV];
    private final long[] pullDstLength = new long[PULL_CAPACITY * MAX_IOV];
    private final int[] pullDstCount = new int[PULL_CAPACITY];
    private final int[] pullDstIndex = new int[PULL_CAPACITY];
    private final long[] pullDstPosition = new long[PULL_CAPACITY];
    private int pullHead;
    private int pullCount;
    // Streamed RMA writes this agent is the target of, between its CTS and the last RDATA chunk.
    private final long[] rmaPeer = new long[RMA_SLOTS];
    private final long[] rmaCookie = new long[RMA_SLOTS];
    private final long[] rmaFrameFlags = new long[RMA_SLOTS];
    private final long[] rmaData = new long[RMA_SLOTS];
    private final long[] rmaLength = new long[RMA_SLOTS];
    private final int[] rmaFree = new int[RMA_SLOTS];
    private int rmaFreeCount;
    private final int eagerThreshold;
    private final int chunk;
    /** Largest RMA write sent in one frame (with room for a remote list); larger writes are streamed. */
    private final int writeFrameLimit;
    private final int[] ackEndpoint = new int[ACK_CAPACITY];
    private int ackHead;
    private int ackCount;
    private long sequence;
    /** Pin slot of the receive command being handled while it matches at once (no receive handle), else NONE. */
    private int immediatePin = PinTable.NONE;
    private final ControlledMessageHandler controlHandler = this::onControl;
    private final ControlledMessageHandler recvHandler = this::onRecvCommand;
    private final ControlledMessageHandler sendHandler = this::onSendCommand;
    private final FrameHandler frameHandler = this::onFrame;
    // Flow control (FlowControl): the grant per peer endpoint, accounts with deferred sends, accounts owing a
    // credit frame, and what was refused from senders over their credit.
    private final int credits;
    /** Endpoints with held arrivals ({@link #hold}), and whether {@link #flushHeld} is replaying one now. */
    private EndpointState[] holdingEps = new EndpointState[8];
    private int holdingCount;
    private boolean replayingHeld;
    private final int creditReportMessages;
    private final long creditReportBytes;
    private final long creditBytes;
    private PeerAccount[] waiting = new PeerAccount[16];
    private int waitingCount;
    private PeerAccount[] creditQueue = new PeerAccount[16];
    private int creditCount;
    private boolean flushingDeferred;
    // Peers whose ring was found full during the current flush (answers and streams to others go on).
    private final long[] blockedPeers = new long[16];
    private int blockedCount;
    private long refused;

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
     * @param counters       the domain's counters (in the process's counters file).
     */
    public DomainAgent(
        final String roleName,
        final DomainTransport transport,
        final int ringCapacity,
        final int maxMessageSize,
        final long mrMode,
        final int mrIovLimit,
        final AtomicCapabilities atomics,
        final DomainCounters counters)
    {
        this.counters = counters;
        this.registry = new MemoryRegistry(mrMode, Math.max(1, mrIovLimit));
        this.eagerThreshold = transport.eagerThreshold();
        this.chunk = Math.max(1, Math.min(CHUNK, transport.maxFrameLength() - FrameDescriptor.HEADER_LENGTH));
        this.writeFrameLimit = Math.max(0, Math.min(chunk,
            transport.maxFrameLength() - FrameDescriptor.RMA_HEADER_LENGTH - REMOTE_LIST_MAX));
        this.executor = new AtomicExecutor(atomics);
        this.atomicMaxBytes = atomics.maxBytes();
        this.scratchStride = Math.max(2 * SEGMENT_LIST_MAX, atomicMaxBytes + SEGMENT_LIST_MAX);
        this.ackScratch = new UnsafeBuffer(ByteBuffer.allocateDirect(ACK_CAPACITY * scratchStride));
        for (int i = 0; i < RMA_SLOTS; i++)
        {
            rmaFree[i] = RMA_SLOTS - 1 - i;
        }
        this.rmaFreeCount = RMA_SLOTS;
        this.roleName = roleName;
        this.transport = transport;
        this.credits = FlowControl.credits();
        // Report after half a grant, and at least every CREDIT_REPORT_MESSAGES messages / CREDIT_REPORT_BYTES bytes:
        // a frequent, cheap report keeps the path warm (a first report only after 32768 messages deoptimised the
        // compiled duty cycle mid-run) and the sender far from its limit.
        this.creditReportMessages = Math.max(1, Math.min(credits / 2, CREDIT_REPORT_MESSAGES));
        this.creditBytes = FlowControl.creditBytes(eagerThreshold);
        this.creditReportBytes = Math.max(1, Math.min(creditBytes / 2, CREDIT_REPORT_BYTES));
        this.controlRing = CommandQueue.create(ringCapacity);
        this.recvRing = CommandQueue.create(ringCapacity);
        this.sendRing = CommandQueue.create(ringCapacity);
        // Gathers eager iov sends, small iov writes and atomic operands, compare values and a result list.
        this.gather = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(2 * atomicMaxBytes + SEGMENT_LIST_MAX,
            Math.min(maxMessageSize, transport.eagerThreshold()))));
    }

    /**
     * @return the control ring (cancel, AV changes, options); many producers.
     */
    public CommandQueue controlRing()
    {
        return controlRing;
    }

    /**
     * @return the receive command ring; many producers.
     */
    public CommandQueue recvRing()
    {
        return recvRing;
    }

    /**
     * @return the send command ring; many producers.
     */
    public CommandQueue sendRing()
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
        final long cycleStart = counters.cycleStart();
        int work = counters.commands(controlRing.controlledRead(controlHandler, BATCH));
        work += counters.commands(recvRing.controlledRead(recvHandler, BATCH));
        work += flushAcks();
        work += flushCredits();
        work += flushPulls();
        work += flushHeld();
        work += counters.framesIn(transport.poll(frameHandler, BATCH));
        // Answer what these frames completed in this same cycle (delivery-complete ACKs, RMA_ACKs of writedata):
        // a target that stops progressing once it has read its completion must not leave its senders waiting.
        work += flushAcks();
        work += flushCredits();
        work += flushDeferred();
        work += counters.commands(sendRing.controlledRead(sendHandler, BATCH));
        final int status = transport.status();
        if (0 != status)
        {
            work += failPostedReceives(-status);
        }
        if (counters.onDutyCycle(cycleStart))
        {
            counters.unexpectedDepth(unexpectedCount());
        }
        return work;
    }

    /**
     * @return messages the endpoints' matching engines hold unmatched (the unexpected-queue depth gauge).
     */
    private long unexpectedCount()
    {
        long count = 0;
        for (int i = 0; i < MAX_ENDPOINTS; i++)
        {
            final EndpointState ep = endpoints.get(i);
            if (null != ep)
            {
                count += ep.engine.unexpectedCount();
            }
        }
        return count;
    }

    /**
     * The transport can no longer deliver anything to this domain: every posted receive completes with
     * {@code errno} (never waits for ever), as do those posted later (this runs every duty cycle while it lasts).
     * A multi-recv buffer with a copy in flight, or a full error queue, waits for a later cycle.
     *
     * @return receives failed.
     */
    private int failPostedReceives(final int errno)
    {
        int failed = 0;
        for (int i = 0; i < MAX_ENDPOINTS; i++)
        {
            final EndpointState ep = endpoints.get(i);
            while (null != ep && ep.engine.postedCount() > 0)
            {
                final CompletionRing cq = ep.rxCq;
                if (null != cq && !cq.hasErrorSpace())
                {
                    break;
                }
                final long context = ep.engine.oldestPostedContext();
                final MatchResult r = result;
                if (MatchStatus.ECANCELED != ep.engine.cancel(context, r))
                {
                    break;
                }
                ep.silentReceives.remove(r.receiveHandle());
                unpinReceive(ep, r.receiveHandle(), true);
                final long buf = ep.bufferOf(r.bufferAddress());
                ep.releaseRxIov(r.bufferAddress());
                if (null != cq)
                {
                    cq.writeError(context, r.flags(), 0, buf, 0, r.tag(), 0, errno, 0, ADDR_NOTAVAIL);
                }
                if (null != ep.recvCounter)
                {
                    ep.recvCounter.addError(1);
                }
                failed++;
            }
        }
        return failed;
    }

    /**
     * Answers still queued (a peer's ring was full) go out before the domain's transport closes, so that a target
     * that closes right after its completions leaves no sender waiting (a bounded number of attempts).
     */
    @Override
    public void onClose()
    {
        for (int i = 0; i < CLOSE_FLUSH_ATTEMPTS && ackCount > 0; i++)
        {
            if (0 == flushAcks())
            {
                Thread.yield();
            }
        }
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
                // Only when the key still maps to the removed handle: the address inserted again (a restarted peer
                // under the same name) keeps its sources when the old handle is removed afterwards.
                if (null != map && map.get(buffer.getLong(index + PEER_OFFSET)) == buffer.getLong(index + TAG_OFFSET))
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
            case CommandDescriptor.OP_CANCEL:
            {
                final long until = buffer.getLong(index + TAG_OFFSET);
                // Receives posted before the cancel must reach the matching engine first, or it would miss them.
                // Drain while the position moves (a read that only skips the wrap padding still moves it).
                long before = recvRing.consumerPosition();
                while (before < until)
                {
                    recvRing.controlledRead(recvHandler, BATCH);
                    final long after = recvRing.consumerPosition();
                    if (after == before)
                    {
                        break;
                    }
                    before = after;
                }
                final int status = recvRing.consumerPosition() < until ? Errno.EAGAIN.negated() :
                    cancelReceive(endpoints.get(buffer.getInt(index + ENDPOINT_OFFSET)),
                    buffer.getLong(index + CONTEXT_OFFSET));
                replies.set(REPLY_CANCEL_STATUS, status);
                // Volatile store last: the cancelling thread reads the sequence, then the status.
                replies.set(REPLY_CANCEL_SEQUENCE, buffer.getLong(index + DATA_OFFSET));
                return ControlledMessageHandler.Action.CONTINUE;
            }
            case CommandDescriptor.OP_EP_CLOSE:
            {
                final int closing = buffer.getInt(index + ENDPOINT_OFFSET);
                endpoints.set(closing, null);
                abandonStreams(closing);
                replies.set(REPLY_CANCEL_STATUS, 0);
                // Volatile store last: the closing thread may release the endpoint's buffers once it reads it.
                replies.set(REPLY_CANCEL_SEQUENCE, buffer.getLong(index + DATA_OFFSET));
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

    /**
     * {@code fi_cancel} of a posted receive: an {@code ECANCELED} error completion with {@code FI_RECV} (and
     * {@code FI_MULTI_RECV} for a multi-recv buffer). Issue 4 semantics: a multi-recv buffer with a rendezvous
     * pull still copying into it is not cancelled ({@code -EAGAIN}); neither is anything while the CQ has no
     * room for the error entry. A context with no posted receive (matched already, or never posted) answers 0.
     */
    private int cancelReceive(final EndpointState ep, final long context)
    {
        if (null == ep)
        {
            return 0;
        }
        final CompletionRing cq = ep.rxCq;
        if (null != cq && !cq.hasErrorSpace())
        {
            return Errno.EAGAIN.negated();
        }
        final MatchResult r = result;
        final int cancelled = ep.engine.cancel(context, r);
        if (MatchStatus.EAGAIN == cancelled)
        {
            return Errno.EAGAIN.negated();
        }
        if (MatchStatus.ECANCELED == cancelled)
        {
            ep.silentReceives.remove(r.receiveHandle());
            unpinReceive(ep, r.receiveHandle(), true);
            final long buf = ep.bufferOf(r.bufferAddress());
            ep.releaseRxIov(r.bufferAddress());
            if (null != cq)
            {
                cq.writeError(context, r.flags(), 0, buf, 0, r.tag(), 0, Errno.ECANCELED.value(), 0, ADDR_NOTAVAIL);
            }
        }
        return 0;
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
                    // The engine reports the deferred search's CLAIM/DISCARD in the result's flags: a DISCARD hit
                    // frees its unexpected slot here.
                    publishSearch(ep, answer, r.flags(), r.context(), r);
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
        long address = buffer.getLong(index + ADDRESS_OFFSET);
        if ((flags & CommandDescriptor.FLAG_IOV) != 0)
        {
            // Several buffers: the engine holds a handle to their segments; the total is the receive's length.
            final int entry = ep.allocateRxIov();
            if (entry < 0)
            {
                return ControlledMessageHandler.Action.ABORT;
            }
            final int count = Math.min(MAX_IOV, buffer.getInt(index + COUNT_OFFSET));
            final int base = entry * MAX_IOV;
            for (int k = 0; k < count; k++)
            {
                final int at = index + CommandDescriptor.HEADER_LENGTH + k * CommandDescriptor.IOV_ENTRY_LENGTH;
                ep.rxIovAddress[base + k] = buffer.getLong(at);
                ep.rxIovLength[base + k] = buffer.getLong(at + 8);
            }
            ep.rxIovCount[entry] = count;
            address = EndpointState.IOV_HANDLE | entry;
        }
        final MatchingEngine engine = ep.engine;
        final int status = engine.postReceive(
            tagged,
            buffer.getLong(index + PEER_OFFSET),
            buffer.getLong(index + TAG_OFFSET),
            buffer.getLong(index + IGNORE_OFFSET),
            context,
            address,
            buffer.getLong(index + LENGTH_OFFSET),
            matchFlags,
            r);
        if (address < 0 && MatchStatus.POSTED != status && MatchStatus.MATCHED != status)
        {
            // Not posted (PEEK, DISCARD, errors, a full posted pool): the segments are not needed.
            ep.releaseRxIov(address);
        }
        final long kind = tagged ? Flags.TAGGED : Flags.MSG;
        pinReceive(ep, buffer.getInt(index + CommandDescriptor.PIN_OFFSET) - 1, status, matchFlags, r);
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
        releasePin(ep, immediatePin);
        immediatePin = PinTable.NONE;
        return ControlledMessageHandler.Action.CONTINUE;
    }

    /**
     * Keep a receive's pin slot (issue 10) where its completion finds it: by receive handle while it is posted, in
     * {@link #immediatePin} while it matches at once; a receive that did not take its buffer (PEEK, DISCARD, an
     * error) releases it now. A command left in the ring (EAGAIN) keeps it.
     */
    private void pinReceive(
        final EndpointState ep, final int pin, final int status, final long matchFlags, final MatchResult r)
    {
        if (pin < 0 || MatchStatus.EAGAIN == status)
        {
            return;
        }
        if ((MatchStatus.MATCHED == status || MatchStatus.POSTED == status) && -1 != r.receiveHandle())
        {
            ep.receivePins.put(r.receiveHandle(),
                pin | ((matchFlags & MatchFlags.MULTI_RECV) != 0 ? EndpointState.MULTI_RECV_PIN : 0));
        }
        else if (MatchStatus.MATCHED == status)
        {
            immediatePin = pin;
        }
        else
        {
            releasePin(ep, pin);
        }
    }

    /**
     * A receive is done with its buffer: release its pin slot. {@code key} is its receive handle, -1 for one that
     * matched at post, or {@code RV_PIN_KEY | slot} for such a one's rendezvous pull; a multi-recv buffer keeps its
     * pin until {@code lastUse}.
     */
    private void unpinReceive(final EndpointState ep, final long key, final boolean lastUse)
    {
        unpinReceive(ep, key, lastUse, false);
    }

    /**
     * As {@link #unpinReceive(EndpointState, long, boolean)}; {@code pullDone}: a rendezvous pull into it finished
     * (a multi-recv buffer released while pulls still copy into it keeps its pin until the last one is done).
     */
    private void unpinReceive(final EndpointState ep, final long key, final boolean lastUse, final boolean pullDone)
    {
        if (-1 == key)
        {
            releasePin(ep, immediatePin);
            immediatePin = PinTable.NONE;
            return;
        }
        long value = ep.receivePins.get(key);
        if (-1 == value)
        {
            return;
        }
        if ((value & EndpointState.MULTI_RECV_PIN) != 0)
        {
            value -= pullDone ? EndpointState.MULTI_RECV_PULL : 0;
            value |= lastUse ? EndpointState.MULTI_RECV_DONE : 0;
            if ((value & EndpointState.MULTI_RECV_DONE) == 0 || value >= EndpointState.MULTI_RECV_PULL)
            {
                ep.receivePins.put(key, value);
                return;
            }
        }
        ep.receivePins.remove(key);
        releasePin(ep, (int) value);
    }

    private static void releasePin(final EndpointState ep, final int pin)
    {
        if (pin >= 0 && null != ep.pins)
        {
            ep.pins.release(pin);
        }
    }

    /**
     * The context an answer's cookie stands for, releasing the operation's pinned buffers (issue 10): call once the
     * answer is taken, after any copy into the operation's buffers.
     */
    private static long finishPinned(final EndpointState ep, final long cookie)
    {
        return null == ep.pins ? cookie : ep.pins.finish(cookie);
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
        final boolean write = CommandDescriptor.OP_WRITE == msgTypeId;
        final boolean read = CommandDescriptor.OP_READ == msgTypeId;
        final boolean rma = write || read || atomic;
        final boolean delivery = (flags & Flags.DELIVERY_COMPLETE) != 0 && (flags & Flags.INJECT) == 0 && !rma;
        // Flow control: a send spends a credit of its peer endpoint; without one it waits in the peer's FIFO (in
        // order, behind the sends already waiting there), and nothing else waits for it.
        final boolean charged = CommandDescriptor.OP_SEND == msgTypeId || CommandDescriptor.OP_TSEND == msgTypeId;
        PeerAccount account = null;
        long charge = 0;
        if (charged || ep.deferredSends > 0)
        {
            account = outboundAccount(ep, buffer.getLong(index + PEER_OFFSET));
            final boolean fenced = (flags & Flags.FENCE) != 0;
            if (!flushingDeferred && account.deferredCount > 0 && (charged || fenced || account.fencedDeferred > 0))
            {
                return defer(ep, account, msgTypeId, buffer, index, length, fenced);
            }
            if (charged)
            {
                final long bytes = buffer.getLong(index + LENGTH_OFFSET);
                // A rendezvous request stores no payload at the receiver: it costs a message, no bytes.
                charge = (flags & CommandDescriptor.FLAG_INLINE) == 0 && bytes > eagerThreshold ? 0 : bytes;
                if (account.sent - account.acked >= credits || account.sentBytes - account.ackedBytes + charge >
                    creditBytes)
                {
                    return flushingDeferred ? ControlledMessageHandler.Action.ABORT :
                        defer(ep, account, msgTypeId, buffer, index, length, fenced);
                }
            }
        }
        if (wantCompletion && (!cq.hasSpace() || !cq.hasErrorSpace()))
        {
            return ControlledMessageHandler.Action.ABORT;
        }
        // FI_FENCE: wait until every earlier operation of this endpoint that needs a target answer has it.
        if ((flags & Flags.FENCE) != 0 && ep.outstanding > 0)
        {
            return ControlledMessageHandler.Action.ABORT;
        }

        final int count = buffer.getInt(index + COUNT_OFFSET);
        final boolean inline = (flags & CommandDescriptor.FLAG_INLINE) != 0;
        final boolean iov = (flags & CommandDescriptor.FLAG_IOV) != 0;
        final boolean remoteIov = (flags & CommandDescriptor.FLAG_RMA_IOV) != 0;
        final long total = buffer.getLong(index + LENGTH_OFFSET);
        // Streamed: the data stays in the application's buffers and moves in RDATA chunks once the peer has answered
        // (a rendezvous send, an RMA write larger than one frame) or once the target has checked it (an RMA read
        // larger than one frame, or with several local buffers or remote ranges).
        final boolean streamed = write ? !inline && (total > writeFrameLimit || (iov && total > gather.capacity())) :
            (read ? iov || remoteIov || total > chunk : !atomic && !inline && total > eagerThreshold);

        final UnsafeBuffer h = header;
        DirectBuffer payload = null;
        int payloadOffset = 0;
        int payloadLength = 0;
        long frameFlags = 0;
        int headerLength = rma || streamed ? FrameDescriptor.RMA_HEADER_LENGTH : FrameDescriptor.HEADER_LENGTH;
        long extAddress = remoteIov ? remoteEntry(buffer, index, 0) : buffer.getLong(index + TAG_OFFSET);
        final long extKey = remoteIov ? remoteEntry(buffer, index, 2) : buffer.getLong(index + IGNORE_OFFSET);
        if (streamed)
        {
            // Only the lists travel now: our segments, and for RMA the remote ranges.
            int end = putSegments(lists, 0, buffer, index, flags, count, total);
            if (rma)
            {
                end = putRemoteList(lists, end, buffer, index, flags, total);
            }
            else
            {
                extAddress = lists.getLong(FrameDescriptor.LIST_COUNT_LENGTH);
            }
            payload = lists;
            payloadLength = end;
            frameFlags = read ? FrameDescriptor.FLAG_STREAM : 0;
        }
        else if (atomic)
        {
            // Operands, then (compare family) the compare values, then (iov form) the result segments, gathered.
            final long code = buffer.getLong(index + DATA_OFFSET);
            final boolean compare = (code >>> 16) == 2;
            final int operands = (int) total;
            final UnsafeBuffer g = gather;
            if (inline)
            {
                g.putBytes(0, buffer, index + CommandDescriptor.ATOMIC_HEADER_LENGTH, operands);
            }
            else if (iov)
            {
                gatherList(g, 0, buffer, index, buffer.getLong(index + ADDRESS_OFFSET));
            }
            else if (operands > 0 && 0 != buffer.getLong(index + ADDRESS_OFFSET))
            {
                UnsafeApi.copyMemory(buffer.getLong(index + ADDRESS_OFFSET), g.addressOffset(), operands);
            }
            int end = operands;
            if (compare)
            {
                if (iov)
                {
                    gatherList(g, end, buffer, index, buffer.getLong(index + CommandDescriptor.COMPARE_ADDRESS_OFFSET));
                }
                else
                {
                    UnsafeApi.copyMemory(buffer.getLong(index + CommandDescriptor.COMPARE_ADDRESS_OFFSET),
                        g.addressOffset() + end, operands);
                }
                end += operands;
            }
            final long resultList = buffer.getLong(index + CommandDescriptor.RESULT_ADDRESS_OFFSET);
            if (iov && (code >>> 16) != 0 && 0 != resultList)
            {
                final int list = index + (int) resultList;
                final int bytes = FrameDescriptor.LIST_COUNT_LENGTH +
                    (int) Math.max(0, Math.min(MAX_IOV, buffer.getLong(list))) * FrameDescriptor.SEGMENT_LENGTH;
                g.putBytes(end, buffer, list, bytes);
                g.putLong(end, (bytes - FrameDescriptor.LIST_COUNT_LENGTH) / FrameDescriptor.SEGMENT_LENGTH);
                end += bytes;
                frameFlags = FrameDescriptor.FLAG_RESULT_IOV;
            }
            payload = g;
            payloadLength = end;
        }
        else if (inline)
        {
            payload = buffer;
            payloadOffset = index + CommandDescriptor.HEADER_LENGTH;
            payloadLength = count;
        }
        else if (iov)
        {
            int gathered = 0;
            final UnsafeBuffer g = gather;
            for (int i = 0; i < count; i++)
            {
                final int entry = index + CommandDescriptor.HEADER_LENGTH + i * CommandDescriptor.IOV_ENTRY_LENGTH;
                final int len = (int) buffer.getLong(entry + 8);
                UnsafeApi.copyMemory(buffer.getLong(entry), g.addressOffset() + gathered, len);
                gathered += len;
            }
            payload = g;
            payloadLength = gathered;
        }
        else if (!read)
        {
            payloadLength = (int) total;
            payloadView.wrap(buffer.getLong(index + ADDRESS_OFFSET), payloadLength);
            payload = payloadView;
        }
        if (rma && !streamed && remoteIov)
        {
            // One frame to several remote ranges: the remote list rides after the RMA extension.
            headerLength = putRemoteList(h, FrameDescriptor.RMA_HEADER_LENGTH, buffer, index, flags, total);
            frameFlags |= FrameDescriptor.FLAG_REMOTE_IOV;
        }

        final long peer = buffer.getLong(index + PEER_OFFSET);
        final long kind;
        final byte opcode;
        switch (msgTypeId)
        {
            case CommandDescriptor.OP_TSEND:
                kind = Flags.TAGGED;
                opcode = streamed ? FrameDescriptor.OPCODE_RTS : FrameDescriptor.OPCODE_TAGGED;
                break;
            case CommandDescriptor.OP_WRITE:
                kind = Flags.RMA | Flags.WRITE;
                opcode = streamed ? FrameDescriptor.OPCODE_WRITE_RTS : FrameDescriptor.OPCODE_WRITE;
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
                opcode = streamed ? FrameDescriptor.OPCODE_RTS : FrameDescriptor.OPCODE_MSG;
                break;
        }
        h.putByte(FrameDescriptor.VERSION_OFFSET, FrameDescriptor.VERSION);
        h.putByte(FrameDescriptor.OPCODE_OFFSET, opcode);
        h.putInt(FrameDescriptor.DST_ENDPOINT_OFFSET, transport.endpointIndex(peer));
        h.putLong(FrameDescriptor.SRC_KEY_OFFSET, transport.localKey(ep.index));
        h.putLong(FrameDescriptor.TAG_OFFSET, atomic ?
            (iov ? 0 : buffer.getLong(index + CommandDescriptor.RESULT_ADDRESS_OFFSET)) :
            (rma ? 0 : buffer.getLong(index + TAG_OFFSET)));
        h.putLong(FrameDescriptor.DATA_OFFSET, read ?
            buffer.getLong(index + ADDRESS_OFFSET) : buffer.getLong(index + DATA_OFFSET));
        h.putLong(FrameDescriptor.LENGTH_OFFSET, total);
        h.putLong(FrameDescriptor.FLAGS_OFFSET, frameFlags |
            ((flags & Flags.REMOTE_CQ_DATA) != 0 ? FrameDescriptor.FLAG_REMOTE_CQ_DATA : 0) |
            (delivery ? FrameDescriptor.FLAG_ACK_REQUESTED : 0) |
            (wantCompletion ? FrameDescriptor.FLAG_WANT_COMPLETION : 0) |
            (atomic && (kind & Flags.READ) != 0 ? FrameDescriptor.FLAG_FETCHING : 0) |
            (streamed && Flags.TAGGED == kind ? FrameDescriptor.FLAG_TAGGED : 0));
        // A pinned operation's answer brings its pin slot back (PinTable.finish gives the context).
        final int pin = buffer.getInt(index + CommandDescriptor.PIN_OFFSET) - 1;
        h.putLong(FrameDescriptor.COOKIE_OFFSET, pin >= 0 ? PinTable.cookie(pin) : PinTable.unpinnedCookie(context));
        h.putLong(FrameDescriptor.SEQUENCE_OFFSET, sequence);
        if (FrameDescriptor.RMA_HEADER_LENGTH <= headerLength)
        {
            h.putLong(FrameDescriptor.RMA_ADDRESS_OFFSET, extAddress);
            h.putLong(FrameDescriptor.RMA_KEY_OFFSET, rma ? extKey : 0);
        }

        final int sent = transport.offer(peer, h, 0, headerLength, payload, payloadOffset, payloadLength);
        counters.onOffer(sent);
        if (0 == sent)
        {
            // The peer's ring is full (it is not reading): the operation waits in that peer's FIFO and the send ring
            // goes on for the others. An RMA or atomic waiting there is a barrier: later operations to that peer wait
            // behind it, so RMA order (FI_ORDER_RAW/WAR/WAW) holds.
            if (flushingDeferred)
            {
                return ControlledMessageHandler.Action.ABORT;
            }
            return defer(ep, null != account ? account : outboundAccount(ep, peer), msgTypeId, buffer, index, length,
                !charged || (flags & Flags.FENCE) != 0);
        }
        sequence++;
        if (charged && sent > 0)
        {
            account.sent++;
            account.sentBytes += charge;
        }
        if (sent < 0)
        {
            releasePin(ep, pin);
            // Errors are always reported (fi_cq(3)), also without FI_COMPLETION: room was checked above when a
            // completion was wanted; a silent operation's error takes the room the error queue has.
            if (null != cq && (wantCompletion || cq.hasErrorSpace()))
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
        // RMA completes on the target's answer (RMA_ACK, READ_RESP or the last read chunk), a delivery-complete send
        // on its ACK, a rendezvous send on its FIN.
        if (delivery || rma || streamed)
        {
            ep.outstanding++;
        }
        else
        {
            // The payload was copied into the frame: the buffer is free.
            releasePin(ep, pin);
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

    /**
     * Field {@code field} (0 address, 1 length, 2 key) of the first entry of a command's remote list.
     */
    private static long remoteEntry(final DirectBuffer command, final int index, final int field)
    {
        final int list = index + (int) command.getLong(index + TAG_OFFSET);
        return command.getLong(list + FrameDescriptor.LIST_COUNT_LENGTH + field * 8);
    }

    /**
     * Write a command's local buffers as a segment list at {@code at}.
     *
     * @return the offset after the list.
     */
    private static int putSegments(
        final MutableDirectBuffer to,
        final int at,
        final DirectBuffer command,
        final int index,
        final long flags,
        final int count,
        final long total)
    {
        if ((flags & CommandDescriptor.FLAG_IOV) != 0)
        {
            final int n = Math.max(0, Math.min(MAX_IOV, count));
            to.putLong(at, n);
            to.putBytes(at + FrameDescriptor.LIST_COUNT_LENGTH, command, index + CommandDescriptor.HEADER_LENGTH,
                n * CommandDescriptor.IOV_ENTRY_LENGTH);
            return at + FrameDescriptor.LIST_COUNT_LENGTH + n * FrameDescriptor.SEGMENT_LENGTH;
        }
        to.putLong(at, 1);
        to.putLong(at + 8, command.getLong(index + ADDRESS_OFFSET));
        to.putLong(at + 16, total);
        return at + FrameDescriptor.LIST_COUNT_LENGTH + FrameDescriptor.SEGMENT_LENGTH;
    }

    /**
     * Write a command's remote ranges as a remote list at {@code at}: its list with {@code FLAG_RMA_IOV}, else
     * the one range (tag = remote address, ignore = key) of {@code total} bytes.
     *
     * @return the offset after the list.
     */
    private static int putRemoteList(
        final MutableDirectBuffer to,
        final int at,
        final DirectBuffer command,
        final int index,
        final long flags,
        final long total)
    {
        if ((flags & CommandDescriptor.FLAG_RMA_IOV) != 0)
        {
            final int list = index + (int) command.getLong(index + TAG_OFFSET);
            final int n = (int) Math.max(0, Math.min(MAX_IOV, command.getLong(list)));
            to.putLong(at, n);
            to.putBytes(at + FrameDescriptor.LIST_COUNT_LENGTH, command, list + FrameDescriptor.LIST_COUNT_LENGTH,
                n * CommandDescriptor.REMOTE_ENTRY_LENGTH);
            return at + FrameDescriptor.LIST_COUNT_LENGTH + n * FrameDescriptor.REMOTE_ENTRY_LENGTH;
        }
        to.putLong(at, 1);
        to.putLong(at + 8, command.getLong(index + TAG_OFFSET));
        to.putLong(at + 16, total);
        to.putLong(at + 24, command.getLong(index + IGNORE_OFFSET));
        return at + FrameDescriptor.LIST_COUNT_LENGTH + FrameDescriptor.REMOTE_ENTRY_LENGTH;
    }

    /**
     * Copy the buffers of the command's segment list at record offset {@code listOffset} (0: none) into
     * {@code to} from {@code at}, in order.
     */
    private static void gatherList(
        final UnsafeBuffer to, final int at, final DirectBuffer command, final int index, final long listOffset)
    {
        if (0 == listOffset)
        {
            return;
        }
        final int list = index + (int) listOffset;
        final int n = (int) Math.max(0, Math.min(MAX_IOV, command.getLong(list)));
        long done = 0;
        for (int k = 0; k < n; k++)
        {
            final int entry = list + FrameDescriptor.LIST_COUNT_LENGTH + k * FrameDescriptor.SEGMENT_LENGTH;
            final long len = command.getLong(entry + 8);
            UnsafeApi.copyMemory(command.getLong(entry), to.addressOffset() + at + done, len);
            done += len;
        }
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
        final long scratch = ackScratch.addressOffset() + (long) slot * scratchStride;
        final boolean remoteIov = (frameFlags & FrameDescriptor.FLAG_REMOTE_IOV) != 0;
        final int listAt = offset + FrameDescriptor.RMA_HEADER_LENGTH;
        final int operandsAt = remoteIov ? listAt + FrameDescriptor.LIST_COUNT_LENGTH +
            (int) Math.max(0, Math.min(MAX_IOV, buffer.getLong(listAt))) * FrameDescriptor.REMOTE_ENTRY_LENGTH :
            listAt;
        int status;
        if (null == op || null == datatype || kindOrdinal > 2 || operandBytes % datatype.size() != 0 ||
            operandBytes > atomicMaxBytes)
        {
            status = null == op || null == datatype ? Errno.EOPNOTSUPP.value() : Errno.EINVAL.value();
        }
        else
        {
            final AtomicCapabilities.Kind kind = ATOMIC_KINDS[kindOrdinal];
            final long access = AtomicExecutor.remoteAccess(kind, op);
            // MR check of every range before touching target memory.
            final int ranges;
            if (remoteIov)
            {
                ranges = verifyRemoteList(buffer, listAt, operandBytes, access, datatype.size());
            }
            else
            {
                final long raw = registry.verify(buffer.getLong(offset + FrameDescriptor.RMA_KEY_OFFSET),
                    buffer.getLong(offset + FrameDescriptor.RMA_ADDRESS_OFFSET), operandBytes, access);
                rangeAddress[0] = raw;
                rangeLength[0] = operandBytes;
                ranges = raw < 0 ? (int) raw : 1;
            }
            if (ranges < 0)
            {
                status = -ranges;
            }
            else
            {
                final long operands = buffer.addressOffset() + operandsAt;
                int result = 0;
                long done = 0;
                for (int k = 0; k < ranges && 0 == result; k++)
                {
                    final int count = (int) (rangeLength[k] / datatype.size());
                    if (0 == count)
                    {
                        continue;
                    }
                    switch (kind)
                    {
                        case FETCH:
                            result = executor.fetchAtomic(
                                op, datatype, rangeAddress[k], operands + done, scratch + done, count);
                            break;
                        case COMPARE:
                            result = executor.compareAtomic(op, datatype, rangeAddress[k], operands + done,
                                operands + operandBytes + done, scratch + done, count);
                            break;
                        default:
                            result = executor.atomic(op, datatype, rangeAddress[k], operands + done, count);
                            break;
                    }
                    done += rangeLength[k];
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
        int payloadLength = resultLength;
        if (resultLength > 0 && (frameFlags & FrameDescriptor.FLAG_RESULT_IOV) != 0)
        {
            // Echo the initiator's result segments after the old values (they follow the operands and compares).
            final int resultList = operandsAt + (int) (2 == kindOrdinal ? 2 * operandBytes : operandBytes);
            final int listBytes = skipSegments(buffer, resultList) - resultList;
            ackScratch.putBytes(slot * scratchStride + resultLength, buffer, resultList, listBytes);
            payloadLength += listBytes;
        }
        enqueueAck(FrameDescriptor.OPCODE_ATOMIC_RESP, srcKey, ep.index, cookie, frameFlags, resultAddress, status,
            resultLength, payloadLength > 0 ? scratch : 0, payloadLength);
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
                if (ackCount == ACK_CAPACITY)
                {
                    return false;
                }
                if (remoteData && null != cq && !reserveRemoteData(cq))
                {
                    // No room for the target's completion: the write is refused (memory untouched), never left in
                    // the ring in front of other peers' requests; the initiator's completion fails with EAGAIN.
                    enqueueAck(FrameDescriptor.OPCODE_RMA_ACK, srcKey, ep.index, cookie, frameFlags,
                        Flags.RMA | Flags.WRITE, Errno.EAGAIN.value(), length, 0, 0);
                    return true;
                }
                // MR check of every range before touching target memory: bad key EINVAL, rights or bounds EACCES.
                final long raw;
                int payloadAt = offset + FrameDescriptor.RMA_HEADER_LENGTH;
                if ((frameFlags & FrameDescriptor.FLAG_REMOTE_IOV) != 0)
                {
                    raw = verifyRemoteList(buffer, payloadAt, length, Flags.REMOTE_WRITE, 1);
                    payloadAt += FrameDescriptor.LIST_COUNT_LENGTH +
                        (int) Math.max(0, Math.min(MAX_IOV, buffer.getLong(payloadAt))) *
                        FrameDescriptor.REMOTE_ENTRY_LENGTH;
                }
                else
                {
                    final long address = registry.verify(buffer.getLong(offset + FrameDescriptor.RMA_KEY_OFFSET),
                        buffer.getLong(offset + FrameDescriptor.RMA_ADDRESS_OFFSET), length, Flags.REMOTE_WRITE);
                    rangeAddress[0] = address;
                    rangeLength[0] = length;
                    raw = address < 0 ? address : 1;
                }
                if (raw < 0 && remoteData && null != cq)
                {
                    cq.release(1);
                }
                if (raw >= 0)
                {
                    scatter(buffer.addressOffset() + payloadAt, length, rangeAddress, rangeLength, 0, (int) raw);
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
                if ((frameFlags & FrameDescriptor.FLAG_STREAM) != 0)
                {
                    return onStreamedRead(ep, buffer, offset, frameFlags, srcKey, cookie, length);
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
                final int status = (int) data;
                if ((complete && (!cq.hasSpace() || !cq.hasErrorSpace())) ||
                    (null != cq && 0 != status && !cq.hasErrorSpace()))
                {
                    return false;
                }
                ep.outstanding--;
                final long kind = FrameDescriptor.OPCODE_ATOMIC_RESP == opcode ?
                    ((frameFlags & FrameDescriptor.FLAG_FETCHING) != 0 ?
                    Flags.ATOMIC | Flags.READ : Flags.ATOMIC | Flags.WRITE) :
                    (read ? Flags.RMA | Flags.READ : Flags.RMA | Flags.WRITE);
                if (read && 0 == status && length > 0)
                {
                    final long results = buffer.addressOffset() + offset + FrameDescriptor.HEADER_LENGTH;
                    if ((frameFlags & FrameDescriptor.FLAG_RESULT_IOV) != 0)
                    {
                        // The result segments follow the old values.
                        final int list = offset + FrameDescriptor.HEADER_LENGTH + (int) length;
                        final int count = readSegments(buffer, list, rangeAddress, rangeLength, 0);
                        scatter(results, length, rangeAddress, rangeLength, 0, count);
                    }
                    else
                    {
                        UnsafeApi.copyMemory(results, buffer.getLong(offset + FrameDescriptor.TAG_OFFSET), length);
                    }
                }
                final CounterCell counter = (kind & Flags.READ) != 0 ? ep.readCounter : ep.writeCounter;
                final long context = finishPinned(ep, cookie);
                if (0 == status)
                {
                    if (complete)
                    {
                        cq.write(context, kind, 0, 0, 0, 0, ADDR_NOTAVAIL);
                    }
                    if (null != counter)
                    {
                        counter.add(1);
                    }
                }
                else
                {
                    if (null != cq)
                    {
                        // Errors are always reported, also for operations posted without FI_COMPLETION (fi_cq(3)).
                        cq.writeError(context, kind, 0, 0, 0, 0, 0, status, 0, ADDR_NOTAVAIL);
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
            // The destination endpoint is closed: requests that wait for an answer get one with an error.
            return refuseClosed(opcode, buffer, offset);
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
            final long context = finishPinned(ep, buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET));
            if (complete)
            {
                cq.write(context,
                    Flags.SEND | buffer.getLong(offset + FrameDescriptor.TAG_OFFSET), 0, 0, 0, 0, ADDR_NOTAVAIL);
            }
            if (null != ep.sendCounter)
            {
                ep.sendCounter.add(1);
            }
            return true;
        }

        final CompletionRing cq = ep.rxCq;
        // Receives reserve their completion at post time, so a match normally has room; only unreserved
        // completions (multi-recv segments, deferred tsearch answers) can fill the ring. Then the message waits in
        // this endpoint's held FIFO, not at the head of the domain's inbound ring in front of every other peer and
        // every RMA; later arrivals for the endpoint queue behind it (arrival order is kept).
        if (!replayingHeld && null != ep.held && ep.held.deferredCount > 0)
        {
            return hold(ep, buffer, offset, length);
        }
        if ((null != cq && (!cq.hasSpace() || !cq.hasErrorSpace())) || ackCount == ACK_CAPACITY)
        {
            return !replayingHeld && hold(ep, buffer, offset, length);
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
        // Flow control: the message is charged to its sender's account until it leaves the slot. It may be stored
        // only within the sender's credit and the store's bounds; a posted receive that matches always gets it.
        final PeerAccount account = inboundAccount(ep, srcKey);
        final long charge = rts ? 0 : messageLength;
        final boolean mayQueue = account.arrived - account.consumed < credits &&
            account.arrivedBytes - account.consumedBytes + charge <= creditBytes &&
            (rts || ep.store.canAllocate(messageLength));
        account.arrived++;
        account.arrivedBytes += charge;
        ep.slotAccount[slot] = account;
        ep.slotEpoch[slot] = account.inEpoch;
        ep.slotCharge[slot] = charge;
        final Long2LongHashMap map = ep.avId >= 0 ? avReverse[ep.avId] : null;
        final long fiAddr = null == map ? ADDR_NOTAVAIL : map.get(srcKey);
        final MatchResult r = result;
        final int status = ADDR_NOTAVAIL != fiAddr ?
            ep.engine.onArrival(fiAddr, tagged, tag, messageLength, data, slot, mayQueue, r) :
            ep.engine.onUnresolvedArrival(srcKey, tagged, tag, messageLength, data, slot, mayQueue, r);
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
                freeSlot(ep, slot);
                copyOut(ep, buffer.addressOffset() + payloadOffset, r);
                complete(ep, r);
                break;
            case MatchStatus.QUEUED:
                if (rts)
                {
                    holdRendezvous(ep, slot, buffer, offset, srcKey, frameFlags);
                    return true;
                }
                UnsafeApi.copyMemory(buffer.addressOffset() + payloadOffset, ep.storePayload(slot, messageLength),
                    messageLength);
                break;
            case MatchStatus.EAGAIN:
                // No receive matches and the sender is over its credit (or the store is full): refused, never left
                // in the ring. An initiator waiting for an answer gets ENORX; a plain eager message is dropped.
                freeSlot(ep, slot);
                refused++;
                if (rts || (frameFlags & FrameDescriptor.FLAG_ACK_REQUESTED) != 0)
                {
                    enqueueAck(rts ? FrameDescriptor.OPCODE_FIN : FrameDescriptor.OPCODE_ACK, srcKey, ep.index,
                        buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET),
                        rts ? frameFlags : frameFlags & FrameDescriptor.FLAG_WANT_COMPLETION,
                        tagged ? Flags.TAGGED : Flags.MSG, Errno.ENORX.value(), 0, 0, 0);
                }
                return true;
            default:
                freeSlot(ep, slot);
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
        blockedCount = 0;
        // In order per peer; an answer whose peer's ring is full holds back only later answers to that peer (the
        // ones sent past it leave holes, opcode 0, that the head skips).
        for (int k = 0; k < ackCount; k++)
        {
            final int i = (ackHead + k) % ACK_CAPACITY;
            if (0 == ackOpcode[i] || blocked(ackPeer[i]))
            {
                continue;
            }
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
                // The lists travel in the payload; the extension is unused.
                h.putLong(FrameDescriptor.RMA_ADDRESS_OFFSET, 0);
                h.putLong(FrameDescriptor.RMA_KEY_OFFSET, 0);
                headerLength = FrameDescriptor.RMA_HEADER_LENGTH;
            }
            final int result = transport.offer(ackPeer[i], h, 0, headerLength,
                payloadLength > 0 ? payloadView : null, 0, payloadLength);
            counters.onOffer(result);
            if (0 == result)
            {
                if (!block(ackPeer[i]))
                {
                    break;
                }
                continue;
            }
            sequence++;
            ackOpcode[i] = 0;
            sent++;
        }
        while (ackCount > 0 && 0 == ackOpcode[ackHead])
        {
            ackHead = (ackHead + 1) % ACK_CAPACITY;
            ackCount--;
        }
        return sent;
    }

    private boolean blocked(final long peer)
    {
        for (int b = 0; b < blockedCount; b++)
        {
            if (blockedPeers[b] == peer)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Remember, for the rest of this flush, a peer whose ring is full.
     *
     * @return false when too many peers are blocked to tell them apart (the flush stops).
     */
    private boolean block(final long peer)
    {
        if (blockedCount == blockedPeers.length)
        {
            return false;
        }
        blockedPeers[blockedCount++] = peer;
        return true;
    }

    // ------------------------------------------------------------------ flow control

    /**
     * The account of {@code peer} at {@code ep}, created on first contact; its outbound side starts over when the
     * transport reports a new epoch for the peer (it died or restarted: it holds nothing of ours any more).
     */
    private PeerAccount outboundAccount(final EndpointState ep, final long peer)
    {
        final PeerAccount account = account(ep, peer);
        final long epoch = transport.peerEpoch(peer);
        if (epoch != account.outEpoch)
        {
            account.resetOutbound(epoch);
        }
        return account;
    }

    /**
     * The account of sender {@code peer} at {@code ep}; its inbound side starts over on a new epoch (what the
     * previous incarnation sent is no longer charged: its messages stay receivable but block nobody).
     */
    private PeerAccount inboundAccount(final EndpointState ep, final long peer)
    {
        final PeerAccount account = account(ep, peer);
        final long epoch = transport.peerEpoch(peer);
        if (epoch != account.inEpoch)
        {
            account.resetInbound(epoch);
        }
        return account;
    }

    private PeerAccount account(final EndpointState ep, final long peer)
    {
        PeerAccount account = ep.lastAccount;
        if (null == account || account.peerKey != peer)
        {
            account = ep.accounts.get(peer);
            if (null == account)
            {
                // First contact with this peer endpoint: the only allocation, kept for the endpoint's life.
                account = new PeerAccount(ep, peer, transport.peerEpoch(peer));
                ep.accounts.put(peer, account);
            }
            ep.lastAccount = account;
        }
        return account;
    }

    /**
     * Park a command in its peer's FIFO (a copy: an inject payload lives in the record).
     */
    private ControlledMessageHandler.Action defer(
        final EndpointState ep,
        final PeerAccount account,
        final int msgTypeId,
        final MutableDirectBuffer buffer,
        final int index,
        final int length,
        final boolean fenced)
    {
        account.defer(msgTypeId, buffer, index, length, fenced);
        counters.onDeferredSend();
        // Single writer: the agent; posting threads read it to answer -EAGAIN at the transmit queue size.
        ep.deferredSends = ep.deferredSends + 1;
        if (!account.waiting)
        {
            account.waiting = true;
            if (waitingCount == waiting.length)
            {
                waiting = java.util.Arrays.copyOf(waiting, waitingCount * 2);
            }
            waiting[waitingCount++] = account;
        }
        return ControlledMessageHandler.Action.CONTINUE;
    }

    /**
     * Keep a copy of an arrival the endpoint cannot take now (see {@link #onFrame}); its sender's credit bounds how
     * many there can be.
     *
     * @return true (the frame is consumed from the inbound ring).
     */
    private boolean hold(final EndpointState ep, final DirectBuffer buffer, final int offset, final int length)
    {
        if (null == ep.held)
        {
            ep.held = new PeerAccount(ep, -1, 0);
        }
        ep.held.defer(0, buffer, offset, length, false);
        counters.onCqFullHold();
        if (!ep.holding)
        {
            ep.holding = true;
            if (holdingCount == holdingEps.length)
            {
                holdingEps = java.util.Arrays.copyOf(holdingEps, holdingCount * 2);
            }
            holdingEps[holdingCount++] = ep;
        }
        return true;
    }

    /**
     * Deliver held arrivals, oldest first per endpoint, as far as each endpoint's CQ allows; a closed endpoint's
     * are answered as any frame to a closed endpoint.
     */
    private int flushHeld()
    {
        if (0 == holdingCount)
        {
            return 0;
        }
        int work = 0;
        int i = 0;
        while (i < holdingCount)
        {
            final EndpointState ep = holdingEps[i];
            final PeerAccount fifo = ep.held;
            final boolean open = endpoints.get(ep.index) == ep;
            while (fifo.deferredCount > 0)
            {
                final MutableDirectBuffer frame = fifo.deferredBuffer();
                final int at = fifo.headIndex();
                final boolean done;
                if (open)
                {
                    replayingHeld = true;
                    done = onFrame(frame, at, fifo.headLength());
                    replayingHeld = false;
                }
                else
                {
                    done = refuseClosed(frame.getByte(at + FrameDescriptor.OPCODE_OFFSET), frame, at);
                }
                if (!done)
                {
                    break;
                }
                fifo.popDeferred(false);
                work++;
            }
            if (0 == fifo.deferredCount)
            {
                ep.holding = false;
                holdingEps[i] = holdingEps[--holdingCount];
                holdingEps[holdingCount] = null;
            }
            else
            {
                i++;
            }
        }
        return work;
    }

    /**
     * Send what credit allows from the FIFOs of the peers that have deferred commands, oldest first per peer.
     */
    private int flushDeferred()
    {
        if (0 == waitingCount)
        {
            return 0;
        }
        int work = 0;
        flushingDeferred = true;
        int i = 0;
        while (i < waitingCount)
        {
            final PeerAccount account = waiting[i];
            final long epoch = transport.peerEpoch(account.peerKey);
            if (epoch != account.outEpoch)
            {
                // The peer died or restarted: full credit again (a dead peer's offers then fail at once).
                account.resetOutbound(epoch);
            }
            int sent = 0;
            if (endpoints.get(account.endpoint.index) != account.endpoint)
            {
                // Its endpoint closed (its index may already serve another one): its waiting sends die with it.
                while (account.deferredCount > 0)
                {
                    final int type = account.headType();
                    account.popDeferred((account.deferredBuffer().getLong(account.headIndex() + FLAGS_OFFSET) &
                        Flags.FENCE) != 0 || (CommandDescriptor.OP_SEND != type && CommandDescriptor.OP_TSEND != type));
                }
                account.endpoint.deferredSends = 0;
            }
            while (account.deferredCount > 0 && sent < BATCH)
            {
                final MutableDirectBuffer buffer = account.deferredBuffer();
                final int index = account.headIndex();
                final int type = account.headType();
                // Fenced operations and RMA/atomics (deferred only by a full ring) are barriers (see defer).
                final boolean fenced = (buffer.getLong(index + FLAGS_OFFSET) & Flags.FENCE) != 0 ||
                    (CommandDescriptor.OP_SEND != type && CommandDescriptor.OP_TSEND != type);
                if (ControlledMessageHandler.Action.CONTINUE !=
                    onSendCommand(type, buffer, index, account.headLength()))
                {
                    break;
                }
                account.popDeferred(fenced);
                account.endpoint.deferredSends = account.endpoint.deferredSends - 1;
                sent++;
            }
            work += sent;
            if (0 == account.deferredCount)
            {
                account.waiting = false;
                waiting[i] = waiting[--waitingCount];
                waiting[waitingCount] = null;
            }
            else
            {
                i++;
            }
        }
        flushingDeferred = false;
        return work;
    }

    /**
     * Release a slot; when that hands a message back to its sender's account, maybe queue a credit frame.
     */
    private void freeSlot(final EndpointState ep, final int slot)
    {
        final PeerAccount account = ep.freeSlot(slot);
        if (null != account)
        {
            creditBack(account);
        }
    }

    /**
     * Queue a credit frame once the sender may be running short: half its grant (messages or bytes) is charged
     * since the last report. A ping-pong sends one credit frame per half grant; a sender that used up its grant
     * gets one as soon as anything is consumed.
     */
    private void creditBack(final PeerAccount account)
    {
        if (!account.creditQueued && account.consumed > account.reported &&
            (account.arrived - account.reported >= creditReportMessages ||
            account.arrivedBytes - account.reportedBytes >= creditReportBytes))
        {
            account.creditQueued = true;
            if (creditCount == creditQueue.length)
            {
                creditQueue = java.util.Arrays.copyOf(creditQueue, creditCount * 2);
            }
            creditQueue[creditCount++] = account;
        }
    }

    /**
     * Send the queued credit frames (answers: they never wait behind requests); one whose peer's ring is full
     * stays queued for the next duty cycle; one for a peer that started over is dropped.
     */
    private int flushCredits()
    {
        int sent = 0;
        int i = 0;
        final UnsafeBuffer h = header;
        while (i < creditCount)
        {
            final PeerAccount account = creditQueue[i];
            int result = -1;
            if (transport.peerEpoch(account.peerKey) == account.inEpoch)
            {
                h.putByte(FrameDescriptor.VERSION_OFFSET, FrameDescriptor.VERSION);
                h.putByte(FrameDescriptor.OPCODE_OFFSET, FrameDescriptor.OPCODE_CREDIT);
                h.putInt(FrameDescriptor.DST_ENDPOINT_OFFSET, transport.endpointIndex(account.peerKey));
                h.putLong(FrameDescriptor.SRC_KEY_OFFSET, transport.localKey(account.endpoint.index));
                h.putLong(FrameDescriptor.TAG_OFFSET, 0);
                h.putLong(FrameDescriptor.DATA_OFFSET, account.consumed);
                h.putLong(FrameDescriptor.LENGTH_OFFSET, account.consumedBytes);
                h.putLong(FrameDescriptor.FLAGS_OFFSET, 0);
                h.putLong(FrameDescriptor.COOKIE_OFFSET, 0);
                h.putLong(FrameDescriptor.SEQUENCE_OFFSET, sequence);
                result = transport.offer(account.peerKey, h, 0, FrameDescriptor.HEADER_LENGTH, null, 0, 0);
                counters.onOffer(result);
                if (0 == result)
                {
                    i++;
                    continue;
                }
            }
            if (result > 0)
            {
                sequence++;
                sent++;
                account.reported = account.consumed;
                account.reportedBytes = account.consumedBytes;
            }
            account.creditQueued = false;
            creditQueue[i] = creditQueue[--creditCount];
            creditQueue[creditCount] = null;
        }
        return sent;
    }

    /**
     * Reserve the target completion of a write with remote CQ data ({@code FI_REMOTE_CQ_DATA}, {@code FI_RMA_EVENT})
     * as a receive reserves its own at post: completions the application did not ask for count against the CQ's
     * size too, so they can never take the room a posted receive's completion needs.
     *
     * @return true when reserved and the ring has room.
     */
    private static boolean reserveRemoteData(final CompletionRing cq)
    {
        if (!cq.reserve())
        {
            return false;
        }
        if (!cq.hasSpace())
        {
            cq.release(1);
            return false;
        }
        return true;
    }

    /**
     * A credit frame: the peer reports how much of what we sent it has consumed (absolute counts).
     */
    private boolean onCredit(final EndpointState ep, final DirectBuffer buffer, final int offset)
    {
        final PeerAccount account =
            outboundAccount(ep, buffer.getLong(offset + FrameDescriptor.SRC_KEY_OFFSET));
        account.acked = Math.max(account.acked, buffer.getLong(offset + FrameDescriptor.DATA_OFFSET));
        account.ackedBytes = Math.max(account.ackedBytes, buffer.getLong(offset + FrameDescriptor.LENGTH_OFFSET));
        return true;
    }

    /**
     * @return messages refused because their sender was over its credit or the store was full (agent thread; for
     * tests and diagnostics).
     */
    public long refused()
    {
        return refused;
    }

    private void deliverFromSlot(final EndpointState ep, final MatchResult r)
    {
        final int slot = (int) r.payloadHandle();
        if (ep.rendezvous[slot])
        {
            startPull(ep, slot, r);
            return;
        }
        copyOut(ep, ep.slotAddress(slot), r);
        freeSlot(ep, slot);
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
        ep.rvSrcCount[slot] = readSegments(buffer, offset + FrameDescriptor.RMA_HEADER_LENGTH,
            ep.rvSrcAddress, ep.rvSrcLength, slot * MAX_IOV);
        ep.rvCookie[slot] = buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET);
        ep.rvFrameFlags[slot] = frameFlags;
    }

    /**
     * Read a segment list (count, then entries) into {@code address}/{@code length} from {@code base}.
     *
     * @return the number of entries kept (at most {@link #MAX_IOV}).
     */
    private static int readSegments(
        final DirectBuffer buffer, final int at, final long[] address, final long[] length, final int base)
    {
        final int count = (int) Math.max(0, Math.min(MAX_IOV, buffer.getLong(at)));
        for (int k = 0; k < count; k++)
        {
            final int entry = at + FrameDescriptor.LIST_COUNT_LENGTH + k * FrameDescriptor.SEGMENT_LENGTH;
            address[base + k] = buffer.getLong(entry);
            length[base + k] = buffer.getLong(entry + 8);
        }
        return count;
    }

    /**
     * The offset just after a segment list.
     */
    private static int skipSegments(final DirectBuffer buffer, final int at)
    {
        return at + FrameDescriptor.LIST_COUNT_LENGTH +
            (int) Math.max(0, Math.min(MAX_IOV, buffer.getLong(at))) * FrameDescriptor.SEGMENT_LENGTH;
    }

    /**
     * Check every range of a remote list before anything is read or written (all-or-nothing, as
     * {@code ofi_mr_map_verify} per {@code fi_rma_iov} entry) and map them into {@link #rangeAddress} and
     * {@link #rangeLength}.
     *
     * @return the number of ranges, or a negative errno: {@code -EINVAL} for an unknown key, more than
     * {@link #MAX_IOV} ranges, lengths that are not whole elements or do not add up to {@code total};
     * {@code -EACCES} for missing rights or a range outside its region.
     */
    private int verifyRemoteList(
        final DirectBuffer buffer, final int at, final long total, final long access, final int elementSize)
    {
        final long count = buffer.getLong(at);
        if (count < 1 || count > MAX_IOV)
        {
            return Errno.EINVAL.negated();
        }
        long sum = 0;
        for (int k = 0; k < count; k++)
        {
            final int entry = at + FrameDescriptor.LIST_COUNT_LENGTH + k * FrameDescriptor.REMOTE_ENTRY_LENGTH;
            final long length = buffer.getLong(entry + 8);
            if (length < 0 || length % elementSize != 0)
            {
                return Errno.EINVAL.negated();
            }
            final long raw = registry.verify(buffer.getLong(entry + 16), buffer.getLong(entry), length, access);
            if (raw < 0)
            {
                return (int) raw;
            }
            rangeAddress[k] = raw;
            rangeLength[k] = length;
            sum += length;
        }
        return sum == total ? (int) count : Errno.EINVAL.negated();
    }

    /**
     * Copy {@code length} bytes from {@code from} across segments in order.
     */
    private static void scatter(
        final long from, final long length, final long[] address, final long[] lengths, final int base,
        final int count)
    {
        long source = from;
        long left = length;
        for (int k = 0; k < count && left > 0; k++)
        {
            final long n = Math.min(left, lengths[base + k]);
            if (n > 0)
            {
                UnsafeApi.copyMemory(source, address[base + k], n);
            }
            source += n;
            left -= n;
        }
    }

    /**
     * A rendezvous message matched: remember the receive's completion and ask the sender for the data (CTS).
     */
    private void startPull(final EndpointState ep, final int slot, final MatchResult r)
    {
        final long address = r.bufferAddress();
        ep.rvContext[slot] = r.context();
        ep.rvFlags[slot] = (r.flags() & (Flags.MSG | Flags.TAGGED | Flags.RECV | Flags.MULTI_RECV)) |
            (hasRemoteData(ep, r) ? Flags.REMOTE_CQ_DATA : 0);
        ep.rvLength[slot] = r.length();
        ep.rvBuffer[slot] = ep.bufferOf(address) + r.offset();
        ep.rvTag[slot] = r.tag();
        ep.rvData[slot] = r.data();
        ep.rvSource[slot] = source(r);
        ep.rvOverflow[slot] = r.overflow();
        ep.rvReceiveHandle[slot] = r.receiveHandle();
        if (-1 == r.receiveHandle() && immediatePin >= 0)
        {
            // Matched at post: the pull keeps the receive's pin until it finishes.
            ep.receivePins.put(EndpointState.RV_PIN_KEY | slot, immediatePin);
            immediatePin = PinTable.NONE;
        }
        else if (-1 != r.receiveHandle())
        {
            final long pin = ep.receivePins.get(r.receiveHandle());
            if ((pin & EndpointState.MULTI_RECV_PIN) != 0 && -1 != pin)
            {
                // A multi-recv buffer keeps its pin while a pull copies into it, even once it is released.
                ep.receivePins.put(r.receiveHandle(), pin + EndpointState.MULTI_RECV_PULL);
            }
        }
        ep.rvSilent[slot] = silent(ep, r);
        if (pullDirect(ep, slot, address, r))
        {
            // Single copy from the sender's shared memory: no CTS, no RDATA; the FIN completes the send.
            finishRendezvous(ep, slot);
            return;
        }
        // CTS payload: the sender's segments (echoed), then this receive's segments cut to the bytes that fit.
        final int ackSlot = (ackHead + ackCount) % ACK_CAPACITY;
        final UnsafeBuffer s = ackScratch;
        final int start = ackSlot * scratchStride;
        final int srcCount = ep.rvSrcCount[slot];
        int p = start;
        s.putLong(p, srcCount);
        p += FrameDescriptor.LIST_COUNT_LENGTH;
        for (int k = 0; k < srcCount; k++)
        {
            s.putLong(p, ep.rvSrcAddress[slot * MAX_IOV + k]);
            s.putLong(p + 8, ep.rvSrcLength[slot * MAX_IOV + k]);
            p += FrameDescriptor.SEGMENT_LENGTH;
        }
        final int countAt = p;
        p += FrameDescriptor.LIST_COUNT_LENGTH;
        int dstCount = 0;
        long left = r.length();
        if (address >= 0)
        {
            s.putLong(p, address + r.offset());
            s.putLong(p + 8, left);
            p += FrameDescriptor.SEGMENT_LENGTH;
            dstCount = 1;
        }
        else
        {
            final int entry = (int) (address & ~EndpointState.IOV_HANDLE);
            for (int k = 0; k < ep.rxIovCount[entry] && left > 0; k++)
            {
                final long n = Math.min(left, ep.rxIovLength[entry * MAX_IOV + k]);
                s.putLong(p, ep.rxIovAddress[entry * MAX_IOV + k]);
                s.putLong(p + 8, n);
                p += FrameDescriptor.SEGMENT_LENGTH;
                left -= n;
                dstCount++;
            }
            ep.releaseRxIov(address);
        }
        s.putLong(countAt, dstCount);
        enqueueAck(FrameDescriptor.OPCODE_CTS, ep.rvSenderKey[slot], ep.index, ep.rvCookie[slot],
            ep.rvFrameFlags[slot], 0, slot, r.length(), s.addressOffset() + start, p - start);
    }

    /**
     * Copy a matched rendezvous message straight from the sender's memory when the transport maps every segment of
     * it here ({@link DomainTransport#directAddress}, for example a shm peer's shared pool): one copy, no data
     * frames. Every segment is checked before the first byte moves; when one is not directly readable nothing is
     * copied and the caller pulls through frames as usual (also for receives into an iov). Callers keep room for
     * the FIN and the completion.
     *
     * @return true when the data has been copied into the receive's buffers.
     */
    private boolean pullDirect(final EndpointState ep, final int slot, final long address, final MatchResult r)
    {
        if (address < 0)
        {
            // A receive iov: no transport with a direct path offers rx iov > 1 yet; pulled through frames.
            return false;
        }
        final int srcCount = ep.rvSrcCount[slot];
        final long peerKey = ep.rvSenderKey[slot];
        final long[] src = directSource;
        final long[] srcLength = directSourceLength;
        long left = r.length();
        int used = 0;
        for (int k = 0; k < srcCount && left > 0; k++)
        {
            final long n = Math.min(left, ep.rvSrcLength[slot * MAX_IOV + k]);
            if (n > 0)
            {
                final long local = transport.directAddress(peerKey, ep.rvSrcAddress[slot * MAX_IOV + k], n);
                if (0 == local)
                {
                    return false;
                }
                src[used] = local;
                srcLength[used] = n;
                used++;
                left -= n;
            }
        }
        if (0 == used || left > 0)
        {
            return false;
        }
        long to = address + r.offset();
        for (int k = 0; k < used; k++)
        {
            UnsafeApi.copyMemory(src[k], to, srcLength[k]);
            to += srcLength[k];
        }
        return true;
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
        freeSlot(ep, slot);
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
                // Stream the data the peer asked for: from our segments (echoed) into its segments.
                final int i = (pullHead + pullCount) % PULL_CAPACITY;
                final int at = offset + FrameDescriptor.RMA_HEADER_LENGTH;
                pullSrcCount[i] = readSegments(buffer, at, pullSrcAddress, pullSrcLength, i * MAX_IOV);
                pullDstCount[i] = readSegments(buffer, skipSegments(buffer, at), pullDstAddress, pullDstLength,
                    i * MAX_IOV);
                pushPull(i, buffer.getLong(offset + FrameDescriptor.SRC_KEY_OFFSET), ep.index,
                    buffer.getLong(offset + FrameDescriptor.DATA_OFFSET),
                    buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET),
                    // FLAG_TAGGED rides along so that a receiver that closed meanwhile answers with the right kind.
                    frameFlags & (FrameDescriptor.FLAG_RMA_WRITE | FrameDescriptor.FLAG_TAGGED),
                    buffer.getLong(offset + FrameDescriptor.LENGTH_OFFSET));
                return true;
            }
            case FrameDescriptor.OPCODE_RDATA:
                return onData(ep, buffer, offset, frameFlags);
            case FrameDescriptor.OPCODE_WRITE_RTS:
                return onWriteRequest(ep, buffer, offset, frameFlags);
            case FrameDescriptor.OPCODE_CREDIT:
                return onCredit(ep, buffer, offset);
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
                final long context = finishPinned(ep, buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET));
                if (complete)
                {
                    cq.write(context,
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
        unpinPull(ep, slot);
        freeSlot(ep, slot);
    }

    /**
     * The rendezvous pull into unexpected slot {@code slot} is over: its receive is done with the buffer (a
     * multi-recv buffer only with its last message).
     */
    private void unpinPull(final EndpointState ep, final int slot)
    {
        final long handle = ep.rvReceiveHandle[slot];
        unpinReceive(ep, -1 == handle ? EndpointState.RV_PIN_KEY | slot : handle,
            (ep.rvFlags[slot] & Flags.MULTI_RECV) != 0, true);
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
        unpinPull(ep, slot);
        freeSlot(ep, slot);
    }

    /**
     * A request frame for an endpoint of this domain that is closed (or never was): answer it as the sender waits
     * for it (ACK of a delivery-complete send, FIN of a rendezvous send, RMA_ACK of a write, READ_RESP of a read,
     * ATOMIC_RESP of an atomic) with status {@link #CLOSED_ENDPOINT_STATUS}, so that its operation completes with
     * that error instead of never; other frames (plain sends, answers, stream data) are dropped.
     *
     * @return false to leave the frame while the answer queue is full.
     */
    private boolean refuseClosed(final byte opcode, final DirectBuffer buffer, final int offset)
    {
        final long frameFlags = buffer.getLong(offset + FrameDescriptor.FLAGS_OFFSET);
        if (FrameDescriptor.OPCODE_RDATA == opcode)
        {
            return refuseClosedStream(buffer, offset, frameFlags);
        }
        final boolean tagged = FrameDescriptor.OPCODE_TAGGED == opcode ||
            (FrameDescriptor.OPCODE_RTS == opcode && (frameFlags & FrameDescriptor.FLAG_TAGGED) != 0);
        final byte answer;
        final long kind;
        switch (opcode)
        {
            case FrameDescriptor.OPCODE_MSG:
            case FrameDescriptor.OPCODE_TAGGED:
                answer = (frameFlags & FrameDescriptor.FLAG_ACK_REQUESTED) != 0 ? FrameDescriptor.OPCODE_ACK : 0;
                kind = tagged ? Flags.TAGGED : Flags.MSG;
                break;
            case FrameDescriptor.OPCODE_RTS:
                answer = FrameDescriptor.OPCODE_FIN;
                kind = tagged ? Flags.TAGGED : Flags.MSG;
                break;
            case FrameDescriptor.OPCODE_WRITE:
            case FrameDescriptor.OPCODE_WRITE_RTS:
                answer = FrameDescriptor.OPCODE_RMA_ACK;
                kind = Flags.RMA | Flags.WRITE;
                break;
            case FrameDescriptor.OPCODE_READ_REQ:
                answer = FrameDescriptor.OPCODE_READ_RESP;
                kind = 0;
                break;
            case FrameDescriptor.OPCODE_ATOMIC:
                answer = FrameDescriptor.OPCODE_ATOMIC_RESP;
                kind = 0;
                break;
            default:
                answer = 0;
                kind = 0;
                break;
        }
        if (0 == answer)
        {
            return true;
        }
        return enqueueAck(answer, buffer.getLong(offset + FrameDescriptor.SRC_KEY_OFFSET),
            buffer.getInt(offset + FrameDescriptor.DST_ENDPOINT_OFFSET),
            buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET), frameFlags, kind, CLOSED_ENDPOINT_STATUS, 0, 0, 0);
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
        final long context = finishPinned(ep, cookie);
        if (null != cq)
        {
            // Errors are always reported, also for sends posted without FI_COMPLETION (selective completion).
            cq.writeError(context, kind, 0, 0, 0, 0, 0, (int) status, 0, ADDR_NOTAVAIL);
        }
        if (null != ep.sendCounter)
        {
            ep.sendCounter.addError(1);
        }
        return true;
    }

    /**
     * Queue stream {@code i} (its segment lists already filled) behind the others.
     */
    private void pushPull(
        final int i, final long peer, final int endpoint, final long slot, final long cookie, final long flags,
        final long remaining)
    {
        pullPeer[i] = peer;
        pullEndpoint[i] = endpoint;
        pullSlot[i] = slot;
        pullCookie[i] = cookie;
        pullFlags[i] = flags;
        pullRemaining[i] = remaining;
        pullSrcIndex[i] = 0;
        pullSrcPosition[i] = 0;
        pullDstIndex[i] = 0;
        pullDstPosition[i] = 0;
        pullCount++;
    }

    /**
     * Send the chunks of the queued streams (rendezvous data, RMA write data, RMA read data), oldest stream first,
     * as far as the peers' inbound rings take them and at most {@link #CHUNKS_PER_CYCLE} per duty cycle: a full ring
     * stops the flush until the next duty cycle, which bounds the bytes in flight by the peer's ring. A chunk is at
     * most {@link #chunk} bytes and never crosses a segment boundary of either side; it names its destination
     * address, so the receiving agent copies it without any state of its own.
     */
    /**
     * Stream data for an endpoint that closed after it asked for it (a matched rendezvous receive, or the target
     * of a streamed RMA write): the chunks are dropped, and the last one is answered as the sender waits for it,
     * with {@link #CLOSED_ENDPOINT_STATUS}: a FIN for a rendezvous send, an RMA_ACK for a write (whose slot is
     * freed; target memory keeps the chunks that landed before the close). Read data and failed chunks need no
     * answer.
     *
     * @return false to leave the frame while the answer queue is full.
     */
    private boolean refuseClosedStream(final DirectBuffer buffer, final int offset, final long frameFlags)
    {
        if ((frameFlags & FrameDescriptor.FLAG_LAST) == 0 ||
            (frameFlags & (FrameDescriptor.FLAG_READ_DATA | FrameDescriptor.FLAG_FAILED)) != 0)
        {
            return true;
        }
        if (ackCount == ACK_CAPACITY)
        {
            return false;
        }
        final int endpointIndex = buffer.getInt(offset + FrameDescriptor.DST_ENDPOINT_OFFSET);
        if ((frameFlags & FrameDescriptor.FLAG_RMA_WRITE) != 0)
        {
            final int slot = (int) buffer.getLong(offset + FrameDescriptor.DATA_OFFSET);
            if (slot < 0 || slot >= RMA_SLOTS)
            {
                return true;
            }
            enqueueAck(FrameDescriptor.OPCODE_RMA_ACK, rmaPeer[slot], endpointIndex, rmaCookie[slot],
                rmaFrameFlags[slot], Flags.RMA | Flags.WRITE, CLOSED_ENDPOINT_STATUS, 0, 0, 0);
            rmaFree[rmaFreeCount++] = slot;
            return true;
        }
        return enqueueAck(FrameDescriptor.OPCODE_FIN, buffer.getLong(offset + FrameDescriptor.SRC_KEY_OFFSET),
            endpointIndex, buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET), frameFlags,
            (frameFlags & FrameDescriptor.FLAG_TAGGED) != 0 ? Flags.TAGGED : Flags.MSG, CLOSED_ENDPOINT_STATUS, 0, 0,
            0);
    }

    /**
     * An endpoint closes: the streams that read its buffers (rendezvous send data, streamed RMA write data) stop
     * reading them. Each ends with an empty last chunk flagged {@link FrameDescriptor#FLAG_FAILED} carrying
     * {@code ECONNREFUSED}, so the receiver's receive completes with that error instead of waiting (a streamed
     * write's target frees its slot). Streams answering a peer's read come from registered memory and go on.
     */
    private void abandonStreams(final int endpointIndex)
    {
        for (int k = 0; k < pullCount; k++)
        {
            final int i = (pullHead + k) % PULL_CAPACITY;
            if (pullRemaining[i] >= 0 && pullEndpoint[i] == endpointIndex &&
                (pullFlags[i] & FrameDescriptor.FLAG_READ_DATA) == 0)
            {
                pullSrcCount[i] = 0;
                pullFlags[i] |= FrameDescriptor.FLAG_FAILED;
            }
        }
    }

    private int flushPulls()
    {
        int sent = 0;
        final UnsafeBuffer h = header;
        blockedCount = 0;
        int k = 0;
        // Oldest stream first; a stream whose peer's ring is full holds back only streams to that peer (a stream
        // that ends past it leaves a hole, remaining -1, that the head skips).
        while (k < pullCount && sent < CHUNKS_PER_CYCLE)
        {
            final int i = (pullHead + k) % PULL_CAPACITY;
            if (pullRemaining[i] < 0 || blocked(pullPeer[i]))
            {
                k++;
                continue;
            }
            final int base = i * MAX_IOV;
            while (pullSrcIndex[i] < pullSrcCount[i] - 1 &&
                pullSrcPosition[i] == pullSrcLength[base + pullSrcIndex[i]])
            {
                pullSrcIndex[i]++;
                pullSrcPosition[i] = 0;
            }
            while (pullDstIndex[i] < pullDstCount[i] - 1 &&
                pullDstPosition[i] == pullDstLength[base + pullDstIndex[i]])
            {
                pullDstIndex[i]++;
                pullDstPosition[i] = 0;
            }
            final long srcLeft = pullSrcCount[i] > 0 ?
                pullSrcLength[base + pullSrcIndex[i]] - pullSrcPosition[i] : 0;
            final long dstLeft = pullDstCount[i] > 0 ?
                pullDstLength[base + pullDstIndex[i]] - pullDstPosition[i] : 0;
            final long remaining = pullRemaining[i];
            final long length = Math.max(0, Math.min(Math.min(remaining, chunk), Math.min(srcLeft, dstLeft)));
            // Lists holding fewer bytes than announced end the stream early rather than never.
            final boolean last = length == remaining || 0 == length;
            final long source = pullSrcCount[i] > 0 ? pullSrcAddress[base + pullSrcIndex[i]] + pullSrcPosition[i] : 0;
            h.putByte(FrameDescriptor.VERSION_OFFSET, FrameDescriptor.VERSION);
            h.putByte(FrameDescriptor.OPCODE_OFFSET, FrameDescriptor.OPCODE_RDATA);
            h.putInt(FrameDescriptor.DST_ENDPOINT_OFFSET, transport.endpointIndex(pullPeer[i]));
            h.putLong(FrameDescriptor.SRC_KEY_OFFSET, transport.localKey(pullEndpoint[i]));
            h.putLong(FrameDescriptor.TAG_OFFSET, pullDstCount[i] > 0 ?
                pullDstAddress[base + pullDstIndex[i]] + pullDstPosition[i] : 0);
            h.putLong(FrameDescriptor.DATA_OFFSET, pullSlot[i]);
            h.putLong(FrameDescriptor.LENGTH_OFFSET, length);
            h.putLong(FrameDescriptor.FLAGS_OFFSET, pullFlags[i] | (last ? FrameDescriptor.FLAG_LAST : 0));
            h.putLong(FrameDescriptor.COOKIE_OFFSET, pullCookie[i]);
            // An abandoned stream's failed chunk carries the errno where a sequence would be (see OPCODE_RDATA).
            h.putLong(FrameDescriptor.SEQUENCE_OFFSET, (pullFlags[i] & FrameDescriptor.FLAG_FAILED) != 0 ?
                Errno.ECONNREFUSED.value() : sequence);
            if (length > 0)
            {
                payloadView.wrap(source, (int) length);
            }
            final int result = transport.offer(pullPeer[i], h, 0, FrameDescriptor.HEADER_LENGTH,
                length > 0 ? payloadView : null, 0, (int) length);
            counters.onOffer(result);
            if (0 == result)
            {
                if (!block(pullPeer[i]))
                {
                    break;
                }
                k++;
                continue;
            }
            sequence++;
            sent++;
            if (last || result < 0)
            {
                pullRemaining[i] = -1;
                k++;
            }
            else
            {
                pullSrcPosition[i] += length;
                pullDstPosition[i] += length;
                pullRemaining[i] = remaining - length;
            }
        }
        while (pullCount > 0 && pullRemaining[pullHead] < 0)
        {
            pullHead = (pullHead + 1) % PULL_CAPACITY;
            pullCount--;
        }
        return sent;
    }

    /**
     * An RDATA chunk: copy it to the address it names; the last chunk finishes the rendezvous receive, the
     * streamed RMA write (target side) or the streamed RMA read (initiator side).
     */
    private boolean onData(final EndpointState ep, final DirectBuffer buffer, final int offset, final long frameFlags)
    {
        if ((frameFlags & FrameDescriptor.FLAG_FAILED) != 0)
        {
            return onFailedData(ep, buffer, offset, frameFlags);
        }
        final boolean last = (frameFlags & FrameDescriptor.FLAG_LAST) != 0;
        if ((frameFlags & FrameDescriptor.FLAG_READ_DATA) != 0)
        {
            final CompletionRing cq = ep.txCq;
            final boolean complete = null != cq && (frameFlags & FrameDescriptor.FLAG_WANT_COMPLETION) != 0;
            if (last && complete && !cq.hasSpace())
            {
                return false;
            }
            copyChunk(buffer, offset);
            if (last)
            {
                ep.outstanding--;
                final long context = finishPinned(ep, buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET));
                if (complete)
                {
                    cq.write(context, Flags.RMA | Flags.READ, 0, 0, 0, 0, ADDR_NOTAVAIL);
                }
                if (null != ep.readCounter)
                {
                    ep.readCounter.add(1);
                }
            }
            return true;
        }
        final int slot = (int) buffer.getLong(offset + FrameDescriptor.DATA_OFFSET);
        if ((frameFlags & FrameDescriptor.FLAG_RMA_WRITE) != 0)
        {
            if (slot < 0 || slot >= RMA_SLOTS)
            {
                return true;
            }
            final CompletionRing cq = ep.rxCq;
            final boolean remoteData = (rmaFrameFlags[slot] & FrameDescriptor.FLAG_REMOTE_CQ_DATA) != 0;
            if (last && (ackCount == ACK_CAPACITY || (remoteData && null != cq && !cq.hasSpace())))
            {
                return false;
            }
            copyChunk(buffer, offset);
            if (last)
            {
                finishWrite(ep, slot);
            }
            return true;
        }
        final CompletionRing cq = ep.rxCq;
        if (last && (ackCount == ACK_CAPACITY || (null != cq && (!cq.hasSpace() || !cq.hasErrorSpace()))))
        {
            return false;
        }
        copyChunk(buffer, offset);
        if (last)
        {
            finishRendezvous(ep, slot);
        }
        return true;
    }

    /**
     * A transport reported that the peer holding the data of a streamed transfer died: a rendezvous receive
     * completes with the error; a streamed RMA write at its target releases its slot (the initiator is gone, no
     * answer is due, target memory keeps whatever chunks arrived). Streamed RMA reads fail through a made-up
     * READ_RESP instead.
     */
    private boolean onFailedData(
        final EndpointState ep, final DirectBuffer buffer, final int offset, final long frameFlags)
    {
        final int slot = (int) buffer.getLong(offset + FrameDescriptor.DATA_OFFSET);
        if ((frameFlags & FrameDescriptor.FLAG_RMA_WRITE) != 0)
        {
            if (slot >= 0 && slot < RMA_SLOTS)
            {
                rmaFree[rmaFreeCount++] = slot;
            }
            return true;
        }
        final CompletionRing cq = ep.rxCq;
        if (null != cq && !cq.hasErrorSpace())
        {
            return false;
        }
        failRendezvous(ep, slot, (int) buffer.getLong(offset + FrameDescriptor.SEQUENCE_OFFSET));
        return true;
    }

    private static void copyChunk(final DirectBuffer buffer, final int offset)
    {
        final long length = buffer.getLong(offset + FrameDescriptor.LENGTH_OFFSET);
        if (length > 0)
        {
            UnsafeApi.copyMemory(buffer.addressOffset() + offset + FrameDescriptor.HEADER_LENGTH,
                buffer.getLong(offset + FrameDescriptor.TAG_OFFSET), length);
        }
    }

    /**
     * A streamed RMA write request at its target: check every remote range first (all-or-nothing); a failure
     * answers the initiator at once (RMA_ACK with the error, target untouched); otherwise keep a write slot and
     * ask for the data (CTS with the initiator's segments echoed and the raw target ranges).
     */
    private boolean onWriteRequest(
        final EndpointState ep, final DirectBuffer buffer, final int offset, final long frameFlags)
    {
        if (ackCount == ACK_CAPACITY || 0 == rmaFreeCount)
        {
            return false;
        }
        final long srcKey = buffer.getLong(offset + FrameDescriptor.SRC_KEY_OFFSET);
        final long cookie = buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET);
        final long length = buffer.getLong(offset + FrameDescriptor.LENGTH_OFFSET);
        final int at = offset + FrameDescriptor.RMA_HEADER_LENGTH;
        final int ranges = verifyRemoteList(buffer, skipSegments(buffer, at), length, Flags.REMOTE_WRITE, 1);
        if (ranges < 0)
        {
            enqueueAck(FrameDescriptor.OPCODE_RMA_ACK, srcKey, ep.index, cookie, frameFlags, Flags.RMA | Flags.WRITE,
                -ranges, length, 0, 0);
            return true;
        }
        final boolean remoteData = (frameFlags & FrameDescriptor.FLAG_REMOTE_CQ_DATA) != 0;
        if (remoteData && null != ep.rxCq && !reserveRemoteData(ep.rxCq))
        {
            // As for a single-frame write: no room for the target's completion, refused before any data moves.
            enqueueAck(FrameDescriptor.OPCODE_RMA_ACK, srcKey, ep.index, cookie, frameFlags, Flags.RMA | Flags.WRITE,
                Errno.EAGAIN.value(), length, 0, 0);
            return true;
        }
        final boolean direct = (!remoteData || null == ep.rxCq || ep.rxCq.hasSpace()) &&
            writeDirect(srcKey, buffer, at, length, ranges);
        final int slot = rmaFree[--rmaFreeCount];
        rmaPeer[slot] = srcKey;
        rmaCookie[slot] = cookie;
        rmaFrameFlags[slot] = frameFlags;
        rmaData[slot] = buffer.getLong(offset + FrameDescriptor.DATA_OFFSET);
        rmaLength[slot] = length;
        if (direct)
        {
            // Single copy from the initiator's shared memory: no CTS, no RDATA; the RMA_ACK completes the write.
            finishWrite(ep, slot);
            return true;
        }
        final int ackSlot = (ackHead + ackCount) % ACK_CAPACITY;
        final UnsafeBuffer s = ackScratch;
        final int start = ackSlot * scratchStride;
        final int srcBytes = skipSegments(buffer, at) - at;
        s.putBytes(start, buffer, at, srcBytes);
        s.putLong(start, Math.max(0, Math.min(MAX_IOV, buffer.getLong(at))));
        int p = start + srcBytes;
        s.putLong(p, ranges);
        p += FrameDescriptor.LIST_COUNT_LENGTH;
        for (int k = 0; k < ranges; k++)
        {
            s.putLong(p, rangeAddress[k]);
            s.putLong(p + 8, rangeLength[k]);
            p += FrameDescriptor.SEGMENT_LENGTH;
        }
        enqueueAck(FrameDescriptor.OPCODE_CTS, srcKey, ep.index, cookie, frameFlags | FrameDescriptor.FLAG_RMA_WRITE,
            0, slot, length, s.addressOffset() + start, p - start);
        return true;
    }

    /**
     * A checked streamed RMA write whose source segments ({@code at}: the initiator's list) are all directly readable
     * here ({@link DomainTransport#directAddress}): copy them into the target ranges ({@link #rangeAddress},
     * {@link #rangeLength}, already verified against the MR) and report true; otherwise copy nothing.
     */
    private boolean writeDirect(
        final long srcKey, final DirectBuffer buffer, final int at, final long length, final int ranges)
    {
        final long[] src = directSource;
        final long[] srcLength = directSourceLength;
        final int count = readSegments(buffer, at, src, srcLength, 0);
        long left = length;
        int used = 0;
        for (int k = 0; k < count && left > 0; k++)
        {
            final long n = Math.min(left, srcLength[k]);
            if (n > 0)
            {
                final long local = transport.directAddress(srcKey, src[k], n);
                if (0 == local)
                {
                    return false;
                }
                src[used] = local;
                srcLength[used] = n;
                used++;
                left -= n;
            }
        }
        if (0 == used || left > 0)
        {
            return false;
        }
        // Two cursors: a copy never crosses a segment of either side.
        int s = 0;
        long sAt = 0;
        for (int d = 0; d < ranges && s < used; d++)
        {
            final long room = rangeLength[d];
            long dAt = 0;
            while (dAt < room && s < used)
            {
                final long n = Math.min(room - dAt, srcLength[s] - sAt);
                UnsafeApi.copyMemory(src[s] + sAt, rangeAddress[d] + dAt, n);
                dAt += n;
                sAt += n;
                if (sAt == srcLength[s])
                {
                    s++;
                    sAt = 0;
                }
            }
        }
        return true;
    }

    /**
     * The last chunk of a streamed RMA write arrived: complete it as a single-frame write completes.
     */
    private void finishWrite(final EndpointState ep, final int slot)
    {
        final long frameFlags = rmaFrameFlags[slot];
        final CompletionRing cq = ep.rxCq;
        if ((frameFlags & FrameDescriptor.FLAG_REMOTE_CQ_DATA) != 0 && null != cq)
        {
            cq.write(0, Flags.REMOTE_WRITE | Flags.RMA | Flags.REMOTE_CQ_DATA, rmaLength[slot], 0, rmaData[slot], 0,
                ADDR_NOTAVAIL);
        }
        if (null != ep.remoteWriteCounter)
        {
            ep.remoteWriteCounter.add(1);
        }
        enqueueAck(FrameDescriptor.OPCODE_RMA_ACK, rmaPeer[slot], ep.index, rmaCookie[slot], frameFlags,
            Flags.RMA | Flags.WRITE, 0, rmaLength[slot], 0, 0);
        rmaFree[rmaFreeCount++] = slot;
    }

    /**
     * A streamed RMA read request at its target: check every remote range first; a failure answers with a
     * READ_RESP carrying the error; otherwise stream the ranges into the initiator's segments (RDATA flagged
     * {@link FrameDescriptor#FLAG_READ_DATA}; the last chunk completes the read there).
     */
    private boolean onStreamedRead(
        final EndpointState ep,
        final DirectBuffer buffer,
        final int offset,
        final long frameFlags,
        final long srcKey,
        final long cookie,
        final long length)
    {
        if (pullCount == PULL_CAPACITY)
        {
            return false;
        }
        final int at = offset + FrameDescriptor.RMA_HEADER_LENGTH;
        final int ranges = verifyRemoteList(buffer, skipSegments(buffer, at), length, Flags.REMOTE_READ, 1);
        if (ranges < 0)
        {
            enqueueAck(FrameDescriptor.OPCODE_READ_RESP, srcKey, ep.index, cookie, frameFlags, 0, -ranges, 0, 0, 0);
            return true;
        }
        if (null != ep.remoteReadCounter)
        {
            ep.remoteReadCounter.add(1);
        }
        final int i = (pullHead + pullCount) % PULL_CAPACITY;
        for (int k = 0; k < ranges; k++)
        {
            pullSrcAddress[i * MAX_IOV + k] = rangeAddress[k];
            pullSrcLength[i * MAX_IOV + k] = rangeLength[k];
        }
        pullSrcCount[i] = ranges;
        pullDstCount[i] = readSegments(buffer, at, pullDstAddress, pullDstLength, i * MAX_IOV);
        pushPull(i, srcKey, ep.index, 0, cookie,
            FrameDescriptor.FLAG_READ_DATA | (frameFlags & FrameDescriptor.FLAG_WANT_COMPLETION), length);
        return true;
    }

    private static void copyOut(final EndpointState ep, final long from, final MatchResult r)
    {
        final long length = r.length();
        if (length <= 0)
        {
            return;
        }
        final long address = r.bufferAddress();
        if (address >= 0)
        {
            UnsafeApi.copyMemory(from, address + r.offset(), length);
            return;
        }
        final int entry = (int) (address & ~EndpointState.IOV_HANDLE);
        scatter(from, length, ep.rxIovAddress, ep.rxIovLength, entry * MAX_IOV, ep.rxIovCount[entry]);
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
        // The payload is in place (copyOut ran): the buffer may go.
        unpinReceive(ep, r.receiveHandle(), (r.flags() & MatchFlags.MULTI_RECV) != 0);
        final boolean silent = silent(ep, r);
        ep.engine.multiRecvSegmentComplete(r.receiveHandle());
        final CompletionRing cq = ep.rxCq;
        final long flags = (r.flags() & (Flags.MSG | Flags.TAGGED | Flags.RECV | Flags.MULTI_RECV)) |
            (hasRemoteData(ep, r) ? Flags.REMOTE_CQ_DATA : 0);
        final long source = source(r);
        final long buf = ep.bufferOf(r.bufferAddress()) + r.offset();
        // The payload is in place: a receive with several buffers gives its segments back.
        ep.releaseRxIov(r.bufferAddress());
        if (r.overflow() > 0)
        {
            if (null != cq)
            {
                cq.writeError(r.context(), flags, r.length(), buf, r.data(), r.tag(),
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
            cq.write(r.context(), flags, r.length(), buf, r.data(), r.tag(), source);
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
