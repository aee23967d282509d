package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.FabricException;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who is alive, by something the kernel ties to the process instead of a pid (pids are not comparable across PID
 * namespaces sharing {@code /dev/shm}, and a pid that is not visible here may belong to a living process):
 * every domain incarnation holds an exclusive lock ({@code fcntl}, {@link FileChannel#tryLock()}) on its own lock
 * file {@code <dir>/<name>.<incarnation in hex>.lock} for its whole life; the kernel drops the lock when the
 * process dies, however it dies. A checker that can take the lock knows the owner is gone; a lock file that does
 * not exist means the incarnation closed (or never was).
 * <p>
 * POSIX locks belong to a process, and closing <em>any</em> descriptor of a file drops all of the process's locks
 * on it, so nobody in the owner's JVM may open its lock file: incarnations of this JVM are answered from a
 * registry ({@link #LOCAL}) without touching the file, and the lock is never taken on the ring file (which peers
 * in the same JVM open and close).
 * <p>
 * Threading: thread-safe. {@link #check} opens a file (allocates, a system call or three): callers rate-limit it.
 */
final class ShmLiveness
{
    /** The incarnation holds its lock (or is one of this JVM's open domains). */
    static final int ALIVE = 1;
    /** The incarnation's lock file is gone, or its lock could be taken: its owner closed or died. */
    static final int DEAD = 2;
    /** The lock could not be checked (an I/O error, no lock support): the heartbeat decides. */
    static final int UNKNOWN = 3;

    /** Suffix of lock files. */
    static final String SUFFIX = ".lock";
    /**
     * When the lock cannot be checked (an I/O error), an owner whose heartbeat is older than this is taken for
     * dead, milliseconds.
     */
    static final long HEARTBEAT_TIMEOUT_MS = 10_000;
    /** A lock file younger than this is never removed by the stale scan (its creator may be about to lock it). */
    static final long STALE_LOCK_MIN_AGE_MS = 10_000;

    private static final Set<Long> LOCAL = ConcurrentHashMap.newKeySet();

    private final Path path;
    private final FileChannel channel;
    private final FileLock lock;
    private final long incarnation;

    private ShmLiveness(final Path path, final FileChannel channel, final FileLock lock, final long incarnation)
    {
        this.path = path;
        this.channel = channel;
        this.lock = lock;
        this.incarnation = incarnation;
    }

    /**
     * The lock file of an incarnation.
     *
     * @param dir         the ring directory.
     * @param name        the domain name.
     * @param incarnation the incarnation.
     * @return the path.
     */
    static Path lockPath(final Path dir, final String name, final long incarnation)
    {
        return dir.resolve(name + "." + Long.toHexString(incarnation) + SUFFIX);
    }

    /**
     * Owner: create and lock this incarnation's lock file, before its ring file appears (control path).
     *
     * @param dir         the ring directory.
     * @param name        the domain name.
     * @param incarnation the new incarnation.
     * @return the held lock; {@link #release()} it when the domain closes.
     * @throws FabricException EIO when the file cannot be created or locked.
     */
    static ShmLiveness acquire(final Path dir, final String name, final long incarnation)
    {
        final Path path = lockPath(dir, name, incarnation);
        // Registered first: from now on nobody in this JVM opens the file (closing it would drop the lock).
        LOCAL.add(incarnation);
        FileChannel channel = null;
        try
        {
            ShmFiles.createOwnerOnly(path);
            channel = ShmFiles.openNoFollow(path, true);
            final FileLock lock = channel.tryLock();
            if (null == lock)
            {
                throw new IOException("locked by another process");
            }
            return new ShmLiveness(path, channel, lock, incarnation);
        }
        catch (final IOException ex)
        {
            undo(path, channel, incarnation);
            throw new FabricException(Errno.EIO, "shm: cannot create or lock the liveness file " + path + ": " + ex,
                ex);
        }
        catch (final RuntimeException ex)
        {
            undo(path, channel, incarnation);
            throw ex;
        }
    }

    private static void undo(final Path path, final FileChannel channel, final long incarnation)
    {
        closeQuietly(channel);
        deleteQuietly(path);
        LOCAL.remove(incarnation);
    }

    /**
     * Owner: the domain is closed; remove the lock file, then drop the lock. Idempotent.
     */
    void release()
    {
        if (!channel.isOpen())
        {
            return;
        }
        deleteQuietly(path);
        try
        {
            lock.release();
        }
        catch (final IOException ignore)
        {
            // closing the channel drops it
        }
        closeQuietly(channel);
        LOCAL.remove(incarnation);
    }

    /**
     * Is an incarnation of a domain alive?
     *
     * @param dir         the ring directory.
     * @param name        the domain name.
     * @param incarnation the incarnation (of its ring file, or a writer's in a sender slot).
     * @return {@link #ALIVE}, {@link #DEAD} or {@link #UNKNOWN}.
     */
    static int check(final Path dir, final String name, final long incarnation)
    {
        if (incarnation <= 0 || null == name)
        {
            return DEAD;
        }
        if (LOCAL.contains(incarnation))
        {
            return ALIVE;
        }
        final Path path = lockPath(dir, name, incarnation);
        try (FileChannel channel = ShmFiles.openNoFollow(path, true))
        {
            if (LOCAL.contains(incarnation))
            {
                // Opened while this JVM created it: closing our descriptor would drop the owner's lock, but the
                // owner locks after registering, so it cannot hold it yet; answer without locking.
                return ALIVE;
            }
            final FileLock lock = channel.tryLock();
            if (null == lock)
            {
                return ALIVE;
            }
            lock.release();
            return DEAD;
        }
        catch (final NoSuchFileException ex)
        {
            return DEAD;
        }
        catch (final OverlappingFileLockException ex)
        {
            return ALIVE;
        }
        catch (final IOException | RuntimeException ex)
        {
            return UNKNOWN;
        }
    }

    /**
     * The liveness rule: the lock decides; when it cannot be checked, a heartbeat older than
     * {@link #HEARTBEAT_TIMEOUT_MS} means dead. A pid is never consulted.
     *
     * @param dir            the ring directory.
     * @param name           the domain name.
     * @param incarnation    the incarnation.
     * @param heartbeatAgeMs age of its last heartbeat, or {@link Long#MAX_VALUE} when unknown.
     * @return true when it must be taken for alive.
     */
    static boolean alive(final Path dir, final String name, final long incarnation, final long heartbeatAgeMs)
    {
        final int state = check(dir, name, incarnation);
        return ALIVE == state || (UNKNOWN == state && heartbeatAgeMs <= HEARTBEAT_TIMEOUT_MS);
    }

    /**
     * Stale scan: remove a lock file nobody holds (its owner died without removing it), unless it is young.
     *
     * @param file a {@code *.lock} file in the ring directory.
     * @return true when removed.
     */
    static boolean reclaimIfStale(final Path file)
    {
        final String fileName = file.getFileName().toString();
        final int dot = fileName.lastIndexOf('.', fileName.length() - SUFFIX.length() - 1);
        if (dot < 1)
        {
            return false;
        }
        final long incarnation;
        try
        {
            incarnation = Long.parseUnsignedLong(fileName.substring(dot + 1, fileName.length() - SUFFIX.length()),
                16);
        }
        catch (final NumberFormatException ex)
        {
            return false;
        }
        try
        {
            if (System.currentTimeMillis() - Files.getLastModifiedTime(file).toMillis() < STALE_LOCK_MIN_AGE_MS ||
                DEAD != check(file.getParent(), fileName.substring(0, dot), incarnation))
            {
                return false;
            }
            return Files.deleteIfExists(file);
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private static void closeQuietly(final FileChannel channel)
    {
        if (null != channel)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignore)
            {
                // nothing left to release
            }
        }
    }

    private static void deleteQuietly(final Path path)
    {
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ignore)
        {
            // the stale scan removes it once nobody holds it
        }
    }
}
