package io.jfabric.agent;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.matching.MatchResult;
import io.jfabric.matching.MatchStatus;
import io.jfabric.ring.CompletionRing;
import io.jfabric.spi.OperationBackend;
import io.jfabric.spi.OperationCommand;
import io.jfabric.spi.OperationContext;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.ControlledMessageHandler;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Part of the domain agent, wired only for a domain whose transport has an {@link OperationBackend}: decodes the
 * send ring into {@link OperationBackend#submit} calls (it is the {@link OperationCommand} view the back-end reads),
 * keeps the table of operations the back-end holds, and is the {@link OperationContext} through which the back-end
 * completes them, delivers arrivals into the runtime's matching, checks remote accesses and executes atomics.
 * <p>
 * A frame-transport domain never makes one: its agent reads the send ring with the {@link MessageInitiator}'s
 * handler, chosen once when the agent is made.
 * <p>
 * Threading: single-threaded, owned by its domain agent's duty cycle ({@link DomainAgent}); package-private.
 */
final class OperationAdapter implements OperationCommand, OperationContext
{
    private static final int ECONNREFUSED = Errno.ECONNREFUSED.negated();
    private static final int EAGAIN = Errno.EAGAIN.negated();
    private static final int ENOENT = Errno.ENOENT.negated();
    private static final int EINVAL = Errno.EINVAL.negated();
    /** Internal command flags that are not the application's. */
    private static final long INTERNAL_FLAGS = CommandDescriptor.FLAG_IOV | CommandDescriptor.FLAG_RMA_IOV;

    private final OperationBackend backend;
    /** The application's progress calls, counted when the back-end asks ({@link ProgressCalls}); else null. */
    private final ProgressCalls progressCalls;
    private final AtomicReferenceArray<EndpointState> endpoints;
    private final Long2LongHashMap[] avReverse;
    private final MatchResult result;
    private final MemoryRegistry registry;
    private final AtomicExecutor executor;
    private final CommandFlyweight command = new CommandFlyweight();
    // The operations the back-end holds: a fixed table with a free stack (no allocation per operation).
    private final EndpointState[] opEndpoint;
    private final long[] opCookie;
    private final long[] opKind;
    private final boolean[] opWant;
    private final int[] freeStack;
    private int freeCount;
    // The command being submitted.
    private int opcode;
    private int operation;
    private DirectBuffer record;
    private int recordOffset;
    /** Decodes send-ring commands into the back-end. */
    final ControlledMessageHandler sendHandler = this::onSendCommand;
    MessageReceiver receiver;
    CreditFlow flow;
    /** Rendezvous arrivals announced without payload ({@link #arrive}). */
    OperationArrivals arrivals;

    OperationAdapter(
        final OperationBackend backend,
        final AtomicReferenceArray<EndpointState> endpoints,
        final Long2LongHashMap[] avReverse,
        final MatchResult result,
        final MemoryRegistry registry,
        final AtomicExecutor executor,
        final int capacity)
    {
        this.backend = backend;
        this.endpoints = endpoints;
        this.avReverse = avReverse;
        this.result = result;
        this.registry = registry;
        this.executor = executor;
        this.opEndpoint = new EndpointState[capacity];
        this.opCookie = new long[capacity];
        this.opKind = new long[capacity];
        this.opWant = new boolean[capacity];
        this.freeStack = new int[capacity];
        for (int i = 0; i < capacity; i++)
        {
            freeStack[i] = capacity - 1 - i;
        }
        this.freeCount = capacity;
        this.progressCalls = backend.countsApplicationProgress() ? new ProgressCalls() : null;
    }

    /**
     * An application progress call ran no duty cycle: counted when the back-end asked.
     */
    void progressCall()
    {
        if (null != progressCalls)
        {
            progressCalls.called();
        }
    }

    @Override
    public long applicationProgress()
    {
        return null == progressCalls ? 0 : progressCalls.count();
    }

    /**
     * @return operations the back-end holds (accepted, not yet completed or failed).
     */
    int pending()
    {
        return opEndpoint.length - freeCount;
    }

    int doWork()
    {
        return backend.doWork();
    }

    private ControlledMessageHandler.Action onSendCommand(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final CommandFlyweight snd = command.wrap(buffer, index);
        final EndpointState ep = endpoints.get(snd.endpoint());
        if (null == ep)
        {
            return ControlledMessageHandler.Action.CONTINUE;
        }
        final long flags = snd.flags();
        final CompletionRing cq = ep.txCq;
        final boolean wantCompletion = null != cq && (flags & Flags.INJECT) == 0 &&
            (!ep.txSelective || (flags & Flags.COMPLETION) != 0);
        if (wantCompletion && (!cq.hasSpace() || !cq.hasErrorSpace()))
        {
            return ControlledMessageHandler.Action.ABORT;
        }
        // FI_FENCE: wait until every earlier operation of this endpoint is complete.
        if ((flags & Flags.FENCE) != 0 && ep.outstanding > 0)
        {
            // What the back-end holds back for this endpoint (FI_MORE) must go, or the fence waits for ever.
            backend.flush(ep.index);
            return ControlledMessageHandler.Action.ABORT;
        }
        if (0 == freeCount)
        {
            return ControlledMessageHandler.Action.ABORT;
        }
        final int id = freeStack[--freeCount];
        final int pin = snd.pin();
        opEndpoint[id] = ep;
        opCookie[id] = pin >= 0 ? PinTable.cookie(pin) : PinTable.unpinnedCookie(snd.context());
        opKind[id] = kind(msgTypeId, snd);
        opWant[id] = wantCompletion;
        opcode = msgTypeId;
        operation = id;
        record = buffer;
        recordOffset = index;
        final int status = backend.submit(this);
        record = null;
        if (OperationBackend.BUSY == status)
        {
            opEndpoint[id] = null;
            freeStack[freeCount++] = id;
            return ControlledMessageHandler.Action.ABORT;
        }
        ep.outstanding++;
        if (status < 0 && BUSY == fail(id, -status))
        {
            // Room for the error was checked above when a completion was wanted; a silent operation whose error
            // finds the error queue full is failed without an entry, as the frame path does.
            release(id, ep);
        }
        return ControlledMessageHandler.Action.CONTINUE;
    }

    private static long kind(final int msgTypeId, final CommandFlyweight snd)
    {
        switch (msgTypeId)
        {
            case CommandDescriptor.OP_TSEND:
                return Flags.TAGGED | Flags.SEND;
            case CommandDescriptor.OP_WRITE:
                return Flags.RMA | Flags.WRITE;
            case CommandDescriptor.OP_READ:
                return Flags.RMA | Flags.READ;
            case CommandDescriptor.OP_ATOMIC:
                return (snd.atomicCode() >>> 16) == 0 ? Flags.ATOMIC | Flags.WRITE : Flags.ATOMIC | Flags.READ;
            default:
                return Flags.MSG | Flags.SEND;
        }
    }

    private void release(final int id, final EndpointState ep)
    {
        ep.outstanding--;
        ep.finishPinned(opCookie[id]);
        opEndpoint[id] = null;
        freeStack[freeCount++] = id;
    }

    private static CounterCell counter(final EndpointState ep, final long kind)
    {
        if ((kind & Flags.SEND) != 0)
        {
            return ep.sendCounter;
        }
        return (kind & Flags.READ) != 0 ? ep.readCounter : ep.writeCounter;
    }

    private boolean live(final int id)
    {
        return id >= 0 && id < opEndpoint.length && null != opEndpoint[id];
    }

    /**
     * An operation of an endpoint closed since it was submitted: let go of it without a completion (the endpoint's
     * close already gave its pins back), as answers for a closed endpoint are dropped on the frame level.
     */
    private boolean dropIfClosed(final int id)
    {
        final EndpointState ep = opEndpoint[id];
        if (endpoints.get(ep.index) == ep)
        {
            return false;
        }
        opEndpoint[id] = null;
        freeStack[freeCount++] = id;
        return true;
    }

    // ---- OperationContext ----------------------------------------------------------------------------------------

    @Override
    public int complete(final int id)
    {
        if (!live(id))
        {
            return ENOENT;
        }
        if (dropIfClosed(id))
        {
            return DELIVERED;
        }
        final EndpointState ep = opEndpoint[id];
        final long kind = opKind[id];
        final boolean want = opWant[id];
        final CompletionRing cq = ep.txCq;
        if (want && !cq.hasSpace())
        {
            return BUSY;
        }
        final long context = ep.finishPinned(opCookie[id]);
        ep.outstanding--;
        opEndpoint[id] = null;
        freeStack[freeCount++] = id;
        final CounterCell counter = counter(ep, kind);
        if (null != counter)
        {
            counter.add(1);
        }
        if (want)
        {
            cq.write(context, kind, 0, 0, 0, 0, DomainAgent.ADDR_NOTAVAIL);
        }
        return DELIVERED;
    }

    @Override
    public int fail(final int id, final int errno)
    {
        return fail(id, errno, 0);
    }

    @Override
    public int fail(final int id, final int errno, final int provErrno)
    {
        if (!live(id))
        {
            return ENOENT;
        }
        if (dropIfClosed(id))
        {
            return DELIVERED;
        }
        final EndpointState ep = opEndpoint[id];
        final long kind = opKind[id];
        final CompletionRing cq = ep.txCq;
        if (null != cq && !cq.hasErrorSpace())
        {
            return BUSY;
        }
        final long context = ep.finishPinned(opCookie[id]);
        ep.outstanding--;
        opEndpoint[id] = null;
        freeStack[freeCount++] = id;
        final CounterCell counter = counter(ep, kind);
        if (null != counter)
        {
            counter.addError(1);
        }
        if (null != cq)
        {
            // Errors are always reported, also for operations posted without FI_COMPLETION (fi_cq(3)).
            cq.writeError(context, kind, 0, 0, 0, 0, 0, Math.abs(errno), provErrno, DomainAgent.ADDR_NOTAVAIL);
        }
        return DELIVERED;
    }

    @Override
    public int deliver(
        final int endpoint,
        final long sourceKey,
        final boolean tagged,
        final long tag,
        final long data,
        final boolean hasData,
        final long address,
        final long length)
    {
        final EndpointState arrival = EndpointState.at(endpoints, endpoint);
        if (null == arrival)
        {
            return ECONNREFUSED;
        }
        // A shared receive context (fi_srx_context) bound to the endpoint matches and completes the message.
        final EndpointState ep = arrival.rx;
        final CompletionRing cq = ep.rxCq;
        if (null != cq && (!cq.hasSpace() || !cq.hasErrorSpace()))
        {
            return BUSY;
        }
        final int slot = ep.allocateSlot();
        if (slot < 0)
        {
            return BUSY;
        }
        ep.slotArrival[slot] = arrival.index;
        // No account: an operation-level back-end runs its own flow control, so freeing the slot reports nothing.
        ep.remoteData[slot] = hasData;
        ep.slotAccount[slot] = null;
        ep.slotCharge[slot] = 0;
        final boolean mayQueue = ep.store.canAllocate(length);
        final MatchResult r = result;
        final int status =
            MessageReceiver.match(avReverse, arrival, ep, sourceKey, tagged, tag, length, data, slot, mayQueue, r);
        switch (status)
        {
            case MatchStatus.MATCHED:
                flow.freeSlot(ep, slot);
                MessageReceiver.copyOut(ep, address, r);
                receiver.complete(ep, r);
                return DELIVERED;
            case MatchStatus.QUEUED:
                UnsafeApi.copyMemory(address, ep.storePayload(slot, length), length);
                return DELIVERED;
            case MatchStatus.EAGAIN:
                flow.freeSlot(ep, slot);
                return EAGAIN;
            default:
                flow.freeSlot(ep, slot);
                return DELIVERED;
        }
    }

    @Override
    public int arrive(
        final int endpoint,
        final long sourceKey,
        final boolean tagged,
        final long tag,
        final long data,
        final boolean hasData,
        final long length,
        final long arrival,
        final boolean store)
    {
        return arrivals.arrive(endpoint, sourceKey, tagged, tag, data, hasData, length, arrival, store);
    }

    @Override
    public int arrivalDone(final int handle, final int errno)
    {
        return arrivals.done(handle, errno);
    }

    @Override
    public boolean endpointOpen(final int endpoint)
    {
        return endpoint >= 0 && endpoint < DomainAgent.MAX_ENDPOINTS && null != endpoints.get(endpoint);
    }

    @Override
    public long verifyRemote(final long key, final long address, final long length, final long access)
    {
        return registry.verify(key, address, length, access);
    }

    @Override
    public int reserveRemoteData(final int endpoint)
    {
        final EndpointState ep = EndpointState.at(endpoints, endpoint);
        if (null == ep)
        {
            return ECONNREFUSED;
        }
        return null == ep.rxCq || CreditFlow.reserveRemoteData(ep.rxCq) ? DELIVERED : EAGAIN;
    }

    @Override
    public void releaseRemoteData(final int endpoint)
    {
        final EndpointState ep = EndpointState.at(endpoints, endpoint);
        if (null != ep && null != ep.rxCq)
        {
            ep.rxCq.release(1);
        }
    }

    @Override
    public int remoteWriteDone(final int endpoint, final long length, final boolean hasData, final long data)
    {
        final EndpointState ep = EndpointState.at(endpoints, endpoint);
        if (null == ep)
        {
            return ECONNREFUSED;
        }
        final CompletionRing cq = ep.rxCq;
        if (null != ep.remoteWriteCounter)
        {
            ep.remoteWriteCounter.add(1);
        }
        if (hasData && null != cq)
        {
            // Into the room reserveRemoteData took.
            cq.write(0, Flags.REMOTE_WRITE | Flags.RMA | Flags.REMOTE_CQ_DATA, length, 0, data, 0,
                DomainAgent.ADDR_NOTAVAIL);
        }
        return DELIVERED;
    }

    @Override
    public int remoteDataDone(final int endpoint, final long length, final long data)
    {
        final EndpointState ep = EndpointState.at(endpoints, endpoint);
        if (null == ep)
        {
            return ECONNREFUSED;
        }
        if (null != ep.rxCq)
        {
            ep.rxCq.write(0, Flags.REMOTE_WRITE | Flags.RMA | Flags.REMOTE_CQ_DATA, length, 0, data, 0,
                DomainAgent.ADDR_NOTAVAIL);
        }
        return DELIVERED;
    }

    @Override
    public int remoteReadDone(final int endpoint)
    {
        final EndpointState ep = EndpointState.at(endpoints, endpoint);
        if (null == ep)
        {
            return ECONNREFUSED;
        }
        if (null != ep.remoteReadCounter)
        {
            ep.remoteReadCounter.add(1);
        }
        return DELIVERED;
    }

    @Override
    public int atomic(
        final int kind,
        final int op,
        final int datatype,
        final long target,
        final long operand,
        final long compare,
        final long result,
        final int count)
    {
        final AtomicOp atomicOp = AtomicOp.fromValue(op);
        final AtomicDatatype type = AtomicDatatype.fromValue(datatype);
        if (null == atomicOp || null == type)
        {
            return EINVAL;
        }
        switch (kind)
        {
            case ATOMIC_BASE:
                return executor.atomic(atomicOp, type, target, operand, count);
            case ATOMIC_FETCH:
                return executor.fetchAtomic(atomicOp, type, target, operand, result, count);
            case ATOMIC_COMPARE:
                return executor.compareAtomic(atomicOp, type, target, operand, compare, result, count);
            default:
                return EINVAL;
        }
    }

    // ---- OperationCommand: a view of the command being submitted -------------------------------------------------

    @Override
    public int opcode()
    {
        return opcode;
    }

    @Override
    public int operation()
    {
        return operation;
    }

    @Override
    public int endpoint()
    {
        return command.endpoint();
    }

    @Override
    public long peer()
    {
        return command.peer();
    }

    @Override
    public long flags()
    {
        return command.flags() & ~INTERNAL_FLAGS;
    }

    @Override
    public long context()
    {
        return command.context();
    }

    @Override
    public long tag()
    {
        return CommandDescriptor.OP_TSEND == opcode ? command.tag() : 0;
    }

    @Override
    public long data()
    {
        return CommandDescriptor.OP_ATOMIC == opcode ? 0 : command.data();
    }

    @Override
    public long length()
    {
        return command.length();
    }

    private boolean inline()
    {
        return (command.flags() & CommandDescriptor.FLAG_INLINE) != 0;
    }

    private boolean iov()
    {
        return (command.flags() & CommandDescriptor.FLAG_IOV) != 0;
    }

    /**
     * The record offset of an atomic's segment list for {@code list}, or 0 for none (iov form only).
     */
    private int atomicList(final int list)
    {
        final long at = LOCAL == list ? command.address() :
            (COMPARE == list ? command.compareAddress() : command.resultAddress());
        return 0 == at ? 0 : recordOffset + (int) at;
    }

    private boolean hasList(final int list)
    {
        if (LOCAL == list)
        {
            return true;
        }
        if (CommandDescriptor.OP_ATOMIC != opcode)
        {
            return false;
        }
        final int kind = atomicKind();
        return COMPARE == list ? ATOMIC_COMPARE == kind : ATOMIC_BASE != kind;
    }

    @Override
    public int segmentCount(final int list)
    {
        if (!hasList(list))
        {
            return 0;
        }
        if (inline())
        {
            return LOCAL == list ? 1 : 0;
        }
        if (!iov())
        {
            return 1;
        }
        if (CommandDescriptor.OP_ATOMIC == opcode)
        {
            final int at = atomicList(list);
            return 0 == at ? 0 : FrameLists.count(record, at);
        }
        return command.count();
    }

    @Override
    public long segmentAddress(final int list, final int index)
    {
        final boolean atomic = CommandDescriptor.OP_ATOMIC == opcode;
        if (inline())
        {
            return record.addressOffset() + (atomic ? command.atomicBodyOffset() : command.bodyOffset());
        }
        if (iov())
        {
            return atomic ? FrameLists.segmentAddress(record, atomicList(list), index) : command.iovAddress(index);
        }
        if (atomic)
        {
            return LOCAL == list ? command.address() :
                (COMPARE == list ? command.compareAddress() : command.resultAddress());
        }
        return command.address();
    }

    @Override
    public long segmentLength(final int list, final int index)
    {
        if (inline())
        {
            return CommandDescriptor.OP_ATOMIC == opcode ? command.length() : command.count();
        }
        if (iov())
        {
            return CommandDescriptor.OP_ATOMIC == opcode ?
                FrameLists.segmentLength(record, atomicList(list), index) : command.iovLength(index);
        }
        return command.length();
    }

    private boolean remoteIov()
    {
        return (command.flags() & CommandDescriptor.FLAG_RMA_IOV) != 0;
    }

    private boolean rma()
    {
        return CommandDescriptor.OP_WRITE == opcode || CommandDescriptor.OP_READ == opcode ||
            CommandDescriptor.OP_ATOMIC == opcode;
    }

    @Override
    public int remoteCount()
    {
        if (!rma())
        {
            return 0;
        }
        return remoteIov() ? FrameLists.count(record, recordOffset + (int) command.remoteListOffset()) : 1;
    }

    @Override
    public long remoteAddress(final int index)
    {
        return remoteIov() ?
            FrameLists.remoteAddress(record, recordOffset + (int) command.remoteListOffset(), index) :
            command.remoteAddress();
    }

    @Override
    public long remoteLength(final int index)
    {
        return remoteIov() ?
            FrameLists.remoteLength(record, recordOffset + (int) command.remoteListOffset(), index) :
            command.length();
    }

    @Override
    public long remoteKey(final int index)
    {
        return remoteIov() ?
            FrameLists.remoteKey(record, recordOffset + (int) command.remoteListOffset(), index) :
            command.rmaKey();
    }

    @Override
    public int atomicKind()
    {
        return (int) (command.atomicCode() >>> 16) & 0xFF;
    }

    @Override
    public int atomicOp()
    {
        return (int) (command.atomicCode() >>> 8) & 0xFF;
    }

    @Override
    public int atomicDatatype()
    {
        return (int) command.atomicCode() & 0xFF;
    }
}
