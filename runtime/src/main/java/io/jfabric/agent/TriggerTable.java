package io.jfabric.agent;

import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.ring.CompletionRing;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Triggered operations ({@code FI_TRIGGER}, fi_trigger(3)) and deferred work ({@code FI_QUEUE_WORK}) of one domain:
 * operations held until a counter reaches a threshold, then issued as if posted then.
 * <p>
 * Two parts. <b>Trigger contexts</b> (the {@code fi_triggered_context} of libfabric): a pre-sized registry of
 * (counter, threshold) pairs, opened and closed on the control path by application threads (a CAS per slot); a
 * context's handle ({@link #handle}) is the value an application passes as the operation context of a post with
 * {@code FI_TRIGGER}, and the context its completion reports. Deferred work items take a context too, with the work
 * attached (a counter to set or add to, or a posted operation, and a completion counter). <b>Held operations</b>
 * (agent thread only): the agent reads the send ring through {@link #gate}; a command whose flags carry
 * {@code FI_TRIGGER} is copied into a pre-sized store instead of being issued and waits there, ordered by
 * threshold and then by arrival; once per duty cycle {@link #fire()} issues, in that order, every held operation
 * whose counter has reached its threshold, by handing the stored record to the send handler (the same code a
 * command from the ring runs). Everything the post took (CQ reservation, pins) stays taken while it is held.
 * <p>
 * Threading: {@link #openContext}, {@link #closeContext}, {@link #reserve} and {@link #unreserve} from any thread
 * (control path and the posting thread); the rest on the agent thread. The registry's fields are written before
 * the command that names them is committed to a ring (the ring's release store publishes them). Allocation-free
 * after construction.
 */
public final class TriggerTable
{
    /** Trigger contexts per domain. */
    public static final int CONTEXTS = 4096;
    /** Operations held at once per domain (a post beyond answers {@code -EAGAIN}). */
    public static final int HELD = 128;
    /** Largest command record a held operation may have (header, inject payload of 4 KiB, lists). */
    static final int RECORD_BYTES = 5120;
    /**
     * Bits of a handle that mark it as a trigger context: the tag in the high 16 bits, the context's generation
     * (how often its slot was opened) in the next 16, the index in the low 32.
     */
    public static final long HANDLE_TAG = 0x5472_0000_0000_0000L;
    private static final long HANDLE_MASK = 0xFFFF_0000_0000_0000L;
    /** Work kind: none (an application's triggered context). */
    public static final int WORK_NONE = 0;
    /** Work kind: a posted data operation ({@code FI_OP_MSG}, tagged, RMA, atomic). */
    public static final int WORK_OP = 1;
    /** Work kind: {@code FI_OP_CNTR_SET}. */
    public static final int WORK_CNTR_SET = 2;
    /** Work kind: {@code FI_OP_CNTR_ADD}. */
    public static final int WORK_CNTR_ADD = 3;
    /** {@link #cancel}'s answer when nothing held has the context. */
    public static final int NOT_HELD = 1;
    /** The endpoint argument of {@link #cancel} that matches any endpoint. */
    public static final int ANY_ENDPOINT = -1;
    /** The endpoint argument of {@link #cancel} that cancels every held deferred work item. */
    public static final int ALL_WORK = -2;

    /** Duty cycles in a row that {@link #fire()} waits for posts still in the send ring. */
    private static final int MAX_DEFERRALS = 16;
    private static final int FREE = 0;
    private static final int OPEN = 1;

    // ------------------------------------------------------------------ registry (control path, read by the agent)
    private final AtomicIntegerArray state = new AtomicIntegerArray(CONTEXTS);
    private final AtomicIntegerArray pending = new AtomicIntegerArray(CONTEXTS);
    private final CounterCell[] counter = new CounterCell[CONTEXTS];
    private final long[] threshold = new long[CONTEXTS];
    private final long[] report = new long[CONTEXTS];
    private final int[] work = new int[CONTEXTS];
    private final CounterCell[] target = new CounterCell[CONTEXTS];
    private final long[] value = new long[CONTEXTS];
    private final CounterCell[] completion = new CounterCell[CONTEXTS];
    private final int[] generation = new int[CONTEXTS];
    private final AtomicInteger held = new AtomicInteger();

    // ------------------------------------------------------------------------------------- held (agent thread)
    private final AtomicReferenceArray<EndpointState> endpoints;
    private final ControlledMessageHandler sendHandler;
    private final CommandFlyweight cmd = new CommandFlyweight();
    private final UnsafeBuffer store = new UnsafeBuffer(new byte[HELD * RECORD_BYTES]);
    private final int[] slotType = new int[HELD];
    private final int[] slotLength = new int[HELD];
    private final int[] slotContext = new int[HELD];
    private final long[] slotSequence = new long[HELD];
    private final int[] freeSlots = new int[HELD];
    private final int[] order = new int[HELD];
    private int freeCount;
    private int heldCount;
    private int deferrals;
    private long sequence;

    /** Reads the send ring: holds triggered commands, hands every other one to the send handler. */
    final ControlledMessageHandler gate = this::onSendCommand;

    TriggerTable(final AtomicReferenceArray<EndpointState> endpoints, final ControlledMessageHandler sendHandler)
    {
        this.endpoints = endpoints;
        this.sendHandler = sendHandler;
        for (int i = 0; i < HELD; i++)
        {
            freeSlots[i] = HELD - 1 - i;
        }
        freeCount = HELD;
    }

    // ------------------------------------------------------------------------------------------------ registry

    /**
     * The handle of a context index: what the application passes as its operation context.
     *
     * @param index the context's index.
     * @return the handle.
     */
    public long handle(final int index)
    {
        return HANDLE_TAG | ((long) (generation[index] & 0xFFFF) << 32) | index;
    }

    /**
     * The open context a handle names.
     *
     * @param handle an operation context.
     * @return its index, or -1 when it names no open context.
     */
    public int indexOf(final long handle)
    {
        if ((handle & HANDLE_MASK) != HANDLE_TAG)
        {
            return -1;
        }
        final long index = handle & 0xFFFF_FFFFL;
        return index < CONTEXTS && OPEN == state.get((int) index) &&
            (generation[(int) index] & 0xFFFF) == ((handle >>> 32) & 0xFFFF) ? (int) index : -1;
    }

    /**
     * Open a context (control path, any thread).
     *
     * @param cell         the triggering counter.
     * @param threshold    the threshold.
     * @param workKind     {@link #WORK_NONE}, {@link #WORK_OP}, {@link #WORK_CNTR_SET} or {@link #WORK_CNTR_ADD}.
     * @param report       the context a held operation's completion reports ({@link #WORK_OP}; else the handle).
     * @param target       the counter a counter work item changes, else null.
     * @param value        its value.
     * @param completion   the counter incremented when a counter work item is done, or null.
     * @return the index, or -1 when every context is taken.
     */
    public int openContext(
        final CounterCell cell,
        final long threshold,
        final int workKind,
        final long report,
        final CounterCell target,
        final long value,
        final CounterCell completion)
    {
        for (int i = 0; i < CONTEXTS; i++)
        {
            if (FREE == state.get(i) && 0 == pending.get(i) && state.compareAndSet(i, FREE, -1))
            {
                set(i, cell, threshold);
                generation[i]++;
                this.work[i] = workKind;
                this.report[i] = WORK_OP == workKind ? report : handle(i);
                this.target[i] = target;
                this.value[i] = value;
                this.completion[i] = completion;
                state.set(i, OPEN);
                return i;
            }
        }
        return -1;
    }

    /**
     * Change an open context's counter and threshold (control path; the caller checked that nothing is held).
     *
     * @param index     the index.
     * @param cell      the counter.
     * @param threshold the threshold.
     */
    public void set(final int index, final CounterCell cell, final long threshold)
    {
        this.counter[index] = cell;
        this.threshold[index] = threshold;
    }

    /**
     * @param index a context's index.
     * @return operations posted with it that are still held (or on their way to the agent).
     */
    public int pending(final int index)
    {
        return pending.get(index);
    }

    /**
     * Whether any open context with operations still held is triggered by {@code cell} (a counter is not closed
     * under them).
     *
     * @param cell the counter.
     * @return true when some are.
     */
    public boolean triggers(final CounterCell cell)
    {
        for (int i = 0; i < CONTEXTS; i++)
        {
            if (pending.get(i) > 0 && counter[i] == cell)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Close a context (control path); later posts naming it are refused.
     *
     * @param index the index.
     */
    public void closeContext(final int index)
    {
        counter[index] = null;
        target[index] = null;
        completion[index] = null;
        state.set(index, FREE);
    }

    /**
     * Take a place in the held store for one post with the context {@code index} (posting thread).
     *
     * @param index the context's index.
     * @return true, or false when {@link #HELD} operations are held already.
     */
    public boolean reserve(final int index)
    {
        while (true)
        {
            final int n = held.get();
            if (n >= HELD)
            {
                return false;
            }
            if (held.compareAndSet(n, n + 1))
            {
                pending.incrementAndGet(index);
                return true;
            }
        }
    }

    /**
     * Give back a place {@link #reserve} took for a post that was not written.
     *
     * @param index the context's index.
     */
    public void unreserve(final int index)
    {
        pending.decrementAndGet(index);
        held.decrementAndGet();
    }

    // ------------------------------------------------------------------------------------------------ agent side

    private ControlledMessageHandler.Action onSendCommand(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        if ((cmd.wrap(buffer, index).flags() & Flags.TRIGGER) == 0)
        {
            return sendHandler.onMessage(msgTypeId, buffer, index, length);
        }
        final int context = indexOf(cmd.wrap(buffer, index).context());
        if (context < 0)
        {
            // The post checks the context and takes a place first: a command without one is refused, as a post.
            failRecord(msgTypeId, buffer, index, Errno.EINVAL.value());
            return ControlledMessageHandler.Action.CONTINUE;
        }
        if (null == endpoints.get(cmd.wrap(buffer, index).endpoint()))
        {
            // Its endpoint closed while the command was in the ring: dropped with it, as what it held already.
            unheld(context);
            return ControlledMessageHandler.Action.CONTINUE;
        }
        if (length > RECORD_BYTES || 0 == freeCount)
        {
            failRecord(msgTypeId, buffer, index, Errno.EMSGSIZE.value());
            unheld(context);
            return ControlledMessageHandler.Action.CONTINUE;
        }
        final int slot = freeSlots[--freeCount];
        final int at = slot * RECORD_BYTES;
        store.putBytes(at, buffer, index, length);
        final CommandFlyweight record = cmd.wrapForEncode(store, at);
        record.flags(record.flags() & ~Flags.TRIGGER);
        hold(slot, msgTypeId, length, context);
        return ControlledMessageHandler.Action.CONTINUE;
    }

    /**
     * Hold a counter work item (its context was opened with {@link #WORK_CNTR_SET} or {@link #WORK_CNTR_ADD}).
     *
     * @param handle the item's handle.
     */
    void holdWork(final long handle)
    {
        final int context = indexOf(handle);
        if (context < 0 || 0 == freeCount)
        {
            return;
        }
        hold(freeSlots[--freeCount], 0, 0, context);
    }

    private void hold(final int slot, final int msgTypeId, final int length, final int context)
    {
        slotType[slot] = msgTypeId;
        slotLength[slot] = length;
        slotContext[slot] = context;
        slotSequence[slot] = ++sequence;
        // Insertion in threshold order; equal thresholds keep their arrival order.
        final long t = threshold[context];
        int i = heldCount;
        while (i > 0 && threshold[slotContext[order[i - 1]]] > t)
        {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = slot;
        heldCount++;
    }

    /**
     * Issue, in threshold order, every held operation whose counter has reached its threshold (once per duty cycle).
     * An operation the send handler cannot take now (a full CQ, a fence) stays, and so does everything after it.
     *
     * @return operations issued.
     */
    int fire()
    {
        if (0 == heldCount)
        {
            return 0;
        }
        if (postsInTransit())
        {
            // A post made before its counter moved may still be in the send ring: issue nothing this cycle, so that
            // the next ring read holds it and the operations go in threshold order. Returns work: no idle backoff.
            return 1;
        }
        int fired = 0;
        int kept = 0;
        boolean stop = false;
        for (int i = 0; i < heldCount; i++)
        {
            final int slot = order[i];
            final int context = slotContext[slot];
            final CounterCell cell = counter[context];
            if (!stop && null != cell && cell.value() >= threshold[context])
            {
                if (issue(slot, context))
                {
                    fired++;
                    release(slot, context);
                    continue;
                }
                stop = true;
            }
            order[kept++] = slot;
        }
        heldCount = kept;
        return fired;
    }

    /**
     * Whether a held operation is ready while posts counted by {@link #reserve} have not reached the store yet. The
     * counters are read first: a post that happened before the write that made an operation ready is then counted in
     * {@code held} (its reserve precedes its ring commit, which precedes that write in the posting thread), so a
     * difference means it is in the ring behind what this cycle read. Deferred at most {@link #MAX_DEFERRALS} cycles
     * running, so a ring whose head waits on a held operation (a fence behind it) cannot stop firing.
     */
    private boolean postsInTransit()
    {
        boolean ready = false;
        for (int i = 0; i < heldCount && !ready; i++)
        {
            final int context = slotContext[order[i]];
            final CounterCell cell = counter[context];
            ready = null != cell && cell.value() >= threshold[context];
        }
        if (ready && held.get() > heldCount && deferrals < MAX_DEFERRALS)
        {
            deferrals++;
            return true;
        }
        deferrals = 0;
        return false;
    }

    private boolean issue(final int slot, final int context)
    {
        final int kind = work[context];
        if (WORK_CNTR_SET == kind || WORK_CNTR_ADD == kind)
        {
            final CounterCell t = target[context];
            if (null != t)
            {
                if (WORK_CNTR_SET == kind)
                {
                    t.set(value[context]);
                }
                else
                {
                    t.add(value[context]);
                }
            }
            final CounterCell done = completion[context];
            if (null != done)
            {
                done.add(1);
            }
            return true;
        }
        final int at = slot * RECORD_BYTES;
        if (WORK_OP == kind)
        {
            reportAs(at, report[context]);
        }
        return ControlledMessageHandler.Action.ABORT !=
            sendHandler.onMessage(slotType[slot], store, at, slotLength[slot]);
    }

    /** A deferred operation completes with the context of its work description, not the item's handle. */
    private void reportAs(final int at, final long context)
    {
        final CommandFlyweight record = cmd.wrapForEncode(store, at).context(context);
        final EndpointState ep = endpoints.get(record.endpoint());
        final int pin = record.pin();
        if (null != ep && null != ep.pins && pin >= 0)
        {
            ep.pins.context(pin, context);
        }
    }

    private void release(final int slot, final int context)
    {
        freeSlots[freeCount++] = slot;
        unheld(context);
    }

    /** A post's place is given back: its operation was issued, cancelled or dropped. */
    private void unheld(final int context)
    {
        pending.decrementAndGet(context);
        held.decrementAndGet();
        if (WORK_NONE != work[context])
        {
            // A deferred work item is done with once issued or cancelled: its context goes back.
            closeContext(context);
        }
    }

    /**
     * {@code fi_cancel} of a held operation, or {@code FI_CANCEL_WORK}/{@code FI_FLUSH_WORK}: the operation is
     * dropped with an {@code ECANCELED} error completion (its pins released); a counter work item is dropped.
     *
     * @param endpoint the endpoint's index, {@link #ANY_ENDPOINT}, or {@link #ALL_WORK} (every deferred item).
     * @param handle   the operation's context (ignored with {@link #ALL_WORK}).
     * @return 0 when cancelled, {@code -EAGAIN} when the CQ has no room for the error entry or a matching post is
     * still in the send ring, {@link #NOT_HELD}.
     */
    int cancel(final int endpoint, final long handle)
    {
        final int context = ALL_WORK == endpoint ? -1 : indexOf(handle);
        if (context < 0 && ALL_WORK != endpoint)
        {
            return NOT_HELD;
        }
        if (ALL_WORK == endpoint && held.get() > heldCount)
        {
            // Posts still on their way through the send ring: the caller tries again once they are held.
            return Errno.EAGAIN.negated();
        }
        int answer = NOT_HELD;
        int kept = 0;
        for (int i = 0; i < heldCount; i++)
        {
            final int slot = order[i];
            final int c = slotContext[slot];
            final boolean data = 0 != slotType[slot];
            final int at = slot * RECORD_BYTES;
            final boolean match = ALL_WORK == endpoint ? WORK_NONE != work[c] : c == context &&
                (ANY_ENDPOINT == endpoint || !data || cmd.wrap(store, at).endpoint() == endpoint);
            if (match && (ALL_WORK == endpoint || NOT_HELD == answer))
            {
                if (data)
                {
                    if (WORK_OP == work[c])
                    {
                        reportAs(at, report[c]);
                    }
                    if (!failRecord(slotType[slot], store, at, Errno.ECANCELED.value()))
                    {
                        answer = Errno.EAGAIN.negated();
                        order[kept++] = slot;
                        continue;
                    }
                }
                answer = 0;
                release(slot, c);
                continue;
            }
            order[kept++] = slot;
        }
        heldCount = kept;
        if (NOT_HELD == answer && context >= 0 && pending.get(context) > 0)
        {
            // Posted with this context but not yet read from the send ring: held in a moment.
            return Errno.EAGAIN.negated();
        }
        return ALL_WORK == endpoint && NOT_HELD == answer ? 0 : answer;
    }

    /**
     * Drop every operation a closed endpoint held (no completions: the endpoint is gone; its pins go with it).
     *
     * @param endpoint the endpoint's index.
     */
    void dropEndpoint(final int endpoint)
    {
        int kept = 0;
        for (int i = 0; i < heldCount; i++)
        {
            final int slot = order[i];
            final int owner = cmd.wrap(store, slot * RECORD_BYTES).endpoint();
            if (0 != slotType[slot] && owner == endpoint)
            {
                release(slot, slotContext[slot]);
                continue;
            }
            order[kept++] = slot;
        }
        heldCount = kept;
    }

    /**
     * @return operations held now (agent thread).
     */
    int heldCount()
    {
        return heldCount;
    }

    /**
     * Fail a command without issuing it: its pins released, an error completion with {@code errno} when its
     * endpoint has a transmit CQ with room for one.
     *
     * @return false when the CQ has no room for the error entry (nothing done).
     */
    private boolean failRecord(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int errno)
    {
        final EndpointState ep = endpoints.get(cmd.wrap(buffer, index).endpoint());
        if (null == ep)
        {
            return true;
        }
        final CompletionRing cq = ep.txCq;
        if (null != cq && !cq.hasErrorSpace())
        {
            return false;
        }
        ep.releasePin(cmd.wrap(buffer, index).pin());
        if (null != cq)
        {
            cq.writeError(cmd.wrap(buffer, index).context(), kindOf(msgTypeId, buffer, index),
                0, 0, 0, 0, 0, errno, 0, DomainAgent.ADDR_NOTAVAIL);
        }
        return true;
    }

    private long kindOf(final int msgTypeId, final MutableDirectBuffer buffer, final int index)
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
                return (cmd.wrap(buffer, index).atomicCode() >>> 16) == 0 ?
                    Flags.ATOMIC | Flags.WRITE : Flags.ATOMIC | Flags.READ;
            default:
                return Flags.MSG | Flags.SEND;
        }
    }
}
