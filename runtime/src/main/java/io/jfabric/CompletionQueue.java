package io.jfabric;

import io.jfabric.ring.CompletionRing;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A completion queue ({@code fi_cq}): completions are published by the domain agent only; applications read them.
 * <p>
 * {@link #read} returns the number of entries read, {@code -EAGAIN} when empty, or {@code -EAVAIL} when an error
 * entry waits (read it with {@link #readErr}). With manual progress a read that finds the queue empty runs one duty
 * cycle of the domain agent and looks again (a read that finds entries returns them without one). Reads never
 * allocate.
 * <p>
 * Threading: any number of threads may read ({@code FI_THREAD_SAFE}); readers are serialised by a
 * compare-and-set guard, and a reader that finds the guard taken sees {@code -EAGAIN}.
 */
public final class CompletionQueue implements AutoCloseable
{
    /** Largest size. */
    public static final int MAX_SIZE = 65536;

    private final Domain domain;
    private final CompletionRing ring;
    private final CqFormat format;
    private final AtomicInteger bindings = new AtomicInteger();
    private final AtomicBoolean signalled = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Sink sink = new Sink();
    private WaitChannel waitChannel;

    CompletionQueue(final Domain domain, final int size, final CqFormat format)
    {
        this.domain = domain;
        this.ring = new CompletionRing(size);
        this.format = format;
    }

    /**
     * @return the entry format.
     */
    public CqFormat format()
    {
        return format;
    }

    /**
     * @return the size (entries that may be outstanding).
     */
    public int size()
    {
        return ring.size();
    }

    /**
     * @return the domain.
     */
    public Domain domain()
    {
        return domain;
    }

    /**
     * {@code fi_cq_read} of one entry.
     *
     * @param entry receives the completion.
     * @return 1, {@code -EAGAIN} when empty, {@code -EAVAIL} when an error entry waits, {@code -EINVAL} for a
     * null entry (nothing is consumed).
     */
    public int read(final CompletionEntry entry)
    {
        return read(entry, null, null, 1);
    }

    /**
     * {@code fi_cq_read}.
     *
     * @param entries receive the completions from index 0.
     * @param count   most entries (at most {@code entries.length}).
     * @return entries read, {@code -EAGAIN} when empty, {@code -EAVAIL} when an error entry waits, {@code -EINVAL}
     * for a null array, a negative count, a count above the array's length or a null element among the first
     * {@code count} (nothing is consumed).
     */
    public int read(final CompletionEntry[] entries, final int count)
    {
        return read(null, entries, null, count);
    }

    /**
     * {@code fi_cq_readfrom}: as {@link #read(CompletionEntry[], int)} and the source fi_addr of each entry
     * ({@link AddressVector#ADDR_NOTAVAIL} when the source is unknown or for transmit completions).
     *
     * @param entries receive the completions.
     * @param sources receive the source addresses (null: not wanted); at least {@code count} long.
     * @param count   most entries.
     * @return as {@link #read(CompletionEntry[], int)}; {@code -EINVAL} also for a sources array shorter than
     * {@code count}.
     */
    public int readFrom(final CompletionEntry[] entries, final long[] sources, final int count)
    {
        return read(null, entries, sources, count);
    }

    private int read(
        final CompletionEntry single, final CompletionEntry[] entries, final long[] sources, final int count)
    {
        if (!valid(single, entries, sources, count))
        {
            return Errno.EINVAL.negated();
        }
        // Look first: what an earlier duty cycle (this thread's loop, another reader's) completed is taken at once.
        // Only an empty look drives progress, once (one guard CAS), and looks again.
        final int n = take(single, entries, sources, count);
        if (!domain.manualProgress())
        {
            // AUTO: the agent's thread progresses; the read is still the application's progress call, which
            // progress() counts for a back-end that asked (nothing else on other domains).
            domain.progress();
            return n;
        }
        if (Errno.EAGAIN.negated() != n)
        {
            return n;
        }
        domain.progress();
        return take(single, entries, sources, count);
    }

    private int take(
        final CompletionEntry single, final CompletionEntry[] entries, final long[] sources, final int count)
    {
        final CompletionRing r = ring;
        if (r.hasError())
        {
            return Errno.EAVAIL.negated();
        }
        if (0 == r.available() || !r.tryLockRead())
        {
            return Errno.EAGAIN.negated();
        }
        try
        {
            final Sink s = sink;
            s.single = single;
            s.entries = entries;
            s.sources = sources;
            final int limit = null == entries ? 1 : Math.min(count, entries.length);
            final int n = r.readInto(s, limit);
            s.entries = null;
            s.sources = null;
            return n > 0 ? n : Errno.EAGAIN.negated();
        }
        finally
        {
            r.unlockRead();
        }
    }

    /**
     * The arguments of a read can take what it reads: checked before anything is consumed, so that a bad argument
     * is an errno, never an exception after an entry left the queue. Allocation-free.
     */
    private static boolean valid(
        final CompletionEntry single, final CompletionEntry[] entries, final long[] sources, final int count)
    {
        if (null == entries)
        {
            return null != single;
        }
        if (count < 0 || count > entries.length || (null != sources && sources.length < count))
        {
            return false;
        }
        for (int i = 0; i < count; i++)
        {
            if (null == entries[i])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code fi_cq_readerr}: take the first error entry.
     *
     * @param entry receives it.
     * @return 1, {@code -EAGAIN} when none waits, {@code -EINVAL} for a null entry (the error entry stays queued).
     */
    public int readErr(final CompletionErrorEntry entry)
    {
        if (null == entry)
        {
            return Errno.EINVAL.negated();
        }
        domain.progress();
        final CompletionRing r = ring;
        if (!r.hasError() || !r.tryLockRead())
        {
            return Errno.EAGAIN.negated();
        }
        try
        {
            sink.error = entry;
            final int n = r.readErrorInto(sink);
            return n > 0 ? n : Errno.EAGAIN.negated();
        }
        finally
        {
            r.unlockRead();
        }
    }

    /**
     * {@code fi_cq_sread}: read, waiting up to {@code timeoutMs} for a completion or an error.
     *
     * @param entries   receive the completions.
     * @param count     most entries.
     * @param timeoutMs milliseconds to wait; negative waits for ever.
     * @return entries read, {@code -EAVAIL}, or {@code -EAGAIN} on timeout or when {@link #signal()} woke it.
     */
    public int sread(final CompletionEntry[] entries, final int count, final int timeoutMs)
    {
        return sread(entries, null, count, timeoutMs);
    }

    /**
     * {@code fi_cq_sreadfrom}: as {@link #sread} with source addresses.
     *
     * @param entries   receive the completions.
     * @param sources   receive the source addresses.
     * @param count     most entries.
     * @param timeoutMs milliseconds; negative waits for ever.
     * @return as {@link #sread}.
     */
    public int sreadFrom(final CompletionEntry[] entries, final long[] sources, final int count, final int timeoutMs)
    {
        return sread(entries, sources, count, timeoutMs);
    }

    private int sread(final CompletionEntry[] entries, final long[] sources, final int count, final int timeoutMs)
    {
        final long deadline = timeoutMs < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMs * 1_000_000L;
        int idle = 0;
        while (true)
        {
            final int n = read(null, entries, sources, count);
            if (n != Errno.EAGAIN.negated())
            {
                return n;
            }
            if (signalled.getAndSet(false) || System.nanoTime() - deadline >= 0)
            {
                return Errno.EAGAIN.negated();
            }
            idle = pause(idle);
        }
    }

    static int pause(final int idle)
    {
        if (idle < 100)
        {
            Thread.onSpinWait();
        }
        else if (idle < 200)
        {
            Thread.yield();
        }
        else
        {
            LockSupport.parkNanos(50_000);
        }
        return idle + 1;
    }

    /**
     * {@code fi_cq_signal}: wake a thread blocked in {@link #sread}; it returns {@code -EAGAIN}.
     */
    public void signal()
    {
        signalled.set(true);
    }

    /**
     * The queue's selectable wait object (what replaces {@code FI_WAIT_FD}): readable once an entry or an error
     * entry waits after {@link Fabric#trywait(Object...)} armed it. Opened on first call, closed with the queue.
     *
     * @return the queue's wait channel.
     * @throws FabricException EINVAL when the queue is closed.
     */
    public synchronized WaitChannel waitChannel()
    {
        if (closed.get())
        {
            throw new FabricException(Errno.EINVAL, "completion queue is closed");
        }
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
     * An entry or error entry waits (after one duty cycle with manual progress). Allocation-free, any thread.
     */
    boolean readyNow()
    {
        domain.progress();
        return ring.available() > 0 || ring.hasError();
    }

    /**
     * {@code fi_cq_strerror}: the text of a provider errno.
     *
     * @param provErrno the provider errno of an error entry.
     * @return its description.
     */
    public String strerror(final int provErrno)
    {
        return Errno.strerror(provErrno);
    }

    /**
     * Close the queue.
     *
     * @throws FabricException EBUSY while an endpoint is bound to it.
     */
    @Override
    public void close()
    {
        if (bindings.get() > 0)
        {
            throw new FabricException(Errno.EBUSY, "completion queue is bound to " + bindings.get() + " endpoint(s)");
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

    CompletionRing ring()
    {
        return ring;
    }

    void bound(final int delta)
    {
        bindings.addAndGet(delta);
    }

    boolean isClosed()
    {
        return closed.get();
    }

    private final class Sink implements CompletionRing.CompletionSink
    {
        CompletionEntry single;
        CompletionEntry[] entries;
        long[] sources;
        CompletionErrorEntry error;

        @Override
        public void onCompletion(
            final int index,
            final long context,
            final long flags,
            final long len,
            final long buf,
            final long data,
            final long tag,
            final long src)
        {
            final CompletionEntry e = null == entries ? single : entries[index];
            e.context = context;
            e.flags = 0;
            e.len = 0;
            e.buf = 0;
            e.data = 0;
            e.tag = 0;
            switch (format)
            {
                case TAGGED:
                    e.tag = tag;
                    e.buf = buf;
                    e.data = data;
                    e.flags = flags;
                    e.len = len;
                    break;
                case DATA:
                    e.buf = buf;
                    e.data = data;
                    e.flags = flags;
                    e.len = len;
                    break;
                case MSG:
                    e.flags = flags;
                    e.len = len;
                    break;
                default:
                    break;
            }
            if (null != sources)
            {
                sources[index] = src;
            }
        }

        @Override
        public void onError(
            final long context,
            final long flags,
            final long len,
            final long buf,
            final long data,
            final long tag,
            final long olen,
            final int err,
            final int provErrno,
            final long src)
        {
            final CompletionErrorEntry e = error;
            e.context = context;
            e.flags = flags;
            e.len = len;
            e.buf = buf;
            e.data = data;
            e.tag = tag;
            e.olen = olen;
            e.err = err;
            e.provErrno = provErrno;
            e.src = src;
        }

        @Override
        public void onErrorData(final byte[] errData)
        {
            error.copyErrData(errData);
        }
    }
}
