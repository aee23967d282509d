package io.jfabric.provider.shm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.Optional;

/**
 * Who owns a ring file: a process id and that process's start time (so that a reused pid is not taken for the
 * owner), both from {@link ProcessHandle}.
 * <p>
 * Threading: stateless, thread-safe. {@link #isAlive} allocates (ProcessHandle); callers rate-limit it.
 */
final class ProcessIdentity
{
    /** This process's id. */
    static final long PID = ProcessHandle.current().pid();
    /** This process's start, epoch milliseconds (0 when the platform does not say). */
    static final long START_TIME = startTime(ProcessHandle.current());
    /**
     * Start times read by two JVMs come from the same kernel tick count but may be rounded differently; within
     * this tolerance they name the same process.
     */
    private static final long START_TOLERANCE_MS = 1000;

    private ProcessIdentity()
    {
    }

    /**
     * Is the process that wrote {@code pid} and {@code startTime} still running?
     *
     * @param pid       the process id.
     * @param startTime its start time in epoch ms, 0 when unknown (then the pid alone decides).
     * @return true when a process with that id and start time is alive.
     */
    static boolean isAlive(final long pid, final long startTime)
    {
        if (pid <= 0)
        {
            return false;
        }
        if (PID == pid)
        {
            return 0 == startTime || 0 == START_TIME || Math.abs(START_TIME - startTime) <= START_TOLERANCE_MS;
        }
        final Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive() || zombie(pid))
        {
            return false;
        }
        if (0 == startTime)
        {
            return true;
        }
        final long actual = startTime(handle.get());
        return 0 == actual || Math.abs(actual - startTime) <= START_TOLERANCE_MS;
    }

    /**
     * A killed process stays a zombie until its parent reaps it, and {@link ProcessHandle#isAlive()} counts it as
     * alive; on Linux its state in {@code /proc/<pid>/stat} says 'Z' (or 'X').
     */
    private static boolean zombie(final long pid)
    {
        final Path stat = Paths.get("/proc", Long.toString(pid), "stat");
        try
        {
            final String text = new String(Files.readAllBytes(stat), StandardCharsets.US_ASCII);
            final int close = text.lastIndexOf(')');
            if (close < 0 || close + 2 >= text.length())
            {
                return false;
            }
            final char state = text.charAt(close + 2);
            return 'Z' == state || 'X' == state;
        }
        catch (final IOException | SecurityException ex)
        {
            // no procfs (not Linux) or the process just went: ProcessHandle's answer stands
            return false;
        }
    }

    private static long startTime(final ProcessHandle handle)
    {
        final Optional<Instant> start = handle.info().startInstant();
        return start.map(Instant::toEpochMilli).orElse(0L);
    }
}
