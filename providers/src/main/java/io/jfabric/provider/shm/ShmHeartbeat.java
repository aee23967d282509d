package io.jfabric.provider.shm;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;

import java.util.ArrayList;
import java.util.List;

/**
 * The process-wide heartbeat: one daemon thread that stamps every open ring file of this process every
 * {@link ShmConfiguration#HEARTBEAT_INTERVAL_MS}. The domain agents stamp their own ring too, but with
 * {@code FI_PROGRESS_MANUAL} an agent runs only when the application drives it, and an idle application is not a
 * dead one; the thread keeps a living process's heartbeat fresh whatever its progress mode.
 * <p>
 * The thread is an Agrona {@link AgentRunner} whose idle strategy sleeps the interval: each duty cycle stamps every
 * file and reports no work, so the runner sleeps {@link ShmConfiguration#HEARTBEAT_INTERVAL_MS} between stamps.
 * <p>
 * Threading: {@link #register} and {@link #unregister} are thread-safe; after {@link #unregister} returns the
 * thread never touches that file again (so it may be unmapped).
 */
final class ShmHeartbeat implements Agent
{
    private static final ShmHeartbeat INSTANCE = new ShmHeartbeat();

    private final List<ShmRingFile> files = new ArrayList<>();
    private AgentRunner runner;
    /**
     * Heartbeats so far: a tick every {@link ShmConfiguration#HEARTBEAT_INTERVAL_MS} once the thread runs. The domain
     * agents read it on every poll instead of the clock (one plain load of a line written 20 times a second, where
     * {@code System.currentTimeMillis()} costs a clock read on every poll) and look at the clock only when it moved.
     */
    private volatile long beats;

    private ShmHeartbeat()
    {
    }

    /**
     * @return the process's heartbeat.
     */
    static ShmHeartbeat instance()
    {
        return INSTANCE;
    }

    /**
     * Start stamping a ring file (starts the thread on first use).
     *
     * @param file an own ring file.
     */
    synchronized void register(final ShmRingFile file)
    {
        files.add(file);
        if (null == runner)
        {
            runner = new AgentRunner(new SleepingMillisIdleStrategy(ShmConfiguration.HEARTBEAT_INTERVAL_MS),
                (ex) -> System.err.println("jfabric-shm-heartbeat: " + ex), null, this);
            // the runner names its thread after roleName(); a daemon, so that it never holds the JVM open
            AgentRunner.startOnThread(runner, (r) ->
            {
                final Thread t = new Thread(r);
                t.setDaemon(true);
                return t;
            });
        }
    }

    /**
     * Stop stamping a ring file.
     *
     * @param file the file.
     */
    synchronized void unregister(final ShmRingFile file)
    {
        files.remove(file);
    }

    /**
     * @return heartbeats so far; it moves every {@link ShmConfiguration#HEARTBEAT_INTERVAL_MS} while a file is or
     * was registered.
     */
    long beats()
    {
        return beats;
    }

    /**
     * @return number of files stamped (for tests).
     */
    synchronized int size()
    {
        return files.size();
    }

    /**
     * Stamp every registered file with the current time.
     *
     * @return 0 always: the work is periodic, and the runner's idle strategy is the period.
     */
    @Override
    public int doWork()
    {
        beats++;
        synchronized (this)
        {
            final long now = System.currentTimeMillis();
            for (int i = 0; i < files.size(); i++)
            {
                final ShmRingFile file = files.get(i);
                // A file cut under its mapping faults when stamped: its domain's scan reports it.
                try
                {
                    if (!file.truncated())
                    {
                        file.heartbeat(now);
                    }
                }
                catch (final InternalError ex)
                {
                    // cut between the check and the stamp (the JVM's answer to SIGBUS): the thread lives on
                }
            }
        }
        return 0;
    }

    /**
     * @return the thread's name.
     */
    @Override
    public String roleName()
    {
        return "jfabric-shm-heartbeat";
    }
}
