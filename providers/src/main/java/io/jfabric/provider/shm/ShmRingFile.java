package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import static io.jfabric.provider.shm.ShmRingDescriptor.CAPACITY_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.FILE_LENGTH_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.FIXED_HEADER_LENGTH;
import static io.jfabric.provider.shm.ShmRingDescriptor.HEADER_LENGTH_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.HEARTBEAT_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.INCARNATION_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.MAGIC;
import static io.jfabric.provider.shm.ShmRingDescriptor.MAGIC_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.MAX_NAME_LENGTH;
import static io.jfabric.provider.shm.ShmRingDescriptor.NAME_LENGTH_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.NAME_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.PID_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.SLOT_COUNT_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.SLOT_INCARNATION_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.SLOT_NAME_LENGTH_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.SLOT_NAME_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.SLOT_PID_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.SLOT_START_TIME_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.START_TIME_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.STATE_ACTIVE;
import static io.jfabric.provider.shm.ShmRingDescriptor.STATE_CLOSED;
import static io.jfabric.provider.shm.ShmRingDescriptor.STATE_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.VERSION;
import static io.jfabric.provider.shm.ShmRingDescriptor.VERSION_OFFSET;

/**
 * One mapped ring file (layout in {@link ShmRingDescriptor}): a domain's header (liveness, heartbeat, pool) and its
 * sender table, through which writers announce their lanes ({@link ShmLaneFile}); either this domain's own file
 * (created, removed on close) or a peer's that this domain announces its lanes in (mapped after validation).
 * <p>
 * Threading: the header accessors are safe from any thread (volatile loads and release stores; the sender table
 * is changed under a file lock, never by an atomic update); {@link #close()} must
 * be called once, by the thread that owns the mapping, when no other thread uses it any more.
 */
final class ShmRingFile implements AutoCloseable
{
    /**
     * Sender-slot claims and releases of every ring file in this JVM: {@code FileChannel.lock} ranges are held per
     * JVM (a second overlapping lock from another channel throws), the file lock orders them between processes.
     */
    private static final Object SLOT_TABLE_MONITOR = new Object();
    /** Longest wait for the sender table's lock. */
    static final long SLOT_LOCK_WAIT_NS = 1_000_000_000L;
    private final Path path;
    private final FileChannel channel;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer buffer;
    private final String name;
    private final long incarnation;
    private final long pid;
    private final long startTime;
    private final long fileLength;
    private final int slotCount;
    private final int capacity;
    /** The owner's liveness lock (own files only; null for a peer's). */
    private ShmLiveness liveness;
    private boolean closed;

    private ShmRingFile(final Path path, final FileChannel channel, final MappedByteBuffer mapped, final String name)
    {
        this.path = path;
        this.channel = channel;
        this.mapped = mapped;
        this.buffer = new UnsafeBuffer(mapped);
        this.name = name;
        this.incarnation = buffer.getLong(INCARNATION_OFFSET);
        this.pid = buffer.getLong(PID_OFFSET);
        this.startTime = buffer.getLong(START_TIME_OFFSET);
        this.fileLength = buffer.getLong(FILE_LENGTH_OFFSET);
        this.slotCount = buffer.getInt(SLOT_COUNT_OFFSET);
        this.capacity = buffer.getInt(CAPACITY_OFFSET);
    }

    /**
     * The path of a name's ring file.
     *
     * @param dir  the ring directory.
     * @param name the domain name.
     * @return the path.
     */
    static Path pathOf(final Path dir, final String name)
    {
        return dir.resolve(name + ShmConfiguration.RING_SUFFIX);
    }

    /**
     * A new incarnation number: creation time in ms in the high 48 bits (so a later incarnation of a name
     * compares greater), 16 random bits below; never 0 or negative.
     *
     * @return the number.
     */
    static long newIncarnation()
    {
        return (System.currentTimeMillis() << 16) | (ThreadLocalRandom.current().nextInt(0xFFFF) + 1);
    }

    /**
     * Create and map this process's ring file for {@code name}: written under a temporary name, then hard-linked
     * into place, so that it appears fully initialised or not at all. A file of a dead owner (or a closed one) is
     * reclaimed; a living owner's file is left alone.
     *
     * @param dir       the ring directory.
     * @param name      the domain name.
     * @param capacity  ring capacity (power of two).
     * @param slotCount sender slots.
     * @return the mapped file.
     * @throws FabricException EADDRINUSE when a living process owns the name; EIO when the existing file is not a
     *                         ring file; EIO/EACCES on file system errors.
     */
    static ShmRingFile create(final Path dir, final String name, final int capacity, final int slotCount)
    {
        final long incarnation = newIncarnation();
        final Path target = pathOf(dir, name);
        final Path temp = dir.resolve("." + name + "." + ProcessIdentity.PID + "." + Long.toHexString(incarnation) +
            ".tmp");
        final long fileLength = ShmRingDescriptor.fileLength(slotCount);
        FileChannel channel = null;
        MappedByteBuffer mapped = null;
        ShmLiveness liveness = null;
        try
        {
            // Held before the file appears under its name: whoever sees the file sees a locked incarnation.
            liveness = ShmLiveness.acquire(dir, name, incarnation);
            ShmFiles.createOwnerOnly(temp);
            channel = ShmFiles.openNoFollow(temp, true);
            // Every page allocated now: a sparse ring on a full tmpfs faults (SIGBUS) when first touched.
            ShmFiles.reserve(channel, target, 0, fileLength, "ring file");
            mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, fileLength);
            final UnsafeBuffer header = new UnsafeBuffer(mapped);
            header.putInt(VERSION_OFFSET, VERSION);
            header.putInt(HEADER_LENGTH_OFFSET, ShmRingDescriptor.ringOffset(slotCount));
            header.putInt(CAPACITY_OFFSET, capacity);
            header.putInt(SLOT_COUNT_OFFSET, slotCount);
            header.putLong(FILE_LENGTH_OFFSET, fileLength);
            header.putLong(PID_OFFSET, ProcessIdentity.PID);
            header.putLong(START_TIME_OFFSET, ProcessIdentity.START_TIME);
            header.putLong(INCARNATION_OFFSET, incarnation);
            header.putInt(STATE_OFFSET, STATE_ACTIVE);
            final byte[] ascii = name.getBytes(StandardCharsets.US_ASCII);
            header.putInt(NAME_LENGTH_OFFSET, ascii.length);
            header.putBytes(NAME_OFFSET, ascii);
            header.putLong(HEARTBEAT_OFFSET, System.currentTimeMillis());
            // Release: the magic goes last, after every other field.
            header.putLongRelease(MAGIC_OFFSET, MAGIC);
            link(target, temp, name);
            final ShmRingFile file = new ShmRingFile(target, channel, mapped, name);
            file.liveness = liveness;
            return file;
        }
        catch (final IOException ex)
        {
            ShmFiles.unmapQuietly(mapped, channel);
            releaseQuietly(liveness);
            throw new FabricException(Errno.EIO, "shm: cannot create ring file " + target + ": " + ex, ex);
        }
        catch (final RuntimeException ex)
        {
            ShmFiles.unmapQuietly(mapped, channel);
            releaseQuietly(liveness);
            throw ex;
        }
        finally
        {
            try
            {
                Files.deleteIfExists(temp);
            }
            catch (final IOException ignore)
            {
                // the stale-file scan removes it later
            }
        }
    }

    private static void link(final Path target, final Path temp, final String name) throws IOException
    {
        for (int attempt = 0; attempt < 4; attempt++)
        {
            try
            {
                Files.createLink(target, temp);
                return;
            }
            catch (final FileAlreadyExistsException ex)
            {
                if (Files.isSymbolicLink(target))
                {
                    throw new FabricException(Errno.EACCES, "shm: fi_shm://" + name + ": " + target +
                        " is refused: it is a symbolic link (shm files are never opened through a link); remove it");
                }
                final Header existing = Header.read(target);
                if (null == existing)
                {
                    continue;
                }
                if (null != existing.defect())
                {
                    throw new FabricException(Errno.EIO, "shm: fi_shm://" + name + ": " + target +
                        " exists and is not a usable ring file (" + existing.defect() + "); remove it");
                }
                if (existing.ownerAlive(target.getParent()))
                {
                    throw new FabricException(Errno.EADDRINUSE, "shm: fi_shm://" + name + " is in use by pid " +
                        existing.pid() + " (" + target + ")");
                }
                reclaim(target, existing.incarnation());
            }
        }
        throw new FabricException(Errno.EADDRINUSE, "shm: fi_shm://" + name + " is being created concurrently (" +
            target + ")");
    }

    /**
     * Map a peer's ring file for writing frames into it.
     *
     * @param dir  the ring directory.
     * @param name the peer's domain name.
     * @return the mapped file, or null when nobody owns the name (no file, a closed one, or a dead owner's).
     * @throws FabricException EIO for a corrupted or truncated file, EACCES when it cannot be opened.
     */
    static ShmRingFile openPeer(final Path dir, final String name)
    {
        final Path path = pathOf(dir, name);
        FileChannel channel = null;
        try
        {
            try
            {
                channel = ShmFiles.openNoFollow(path, true);
            }
            catch (final NoSuchFileException ex)
            {
                return null;
            }
            catch (final AccessDeniedException ex)
            {
                throw new FabricException(Errno.EACCES, "shm: fi_shm://" + name + ": cannot open " + path +
                    " (owned by another user?)", ex);
            }
            final Header header = Header.read(channel);
            if (null != header.defect())
            {
                throw new FabricException(Errno.EIO, "shm: fi_shm://" + name + ": ring file " + path + " is " +
                    header.defect());
            }
            if (!header.name().equals(name))
            {
                throw new FabricException(Errno.EIO, "shm: fi_shm://" + name + ": ring file " + path +
                    " names another domain ('" + header.name() + "')");
            }
            if (header.state() != STATE_ACTIVE || !header.ownerAlive(dir))
            {
                channel.close();
                return null;
            }
            // Owner and mode before the mapping: a file others can write is never used (its content: EIO above).
            ShmFiles.checkFile(path);
            // Never map past the end of the file: a mapping beyond it faults (SIGBUS) when touched.
            final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, header.fileLength());
            return new ShmRingFile(path, channel, mapped, name);
        }
        catch (final IOException ex)
        {
            CloseHelper.quietClose(channel);
            throw new FabricException(Errno.EIO, "shm: fi_shm://" + name + ": cannot map " + path + ": " + ex, ex);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(channel);
            throw ex;
        }
    }

    /**
     * Remove ring files of dead or closed owners and temporary files of dead processes from {@code dir}. Files that
     * are not valid ring files are left alone (their owner cannot be known).
     *
     * @param dir the ring directory.
     * @return the number of files removed.
     */
    static int reclaimStale(final Path dir)
    {
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir))
        {
            for (final Path file : files)
            {
                final String fileName = file.getFileName().toString();
                if (fileName.startsWith(".") && fileName.endsWith(".tmp"))
                {
                    final String[] parts = fileName.split("\\.");
                    if (parts.length >= 4)
                    {
                        try
                        {
                            // Not by pid (another PID namespace's creator is invisible): by age, as a creator
                            // links or removes its temporary file within moments.
                            Long.parseLong(parts[parts.length - 3]);
                            if (System.currentTimeMillis() - Files.getLastModifiedTime(file).toMillis() >
                                ShmLiveness.STALE_LOCK_MIN_AGE_MS && Files.deleteIfExists(file))
                            {
                                removed++;
                            }
                        }
                        catch (final NumberFormatException ignore)
                        {
                            // not one of ours
                        }
                    }
                }
                else if (fileName.endsWith(ShmLiveness.SUFFIX))
                {
                    if (ShmLiveness.reclaimIfStale(file))
                    {
                        removed++;
                    }
                }
                else if (fileName.endsWith(ShmLaneFile.SUFFIX))
                {
                    if (ShmLaneFile.reclaimIfStale(file))
                    {
                        removed++;
                    }
                }
                else if (fileName.endsWith(ShmPoolDescriptor.SUFFIX))
                {
                    if (ShmPool.reclaimIfStale(file))
                    {
                        removed++;
                    }
                }
                else if (fileName.endsWith(ShmConfiguration.RING_SUFFIX))
                {
                    final Header header = Header.read(file);
                    // A closed file of a living owner is left to it (it removes its own): moving it aside could race
                    // with a successor that links a new file under the name (FI_ADDR_NOTAVAIL meanwhile).
                    if (null != header && null == header.defect() && !header.ownerAlive(dir) &&
                        reclaim(file, header.incarnation()))
                    {
                        removed++;
                    }
                }
            }
        }
        catch (final IOException ex)
        {
            // a directory that cannot be listed has nothing we can reclaim
        }
        return removed;
    }

    /**
     * Remove a stale ring file: move it aside atomically (only one process can), then check that what was moved is
     * the stale incarnation; a living file moved by a race is put back.
     */
    private static boolean reclaim(final Path target, final long staleIncarnation)
    {
        final Path grave = target.resolveSibling("." + target.getFileName() + ".reclaim." + ProcessIdentity.PID +
            "." + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1) + ".tmp");
        try
        {
            Files.move(target, grave, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final IOException ex)
        {
            return false;
        }
        try
        {
            final Header moved = Header.read(grave);
            if (null != moved && null == moved.defect() && moved.incarnation() != staleIncarnation &&
                moved.state() == STATE_ACTIVE && moved.ownerAlive(grave.getParent()))
            {
                try
                {
                    Files.createLink(target, grave);
                }
                catch (final IOException ignore)
                {
                    // another owner took the name meanwhile; the moved file's owner lost it
                }
                return false;
            }
            return true;
        }
        finally
        {
            try
            {
                Files.deleteIfExists(grave);
            }
            catch (final IOException ignore)
            {
                // removed by the next scan
            }
        }
    }

    /**
     * @return the capacity of each lane ring the owner creates (its {@code jfabric.shm.ring.capacity}).
     */
    int capacity()
    {
        return capacity;
    }

    /**
     * @return the whole mapped file.
     */
    UnsafeBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return the file's path.
     */
    Path path()
    {
        return path;
    }

    /**
     * @return the domain name the file belongs to.
     */
    String name()
    {
        return name;
    }

    /**
     * @return the owner's incarnation number.
     */
    long incarnation()
    {
        return incarnation;
    }

    /**
     * @return the owner's pid.
     */
    long pid()
    {
        return pid;
    }

    /**
     * @return the owner's process start time (epoch ms, 0 when unknown).
     */
    long startTime()
    {
        return startTime;
    }

    /**
     * @return number of sender slots.
     */
    int slotCount()
    {
        return slotCount;
    }

    /**
     * Owner: publish a heartbeat.
     *
     * @param nowMs epoch ms.
     */
    void heartbeat(final long nowMs)
    {
        buffer.putLongRelease(HEARTBEAT_OFFSET, nowMs);
    }

    /**
     * @return the owner's last heartbeat (epoch ms).
     */
    long heartbeat()
    {
        return buffer.getLongVolatile(HEARTBEAT_OFFSET);
    }

    /**
     * Owner: announce the shared pool (its file is in place) to peers.
     *
     * @param dataLength the pool's data length.
     */
    void announcePool(final long dataLength)
    {
        buffer.putLongRelease(ShmRingDescriptor.POOL_LENGTH_OFFSET, dataLength);
    }

    /**
     * @return the data length of the owner's shared pool, 0 when it has none.
     */
    long poolLength()
    {
        return buffer.getLongVolatile(ShmRingDescriptor.POOL_LENGTH_OFFSET);
    }

    /**
     * @return the state word ({@link ShmRingDescriptor#STATE_ACTIVE}, {@link ShmRingDescriptor#STATE_CLOSED}).
     */
    int state()
    {
        return buffer.getIntVolatile(STATE_OFFSET);
    }

    /**
     * Is the header still what was validated (magic, version, incarnation)? Someone overwriting a ring file in
     * place makes it unusable.
     *
     * @return true when intact.
     */
    boolean headerIntact()
    {
        return MAGIC == buffer.getLongVolatile(MAGIC_OFFSET) && VERSION == buffer.getInt(VERSION_OFFSET) &&
            incarnation == buffer.getLongVolatile(INCARNATION_OFFSET);
    }

    /**
     * Has the file become shorter than its mapping (touching the missing part would fault)? One fstat.
     *
     * @return true when truncated or no longer readable.
     */
    boolean truncated()
    {
        try
        {
            return channel.size() < fileLength;
        }
        catch (final IOException ex)
        {
            return true;
        }
    }

    /**
     * Owner: mark the ring closed (peers stop writing and fail what they wait for).
     */
    void markClosed()
    {
        buffer.putIntRelease(STATE_OFFSET, STATE_CLOSED);
    }

    /**
     * Owner: remove the file (peers that still map it keep their mapping until they notice).
     */
    void delete()
    {
        try (FileChannel current = ShmFiles.openNoFollow(path, false))
        {
            // Only our own incarnation (even in a damaged file): a successor may already own the name.
            final ByteBuffer bytes = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            if (current.size() >= INCARNATION_OFFSET + 8 && 8 == current.read(bytes, INCARNATION_OFFSET) &&
                bytes.getLong(0) == incarnation)
            {
                Files.deleteIfExists(path);
            }
        }
        catch (final IOException | FabricException ignore)
        {
            // reclaimed by the stale-file scan of the next process (a link in its place is left alone)
        }
    }

    /**
     * Writer: take a sender slot in this file for a domain called {@code writerName}: the slot this incarnation
     * already holds, else a free one, under an exclusive lock on the sender table ({@code fcntl} through
     * {@code FileChannel.lock}) with plain and release stores: no atomic update of mapped memory (an interpreted
     * CAS on a file cut under the mapping aborts the JVM; a store becomes an {@code InternalError}). The writer
     * creates its lane file before it claims, so the owner finds the lane when it sees the slot. A slot a previous
     * incarnation of the same name held is never taken over: its lane is drained and the slot released by the owner.
     *
     * @param writerIncarnation the writer's incarnation.
     * @param writerName        the writer's name, ASCII.
     * @return the slot, or -1 when the table is full.
     * @throws FabricException EIO when the file was cut under its mapping or cannot be locked.
     */
    int claimSlot(final long writerIncarnation, final byte[] writerName)
    {
        synchronized (SLOT_TABLE_MONITOR)
        {
            try (FileLock ignored = lockSlotTable())
            {
                final UnsafeBuffer b = buffer;
                int free = -1;
                for (int slot = 0; slot < slotCount; slot++)
                {
                    final int at = ShmRingDescriptor.slotOffset(slot);
                    final long holder = b.getLongVolatile(at + SLOT_INCARNATION_OFFSET);
                    if (holder == writerIncarnation && slotNameEquals(at, writerName))
                    {
                        return slot;
                    }
                    if (0 == holder && free < 0)
                    {
                        free = slot;
                    }
                }
                if (free >= 0)
                {
                    ShmSenderTable.publish(b, free, writerIncarnation, ProcessIdentity.PID, ProcessIdentity.START_TIME,
                        writerName);
                }
                return free;
            }
            catch (final IOException | InternalError ex)
            {
                throw new FabricException(Errno.EIO, "shm: fi_shm://" + name + ": cannot claim a sender slot in " +
                    path + " (" + ex + ")");
            }
        }
    }

    /**
     * The sender table's exclusive lock, waited for with backoff (held for microseconds by a claim or a release; a
     * holder that dies drops it): a process stopped while holding it delays a claim by
     * {@link #SLOT_LOCK_WAIT_NS} at most, then the claim fails with EIO instead of hanging the caller.
     */
    private FileLock lockSlotTable() throws IOException
    {
        final long deadline = System.nanoTime() + SLOT_LOCK_WAIT_NS;
        int attempt = 0;
        while (true)
        {
            if (truncated())
            {
                throw new IOException("the file was cut (truncated) under its mapping");
            }
            final FileLock lock = channel.tryLock(
                ShmRingDescriptor.SLOTS_OFFSET, (long) slotCount * ShmRingDescriptor.SLOT_LENGTH, false);
            if (null != lock)
            {
                return lock;
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new IOException("its sender table stayed locked by another process for " +
                    SLOT_LOCK_WAIT_NS / 1_000_000 + " ms");
            }
            attempt++;
            if (attempt < 64)
            {
                Thread.onSpinWait();
            }
            else if (attempt < 128)
            {
                Thread.yield();
            }
            else
            {
                LockSupport.parkNanos(100_000);
            }
        }
    }

    /**
     * @return the sender table's generation: changes whenever a slot is claimed or released (one acquire load).
     */
    long slotGeneration()
    {
        return ShmSenderTable.generation(buffer);
    }

    private boolean slotNameEquals(final int at, final byte[] writerName)
    {
        final UnsafeBuffer b = buffer;
        if (b.getIntVolatile(at + SLOT_NAME_LENGTH_OFFSET) != writerName.length)
        {
            return false;
        }
        for (int i = 0; i < writerName.length; i++)
        {
            if (b.getByte(at + SLOT_NAME_OFFSET + i) != writerName[i])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @param slot a sender slot.
     * @return its writer's incarnation (0 free, negative while being released).
     */
    long slotIncarnation(final int slot)
    {
        return ShmSenderTable.incarnation(buffer, slot);
    }

    /**
     * @param slot a sender slot.
     * @return its writer's name, or null when the slot holds none.
     */
    String slotName(final int slot)
    {
        return ShmSenderTable.name(buffer, slot);
    }

    /**
     * @param slot a sender slot.
     * @return its writer's pid.
     */
    long slotPid(final int slot)
    {
        return buffer.getLong(ShmRingDescriptor.slotOffset(slot) + SLOT_PID_OFFSET);
    }

    /**
     * @param slot a sender slot.
     * @return its writer's process start time.
     */
    long slotStartTime(final int slot)
    {
        return buffer.getLong(ShmRingDescriptor.slotOffset(slot) + SLOT_START_TIME_OFFSET);
    }

    /**
     * Owner: free the slot of a writer that died, once its lane is drained (under the table lock, plain stores).
     *
     * @param slot              the slot.
     * @param writerIncarnation the dead writer's incarnation (a slot that changed hands is left alone).
     */
    void releaseSlot(final int slot, final long writerIncarnation)
    {
        synchronized (SLOT_TABLE_MONITOR)
        {
            try (FileLock ignored = lockSlotTable())
            {
                ShmSenderTable.release(buffer, slot, writerIncarnation);
            }
            catch (final IOException | InternalError | FabricException ex)
            {
                // a cut or unlockable own file: the transport finds the cut at its next scan
            }
        }
    }

    /**
     * Unmap and close. Idempotent.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            ShmFiles.unmapQuietly(mapped, channel);
            releaseQuietly(liveness);
        }
    }

    private static void releaseQuietly(final ShmLiveness liveness)
    {
        if (null != liveness)
        {
            liveness.release();
        }
    }

    /**
     * A ring file's fixed header, read with plain file I/O (no mapping), and what is wrong with it.
     *
     * @param defect      null when valid, else a description ("truncated: ...", "bad magic ...").
     * @param pid         owner pid.
     * @param startTime   owner start time.
     * @param incarnation owner incarnation.
     * @param state       state word.
     * @param name        the domain name in the file.
     * @param fileLength  the length the header declares.
     * @param heartbeat   the owner's last heartbeat (epoch ms).
     */
    record Header(
        String defect, long pid, long startTime, long incarnation, int state, String name, long fileLength,
        long heartbeat)
    {
        /**
         * Is the owner incarnation alive (not a check of the state word)? By its liveness lock, never by its pid
         * ({@link ShmLiveness#alive}).
         *
         * @param dir the ring directory.
         * @return true when alive.
         */
        boolean ownerAlive(final Path dir)
        {
            return ShmLiveness.alive(dir, name, incarnation, System.currentTimeMillis() - heartbeat);
        }

        /**
         * Read the header of a file.
         *
         * @param path the file.
         * @return the header (possibly with a defect), or null when the file does not exist or cannot be read.
         */
        static Header read(final Path path)
        {
            try (FileChannel channel = ShmFiles.openNoFollow(path, false))
            {
                return read(channel);
            }
            catch (final IOException | FabricException ex)
            {
                return null;
            }
        }

        /**
         * Read and validate the header through an open channel.
         *
         * @param channel the file.
         * @return the header, possibly with a defect.
         * @throws IOException when the file cannot be read.
         */
        static Header read(final FileChannel channel) throws IOException
        {
            final long size = channel.size();
            if (size < FIXED_HEADER_LENGTH)
            {
                return invalid("truncated: " + size + " bytes, a ring file header needs " + FIXED_HEADER_LENGTH);
            }
            final ByteBuffer bytes = ByteBuffer.allocate(FIXED_HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            while (bytes.hasRemaining())
            {
                if (channel.read(bytes, bytes.position()) < 0)
                {
                    return invalid("truncated while reading its header");
                }
            }
            final long magic = bytes.getLong(MAGIC_OFFSET);
            if (MAGIC != magic)
            {
                return invalid("corrupt: bad magic 0x" + Long.toHexString(magic) + " (expected 0x" +
                    Long.toHexString(MAGIC) + ")");
            }
            final int version = bytes.getInt(VERSION_OFFSET);
            if (VERSION != version)
            {
                return invalid("of layout version " + version + " (this library reads " + VERSION + ")");
            }
            final int capacity = bytes.getInt(CAPACITY_OFFSET);
            if (Integer.bitCount(capacity) != 1 || capacity < ShmConfiguration.MIN_RING_CAPACITY ||
                capacity > ShmConfiguration.MAX_RING_CAPACITY)
            {
                return invalid("corrupt: ring capacity " + capacity + " is not a power of two in range");
            }
            final int slots = bytes.getInt(SLOT_COUNT_OFFSET);
            if (slots < 1 || slots > 65536)
            {
                return invalid("corrupt: sender slot count " + slots);
            }
            final int headerLength = bytes.getInt(HEADER_LENGTH_OFFSET);
            if (headerLength != ShmRingDescriptor.ringOffset(slots))
            {
                return invalid("corrupt: header length " + headerLength + " (expected " +
                    ShmRingDescriptor.ringOffset(slots) + ")");
            }
            final long fileLength = bytes.getLong(FILE_LENGTH_OFFSET);
            if (fileLength != ShmRingDescriptor.fileLength(slots))
            {
                return invalid("corrupt: file length field " + fileLength + " (expected " +
                    ShmRingDescriptor.fileLength(slots) + ")");
            }
            if (size < fileLength)
            {
                return invalid("truncated: " + size + " bytes, its header says " + fileLength);
            }
            final int nameLength = bytes.getInt(NAME_LENGTH_OFFSET);
            if (nameLength < 1 || nameLength > MAX_NAME_LENGTH)
            {
                return invalid("corrupt: name length " + nameLength);
            }
            final byte[] ascii = new byte[nameLength];
            bytes.get(NAME_OFFSET, ascii);
            final String fileName = new String(ascii, StandardCharsets.US_ASCII);
            if (!ShmRingDescriptor.validName(fileName))
            {
                return invalid("corrupt: invalid name in header");
            }
            final int state = bytes.getInt(STATE_OFFSET);
            if (STATE_ACTIVE != state && STATE_CLOSED != state)
            {
                return invalid("corrupt: state word " + state);
            }
            return new Header(null, bytes.getLong(PID_OFFSET), bytes.getLong(START_TIME_OFFSET),
                bytes.getLong(INCARNATION_OFFSET), state, fileName, fileLength, bytes.getLong(HEARTBEAT_OFFSET));
        }

        private static Header invalid(final String defect)
        {
            return new Header(defect, 0, 0, 0, 0, null, 0, 0);
        }
    }
}
