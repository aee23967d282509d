package io.jfabric;

import io.jfabric.agent.TriggerTable;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A trigger context ({@code struct fi_triggered_context} with {@code FI_TRIGGER_THRESHOLD}): a counter and a
 * threshold. A post with {@link Flags#TRIGGER} in its flags (the msg forms: {@code sendmsg}, {@code tsendmsg},
 * {@code writemsg}, {@code readmsg}, {@code atomicmsg}, {@code fetchAtomicmsg}, {@code compareAtomicmsg}) passes
 * {@link #handle()} as its message context; the domain agent holds the operation until the counter's success
 * count is at least the threshold, then issues it as if it had been posted then. Operations whose thresholds are
 * reached together are issued in threshold order, equal thresholds in posting order. The operation's completion
 * reports {@link #handle()} as its context (libfabric reports the {@code fi_triggered_context}'s address).
 * <p>
 * Opened with {@link Domain#triggeredContext(Counter, long)}. One context may carry many operations at once.
 * {@link #set} and {@link #close()} answer {@code EBUSY} while an operation posted with it is still held.
 * Threading: thread-safe; control path.
 */
public final class TriggeredContext implements AutoCloseable
{
    private final Domain domain;
    private final TriggerTable table;
    private final int index;
    private final long handle;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Counter counter;
    private volatile long threshold;

    TriggeredContext(final Domain domain, final TriggerTable table, final int index, final Counter counter,
        final long threshold)
    {
        this.domain = domain;
        this.table = table;
        this.index = index;
        this.handle = table.handle(index);
        this.counter = counter;
        this.threshold = threshold;
    }

    /**
     * @return the value to pass as the operation context of a triggered post (and reported by its completion).
     */
    public long handle()
    {
        return handle;
    }

    /**
     * @return the triggering counter.
     */
    public Counter counter()
    {
        return counter;
    }

    /**
     * @return the threshold.
     */
    public long threshold()
    {
        return threshold;
    }

    /**
     * @return operations posted with this context that have not been issued (or cancelled) yet.
     */
    public int pending()
    {
        return table.pending(index);
    }

    /**
     * Point the context at another counter or threshold (a reused {@code fi_triggered_context}).
     *
     * @param counter   the counter (of the same domain).
     * @param threshold the threshold (at least 0).
     * @return this.
     * @throws FabricException EINVAL for a null counter, another domain's, or a negative threshold; EBUSY while an
     *                         operation posted with it is held; EOPBADSTATE once closed.
     */
    public TriggeredContext set(final Counter counter, final long threshold)
    {
        if (closed.get())
        {
            throw new FabricException(Errno.EOPBADSTATE, "trigger context closed");
        }
        domain.checkTrigger(counter, threshold);
        if (table.pending(index) > 0)
        {
            throw new FabricException(Errno.EBUSY, table.pending(index) + " operation(s) still held");
        }
        table.set(index, counter.cell(), threshold);
        this.counter = counter;
        this.threshold = threshold;
        return this;
    }

    /**
     * Close the context: later posts naming its handle answer {@code -EINVAL}.
     *
     * @throws FabricException EBUSY while an operation posted with it is held.
     */
    @Override
    public void close()
    {
        if (table.pending(index) > 0)
        {
            throw new FabricException(Errno.EBUSY, table.pending(index) + " operation(s) still held");
        }
        if (closed.compareAndSet(false, true))
        {
            table.closeContext(index);
            domain.childClosed();
        }
    }
}
