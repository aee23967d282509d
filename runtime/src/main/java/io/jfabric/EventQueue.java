package io.jfabric;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An event queue ({@code fi_eq}) for control events and application-written events.
 * <p>
 * Threading: thread-safe; control path (a monitor guards the queue).
 */
public final class EventQueue implements AutoCloseable
{
    /** {@code FI_NOTIFY}. */
    public static final int NOTIFY = 0;
    /** {@code FI_CONNREQ}. */
    public static final int CONNREQ = 1;
    /** {@code FI_CONNECTED}. */
    public static final int CONNECTED = 2;
    /** {@code FI_SHUTDOWN}. */
    public static final int SHUTDOWN = 3;
    /** {@code FI_MR_COMPLETE}. */
    public static final int MR_COMPLETE = 4;
    /** {@code FI_AV_COMPLETE}. */
    public static final int AV_COMPLETE = 5;
    /** {@code FI_JOIN_COMPLETE}: a multicast join completed; no provider carries multicast yet (RUNTIME.md). */
    public static final int JOIN_COMPLETE = 6;

    private final Fabric fabric;
    private final int size;
    private final int[] events;
    private final Object[] fids;
    private final long[] contexts;
    private final long[] data;
    private final int[] errs;
    private final Info[] infos;
    private final byte[][] params;
    private int head;
    private int count;
    private int errCount;
    private final AtomicBoolean closed = new AtomicBoolean();
    private WaitChannel waitChannel;
    /**
     * Domains whose connection management reports here through frames ({@link FrameConnection}): with
     * {@code FI_PROGRESS_MANUAL} a read progresses them (outside this queue's monitor), as fi_eq(3)'s manual
     * progress asks; a no-op for AUTO domains.
     */
    private final CopyOnWriteArrayList<Domain> progressed = new CopyOnWriteArrayList<>();

    EventQueue(final Fabric fabric, final int size)
    {
        this.fabric = fabric;
        this.size = size;
        events = new int[size];
        fids = new Object[size];
        contexts = new long[size];
        data = new long[size];
        errs = new int[size];
        infos = new Info[size];
        params = new byte[size][];
    }

    /**
     * @return the size.
     */
    public int size()
    {
        return size;
    }

    /**
     * {@code fi_eq_write}.
     *
     * @param event   event type.
     * @param fid     object concerned, or null.
     * @param context context.
     * @param value   event data.
     * @return 1 when written, {@code -EAGAIN} when full.
     */
    public synchronized int write(final int event, final Object fid, final long context, final long value)
    {
        return append(event, fid, context, value, 0);
    }

    /**
     * Write an error event (what the runtime does for failed control operations).
     *
     * @param event   event type.
     * @param fid     object concerned.
     * @param context context.
     * @param err     positive errno.
     * @return 1, or {@code -EAGAIN} when full.
     */
    public synchronized int writeError(final int event, final Object fid, final long context, final int err)
    {
        return append(event, fid, context, 0, err);
    }

    /**
     * An error event with data (an address vector's failed insert: {@code data} is the address's index).
     */
    synchronized int writeError(final int event, final Object fid, final long context, final int err, final long value)
    {
        return append(event, fid, context, value, err);
    }

    /**
     * @return free entries.
     */
    synchronized int room()
    {
        return size - count;
    }

    synchronized int writeConnection(final int event, final Object fid, final Info info, final byte[] param)
    {
        final int r = append(event, fid, 0, 0, 0);
        if (r > 0)
        {
            final int i = (head + count - 1) % size;
            infos[i] = info;
            params[i] = param;
        }
        return r;
    }

    /**
     * An error event of connection management carrying the peer's data (a reject's param, libfabric's
     * {@code err_data}).
     */
    synchronized int writeConnectionError(final int event, final Object fid, final int err, final byte[] param)
    {
        final int r = append(event, fid, 0, 0, err);
        if (r > 0)
        {
            params[(head + count - 1) % size] = param;
        }
        return r;
    }

    private int append(final int event, final Object fid, final long context, final long value, final int err)
    {
        if (count == size)
        {
            return Errno.EAGAIN.negated();
        }
        final int i = (head + count) % size;
        events[i] = event;
        fids[i] = fid;
        contexts[i] = context;
        data[i] = value;
        errs[i] = err;
        count++;
        if (0 != err)
        {
            errCount++;
        }
        notifyAll();
        return 1;
    }

    /**
     * {@code fi_eq_read}.
     *
     * @param entry receives the event.
     * @param flags {@link Flags#PEEK} leaves it in the queue, or 0.
     * @return 1, {@code -EAGAIN} when empty, {@code -EAVAIL} when the next entry is an error, {@code -EINVAL} for a
     * null entry (the event stays queued).
     */
    public int read(final EqEntry entry, final long flags)
    {
        progress();
        return take(entry, flags);
    }

    /**
     * Let reads of this queue progress a domain whose connection events come here (manual progress).
     *
     * @param domain the domain.
     */
    void progressOnRead(final Domain domain)
    {
        if (!progressed.contains(domain))
        {
            progressed.addIfAbsent(domain);
        }
    }

    private void progress()
    {
        for (final Domain d : progressed)
        {
            // A closed domain's progress does nothing.
            d.progress();
        }
    }

    private synchronized int take(final EqEntry entry, final long flags)
    {
        if (null == entry)
        {
            return Errno.EINVAL.negated();
        }
        if (0 == count)
        {
            return Errno.EAGAIN.negated();
        }
        if (0 != errs[head])
        {
            return Errno.EAVAIL.negated();
        }
        fill(entry);
        if ((flags & Flags.PEEK) == 0)
        {
            pop();
        }
        return 1;
    }

    /**
     * {@code fi_eq_readerr}.
     *
     * @param entry receives the error event.
     * @return 1, {@code -EAGAIN} when the next entry is not an error, {@code -EINVAL} for a null entry (the error
     * stays queued).
     */
    public synchronized int readErr(final EqEntry entry)
    {
        if (null == entry)
        {
            return Errno.EINVAL.negated();
        }
        if (0 == count || 0 == errs[head])
        {
            return Errno.EAGAIN.negated();
        }
        fill(entry);
        errCount--;
        pop();
        return 1;
    }

    /**
     * {@code fi_eq_sread}: read, waiting up to {@code timeoutMs}.
     *
     * @param entry     receives the event.
     * @param timeoutMs milliseconds; negative waits for ever.
     * @param flags     {@link Flags#PEEK} or 0.
     * @return as {@link #read}; {@code -EAGAIN} on timeout.
     */
    public int sread(final EqEntry entry, final int timeoutMs, final long flags)
    {
        if (null == entry)
        {
            return Errno.EINVAL.negated();
        }
        final long deadline = timeoutMs < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMs * 1_000_000L;
        while (true)
        {
            progress();
            synchronized (this)
            {
                if (0 != count)
                {
                    return take(entry, flags);
                }
                final long left = deadline - System.nanoTime();
                if (left <= 0)
                {
                    return Errno.EAGAIN.negated();
                }
                try
                {
                    // Waked by a write; with domains to progress, back within a millisecond to progress them.
                    wait(progressed.isEmpty() ? Math.max(1, Math.min(left / 1_000_000L, Integer.MAX_VALUE)) : 1);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return Errno.EINTR.negated();
                }
            }
        }
    }

    synchronized int pending()
    {
        return count;
    }

    /**
     * The queue's selectable wait object (what replaces {@code FI_WAIT_FD}): readable once an event waits after
     * {@link Fabric#trywait(Object...)} armed it. Opened on first call, closed with the queue.
     *
     * @return the queue's wait channel.
     * @throws FabricException EINVAL when the queue is closed.
     */
    public synchronized WaitChannel waitChannel()
    {
        if (closed.get())
        {
            throw new FabricException(Errno.EINVAL, "event queue is closed");
        }
        if (null == waitChannel || !waitChannel.isOpen())
        {
            waitChannel = WaitChannel.open(() -> pending() > 0);
        }
        return waitChannel;
    }

    synchronized WaitChannel openWaitChannel()
    {
        return waitChannel;
    }

    Fabric fabric()
    {
        return fabric;
    }

    private void fill(final EqEntry entry)
    {
        entry.event = events[head];
        entry.fid = fids[head];
        entry.context = contexts[head];
        entry.data = data[head];
        entry.err = errs[head];
        entry.info = infos[head];
        entry.param = params[head];
    }

    private void pop()
    {
        fids[head] = null;
        infos[head] = null;
        params[head] = null;
        head = (head + 1) % size;
        count--;
    }

    /**
     * Close the queue.
     */
    @Override
    public void close()
    {
        if (closed.compareAndSet(false, true))
        {
            final WaitChannel channel = openWaitChannel();
            if (null != channel)
            {
                channel.close();
            }
            fabric.childClosed();
        }
    }
}
