package io.jfabric.cli;

import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A ping-pong stopped by SIGINT or SIGTERM: Agrona's {@code ShutdownSignalBarrier} calls {@link #raise()} from the
 * JVM's shutdown hook, which aborts every wait of the run (completion waits through the endpoints, control waits,
 * the server's accept); the command's thread then reports the partial results, closes its endpoints (the shm
 * provider removes its ring files on close) and closes the barrier, which lets the JVM exit.
 * <p>
 * Threading: {@link #raise()} from the signal's thread, the rest from the command's threads; safe.
 */
final class PingpongInterrupt
{
    private final CopyOnWriteArrayList<Runnable> actions = new CopyOnWriteArrayList<>();
    private volatile boolean raised;

    /**
     * Run {@code action} when the run is stopped by a signal; at once if it was already.
     *
     * @param action what stops a wait, e.g. {@code PingpongEndpoint::abort}.
     */
    void onRaise(final Runnable action)
    {
        actions.add(action);
        if (raised)
        {
            action.run();
        }
    }

    /**
     * Stop the run: every registered action runs.
     */
    void raise()
    {
        raised = true;
        for (final Runnable action : actions)
        {
            action.run();
        }
    }

    /**
     * @return whether a signal stopped the run.
     */
    boolean raised()
    {
        return raised;
    }
}
