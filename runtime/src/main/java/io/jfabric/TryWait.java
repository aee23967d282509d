package io.jfabric;

/**
 * {@code fi_trywait}: whether an application may block on the wait objects of some CQs, counters, EQs and wait sets.
 * Every member's {@link WaitChannel} (when one is open) is drained and armed first, then each object is checked
 * (driving manual progress): something to read answers {@code -EAGAIN} (do not block: read), nothing answers 0 and
 * leaves the channels armed, so that an event after this check signals them (fi_poll(3): "fi_trywait ... ensures
 * that the wait object will be signaled when an event occurs").
 * <p>
 * Threading: any thread; one waiter per object at a time.
 */
final class TryWait
{
    private TryWait()
    {
    }

    static int trywait(final Fabric fabric, final Object[] objects)
    {
        if (null == objects)
        {
            throw new FabricException(Errno.EINVAL, "trywait: no object array");
        }
        for (final Object o : objects)
        {
            check(fabric, o);
        }
        for (final Object o : objects)
        {
            arm(o);
        }
        // Checked after arming (volatile write, then volatile reads; the watcher publishes in the other order):
        // an event before the arm is seen here, one after it is seen by the watcher.
        for (final Object o : objects)
        {
            if (ready(o))
            {
                for (final Object armed : objects)
                {
                    disarm(armed);
                }
                return Errno.EAGAIN.negated();
            }
        }
        return 0;
    }

    private static void check(final Fabric fabric, final Object o)
    {
        final Fabric owner;
        if (o instanceof CompletionQueue)
        {
            owner = ((CompletionQueue) o).domain().fabric();
        }
        else if (o instanceof Counter)
        {
            owner = ((Counter) o).domain().fabric();
        }
        else if (o instanceof EventQueue)
        {
            owner = ((EventQueue) o).fabric();
        }
        else if (o instanceof WaitSet)
        {
            owner = fabric;
        }
        else
        {
            throw new FabricException(Errno.EINVAL, "trywait takes completion queues, counters, event queues and " +
                "wait sets, not " + (null == o ? "null" : o.getClass().getSimpleName()));
        }
        if (owner != fabric)
        {
            throw new FabricException(Errno.EINVAL, "trywait: an object of another fabric");
        }
    }

    private static WaitChannel channelOf(final Object o)
    {
        if (o instanceof CompletionQueue)
        {
            return ((CompletionQueue) o).openWaitChannel();
        }
        if (o instanceof Counter)
        {
            return ((Counter) o).openWaitChannel();
        }
        if (o instanceof EventQueue)
        {
            return ((EventQueue) o).openWaitChannel();
        }
        return ((WaitSet) o).openWaitChannel();
    }

    private static void arm(final Object o)
    {
        final WaitChannel channel = channelOf(o);
        if (null != channel)
        {
            channel.drain();
            channel.arm();
        }
    }

    private static void disarm(final Object o)
    {
        final WaitChannel channel = channelOf(o);
        if (null != channel)
        {
            channel.disarm();
        }
    }

    private static boolean ready(final Object o)
    {
        if (o instanceof CompletionQueue)
        {
            return ((CompletionQueue) o).readyNow();
        }
        if (o instanceof Counter)
        {
            return ((Counter) o).takeMove();
        }
        if (o instanceof EventQueue)
        {
            return ((EventQueue) o).pending() > 0;
        }
        return ((WaitSet) o).readyNow();
    }
}
