package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.spi.SharedAddressTable;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * A named address vector of shm ({@code FI_SHARED_AV}): the file {@code <name>.av} in the shm directory, created
 * 0600 by its creator (owner-checked by every reader, as ring files are), reserved at creation for {@code capacity}
 * entries, written by the creator and mapped read-only by the other processes of the user. The creator holds an
 * exclusive lock on the file while it is open, so that a file left by a creator that died is recognised (its lock
 * is free) and replaced by the next creator; the creator's close removes the file (readers keep their mapping).
 * <pre>
 *   header (64 bytes, little-endian)
 *   0   magic "JFAV" (written last at creation, release)   4   version (1)
 *   8   capacity (entries)                                 12  slot length (bytes)
 *   16  size: highest index written + 1 (release)          24  creator pid (8 bytes)
 *   slot i at 64 + i * slot length
 *   0   address length; 0 = empty or removed (release, after the bytes)   4  reserved
 *   8   address bytes (at most {@link #MAX_ADDRESS})
 * </pre>
 * <p>
 * Threading: {@link #put} by the creator only (its address vector's monitor); {@link #size} and {@link #get} by any
 * thread of any process (acquire loads of the size and of the slot length).
 */
final class ShmSharedAddressTable implements SharedAddressTable
{
    /** File name suffix. */
    static final String SUFFIX = ".av";
    /** Longest address an entry holds. */
    static final int MAX_ADDRESS = 128;
    private static final int MAGIC = 0x5641464A;
    private static final int VERSION = 1;
    private static final int MAGIC_OFFSET = 0;
    private static final int VERSION_OFFSET = 4;
    private static final int CAPACITY_OFFSET = 8;
    private static final int SLOT_LENGTH_OFFSET = 12;
    private static final int SIZE_OFFSET = 16;
    private static final int PID_OFFSET = 24;
    private static final int HEADER_LENGTH = 64;
    private static final int SLOT_LENGTH = 8 + MAX_ADDRESS;
    /** A named vector holds at most this many entries (its file is reserved whole at creation). */
    static final int MAX_CAPACITY = 1 << 20;

    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer buffer;
    private final int capacity;
    private boolean closed;

    private ShmSharedAddressTable(
        final Path file, final FileChannel channel, final FileLock lock, final MappedByteBuffer mapped)
    {
        this.file = file;
        this.channel = channel;
        this.lock = lock;
        this.mapped = mapped;
        this.buffer = new UnsafeBuffer(mapped);
        this.capacity = buffer.getInt(CAPACITY_OFFSET);
    }

    static Path path(final Path dir, final String name)
    {
        return dir.resolve(name + SUFFIX);
    }

    /**
     * Create the file of a named vector, replacing one whose creator died.
     *
     * @throws FabricException EEXIST when a living creator holds the name; EINVAL for a capacity above
     *                         {@link #MAX_CAPACITY}; ENOSPC/EIO/EACCES on file problems.
     */
    static ShmSharedAddressTable create(final Path dir, final String name, final int capacity)
    {
        if (capacity > MAX_CAPACITY)
        {
            throw new FabricException(Errno.EINVAL, "shm: a named address vector holds at most " + MAX_CAPACITY +
                " entries, not " + capacity);
        }
        final Path file = path(dir, name);
        reclaimIfAbandoned(file, name);
        FileChannel channel = null;
        try
        {
            ShmFiles.createOwnerOnly(file);
            channel = ShmFiles.openChecked(file, true);
            final FileLock lock = channel.tryLock();
            if (null == lock)
            {
                throw new FabricException(Errno.EEXIST, "shm: the named address vector '" + name + "' is in use");
            }
            final long length = HEADER_LENGTH + (long) capacity * SLOT_LENGTH;
            ShmFiles.reserve(channel, file, 0, length, "named address vector");
            final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
            final UnsafeBuffer header = new UnsafeBuffer(mapped);
            header.putInt(VERSION_OFFSET, VERSION);
            header.putInt(CAPACITY_OFFSET, capacity);
            header.putInt(SLOT_LENGTH_OFFSET, SLOT_LENGTH);
            header.putLong(PID_OFFSET, ProcessIdentity.PID);
            // The magic last: a reader that sees it sees the header.
            header.putIntRelease(MAGIC_OFFSET, MAGIC);
            return new ShmSharedAddressTable(file, channel, lock, mapped);
        }
        catch (final FileAlreadyExistsException ex)
        {
            throw new FabricException(Errno.EEXIST, "shm: the named address vector '" + name + "' exists (" + file +
                ")", ex);
        }
        catch (final OverlappingFileLockException ex)
        {
            closeQuietly(channel);
            throw new FabricException(Errno.EEXIST, "shm: the named address vector '" + name + "' is in use", ex);
        }
        catch (final IOException | RuntimeException ex)
        {
            closeQuietly(channel);
            deleteQuietly(file);
            if (ex instanceof FabricException)
            {
                throw (FabricException) ex;
            }
            throw new FabricException(Errno.EIO, "shm: cannot create the named address vector " + file + ": " + ex,
                ex);
        }
    }

    /**
     * Open an existing named vector read-only (owner and mode checked).
     *
     * @throws FabricException ENOENT when there is none (or its creation is not finished); EACCES when the file is
     *                         not this user's 0600 regular file; EIO when it is not a named vector's file.
     */
    static ShmSharedAddressTable open(final Path dir, final String name)
    {
        final Path file = path(dir, name);
        try (FileChannel channel = ShmFiles.openChecked(file, false))
        {
            final long length = channel.size();
            if (length < HEADER_LENGTH)
            {
                throw new FabricException(Errno.ENOENT, "shm: the named address vector '" + name + "' is being " +
                    "created");
            }
            final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, length);
            final UnsafeBuffer header = new UnsafeBuffer(mapped);
            if (header.getIntVolatile(MAGIC_OFFSET) != MAGIC)
            {
                IoUtil.unmap(mapped);
                throw new FabricException(Errno.ENOENT, "shm: the named address vector '" + name + "' is being " +
                    "created");
            }
            if (header.getInt(VERSION_OFFSET) != VERSION || header.getInt(SLOT_LENGTH_OFFSET) != SLOT_LENGTH ||
                HEADER_LENGTH + (long) header.getInt(CAPACITY_OFFSET) * SLOT_LENGTH > length)
            {
                IoUtil.unmap(mapped);
                throw new FabricException(Errno.EIO, "shm: " + file + " is not a named address vector of this " +
                    "version");
            }
            return new ShmSharedAddressTable(file, null, null, mapped);
        }
        catch (final NoSuchFileException ex)
        {
            throw new FabricException(Errno.ENOENT, "shm: no named address vector '" + name + "' (" + file + ")", ex);
        }
        catch (final IOException ex)
        {
            throw new FabricException(Errno.EIO, "shm: cannot open the named address vector " + file + ": " + ex,
                ex);
        }
    }

    /**
     * A file whose creator died (its lock is free) is removed, so that the name can be created again.
     */
    private static void reclaimIfAbandoned(final Path file, final String name)
    {
        if (!Files.exists(file))
        {
            return;
        }
        try (FileChannel channel = ShmFiles.openChecked(file, true))
        {
            final FileLock probe = channel.tryLock();
            if (null == probe)
            {
                throw new FabricException(Errno.EEXIST, "shm: the named address vector '" + name + "' is in use");
            }
            Files.deleteIfExists(file);
            probe.release();
        }
        catch (final OverlappingFileLockException ex)
        {
            throw new FabricException(Errno.EEXIST, "shm: the named address vector '" + name + "' is in use by " +
                "this process", ex);
        }
        catch (final NoSuchFileException ignore)
        {
            // Removed meanwhile: free.
        }
        catch (final IOException ex)
        {
            throw new FabricException(Errno.EIO, "shm: cannot check " + file + ": " + ex, ex);
        }
    }

    @Override
    public int capacity()
    {
        return capacity;
    }

    @Override
    public int size()
    {
        return Math.min(capacity, buffer.getIntVolatile(SIZE_OFFSET));
    }

    @Override
    public byte[] get(final int index)
    {
        if (index < 0 || index >= size())
        {
            return null;
        }
        final int slot = HEADER_LENGTH + index * SLOT_LENGTH;
        final int length = buffer.getIntVolatile(slot);
        if (length <= 0 || length > MAX_ADDRESS)
        {
            return null;
        }
        final byte[] address = new byte[length];
        buffer.getBytes(slot + 8, address);
        return address;
    }

    @Override
    public int put(final int index, final byte[] address)
    {
        if (null == lock)
        {
            return Errno.EACCES.negated();
        }
        if (index < 0 || index >= capacity)
        {
            return Errno.ENOSPC.negated();
        }
        if (null != address && (address.length < 1 || address.length > MAX_ADDRESS))
        {
            return Errno.EINVAL.negated();
        }
        final int slot = HEADER_LENGTH + index * SLOT_LENGTH;
        if (null == address)
        {
            buffer.putIntRelease(slot, 0);
            return 0;
        }
        // The length is cleared first and released after the bytes: a reader never sees a half-written address.
        buffer.putIntRelease(slot, 0);
        buffer.putBytes(slot + 8, address);
        buffer.putIntRelease(slot, address.length);
        if (index >= buffer.getInt(SIZE_OFFSET))
        {
            buffer.putIntRelease(SIZE_OFFSET, index + 1);
        }
        return 0;
    }

    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (null != lock)
        {
            // The creator: the name goes first, then the lock (a new creator finds no file, or a free lock).
            deleteQuietly(file);
            try
            {
                lock.release();
            }
            catch (final IOException ignore)
            {
                // The channel's close below releases it too.
            }
            closeQuietly(channel);
        }
        IoUtil.unmap(mapped);
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
                // nothing more to release
            }
        }
    }

    private static void deleteQuietly(final Path file)
    {
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ignore)
        {
            // left for the next creator (its lock is free)
        }
    }
}
