package io.jfabric;

import java.util.Arrays;

/**
 * A poll set ({@code fi_poll_open}, {@code fi_poll_add}, {@code fi_poll_del}, {@code fi_poll}) over the completion
 * queues and counters of one domain: {@link #poll(long[], int)} drives the domain's manual progress once and returns
 * the contexts, given at {@code add}, of the members that have something to read — a CQ holding an entry or an error
 * entry, a counter whose success or error count moved since the previous poll of this set saw it. It never blocks
 * (fi_poll(3): "fi_poll ... does not wait"); to block, use a {@link WaitSet} or the members' {@link WaitChannel}s
 * with {@link Fabric#trywait(Object...)}. Event queues are not members: fi_poll(3) takes CQs and counters.
 * <p>
 * Threading: every method is thread-safe (a monitor); {@link #poll} is allocation-free.
 */
public final class PollSet implements AutoCloseable
{
    private final Domain domain;
    private Object[] members = new Object[0];
    private long[] contexts = new long[0];
    /** Counters: the success and error counts the last poll reported, two per member. */
    private long[] seen = new long[0];
    private boolean closed;

    PollSet(final Domain domain)
    {
        this.domain = domain;
    }

    /**
     * {@code fi_poll_add} of a completion queue.
     *
     * @param cq      the queue, of this set's domain.
     * @param context what {@link #poll} returns for it.
     * @return this.
     * @throws FabricException EINVAL for null, a queue of another domain or a closed set; EALREADY when it is a
     *                         member already.
     */
    public synchronized PollSet add(final CompletionQueue cq, final long context)
    {
        return addMember(cq, null == cq ? null : cq.domain(), context);
    }

    /**
     * {@code fi_poll_add} of a counter; the first poll after the add reports it only if it moves after the add.
     *
     * @param counter the counter, of this set's domain.
     * @param context what {@link #poll} returns for it.
     * @return this.
     * @throws FabricException as {@link #add(CompletionQueue, long)}.
     */
    public synchronized PollSet add(final Counter counter, final long context)
    {
        return addMember(counter, null == counter ? null : counter.domain(), context);
    }

    private PollSet addMember(final Object member, final Domain owner, final long context)
    {
        if (closed)
        {
            throw new FabricException(Errno.EINVAL, "poll set is closed");
        }
        if (null == member)
        {
            throw new FabricException(Errno.EINVAL, "poll set member is null");
        }
        if (owner != domain)
        {
            throw new FabricException(Errno.EINVAL, "poll set member belongs to domain " + owner.name() +
                ", not to the set's domain " + domain.name());
        }
        if (indexOf(member) >= 0)
        {
            throw new FabricException(Errno.EALREADY, "already a member of the poll set");
        }
        final int n = members.length;
        members = Arrays.copyOf(members, n + 1);
        contexts = Arrays.copyOf(contexts, n + 1);
        seen = Arrays.copyOf(seen, 2 * n + 2);
        members[n] = member;
        contexts[n] = context;
        if (member instanceof Counter)
        {
            seen[2 * n] = ((Counter) member).cell().value();
            seen[2 * n + 1] = ((Counter) member).cell().error();
        }
        return this;
    }

    /**
     * {@code fi_poll_del}.
     *
     * @param member a completion queue or counter added before.
     * @return 0, or {@code -ENOENT} when it is not a member.
     */
    public synchronized int del(final Object member)
    {
        final int i = indexOf(member);
        if (i < 0)
        {
            return Errno.ENOENT.negated();
        }
        final int n = members.length;
        final Object[] m = new Object[n - 1];
        final long[] c = new long[n - 1];
        final long[] s = new long[2 * (n - 1)];
        for (int j = 0, k = 0; j < n; j++)
        {
            if (j != i)
            {
                m[k] = members[j];
                c[k] = contexts[j];
                s[2 * k] = seen[2 * j];
                s[2 * k + 1] = seen[2 * j + 1];
                k++;
            }
        }
        members = m;
        contexts = c;
        seen = s;
        return 0;
    }

    /**
     * @return the number of members.
     */
    public synchronized int size()
    {
        return members.length;
    }

    /**
     * {@code fi_poll}: drive the domain's manual progress once, then report the members with something to read.
     *
     * @param ready receives the contexts of ready members, from index 0, in the order they were added.
     * @param count most contexts to return (at most {@code ready.length}).
     * @return the number of contexts written (0 when nothing is ready), {@code -EINVAL} for a null array, a
     * negative count or one above the array's length, or a closed set.
     */
    public synchronized int poll(final long[] ready, final int count)
    {
        if (null == ready || count < 0 || count > ready.length || closed)
        {
            return Errno.EINVAL.negated();
        }
        domain.progress();
        final Object[] m = members;
        int n = 0;
        for (int i = 0; i < m.length && n < count; i++)
        {
            final Object member = m[i];
            if (member instanceof CompletionQueue)
            {
                final CompletionQueue cq = (CompletionQueue) member;
                if (cq.ring().available() > 0 || cq.ring().hasError())
                {
                    ready[n++] = contexts[i];
                }
            }
            else
            {
                final Counter counter = (Counter) member;
                final long value = counter.cell().value();
                final long error = counter.cell().error();
                if (value != seen[2 * i] || error != seen[2 * i + 1])
                {
                    seen[2 * i] = value;
                    seen[2 * i + 1] = error;
                    ready[n++] = contexts[i];
                }
            }
        }
        return n;
    }

    private int indexOf(final Object member)
    {
        for (int i = 0; i < members.length; i++)
        {
            if (members[i] == member)
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * {@code fi_close}: the members stay open.
     */
    @Override
    public synchronized void close()
    {
        closed = true;
        members = new Object[0];
        contexts = new long[0];
        seen = new long[0];
    }
}
