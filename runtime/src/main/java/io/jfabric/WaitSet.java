package io.jfabric;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A wait set ({@code fi_wait}, {@code FI_WAIT_SET}) over several completion queues, counters and event queues:
 * {@link #await(int)} returns when any of them has something to read — a CQ entry or error entry, an EQ event, or
 * a counter whose value or error count moved since the previous wait returned. With manual progress the wait
 * drives the members' domains.
 * <p>
 * Threading: {@link #add} is a control-path call guarded by a monitor; {@link #await(int)} and {@link #signal()}
 * may be called from any thread (one waiter at a time is the intended use).
 */
public final class WaitSet implements AutoCloseable
{
    private volatile Object[] members = new Object[0];
    private volatile long[] counterSnapshot = new long[0];
    private final List<Object> added = new ArrayList<>();
    private final AtomicBoolean signalled = new AtomicBoolean();
    private WaitChannel waitChannel;

    WaitSet()
    {
    }

    /**
     * Add a completion queue.
     *
     * @param cq the queue.
     * @return this.
     */
    public synchronized WaitSet add(final CompletionQueue cq)
    {
        return addMember(cq);
    }

    /**
     * Add a counter; it wakes the set when its value or error count changes.
     *
     * @param counter the counter.
     * @return this.
     */
    public synchronized WaitSet add(final Counter counter)
    {
        return addMember(counter);
    }

    /**
     * Add an event queue.
     *
     * @param eq the queue.
     * @return this.
     */
    public synchronized WaitSet add(final EventQueue eq)
    {
        return addMember(eq);
    }

    private WaitSet addMember(final Object member)
    {
        if (null == member)
        {
            throw new FabricException(Errno.EINVAL, "wait set member is null");
        }
        added.add(member);
        final Object[] next = added.toArray();
        final long[] snapshot = new long[next.length * 2];
        for (int i = 0; i < next.length; i++)
        {
            if (next[i] instanceof Counter)
            {
                snapshot[2 * i] = ((Counter) next[i]).cell().value();
                snapshot[2 * i + 1] = ((Counter) next[i]).cell().error();
            }
        }
        counterSnapshot = snapshot;
        members = next;
        return this;
    }

    /**
     * {@code fi_wait}: wait until a member has something to read.
     *
     * @param timeoutMs milliseconds; negative waits for ever.
     * @return 0 when a member is ready, {@code -ETIMEDOUT} on timeout, {@code -ECANCELED} when {@link #signal()}
     * woke it.
     */
    public int await(final int timeoutMs)
    {
        final long deadline = timeoutMs < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMs * 1_000_000L;
        int idle = 0;
        while (true)
        {
            if (readyNow())
            {
                return 0;
            }
            if (signalled.getAndSet(false))
            {
                return Errno.ECANCELED.negated();
            }
            if (System.nanoTime() - deadline >= 0)
            {
                return Errno.ETIMEDOUT.negated();
            }
            idle = CompletionQueue.pause(idle);
        }
    }

    /**
     * A member has something to read (driving the members' manual progress); a counter's move is taken as seen.
     */
    boolean readyNow()
    {
        final Object[] m = members;
        final long[] snapshot = counterSnapshot;
        for (int i = 0; i < m.length; i++)
        {
            final Object member = m[i];
            if (member instanceof CompletionQueue)
            {
                if (((CompletionQueue) member).readyNow())
                {
                    return true;
                }
            }
            else if (member instanceof Counter)
            {
                final Counter counter = (Counter) member;
                counter.domain().progress();
                final long value = counter.cell().value();
                final long error = counter.cell().error();
                if (value != snapshot[2 * i] || error != snapshot[2 * i + 1])
                {
                    snapshot[2 * i] = value;
                    snapshot[2 * i + 1] = error;
                    return true;
                }
            }
            else if (((EventQueue) member).pending() > 0)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The set's selectable wait object ({@code FI_WAIT_FD} of a wait set, see {@link WaitChannel}): readable once a
     * member has something to read after {@link Fabric#trywait(Object...)} armed it. Opened on first call, closed
     * with the set.
     *
     * @return the set's wait channel.
     */
    public synchronized WaitChannel waitChannel()
    {
        if (null == waitChannel || !waitChannel.isOpen())
        {
            waitChannel = WaitChannel.open(this::readyNow);
        }
        return waitChannel;
    }

    synchronized WaitChannel openWaitChannel()
    {
        return waitChannel;
    }

    /**
     * Wake a thread blocked in {@link #await(int)}; it returns {@code -ECANCELED}.
     */
    public void signal()
    {
        signalled.set(true);
    }

    /**
     * Close the set (its members stay open).
     */
    @Override
    public synchronized void close()
    {
        added.clear();
        members = new Object[0];
        if (null != waitChannel)
        {
            waitChannel.close();
        }
    }
}
