package io.jfabric.provider.shm;

import java.util.ArrayList;
import java.util.List;

/**
 * The process-wide heartbeat: one daemon thread that stamps every open ring file of this process every
 * {@link ShmConfiguration#HEARTBEAT_INTERVAL_MS}. The domain agents stamp their own ring too, but with
 * {@code FI_PROGRESS_MANUAL} an agent runs only when the application drives it, and an idle application is not a
 * dead one; the thread keeps a living process's heartbeat fresh whatever its progress mode.
 * <p>
 * Threading: {@link #register} and {@link #unregister} are thread-safe; after {@link #unregister} returns the
 * thread never touches that file again (so it may be unmapped).
 */
final class ShmHeartbeat
{
    private static final ShmHeartbeat INSTANCE = new ShmHeartbeat();

    private final List<ShmRingFile> files = new ArrayList<>();
    private Thread thread;

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
        if (null == thread)
        {
            thread = new Thread(this::run, "jfabric-shm-heartbeat");
            thread.setDaemon(true);
            thread.start();
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
     * @return number of files stamped (for tests).
     */
    synchronized int size()
    {
        return files.size();
    }

    private void run()
    {
        while (true)
        {
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
            try
            {
                Thread.sleep(ShmConfiguration.HEARTBEAT_INTERVAL_MS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
