package io.jfabric.agent;

import io.jfabric.Errno;
import io.jfabric.matching.MatchResult;
import io.jfabric.matching.MatchStatus;
import io.jfabric.ring.CommandQueue;
import io.jfabric.ring.CompletionRing;
import io.jfabric.spi.AtomicCapabilities;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.OperationBackend;
import io.jfabric.spi.TransportEventHandler;
import io.jfabric.stat.DomainCounters;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ControlledMessageHandler;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

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
    static final int BATCH = 64;
    /** A receiver reports consumed messages to a sender at least this often (see {@code CreditFlow.creditBack}). */
    private static final int CREDIT_REPORT_MESSAGES = 256;
    /** ... and at least every this many eager payload bytes. */
    private static final long CREDIT_REPORT_BYTES = 1 << 20;
    private static final int CLOSE_FLUSH_ATTEMPTS = 10_000;
    /** Operations an operation-level back-end may hold at once (beyond, the send ring waits). */
    private static final int OPERATIONS = 4096;
    /** Status of the answer to a request for a closed endpoint of a live domain (fi_errno ECONNREFUSED). */
    static final long CLOSED_ENDPOINT_STATUS = Errno.ECONNREFUSED.value();
    private static final int CHUNK = 256 * 1024;
    static final int SEGMENT_LIST_MAX =
        FrameDescriptor.LIST_COUNT_LENGTH + MAX_IOV * FrameDescriptor.SEGMENT_LENGTH;
    static final int REMOTE_LIST_MAX =
        FrameDescriptor.LIST_COUNT_LENGTH + MAX_IOV * FrameDescriptor.REMOTE_ENTRY_LENGTH;
    static final long ADDR_NOTAVAIL = -1L;
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
    /** The arriving frame being handled (wrapped by the {@link FrameAdapter} and the receiver). */
    private final FrameFlyweight in = new FrameFlyweight();
    private final AtomicLongArray replies = new AtomicLongArray(REPLY_LENGTH);
    /** Requests sent that wait for an answer: failed here when their peer is reported down. */
    private final AwaitedAnswers awaited = new AwaitedAnswers(1024);
    // The parts, each single-threaded on this duty cycle (see runtime/ARCHITECTURE.md).
    private final FrameOutbox outbox;
    private final AnswerQueue answers;
    private final RemoteRanges remoteRanges;
    private final TransmitCompletion completion;
    private final AtomicTarget atomicTarget;
    private final RmaTarget rmaTarget;
    private final Rendezvous rendezvous;
    private final MessageReceiver receiver;
    private final CreditFlow flow;
    private final MessageInitiator initiator;
    private final CommandAdapter commands;
    private final FrameAdapter frames;
    private final OwedRequests owed;
    private final ConnectionFrames connections;
    /** The operation-level back-end's adapter, or null for a frame transport (chosen once, here). */
    private final OperationAdapter operations;
    /** Reads the send ring: the initiator's handler (frame transport) or the operation adapter's. */
    private final ControlledMessageHandler sendHandler;
    /** Triggered operations and deferred work: reads the send ring in front of {@link #sendHandler}. */
    private final TriggerTable triggers;
    /** Counters bound to memory regions ({@code fi_mr_bind}). */
    private final RegionCounters regionCounters = new RegionCounters();
    /** One past the highest endpoint index ever published (control path writes, agent reads; only grows). */
    private volatile int endpointLimit;

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
        final MemoryRegistry registry = new MemoryRegistry(mrMode, Math.max(1, mrIovLimit));
        final int eagerThreshold = transport.eagerThreshold();
        final int chunk = Math.max(1, Math.min(CHUNK, transport.maxFrameLength() - FrameDescriptor.HEADER_LENGTH));
        final int writeFrameLimit = Math.max(0, Math.min(chunk,
            transport.maxFrameLength() - FrameDescriptor.RMA_HEADER_LENGTH - REMOTE_LIST_MAX));
        final int atomicMaxBytes = atomics.maxBytes();
        this.roleName = roleName;
        this.transport = transport;
        final int credits = FlowControl.credits();
        // Report after half a grant, and at least every CREDIT_REPORT_MESSAGES messages / CREDIT_REPORT_BYTES bytes:
        // a frequent, cheap report keeps the path warm (a first report only after 32768 messages deoptimised the
        // compiled duty cycle mid-run) and the sender far from its limit.
        final int creditReportMessages = Math.max(1, Math.min(credits / 2, CREDIT_REPORT_MESSAGES));
        final long creditBytes = FlowControl.creditBytes(eagerThreshold);
        final long creditReportBytes = Math.max(1, Math.min(creditBytes / 2, CREDIT_REPORT_BYTES));
        this.controlRing = new CommandQueue(ringCapacity);
        this.recvRing = new CommandQueue(ringCapacity);
        this.sendRing = new CommandQueue(ringCapacity);

        outbox = new FrameOutbox(transport, awaited);
        answers = new AnswerQueue(transport, outbox,
            Math.max(2 * SEGMENT_LIST_MAX, atomicMaxBytes + SEGMENT_LIST_MAX));
        remoteRanges = new RemoteRanges(registry);
        completion = new TransmitCompletion(in, remoteRanges);
        atomicTarget = new AtomicTarget(in, registry, new AtomicExecutor(atomics), atomicMaxBytes, answers,
            remoteRanges);
        rmaTarget = new RmaTarget(in, transport, registry, chunk);
        final ReceiveCompletions receiveCompletions = new ReceiveCompletions(transport);
        rendezvous = new Rendezvous(transport, in, chunk, receiveCompletions);
        receiver = new MessageReceiver(endpoints, avReverse, result, in, receiveCompletions);
        flow = new CreditFlow(transport, endpoints, in, credits, creditBytes, creditReportMessages, creditReportBytes);
        initiator = new MessageInitiator(transport, endpoints, eagerThreshold, chunk, writeFrameLimit,
            Math.max(2 * atomicMaxBytes + SEGMENT_LIST_MAX, Math.min(maxMessageSize, eagerThreshold)));
        commands = new CommandAdapter(recvRing, endpoints, avReverse, result, registry, replies);
        frames = new FrameAdapter(transport, endpoints, in, awaited);
        owed = new OwedRequests(endpoints, FlowControl.peerOwed());
        connections = new ConnectionFrames(transport);
        final OperationBackend backend = transport.operationBackend();
        operations = null == backend ? null : new OperationAdapter(backend, endpoints, avReverse, result, registry,
            new AtomicExecutor(atomics), OPERATIONS);
        sendHandler = null == operations ? initiator.sendHandler : operations.sendHandler;
        triggers = new TriggerTable(endpoints, sendHandler);

        // Wiring: the parts call each other directly (one thread); set once, before the first duty cycle.
        owed.counters = counters;
        owed.frames = frames;
        answers.owed = owed;
        rendezvous.owed = owed;
        receiver.owed = owed;
        outbox.counters = counters;
        flow.counters = counters;
        rmaTarget.answers = answers;
        rmaTarget.remoteRanges = remoteRanges;
        rmaTarget.rendezvous = rendezvous;
        rmaTarget.atomicTarget = atomicTarget;
        rmaTarget.completion = completion;
        rendezvous.outbox = outbox;
        rendezvous.answers = answers;
        rendezvous.remoteRanges = remoteRanges;
        rendezvous.completion = completion;
        rendezvous.rmaTarget = rmaTarget;
        rendezvous.receiver = receiver;
        rendezvous.commands = commands;
        rendezvous.flow = flow;
        receiver.answers = answers;
        receiver.flow = flow;
        receiver.rendezvous = rendezvous;
        receiver.rmaTarget = rmaTarget;
        receiver.completion = completion;
        receiver.commands = commands;
        flow.outbox = outbox;
        flow.initiator = initiator;
        flow.receiver = receiver;
        initiator.outbox = outbox;
        initiator.flow = flow;
        commands.answers = answers;
        commands.rmaTarget = rmaTarget;
        commands.receiver = receiver;
        commands.rendezvous = rendezvous;
        commands.triggers = triggers;
        commands.regionCounters = regionCounters;
        rmaTarget.regionCounters = regionCounters;
        atomicTarget.regionCounters = regionCounters;
        rendezvous.regionCounters = regionCounters;
        frames.receiver = receiver;
        frames.completion = completion;
        frames.rendezvous = rendezvous;
        frames.rmaTarget = rmaTarget;
        frames.flow = flow;
        frames.connections = connections;
        if (null != operations)
        {
            operations.receiver = receiver;
            operations.flow = flow;
            operations.arrivals = new OperationArrivals(backend, endpoints, avReverse, result, receiveCompletions,
                OPERATIONS);
            operations.arrivals.commands = commands;
            operations.arrivals.flow = flow;
            receiver.arrivals = operations.arrivals;
            commands.arrivals = operations.arrivals;
            commands.backend = backend;
            backend.open(operations);
        }
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
     * Hand the counter of a region bind to the agent (control path; the domain sends the {@code OP_MR_BIND} command
     * right after, one at a time).
     *
     * @param cell the counter.
     */
    public void stageRegionCounter(final CounterCell cell)
    {
        regionCounters.staged = cell;
    }

    /**
     * An application progress call that runs no duty cycle ({@code FI_PROGRESS_AUTO}, or another thread holds the
     * manual guard): counted for an operation-level back-end that asked ({@link ProgressCalls}), else nothing.
     *
     * @return 0: no work done here.
     */
    public int progressCall()
    {
        if (null != operations)
        {
            operations.progressCall();
        }
        return 0;
    }

    /**
     * @return whether the domain runs an operation-level back-end ({@code DomainTransport.operationBackend()}).
     */
    public boolean operationLevel()
    {
        return null != operations;
    }

    /**
     * @return the domain's triggered operations and deferred work (the registry of trigger contexts).
     */
    public TriggerTable triggers()
    {
        return triggers;
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
    public synchronized void endpoint(final int index, final EndpointState state)
    {
        endpoints.set(index, state);
        if (index >= endpointLimit)
        {
            endpointLimit = index + 1;
        }
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
        try
        {
            return dutyCycle();
        }
        catch (final InternalError fault)
        {
            // HotSpot reports a fault in mapped memory (a file cut by another process) as an asynchronous
            // InternalError, possibly after the access and outside the transport's own guards: an AgentRunner would
            // rethrow it and the domain would stop progressing. Count it and let the transport find what was cut.
            counters.onError(fault);
            transport.onFault(fault);
            return 1;
        }
    }

    private int dutyCycle()
    {
        final long cycleStart = counters.cycleStart();
        int work = counters.commands(controlRing.controlledRead(commands.controlHandler, BATCH));
        work += counters.commands(recvRing.controlledRead(commands.recvHandler, BATCH));
        work += answers.flushAcks();
        work += flow.flushCredits();
        work += rendezvous.flushPulls();
        work += flow.flushHeld();
        work += transport.pollEvents(frames.eventHandler, BATCH);
        work += frames.failAwaited();
        work += counters.framesIn(transport.poll(frames.frameHandler, BATCH));
        // Answer what these frames completed in this same cycle (delivery-complete ACKs, RMA_ACKs of writedata):
        // a target that stops progressing once it has read its completion must not leave its senders waiting.
        work += answers.flushAcks();
        work += flow.flushCredits();
        work += flow.flushDeferred();
        work += counters.commands(sendRing.controlledRead(triggers.gate, BATCH));
        work += triggers.fire();
        work += connections.doWork();
        if (null != operations)
        {
            work += operations.doWork();
        }
        work += transport.flush();
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
        // Only up to the highest index ever published: a scan of all 256 slots cost ~4 % of a ping-pong's CPU.
        final int limit = endpointLimit;
        for (int i = 0; i < limit; i++)
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
                commands.unpinReceive(ep, r.receiveHandle(), true);
                final long buf = ep.bufferOf(r.bufferAddress());
                ep.releaseRxIov(r.bufferAddress());
                if (null != ep.recvCounter)
                {
                    ep.recvCounter.addError(1);
                }
                if (null != cq)
                {
                    cq.writeError(context, r.flags(), 0, buf, 0, r.tag(), 0, errno, 0, ADDR_NOTAVAIL);
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
        for (int i = 0; i < CLOSE_FLUSH_ATTEMPTS && answers.size() > 0; i++)
        {
            if (0 == answers.flushAcks())
            {
                Thread.yield();
            }
        }
        transport.flush();
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String roleName()
    {
        return roleName;
    }

    /**
     * @return messages refused because their sender was over its credit or the store was full (agent thread; for
     * tests and diagnostics).
     */
    public long refused()
    {
        return receiver.refused();
    }

    /**
     * @return requests dropped because their peer endpoint already had {@link FlowControl#peerOwed()} requests
     * awaiting answers at one of this domain's endpoints (agent thread; for tests and diagnostics).
     */
    public long owedDropped()
    {
        return owed.dropped();
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
        return commands.tsearchNow(endpointIndex, source, tag, ignore, flags, context, sink);
    }


    /**
     * @return RDATA frames (chunks of streamed transfers) this domain has taken (agent thread; read it after a
     * completion the agent published, for tests and diagnostics).
     */
    public long dataFrames()
    {
        return frames.dataFrames();
    }

    /**
     * @return inbound frames dropped as malformed or as answers to nothing awaited (agent thread; as above).
     */
    public long droppedFrames()
    {
        return frames.droppedFrames();
    }

    /**
     * @return errors the transport reported ({@link TransportEventHandler#onTransportError}; agent thread).
     */
    public long transportErrors()
    {
        return frames.transportErrors();
    }

    /**
     * @return connection management's frames (CONNREQ, accept, reject, shutdown) of this domain.
     */
    public ConnectionFrames connections()
    {
        return connections;
    }

    /**
     * Pass each error the transport reports ({@link TransportEventHandler#onTransportError}, for example a damaged
     * ring) on to {@code listener}, on the agent thread, after counting it; its {@code onPeerDown} is never called.
     * Control path, any thread.
     *
     * @param listener the listener, or null for none.
     */
    public void transportErrorListener(final TransportEventHandler listener)
    {
        frames.errorListener(listener);
    }
}
