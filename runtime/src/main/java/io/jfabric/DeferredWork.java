package io.jfabric;

import org.agrona.DirectBuffer;

/**
 * A deferred work item ({@code struct fi_deferred_work}, fi_trigger(3)): an operation that a domain queues with
 * {@link Domain#control(int, DeferredWork)} ({@link Domain#QUEUE_WORK}) and issues once {@link #triggeringCounter()}
 * reaches {@link #threshold()}. The operation is one of the {@code FI_OP_*} types: a send, tagged send, RMA write
 * or read, or an atomic (base, fetch, compare) posted on {@link #endpoint()} with {@link #message()} and
 * {@link #flags()}, or a counter set or add ({@link #counter()}, {@link #value()}).
 * <p>
 * {@link #completionCounter()}: a counter work item adds 1 to it once the counter has been changed; a data
 * operation counts in the counter its endpoint has bound for its kind (the send counter for sends, the write counter
 * for writes and atomics, the read counter for reads and fetching atomics), so the completion counter of a data work
 * item must be null or that counter ({@code -ENOSYS} otherwise: no other counter can be told of its completion).
 * The data operation's completion reports the message's context.
 * <p>
 * A mutable description, like the C structure: fill it, queue it, keep it unchanged until it is issued or
 * cancelled. Threading: not thread-safe; control path.
 */
public final class DeferredWork
{
    /** {@code FI_OP_RECV} (not offered: triggered receives answer {@code -ENOSYS}). */
    public static final int OP_RECV = 0;
    /** {@code FI_OP_SEND}. */
    public static final int OP_SEND = 1;
    /** {@code FI_OP_TRECV} (not offered). */
    public static final int OP_TRECV = 2;
    /** {@code FI_OP_TSEND}. */
    public static final int OP_TSEND = 3;
    /** {@code FI_OP_READ}. */
    public static final int OP_READ = 4;
    /** {@code FI_OP_WRITE}. */
    public static final int OP_WRITE = 5;
    /** {@code FI_OP_ATOMIC}. */
    public static final int OP_ATOMIC = 6;
    /** {@code FI_OP_FETCH_ATOMIC}. */
    public static final int OP_FETCH_ATOMIC = 7;
    /** {@code FI_OP_COMPARE_ATOMIC}. */
    public static final int OP_COMPARE_ATOMIC = 8;
    /** {@code FI_OP_CNTR_SET}. */
    public static final int OP_CNTR_SET = 9;
    /** {@code FI_OP_CNTR_ADD}. */
    public static final int OP_CNTR_ADD = 10;

    int opType = -1;
    long threshold;
    Counter triggeringCounter;
    Counter completionCounter;
    Endpoint endpoint;
    Message message;
    long flags;
    AtomicDatatype datatype;
    AtomicOp atomicOp;
    DirectBuffer result;
    int resultOffset;
    DirectBuffer compare;
    int compareOffset;
    Counter counter;
    long value;
    /** The queued item's trigger context handle while queued (0: not queued). */
    long handle;

    /**
     * Set the trigger: the work is issued once {@code counter}'s success count is at least {@code threshold}.
     *
     * @param counter   the triggering counter.
     * @param threshold the threshold.
     * @return this.
     */
    public DeferredWork trigger(final Counter counter, final long threshold)
    {
        this.triggeringCounter = counter;
        this.threshold = threshold;
        return this;
    }

    /**
     * @param counter the completion counter, or null.
     * @return this.
     */
    public DeferredWork completion(final Counter counter)
    {
        this.completionCounter = counter;
        return this;
    }

    /**
     * A data operation ({@link #OP_SEND}, {@link #OP_TSEND}, {@link #OP_READ}, {@link #OP_WRITE},
     * {@link #OP_ATOMIC}), posted on {@code endpoint} with the msg form of its type.
     *
     * @param opType   the {@code FI_OP_*} type.
     * @param endpoint the endpoint.
     * @param message  the message (its context is what the completion reports).
     * @param flags    the msg form's flags ({@code FI_TRIGGER} is added).
     * @return this.
     */
    public DeferredWork operation(final int opType, final Endpoint endpoint, final Message message, final long flags)
    {
        this.opType = opType;
        this.endpoint = endpoint;
        this.message = message;
        this.flags = flags;
        return this;
    }

    /**
     * The atomic part of {@link #OP_ATOMIC}, {@link #OP_FETCH_ATOMIC} and {@link #OP_COMPARE_ATOMIC}.
     *
     * @param datatype      the datatype.
     * @param op            the operation.
     * @param result        the result buffer (fetch and compare), or null.
     * @param resultOffset  its offset.
     * @param compare       the compare buffer (compare), or null.
     * @param compareOffset its offset.
     * @return this.
     */
    public DeferredWork atomic(
        final AtomicDatatype datatype,
        final AtomicOp op,
        final DirectBuffer result,
        final int resultOffset,
        final DirectBuffer compare,
        final int compareOffset)
    {
        this.datatype = datatype;
        this.atomicOp = op;
        this.result = result;
        this.resultOffset = resultOffset;
        this.compare = compare;
        this.compareOffset = compareOffset;
        return this;
    }

    /**
     * A counter operation ({@link #OP_CNTR_SET} or {@link #OP_CNTR_ADD}).
     *
     * @param opType  the {@code FI_OP_*} type.
     * @param counter the counter to change.
     * @param value   the value set or added.
     * @return this.
     */
    public DeferredWork counterOperation(final int opType, final Counter counter, final long value)
    {
        this.opType = opType;
        this.counter = counter;
        this.value = value;
        return this;
    }

    /**
     * @return the {@code FI_OP_*} type, -1 when none was set.
     */
    public int opType()
    {
        return opType;
    }

    /**
     * @return the threshold.
     */
    public long threshold()
    {
        return threshold;
    }

    /**
     * @return the triggering counter.
     */
    public Counter triggeringCounter()
    {
        return triggeringCounter;
    }

    /**
     * @return the completion counter, or null.
     */
    public Counter completionCounter()
    {
        return completionCounter;
    }

    /**
     * @return the endpoint of a data operation.
     */
    public Endpoint endpoint()
    {
        return endpoint;
    }

    /**
     * @return the message of a data operation.
     */
    public Message message()
    {
        return message;
    }

    /**
     * @return the flags of a data operation.
     */
    public long flags()
    {
        return flags;
    }

    /**
     * @return the counter a counter operation changes.
     */
    public Counter counter()
    {
        return counter;
    }

    /**
     * @return the value a counter operation sets or adds.
     */
    public long value()
    {
        return value;
    }
}
