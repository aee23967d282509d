package io.jfabric.stat;

import org.agrona.IoUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.errors.DistinctErrorLog;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.ConcurrentCountersManager;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.ErrorHandler;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * This process's counters file (layout: {@link CountersFileDescriptor}): an Agrona counters manager and a distinct
 * error log in one mapped file, {@code <dir>/counters-<pid>-<incarnation>.cnc} under
 * {@link CountersConfiguration#directory()}, so that another process ({@link StatReader}, {@code jfabric stat}) can
 * read them while this one runs.
 * <ul>
 *   <li>Lifecycle: created by the first {@link #acquire()} (the first domain or progress group of the process),
 *   removed by the last {@link #release()} and at JVM shutdown (a hook). The next acquire creates a new file (a new
 *   incarnation).</li>
 *   <li>Liveness: the owner holds an exclusive {@code fcntl} lock ({@link FileChannel#tryLock()}) on the file for
 *   its whole life; the kernel drops it when the process dies, however it dies, so a reader or a new owner that can
 *   take the lock knows the file is stale ({@link #reclaimStale} removes such files when a file is created). Not a
 *   pid check: a pid means nothing across PID namespaces sharing {@code /dev/shm}, and pids are reused. POSIX locks
 *   belong to a process and closing any descriptor of the file drops them, so nobody in this JVM opens its own file:
 *   a {@link StatReader} of this JVM's file reads the owner's mapping instead ({@link #LOCAL}).</li>
 *   <li>Creation: written under a temporary name {@code .counters-<pid>-<incarnation>.cnc.tmp} (0600, never through
 *   a symbolic link), locked, its space reserved with zeros (a page of a sparse tmpfs file is allocated at first
 *   touch, and a full file system answers that touch with SIGBUS), mapped, its header published, then renamed into
 *   place: no reader or stale scan sees a half-written or unlocked file.</li>
 *   <li>When the directory cannot be used (refused, full, no POSIX permissions), the counters and the error log
 *   live in process memory instead ({@link #path()} is null) and one line on standard error says why: a domain
 *   never fails to open for want of statistics.</li>
 * </ul>
 * <p>
 * Threading: {@link #acquire()}, {@link #release()} and counter allocation are thread-safe control-path calls;
 * {@link #onError} may be called by any thread (the error log and the counter are thread-safe).
 */
public final class CountersFile implements ErrorHandler
{
    /** Type id of the process-wide error counter. */
    public static final int TYPE_PROCESS_ERRORS = 1000;
    /** This process's effective uid (the owner of the directory and files), -1 when it cannot be told. */
    static final long UID = currentUid();
    /** This process's pid. */
    static final long PID = ProcessHandle.current().pid();
    /** This process's start time, epoch ms (0 when the platform does not say). */
    static final long PROCESS_START_MS =
        ProcessHandle.current().info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    /** Temporary files younger than this are never removed by the stale scan (their creator may not have locked). */
    static final long STALE_TEMP_MIN_AGE_MS = 10_000;
    private static final Set<PosixFilePermission> OWNER_ONLY =
        EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    private static final Set<PosixFilePermission> OWNER_ONLY_DIR =
        EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);
    private static final int RESERVE_CHUNK = 64 * 1024;
    private static final String TEMP_PREFIX = "." + CountersFileDescriptor.PREFIX;
    private static final String TEMP_SUFFIX = CountersFileDescriptor.SUFFIX + ".tmp";

    /** This JVM's live files (absolute, normalised), answered from memory: opening them would drop the lock. */
    private static final ConcurrentHashMap<Path, CountersFile> LOCAL = new ConcurrentHashMap<>();
    private static final Object GUARD = new Object();
    /** Guarded by {@link #GUARD}. */
    private static CountersFile current;
    /** Guarded by {@link #GUARD}. */
    private static int users;

    private final Path path;
    private final FileChannel channel;
    private final FileLock lock;
    private final ByteBuffer memory;
    private final UnsafeBuffer buffer;
    private final ConcurrentCountersManager countersManager;
    private final DistinctErrorLog errorLog;
    private final AtomicCounter processErrors;
    private final Thread shutdownHook;
    /** The owner plus this JVM's open readers of the mapping; the last one out unmaps it. */
    private final AtomicInteger mappingUsers = new AtomicInteger(1);
    private final AtomicInteger nextDomainId = new AtomicInteger();

    private CountersFile(
        final Path path, final FileChannel channel, final FileLock lock, final ByteBuffer memory)
    {
        this.path = path;
        this.channel = channel;
        this.lock = lock;
        this.memory = memory;
        this.buffer = new UnsafeBuffer(memory);
        final AtomicBuffer metadata = new UnsafeBuffer(buffer,
            buffer.getInt(CountersFileDescriptor.METADATA_OFFSET_OFFSET),
            buffer.getInt(CountersFileDescriptor.METADATA_LENGTH_OFFSET));
        final AtomicBuffer values = new UnsafeBuffer(buffer,
            buffer.getInt(CountersFileDescriptor.VALUES_OFFSET_OFFSET),
            buffer.getInt(CountersFileDescriptor.VALUES_LENGTH_OFFSET));
        final AtomicBuffer errors = new UnsafeBuffer(buffer,
            buffer.getInt(CountersFileDescriptor.ERROR_LOG_OFFSET_OFFSET),
            buffer.getInt(CountersFileDescriptor.ERROR_LOG_LENGTH_OFFSET));
        this.countersManager = new ConcurrentCountersManager(metadata, values, StandardCharsets.US_ASCII,
            SystemEpochClock.INSTANCE, CountersConfiguration.FREE_TO_REUSE_MS);
        this.errorLog = new DistinctErrorLog(errors, SystemEpochClock.INSTANCE, StandardCharsets.UTF_8);
        this.processErrors = countersManager.newCounter("errors: pid=" + PID, TYPE_PROCESS_ERRORS,
            (key) -> key.putLong(0, PID));
        // Everything above is in place before a reader may trust the header.
        CountersFileDescriptor.signalReady(buffer);
        this.shutdownHook = null == path ? null : new Thread(this::deleteFile, "jfabric-counters-cleanup");
    }

    /**
     * Take a reference to this process's counters file, creating it (and reclaiming stale files in its directory)
     * when none is open. Control path.
     *
     * @return the file; {@link #release()} it when done.
     */
    public static CountersFile acquire()
    {
        synchronized (GUARD)
        {
            if (null == current)
            {
                current = create();
                if (null != current.path)
                {
                    LOCAL.put(current.path, current);
                    Runtime.getRuntime().addShutdownHook(current.shutdownHook);
                }
            }
            users++;
            return current;
        }
    }

    /**
     * Give back a reference from {@link #acquire()}; the last one removes the file. Control path.
     */
    public void release()
    {
        synchronized (GUARD)
        {
            if (current != this || users <= 0)
            {
                return;
            }
            if (--users > 0)
            {
                return;
            }
            current = null;
            if (null != path)
            {
                LOCAL.remove(path);
                try
                {
                    Runtime.getRuntime().removeShutdownHook(shutdownHook);
                }
                catch (final IllegalStateException ex)
                {
                    // the JVM is shutting down: the hook removes the file
                }
            }
        }
        deleteFile();
        closeQuietly();
        unmapWhenUnused();
    }

    /**
     * @return references taken by {@link #acquire()} and not given back (for tests: 0 when no domain is open).
     */
    static int users()
    {
        synchronized (GUARD)
        {
            return users;
        }
    }

    /**
     * @return the file, or null when the counters live in process memory (the directory could not be used).
     */
    public Path path()
    {
        return path;
    }

    /**
     * The counters manager (thread-safe: {@code ConcurrentCountersManager}).
     *
     * @return the manager over the file's metadata and values.
     */
    public CountersManager countersManager()
    {
        return countersManager;
    }

    /**
     * @return the process-wide error counter (every error recorded through any handler of this process).
     */
    public AtomicCounter processErrors()
    {
        return processErrors;
    }

    /**
     * Count an error and record it in the distinct error log (a repeat of a recorded error only counts there);
     * when the log is full it is printed to standard error. Any thread.
     *
     * @param throwable the error.
     */
    @Override
    public void onError(final Throwable throwable)
    {
        processErrors.increment();
        if (!errorLog.record(throwable))
        {
            // The log is full: the error must still be seen somewhere.
            throwable.printStackTrace();
        }
    }

    /**
     * A new id for a domain's counters (their key and label), unique in this file.
     *
     * @return the id.
     */
    int nextDomainId()
    {
        return nextDomainId.incrementAndGet();
    }

    /**
     * Allocate a counter; when the file has no room left, a counter in process memory that no reader sees, and the
     * error log says so once. Control path, thread-safe.
     * <p>
     * Public for components that count outside a domain (the emulated Aries NIC, type ids 1200..1299, see
     * runtime/RUNTIME.md "Counters and error log"): they {@link #acquire()} the file, allocate here, {@code close()}
     * each counter and {@link #release()} the file when done. Domains use {@link DomainCounters}.
     *
     * @param typeId the counter's type (a range documented in runtime/RUNTIME.md, so a reader can tell its owner).
     * @param label  its label (ASCII, at most 380 characters).
     * @param key    writes its key (at most 112 bytes).
     * @return the counter; {@code close()} frees it (its slot is reused only after 1 s).
     */
    public AtomicCounter newCounter(
        final int typeId, final String label, final Consumer<org.agrona.MutableDirectBuffer> key)
    {
        try
        {
            return countersManager.newCounter(label, typeId, key);
        }
        catch (final IllegalStateException ex)
        {
            onError(new IllegalStateException("counters file full (" + countersManager.capacity() +
                " counters, -D" + CountersConfiguration.VALUES_LENGTH_PROP + "): '" + label +
                "' is counted in process memory only", ex));
            return new AtomicCounter(new UnsafeBuffer(ByteBuffer.allocateDirect(
                org.agrona.concurrent.status.CountersReader.COUNTER_LENGTH)), 0);
        }
    }

    /**
     * This JVM's live file at {@code path}, with its mapping retained for a reader ({@link #releaseMapping()}), or
     * null when {@code path} is not one of them.
     */
    static CountersFile retainLocal(final Path path)
    {
        final CountersFile file = LOCAL.get(path.toAbsolutePath().normalize());
        if (null == file)
        {
            return null;
        }
        while (true)
        {
            final int users = file.mappingUsers.get();
            if (0 == users)
            {
                return null;
            }
            if (file.mappingUsers.compareAndSet(users, users + 1))
            {
                return file;
            }
        }
    }

    /**
     * @return true when {@code path} is a live file of this JVM.
     */
    static boolean isLocal(final Path path)
    {
        return LOCAL.containsKey(path.toAbsolutePath().normalize());
    }

    /**
     * @return the whole mapping (for a reader of this JVM).
     */
    UnsafeBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return the mapping's length.
     */
    int length()
    {
        return memory.capacity();
    }

    /**
     * A reader of this JVM is done with the mapping.
     */
    void releaseMapping()
    {
        unmapWhenUnused();
    }

    private void unmapWhenUnused()
    {
        if (0 == mappingUsers.decrementAndGet() && memory instanceof MappedByteBuffer)
        {
            IoUtil.unmap(memory);
        }
    }

    private void deleteFile()
    {
        if (null != path)
        {
            try
            {
                Files.deleteIfExists(path);
            }
            catch (final IOException ex)
            {
                // left for a later stale scan (its lock is free once this process is gone)
            }
        }
    }

    private void closeQuietly()
    {
        try
        {
            if (null != lock)
            {
                lock.release();
            }
            if (null != channel)
            {
                channel.close();
            }
        }
        catch (final IOException ex)
        {
            // the lock goes with the process at the latest
        }
    }

    private static CountersFile create()
    {
        final int valuesLength = CountersConfiguration.valuesLength();
        final int errorLogLength = CountersConfiguration.errorLogLength();
        final long fileLength = CountersFileDescriptor.fileLength(valuesLength, errorLogLength);
        final Path dir = CountersConfiguration.directory().toAbsolutePath().normalize();
        try
        {
            ensureDirectory(dir);
            reclaimStale(dir);
            return createFile(dir, valuesLength, errorLogLength, fileLength);
        }
        catch (final IOException | RuntimeException ex)
        {
            System.err.println("jfabric: counters are kept in process memory (no file for other processes to read): " +
                "cannot use " + dir + ": " + ex + " (set -D" + CountersConfiguration.DIR_PROP + ")");
            final ByteBuffer memory = ByteBuffer.allocateDirect((int) fileLength);
            CountersFileDescriptor.writeHeader(new UnsafeBuffer(memory), PID, PROCESS_START_MS,
                System.currentTimeMillis(), valuesLength, errorLogLength);
            return new CountersFile(null, null, null, memory);
        }
    }

    private static CountersFile createFile(
        final Path dir, final int valuesLength, final int errorLogLength, final long fileLength) throws IOException
    {
        final String name = CountersFileDescriptor.PREFIX + PID + "-" +
            Long.toHexString(System.currentTimeMillis() << 16 | ThreadLocalRandom.current().nextInt(1 << 16));
        final Path temp = dir.resolve("." + name + TEMP_SUFFIX);
        final Path path = dir.resolve(name + CountersFileDescriptor.SUFFIX);
        FileChannel channel = null;
        try
        {
            channel = FileChannel.open(temp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            final FileLock lock = channel.tryLock();
            if (null == lock)
            {
                throw new IOException("cannot lock " + temp);
            }
            reserve(channel, fileLength);
            final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, fileLength);
            CountersFileDescriptor.writeHeader(new UnsafeBuffer(mapped), PID, PROCESS_START_MS,
                System.currentTimeMillis(), valuesLength, errorLogLength);
            final CountersFile file = new CountersFile(path, channel, lock, mapped);
            // The lock belongs to the inode: it holds under the new name. A rename never shows a partial file.
            Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE);
            return file;
        }
        catch (final IOException | RuntimeException ex)
        {
            if (null != channel)
            {
                channel.close();
            }
            Files.deleteIfExists(temp);
            throw ex;
        }
    }

    /**
     * Write zeros over the whole file through the channel, so that the file system allocates every page now (and a
     * full one answers with an {@code IOException} here rather than SIGBUS later).
     */
    private static void reserve(final FileChannel channel, final long length) throws IOException
    {
        final ByteBuffer zeros = ByteBuffer.allocate(RESERVE_CHUNK);
        long position = 0;
        while (position < length)
        {
            zeros.clear().limit((int) Math.min(RESERVE_CHUNK, length - position));
            position += channel.write(zeros, position);
        }
    }

    /**
     * Create the directory when missing (0700) and check it: a real directory, owned by this uid, with no group or
     * other access (as the shm provider's directory, providers/SHM.md "Security").
     *
     * @param dir an absolute path.
     * @throws IOException naming what is wrong.
     */
    static void ensureDirectory(final Path dir) throws IOException
    {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS))
        {
            try
            {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
            }
            catch (final FileAlreadyExistsException ex)
            {
                // created by another process meanwhile: checked below
            }
        }
        final PosixFileAttributes attributes =
            Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (attributes.isSymbolicLink() || !attributes.isDirectory())
        {
            throw new IOException(dir + " is not a directory (a symbolic link is never followed)");
        }
        final long owner = ((Number) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
        if (UID >= 0 && owner != UID)
        {
            throw new IOException(dir + " has owner uid " + owner + "; required: uid " + UID + " (this process)");
        }
        if (!OWNER_ONLY_DIR.containsAll(attributes.permissions()))
        {
            throw new IOException(dir + " has mode " + PosixFilePermissions.toString(attributes.permissions()) +
                "; required: rwx------ (no group or other access)");
        }
    }

    /**
     * Remove the counters files of dead processes from {@code dir}: files whose lock can be taken (their owner is
     * gone), and temporary files whose lock can be taken and that are older than {@link #STALE_TEMP_MIN_AGE_MS}.
     * This JVM's files are never opened. Other files are left alone.
     *
     * @param dir the directory.
     * @return files removed.
     */
    static int reclaimStale(final Path dir)
    {
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir))
        {
            for (final Path file : files)
            {
                final String name = file.getFileName().toString();
                final boolean temp = name.startsWith(TEMP_PREFIX) && name.endsWith(TEMP_SUFFIX);
                if ((temp || (name.startsWith(CountersFileDescriptor.PREFIX) &&
                    name.endsWith(CountersFileDescriptor.SUFFIX))) && !isLocal(file) &&
                    (!temp || System.currentTimeMillis() - Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS)
                        .toMillis() > STALE_TEMP_MIN_AGE_MS) &&
                    StatReader.Liveness.DEAD == ownerState(file) && Files.deleteIfExists(file))
                {
                    removed++;
                }
            }
        }
        catch (final IOException ex)
        {
            // a later scan tries again
        }
        return removed;
    }

    /**
     * Try the owner's lock of a file of another JVM with a shared lock on a read-only channel (released at once).
     *
     * @param file the file.
     * @return the owner's state.
     */
    static StatReader.Liveness ownerState(final Path file)
    {
        if (isLocal(file))
        {
            return StatReader.Liveness.ALIVE;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))
        {
            final FileLock probe = channel.tryLock(0, Long.MAX_VALUE, true);
            if (null == probe)
            {
                return StatReader.Liveness.ALIVE;
            }
            probe.release();
            return StatReader.Liveness.DEAD;
        }
        catch (final OverlappingFileLockException ex)
        {
            return StatReader.Liveness.ALIVE;
        }
        catch (final IOException | RuntimeException ex)
        {
            return StatReader.Liveness.UNKNOWN;
        }
    }

    private static long currentUid()
    {
        try
        {
            // /proc/self leads to /proc/<pid>, owned by the process's effective uid (Linux).
            return ((Number) Files.getAttribute(Paths.get("/proc/self"), "unix:uid")).longValue();
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
    }
}
