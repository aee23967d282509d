package io.jfabric;

import io.jfabric.agent.CounterCell;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A completion counter ({@code fi_cntr}): a success count and an error count, incremented by the domain agent for
 * the operations of the endpoints bound to it, and settable by the application.
 * <p>
 * With manual progress {@link #read()}, {@link #readErr()} and {@link #await} run the domain agent.
 * Threading: thread-safe; reads are volatile loads, adds are atomic, sets are volatile stores. Allocation-free.
 */
public final class Counter implements AutoCloseable
{
    private final Domain domain;
    private final CounterCell cell = new CounterCell();
    private final AtomicInteger bindings = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The counts trywait and the wait channel last reported (a counter is ready when they moved). */
    private volatile long seenValue;
    private volatile long seenError;
    private WaitChannel waitChannel;

    Counter(final Domain domain)
    {
        this.domain = domain;
    }

    /**
     * {@code fi_cntr_read}.
     *
     * @return the success count.
     */
    public long read()
    {
        domain.progress();
        return cell.value();
    }

    /**
     * {@code fi_cntr_readerr}.
     *
     * @return the error count.
     */
    public long readErr()
    {
        domain.progress();
        return cell.error();
    }

    /**
     * {@code fi_cntr_add}.
     *
     * @param value added to the success count.
     * @return 0.
     */
    public int add(final long value)
    {
        cell.add(value);
        return 0;
    }

    /**
     * {@code fi_cntr_set}.
     *
     * @param value the new success count.
     * @return 0.
     */
    public int set(final long value)
    {
        cell.set(value);
        return 0;
    }

    /**
     * {@code fi_cntr_adderr}.
     *
     * @param value added to the error count.
     * @return 0.
     */
    public int addErr(final long value)
    {
        cell.addError(value);
        return 0;
    }

    /**
     * {@code fi_cntr_seterr}.
     *
     * @param value the new error count.
     * @return 0.
     */
    public int setErr(final long value)
    {
        cell.setError(value);
        return 0;
    }

    /**
     * {@code fi_cntr_wait}: wait until the success count reaches {@code threshold}.
     *
     * @param threshold the value to reach.
     * @param timeoutMs milliseconds; negative waits for ever.
     * @return 0 when reached, {@code -EAVAIL} when the error count changed while waiting, {@code -ETIMEDOUT}.
     */
    public int await(final long threshold, final int timeoutMs)
    {
        final long deadline = timeoutMs < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMs * 1_000_000L;
        final long errors = cell.error();
        int idle = 0;
        while (true)
        {
            if (read() >= threshold)
            {
                return 0;
            }
            if (cell.error() != errors)
            {
                return Errno.EAVAIL.negated();
            }
            if (System.nanoTime() - deadline >= 0)
            {
                return Errno.ETIMEDOUT.negated();
            }
            idle = CompletionQueue.pause(idle);
        }
    }

    /**
     * The counter's selectable wait object (what replaces {@code FI_WAIT_FD}): readable once the success or error
     * count moved from what {@link Fabric#trywait(Object...)} last saw, after it armed the channel. Opened on first
     * call, closed with the counter.
     *
     * @return the counter's wait channel.
     * @throws FabricException EINVAL when the counter is closed.
     */
    public synchronized WaitChannel waitChannel()
    {
        if (closed.get())
        {
            throw new FabricException(Errno.EINVAL, "counter is closed");
        }
        if (null == waitChannel || !waitChannel.isOpen())
        {
            waitChannel = WaitChannel.open(this::movedSinceSeen);
        }
        return waitChannel;
    }

    synchronized WaitChannel openWaitChannel()
    {
        return waitChannel;
    }

    /**
     * The counts moved since trywait last took them (after one duty cycle with manual progress).
     */
    boolean movedSinceSeen()
    {
        domain.progress();
        return cell.value() != seenValue || cell.error() != seenError;
    }

    /**
     * Take the counts as seen; true when they had moved.
     */
    boolean takeMove()
    {
        domain.progress();
        final long value = cell.value();
        final long error = cell.error();
        if (value != seenValue || error != seenError)
        {
            seenValue = value;
            seenError = error;
            return true;
        }
        return false;
    }

    /**
     * Close the counter.
     *
     * @throws FabricException EBUSY while an endpoint is bound to it.
     */
    @Override
    public void close()
    {
        if (bindings.get() > 0)
        {
            throw new FabricException(Errno.EBUSY, "counter is bound to " + bindings.get() + " endpoint(s)");
        }
        if (domain.triggers().triggers(cell))
        {
            // fi_trigger(3): operations held on this counter's threshold still need it.
            throw new FabricException(Errno.EBUSY, "triggered operations wait on this counter");
        }
        if (closed.compareAndSet(false, true))
        {
            closeWaitChannel();
            domain.childClosed();
        }
    }

    private synchronized void closeWaitChannel()
    {
        if (null != waitChannel)
        {
            waitChannel.close();
        }
    }

    CounterCell cell()
    {
        return cell;
    }

    Domain domain()
    {
        return domain;
    }

    void bound(final int delta)
    {
        bindings.addAndGet(delta);
    }
}
