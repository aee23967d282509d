package io.jfabric.provider.shm;

import java.time.Instant;
import java.util.Optional;

/**
 * This process's id and start time, from {@link ProcessHandle}: written into ring, slot and pool headers for
 * diagnostics (an {@code EADDRINUSE} message names the owner's pid) and used in temporary file names. They never
 * decide whether an owner is alive: a pid means nothing across PID namespaces sharing {@code /dev/shm}; liveness
 * is {@link ShmLiveness}'s lock.
 * <p>
 * Threading: constants, thread-safe.
 */
final class ProcessIdentity
{
    /** This process's id (in its own PID namespace). */
    static final long PID = ProcessHandle.current().pid();
    /** This process's start, epoch milliseconds (0 when the platform does not say). */
    static final long START_TIME = startTime(ProcessHandle.current());

    private ProcessIdentity()
    {
    }

    private static long startTime(final ProcessHandle handle)
    {
        final Optional<Instant> start = handle.info().startInstant();
        return start.map(Instant::toEpochMilli).orElse(0L);
    }
}
