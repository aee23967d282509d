package io.jfabric.provider.shm;

import org.agrona.CloseHelper;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * A peer's shared pool (layout in {@link ShmPoolDescriptor}) mapped read-only here, to copy rendezvous data straight
 * out of the peer's blocks. The file is validated with plain reads before it is mapped (magic, version, lengths,
 * the owner and ring incarnation it must belong to, and an actual size not shorter than the length it declares),
 * and the mapping never extends past that length.
 * <p>
 * Threading: owned by the domain agent.
 */
final class ShmPeerPool implements AutoCloseable
{
    private final FileChannel channel;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer header;
    private final long ringIncarnation;
    private final long base;
    private final long dataLength;
    private final long fileLength;
    private final long localData;
    private boolean closed;

    private ShmPeerPool(
        final FileChannel channel,
        final MappedByteBuffer mapped,
        final long ringIncarnation,
        final long base,
        final long dataLength)
    {
        this.channel = channel;
        this.mapped = mapped;
        this.ringIncarnation = ringIncarnation;
        this.base = base;
        this.dataLength = dataLength;
        this.fileLength = ShmPoolDescriptor.HEADER_LENGTH + dataLength;
        this.header = new UnsafeBuffer(mapped, 0, ShmPoolDescriptor.HEADER_LENGTH);
        this.localData = header.addressOffset() + ShmPoolDescriptor.HEADER_LENGTH;
    }

    /**
     * Map the pool of a peer incarnation.
     *
     * @param dir             the shm directory.
     * @param name            the peer's domain name.
     * @param ringIncarnation the incarnation of the peer's ring file this pool must belong to.
     * @param pid             the peer's pid.
     * @param announcedLength the data length the peer's ring header announces.
     * @return the mapping, or null when the file is missing or not a valid pool of that incarnation.
     */
    static ShmPeerPool open(
        final Path dir, final String name, final long ringIncarnation, final long pid, final long announcedLength)
    {
        final Path path = dir.resolve(ShmPoolDescriptor.fileName(name, ringIncarnation));
        FileChannel channel = null;
        try
        {
            channel = ShmFiles.openChecked(path, false);
            final ByteBuffer bytes = ByteBuffer.allocate(ShmPoolDescriptor.FIXED_HEADER_LENGTH)
                .order(ByteOrder.LITTLE_ENDIAN);
            while (bytes.hasRemaining())
            {
                if (channel.read(bytes, bytes.position()) < 0)
                {
                    CloseHelper.quietClose(channel);
                    return null;
                }
            }
            final long dataLength = bytes.getLong(ShmPoolDescriptor.DATA_LENGTH_OFFSET);
            final long fileLength = bytes.getLong(ShmPoolDescriptor.FILE_LENGTH_OFFSET);
            if (ShmPoolDescriptor.MAGIC != bytes.getLong(ShmPoolDescriptor.MAGIC_OFFSET) ||
                ShmPoolDescriptor.VERSION != bytes.getInt(ShmPoolDescriptor.VERSION_OFFSET) ||
                ShmPoolDescriptor.HEADER_LENGTH != bytes.getInt(ShmPoolDescriptor.HEADER_LENGTH_OFFSET) ||
                dataLength != announcedLength || dataLength <= 0 || dataLength > ShmConfiguration.MAX_POOL_SIZE ||
                fileLength != ShmPoolDescriptor.HEADER_LENGTH + dataLength ||
                ringIncarnation != bytes.getLong(ShmPoolDescriptor.RING_INCARNATION_OFFSET) ||
                pid != bytes.getLong(ShmPoolDescriptor.PID_OFFSET) ||
                channel.size() < fileLength)
            {
                CloseHelper.quietClose(channel);
                return null;
            }
            final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, fileLength);
            return new ShmPeerPool(channel, mapped, ringIncarnation,
                bytes.getLong(ShmPoolDescriptor.BASE_OFFSET), dataLength);
        }
        catch (final IOException | RuntimeException ex)
        {
            CloseHelper.quietClose(channel);
            return null;
        }
    }

    /**
     * @return the incarnation of the peer's ring this pool belongs to.
     */
    long ringIncarnation()
    {
        return ringIncarnation;
    }

    /**
     * Translate a range of the owner's address space into this mapping.
     *
     * @param address start in the owner's address space.
     * @param length  bytes, at least 1.
     * @return the local address, or 0 when the range is not wholly inside the pool's reserved data.
     */
    long translate(final long address, final long length)
    {
        final long offset = address - base;
        // Acquire: only the part the owner reserved (a hole past it can fault when touched on a full tmpfs).
        final long limit = Math.min(dataLength, header.getLongVolatile(ShmPoolDescriptor.RESERVED_OFFSET));
        return offset >= 0 && length > 0 && length <= limit && offset <= limit - length ? localData + offset : 0;
    }

    /**
     * Has the file become shorter than the mapping (reading the missing part would fault)? One fstat.
     *
     * @return true when truncated or unreadable.
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
     * Unmap. Idempotent.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            IoUtil.unmap(mapped);
            CloseHelper.quietClose(channel);
        }
    }
}
