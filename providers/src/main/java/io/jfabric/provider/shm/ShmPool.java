package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A domain's shared-memory pool (layout in {@link ShmPoolDescriptor}): a file mapped read-write by its owner, from
 * which {@code Domain.allocateShared} carves blocks. A peer that receives a rendezvous send from a block copies the
 * data straight out of its read-only mapping of this file ({@link ShmPeerPool}).
 * <p>
 * The allocator is a bump pointer plus a free list ordered by offset: a request takes the lowest free block that
 * fits (first fit), else the space after the bump pointer; a freed block merges with free neighbours, and a free
 * block that reaches the bump pointer gives its space back to it. Blocks are multiples of
 * {@link #ALIGNMENT} bytes and start on such a boundary. Limits: first fit fragments under mixed sizes (a request
 * can fail with ENOMEM while the sum of the free blocks is larger); each allocation and free is O(log n) on the
 * control path and allocates a little (map entries), so pools are for buffers an application keeps, not for
 * per-message allocation.
 * <p>
 * Threading: allocate and free are thread-safe (synchronized); {@link #close()} once, after the domain agent
 * stopped.
 */
final class ShmPool implements AutoCloseable
{
    /** Alignment and granularity of blocks: a cache line pair, so blocks never share a line. */
    static final int ALIGNMENT = 128;

    private final Path path;
    private final FileChannel channel;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer header;
    private final long base;
    private final long dataLength;
    private final TreeMap<Long, Long> free = new TreeMap<>();
    private final Map<Long, Long> used = new HashMap<>();
    private long bump;
    private long inUse;
    /** Data bytes whose pages are allocated (a multiple of 4096, at least the bump pointer). */
    private long reserved;
    private boolean closed;

    private ShmPool(final Path path, final FileChannel channel, final MappedByteBuffer mapped, final long dataLength)
    {
        this.path = path;
        this.channel = channel;
        this.mapped = mapped;
        this.header = new UnsafeBuffer(mapped, 0, ShmPoolDescriptor.HEADER_LENGTH);
        this.base = header.addressOffset() + ShmPoolDescriptor.HEADER_LENGTH;
        this.dataLength = dataLength;
    }

    /**
     * Create and map the pool file of a domain: written under a temporary name (0600) then hard-linked into place,
     * so that a peer sees it complete or not at all.
     *
     * @param dir             the shm directory.
     * @param name            the domain name.
     * @param ringIncarnation the domain's ring incarnation.
     * @param dataLength      bytes of data, a multiple of 4096.
     * @return the pool.
     * @throws FabricException EIO when the file cannot be created.
     */
    static ShmPool create(final Path dir, final String name, final long ringIncarnation, final long dataLength)
    {
        final Path target = dir.resolve(ShmPoolDescriptor.fileName(name, ringIncarnation));
        final Path temp = dir.resolve("." + name + "." + ProcessIdentity.PID + "." +
            Long.toHexString(ShmRingFile.newIncarnation()) + ".tmp");
        final long fileLength = ShmPoolDescriptor.HEADER_LENGTH + dataLength;
        FileChannel channel = null;
        MappedByteBuffer mapped = null;
        try
        {
            ShmFiles.createOwnerOnly(temp);
            channel = ShmFiles.openNoFollow(temp, true);
            // Sparse but for the header: the data's space is reserved as blocks are handed out (allocate).
            ShmFiles.reserve(channel, target, 0, ShmPoolDescriptor.HEADER_LENGTH, "shared pool file");
            ShmFiles.reserve(channel, target, fileLength - 1, fileLength, "shared pool file");
            mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, fileLength);
            final UnsafeBuffer header = new UnsafeBuffer(mapped, 0, ShmPoolDescriptor.HEADER_LENGTH);
            header.putInt(ShmPoolDescriptor.VERSION_OFFSET, ShmPoolDescriptor.VERSION);
            header.putInt(ShmPoolDescriptor.HEADER_LENGTH_OFFSET, ShmPoolDescriptor.HEADER_LENGTH);
            header.putLong(ShmPoolDescriptor.DATA_LENGTH_OFFSET, dataLength);
            header.putLong(ShmPoolDescriptor.FILE_LENGTH_OFFSET, fileLength);
            header.putLong(ShmPoolDescriptor.PID_OFFSET, ProcessIdentity.PID);
            header.putLong(ShmPoolDescriptor.START_TIME_OFFSET, ProcessIdentity.START_TIME);
            header.putLong(ShmPoolDescriptor.RING_INCARNATION_OFFSET, ringIncarnation);
            header.putLong(ShmPoolDescriptor.BASE_OFFSET, header.addressOffset() + ShmPoolDescriptor.HEADER_LENGTH);
            // Release: the magic goes last.
            header.putLongRelease(ShmPoolDescriptor.MAGIC_OFFSET, ShmPoolDescriptor.MAGIC);
            Files.createLink(target, temp);
            return new ShmPool(target, channel, mapped, dataLength);
        }
        catch (final IOException ex)
        {
            ShmFiles.unmapQuietly(mapped, channel);
            throw new FabricException(Errno.EIO, "shm: cannot create shared pool file " + target + ": " + ex, ex);
        }
        catch (final RuntimeException ex)
        {
            ShmFiles.unmapQuietly(mapped, channel);
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

    /**
     * Remove a pool file whose owner process is gone (pools live no longer than their domain). Files that are not
     * pool files are left alone.
     *
     * @param file a {@code *.pool} file.
     * @return true when removed.
     */
    static boolean reclaimIfStale(final Path file)
    {
        try (FileChannel channel = ShmFiles.openNoFollow(file, false))
        {
            final ByteBuffer bytes = ByteBuffer.allocate(ShmPoolDescriptor.FIXED_HEADER_LENGTH)
                .order(ByteOrder.LITTLE_ENDIAN);
            while (bytes.hasRemaining())
            {
                if (channel.read(bytes, bytes.position()) < 0)
                {
                    return false;
                }
            }
            // Pool files are named <name>.<ring incarnation>.pool; the owner's liveness lock decides, not its pid.
            final String fileName = file.getFileName().toString();
            final String stem = fileName.substring(0, fileName.length() - ShmPoolDescriptor.SUFFIX.length());
            final int dot = stem.lastIndexOf('.');
            if (ShmPoolDescriptor.MAGIC != bytes.getLong(ShmPoolDescriptor.MAGIC_OFFSET) || dot < 1 ||
                ShmLiveness.DEAD != ShmLiveness.check(file.getParent(), stem.substring(0, dot),
                bytes.getLong(ShmPoolDescriptor.RING_INCARNATION_OFFSET)))
            {
                return false;
            }
            return Files.deleteIfExists(file);
        }
        catch (final IOException | FabricException ex)
        {
            return false;
        }
    }

    /**
     * Allocate a block.
     *
     * @param length bytes, at least 1.
     * @return a buffer over exactly {@code length} bytes of the block (zeroed on first use of its pages only; a
     * reused block keeps old contents).
     * @throws FabricException ENOMEM when no free space fits, naming the request and what is left; ENOSPC when the
     *                         file system has no room for the block's pages (EIO on another write error).
     */
    synchronized AtomicBuffer allocate(final int length)
    {
        if (closed)
        {
            throw new FabricException(Errno.EINVAL, "shm: shared pool " + path + " is closed");
        }
        final long size = BitUtil.align((long) length, ALIGNMENT);
        long offset = -1;
        for (final Map.Entry<Long, Long> e : free.entrySet())
        {
            final long blockLength = e.getValue();
            if (blockLength >= size)
            {
                // Read before removing: TreeMap may reuse the entry's node for its successor.
                offset = e.getKey();
                free.remove(offset);
                if (blockLength > size)
                {
                    free.put(offset + size, blockLength - size);
                }
                break;
            }
        }
        if (offset < 0)
        {
            if (dataLength - bump < size)
            {
                throw new FabricException(Errno.ENOMEM, "shm: shared pool exhausted: " + length + " bytes asked, " +
                    (dataLength - inUse) + " of " + dataLength + " free (" + ShmConfiguration.POOL_SIZE_PROP +
                    " sets the size)");
            }
            reserve(bump + size, length);
            offset = bump;
            bump += size;
        }
        used.put(offset, size);
        inUse += size;
        return new UnsafeBuffer(base + offset, length);
    }

    /**
     * Make sure the pages of the data up to {@code end} are allocated (written through the channel) before a block
     * there is handed out, and publish the new reserved length to peers.
     */
    private void reserve(final long end, final int length)
    {
        if (end <= reserved)
        {
            return;
        }
        final long newReserved = Math.min(dataLength, BitUtil.align(end, 4096));
        try
        {
            ShmFiles.reserve(channel, path, ShmPoolDescriptor.HEADER_LENGTH + reserved,
                ShmPoolDescriptor.HEADER_LENGTH + newReserved, "shared pool file");
        }
        catch (final FabricException ex)
        {
            throw new FabricException(ex.errno(), "shm: cannot hand out a shared pool block of " + length +
                " bytes: " + ex.getMessage(), ex);
        }
        reserved = newReserved;
        // Release: the pages are allocated before a peer may read that far.
        header.putLongRelease(ShmPoolDescriptor.RESERVED_OFFSET, newReserved);
    }

    /**
     * Free a block.
     *
     * @param buffer a buffer from {@link #allocate} (its address names the block).
     * @return true when freed, false when it is not a block of this pool in use.
     */
    synchronized boolean free(final DirectBuffer buffer)
    {
        final long offset = buffer.addressOffset() - base;
        final Long size = closed || offset < 0 || offset >= dataLength ? null : used.get(offset);
        if (null == size || BitUtil.align((long) buffer.capacity(), ALIGNMENT) != size)
        {
            return false;
        }
        used.remove(offset);
        inUse -= size;
        long start = offset;
        long length = size;
        final Map.Entry<Long, Long> before = free.floorEntry(start);
        if (null != before && before.getKey() + before.getValue() == start)
        {
            free.remove(before.getKey());
            start = before.getKey();
            length += before.getValue();
        }
        final Long after = free.get(start + length);
        if (null != after)
        {
            free.remove(start + length);
            length += after;
        }
        if (start + length == bump)
        {
            bump = start;
        }
        else
        {
            free.put(start, length);
        }
        return true;
    }

    /**
     * The local address of an own range when it lies in the pool (a rendezvous send to this very domain).
     *
     * @param address start.
     * @param length  bytes.
     * @return the address, or 0 when outside the pool.
     */
    long localAddress(final long address, final long length)
    {
        final long offset = address - base;
        // Acquire: the reserved length (allocate publishes it); never a page that may still be a hole.
        final long limit = header.getLongVolatile(ShmPoolDescriptor.RESERVED_OFFSET);
        return offset >= 0 && length > 0 && length <= limit && offset <= limit - length ? address : 0;
    }

    /**
     * Has the file become shorter than its mapping (someone cut it: touching the missing part faults)? One fstat.
     *
     * @return true when truncated or no longer readable.
     */
    boolean truncated()
    {
        try
        {
            return channel.size() < ShmPoolDescriptor.HEADER_LENGTH + dataLength;
        }
        catch (final IOException ex)
        {
            return true;
        }
    }

    /**
     * @return bytes of data.
     */
    long dataLength()
    {
        return dataLength;
    }

    /**
     * @return bytes in use (allocated blocks, rounded to the alignment).
     */
    synchronized long inUse()
    {
        return inUse;
    }

    /**
     * @return the file's path.
     */
    Path path()
    {
        return path;
    }

    /**
     * Remove the file and unmap it. Peers that map the file keep their mapping (the pages live until the last
     * mapping goes); they stop reading once they see the domain's ring closed. Idempotent.
     */
    @Override
    public synchronized void close()
    {
        if (!closed)
        {
            closed = true;
            try
            {
                Files.deleteIfExists(path);
            }
            catch (final IOException ignore)
            {
                // reclaimed by the stale-file scan of the next process
            }
            ShmFiles.unmapQuietly(mapped, channel);
        }
    }
}
