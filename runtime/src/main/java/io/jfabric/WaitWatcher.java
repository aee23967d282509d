package io.jfabric;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The one daemon thread of the JVM that signals armed {@link WaitChannel}s: while a channel is armed it checks the
 * channel's object (driving its domain's manual progress, as a blocking read would) with the same spin, yield and
 * park backoff as {@code fi_cq_sread}, and writes the channel's signal byte once the object is ready. With no channel
 * armed it parks without a timeout until the next arm. The data path never touches a channel.
 * <p>
 * Threading: {@link #register}/{@link #unregister} are control-path calls (a monitor, copy-on-write array);
 * {@link #armed()} is called by waiters; the scan runs on the watcher thread only.
 */
final class WaitWatcher implements Runnable
{
    static final WaitWatcher INSTANCE = new WaitWatcher();

    private volatile WaitChannel[] channels = new WaitChannel[0];
    private final AtomicInteger arms = new AtomicInteger();
    private volatile Thread thread;

    private WaitWatcher()
    {
    }

    synchronized void register(final WaitChannel channel)
    {
        final WaitChannel[] current = channels;
        final WaitChannel[] next = Arrays.copyOf(current, current.length + 1);
        next[current.length] = channel;
        channels = next;
        if (null == thread)
        {
            final Thread t = new Thread(this, "jfabric-wait-watcher");
            t.setDaemon(true);
            thread = t;
            t.start();
        }
    }

    synchronized void unregister(final WaitChannel channel)
    {
        final WaitChannel[] current = channels;
        int n = 0;
        final WaitChannel[] next = new WaitChannel[current.length];
        for (final WaitChannel c : current)
        {
            if (c != channel)
            {
                next[n++] = c;
            }
        }
        channels = Arrays.copyOf(next, n);
    }

    /**
     * A channel was armed: wake the watcher if it parked with nothing to watch.
     */
    void armed()
    {
        arms.incrementAndGet();
        final Thread t = thread;
        if (null != t)
        {
            LockSupport.unpark(t);
        }
    }

    /**
     * A channel whose object failed (closed under it) is signalled too: the waiter wakes and finds out.
     */
    private static boolean readyOrGone(final WaitChannel c)
    {
        try
        {
            return c.ready();
        }
        catch (final RuntimeException ex)
        {
            return true;
        }
    }

    @Override
    public void run()
    {
        int idle = 0;
        while (true)
        {
            // Read the arm count before the scan: an arm after this read leaves the count changed, so the
            // watcher scans again instead of parking.
            final int armsBefore = arms.get();
            final WaitChannel[] current = channels;
            boolean anyArmed = false;
            for (final WaitChannel c : current)
            {
                if (c.armed())
                {
                    anyArmed = true;
                    if (readyOrGone(c))
                    {
                        c.fire();
                        idle = 0;
                    }
                }
            }
            if (!anyArmed)
            {
                idle = 0;
                if (arms.get() == armsBefore)
                {
                    LockSupport.park(this);
                }
            }
            else
            {
                idle = CompletionQueue.pause(idle);
            }
        }
    }
}
