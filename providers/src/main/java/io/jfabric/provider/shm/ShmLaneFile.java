package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import org.agrona.CloseHelper;
import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The lanes of one writer domain incarnation into one reader domain incarnation: a file
 * {@code <dir>/<reader>.<reader incarnation hex>.<writer>.<writer incarnation hex>.lane}, created (0600, space
 * reserved, written under a temporary name and hard-linked) by the writer, holding two single-producer Agrona
 * {@link OneToOneRingBuffer}s: requests and answers. Only the writer's agent writes records and only the reader's
 * agent consumes them, so no update of this mapped memory is atomic: claims, commits and the consumer's position
 * are plain and release stores, which HotSpot turns into an {@code InternalError} when the file was cut under the
 * mapping (a CAS run by the interpreter would abort the JVM instead). A record is published by a release store of
 * its positive length; a writer killed between claim and commit leaves a negative length that the reader never
 * reads past, and the lane is dropped once its writer is dead and nothing committed is left.
 * <p>
 * Layout (little-endian), 4 KiB header then the two rings, each page aligned:
 * <pre>
 *   0  magic "JFSHMLNE" (64)
 *   8  version (32)            12 capacity of each ring (32)
 *  16  file length (64)
 *  24  reader incarnation (64) 32 writer incarnation (64)
 *  40  writer pid (64)
 *  48  reader name length (32) 52 reserved
 *  56  reader name, ASCII, 64 bytes
 * 4096 request ring (capacity + trailer), then the answer ring (page aligned)
 * </pre>
 * Threading: the rings as Agrona's (one producer thread, one consumer thread); the rest is control path.
 */
final class ShmLaneFile implements AutoCloseable
{
    /** File name suffix. */
    static final String SUFFIX = ".lane";
    /** "JFSHMLNE" read as a little-endian long. */
    static final long MAGIC = 0x454E4C4D4853464AL;
    /** Layout version. */
    static final int VERSION = 1;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 8;
    static final int CAPACITY_OFFSET = 12;
    static final int FILE_LENGTH_OFFSET = 16;
    static final int READER_INCARNATION_OFFSET = 24;
    static final int WRITER_INCARNATION_OFFSET = 32;
    static final int WRITER_PID_OFFSET = 40;
    static final int READER_NAME_LENGTH_OFFSET = 48;
    static final int READER_NAME_OFFSET = 56;
    /** Bytes before the request ring. */
    static final int HEADER_LENGTH = 4096;
    private static final int PAGE = 4096;

    private final Path path;
    private final FileChannel channel;
    private final MappedByteBuffer mapped;
    private final OneToOneRingBuffer requests;
    private final OneToOneRingBuffer answers;
    private final long fileLength;
    private boolean closed;

    private ShmLaneFile(final Path path, final FileChannel channel, final MappedByteBuffer mapped, final int capacity)
    {
        this.path = path;
        this.channel = channel;
        this.mapped = mapped;
        this.fileLength = mapped.capacity();
        final int ringLength = capacity + RingBufferDescriptor.TRAILER_LENGTH;
        this.requests = new OneToOneRingBuffer(new UnsafeBuffer(mapped, HEADER_LENGTH, ringLength));
        this.answers = new OneToOneRingBuffer(new UnsafeBuffer(mapped, (int) answerOffset(capacity), ringLength));
    }

    /**
     * @param capacity capacity of each ring.
     * @return offset of the answer ring.
     */
    static long answerOffset(final int capacity)
    {
        return BitUtil.align((long) HEADER_LENGTH + capacity + RingBufferDescriptor.TRAILER_LENGTH, PAGE);
    }

    /**
     * @param capacity capacity of each ring.
     * @return the length of a lane file.
     */
    static long fileLength(final int capacity)
    {
        return answerOffset(capacity) + capacity + RingBufferDescriptor.TRAILER_LENGTH;
    }

    /**
     * @param dir               the ring directory.
     * @param reader            the reader's name.
     * @param readerIncarnation the reader's incarnation.
     * @param writer            the writer's name.
     * @param writerIncarnation the writer's incarnation.
     * @return the lane file's path.
     */
    static Path pathOf(
        final Path dir, final String reader, final long readerIncarnation, final String writer,
        final long writerIncarnation)
    {
        return dir.resolve(reader + "." + Long.toHexString(readerIncarnation) + "." + writer + "." +
            Long.toHexString(writerIncarnation) + SUFFIX);
    }

    /**
     * Writer: map the lane into a reader, creating it (space reserved) unless this writer incarnation made it
     * before (a re-attach after the reader was taken for dead: the producer's position is in the file). A damaged
     * file of ours is replaced.
     *
     * @param dir               the ring directory.
     * @param reader            the reader's name.
     * @param readerIncarnation the reader's incarnation.
     * @param writer            this domain's name.
     * @param writerIncarnation this domain's incarnation.
     * @param capacity          capacity of each ring.
     * @return the mapped lanes.
     * @throws FabricException ENOSPC (naming the file, the bytes needed and free) when the file system is full; EIO
     *                         or EACCES on file errors.
     */
    static ShmLaneFile writer(
        final Path dir, final String reader, final long readerIncarnation, final String writer,
        final long writerIncarnation, final int capacity)
    {
        final Path target = pathOf(dir, reader, readerIncarnation, writer, writerIncarnation);
        try
        {
            final ShmLaneFile existing = open(target, readerIncarnation, writerIncarnation);
            if (null != existing)
            {
                return existing;
            }
        }
        catch (final FabricException ex)
        {
            deleteQuietly(target);
        }
        final Path temp = dir.resolve("." + target.getFileName() + "." + ProcessIdentity.PID + "." +
            Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1) + ".tmp");
        final long length = fileLength(capacity);
        FileChannel channel = null;
        MappedByteBuffer mapped = null;
        try
        {
            ShmFiles.createOwnerOnly(temp);
            channel = ShmFiles.openNoFollow(temp, true);
            // Every page allocated now: a sparse file on a full tmpfs faults (SIGBUS) when first touched.
            ShmFiles.reserve(channel, target, 0, length, "lane file");
            mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
            final UnsafeBuffer header = new UnsafeBuffer(mapped, 0, HEADER_LENGTH);
            header.putInt(VERSION_OFFSET, VERSION);
            header.putInt(CAPACITY_OFFSET, capacity);
            header.putLong(FILE_LENGTH_OFFSET, length);
            header.putLong(READER_INCARNATION_OFFSET, readerIncarnation);
            header.putLong(WRITER_INCARNATION_OFFSET, writerIncarnation);
            header.putLong(WRITER_PID_OFFSET, ProcessIdentity.PID);
            final byte[] ascii = reader.getBytes(StandardCharsets.US_ASCII);
            header.putInt(READER_NAME_LENGTH_OFFSET, ascii.length);
            header.putBytes(READER_NAME_OFFSET, ascii);
            header.putLongRelease(MAGIC_OFFSET, MAGIC);
            try
            {
                Files.createLink(target, temp);
            }
            catch (final FileAlreadyExistsException ex)
            {
                // Another thread of this incarnation (an AV insert beside the agent meeting the same peer) linked
                // it first: use that one (a second mapping; only the agent thread ever produces into it).
                ShmFiles.unmapQuietly(mapped, channel);
                mapped = null;
                channel = null;
                final ShmLaneFile existing = open(target, readerIncarnation, writerIncarnation);
                if (null == existing)
                {
                    throw new FabricException(Errno.EIO, "shm: lane file " + target + " vanished while created");
                }
                return existing;
            }
            return new ShmLaneFile(target, channel, mapped, capacity);
        }
        catch (final IOException ex)
        {
            ShmFiles.unmapQuietly(mapped, channel);
            throw new FabricException(Errno.EIO, "shm: cannot create lane file " + target + ": " + ex, ex);
        }
        catch (final RuntimeException ex)
        {
            ShmFiles.unmapQuietly(mapped, channel);
            throw ex;
        }
        finally
        {
            deleteQuietly(temp);
        }
    }

    /**
     * Reader: map a writer's lane into this domain.
     *
     * @param dir               the ring directory.
     * @param reader            this domain's name.
     * @param readerIncarnation this domain's incarnation.
     * @param writer            the writer's name (from its sender slot).
     * @param writerIncarnation the writer's incarnation (from its sender slot).
     * @return the mapped lanes, or null when the file does not exist.
     * @throws FabricException EIO when the file is not a valid lane file of this pair; EACCES when its owner or
     *                         mode is wrong.
     */
    static ShmLaneFile reader(
        final Path dir, final String reader, final long readerIncarnation, final String writer,
        final long writerIncarnation)
    {
        return open(pathOf(dir, reader, readerIncarnation, writer, writerIncarnation), readerIncarnation,
            writerIncarnation);
    }

    private static ShmLaneFile open(final Path path, final long readerIncarnation, final long writerIncarnation)
    {
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
            final ByteBuffer bytes = ByteBuffer.allocate(READER_NAME_OFFSET).order(ByteOrder.LITTLE_ENDIAN);
            final long size = channel.size();
            if (size < HEADER_LENGTH)
            {
                throw invalid(path, "truncated: " + size + " bytes");
            }
            while (bytes.hasRemaining())
            {
                if (channel.read(bytes, bytes.position()) < 0)
                {
                    throw invalid(path, "truncated while reading its header");
                }
            }
            final int capacity = bytes.getInt(CAPACITY_OFFSET);
            if (MAGIC != bytes.getLong(MAGIC_OFFSET) || VERSION != bytes.getInt(VERSION_OFFSET))
            {
                throw invalid(path, "corrupt: bad magic or version");
            }
            if (Integer.bitCount(capacity) != 1 || capacity < ShmConfiguration.MIN_RING_CAPACITY ||
                capacity > ShmConfiguration.MAX_RING_CAPACITY ||
                bytes.getLong(FILE_LENGTH_OFFSET) != fileLength(capacity))
            {
                throw invalid(path, "corrupt: capacity " + capacity);
            }
            if (size < fileLength(capacity))
            {
                throw invalid(path, "truncated: " + size + " bytes, a lane of capacity " + capacity + " needs " +
                    fileLength(capacity));
            }
            if (bytes.getLong(READER_INCARNATION_OFFSET) != readerIncarnation ||
                bytes.getLong(WRITER_INCARNATION_OFFSET) != writerIncarnation)
            {
                throw invalid(path, "corrupt: it names other incarnations");
            }
            ShmFiles.checkFile(path);
            final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, fileLength(capacity));
            return new ShmLaneFile(path, channel, mapped, capacity);
        }
        catch (final IOException ex)
        {
            CloseHelper.quietClose(channel);
            throw new FabricException(Errno.EIO, "shm: cannot map lane file " + path + ": " + ex, ex);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(channel);
            throw ex;
        }
    }

    private static FabricException invalid(final Path path, final String defect)
    {
        return new FabricException(Errno.EIO, "shm: lane file " + path + " is " + defect);
    }

    /**
     * Stale scan: remove a lane file whose reader incarnation is dead (its writer may still hold the mapping; it
     * notices the reader's death on its own), or an unreadable one that is not young.
     *
     * @param file a {@code *.lane} file in the ring directory.
     * @return true when removed.
     */
    static boolean reclaimIfStale(final Path file)
    {
        try (FileChannel channel = ShmFiles.openNoFollow(file, false))
        {
            final ByteBuffer bytes = ByteBuffer.allocate(READER_NAME_OFFSET + ShmRingDescriptor.MAX_NAME_LENGTH)
                .order(ByteOrder.LITTLE_ENDIAN);
            while (bytes.hasRemaining() && channel.read(bytes, bytes.position()) > 0)
            {
                // read the header
            }
            final int nameLength = bytes.getInt(READER_NAME_LENGTH_OFFSET);
            final boolean readable = !bytes.hasRemaining() && MAGIC == bytes.getLong(MAGIC_OFFSET) &&
                nameLength > 0 && nameLength <= ShmRingDescriptor.MAX_NAME_LENGTH;
            final boolean stale;
            if (readable)
            {
                final byte[] ascii = new byte[nameLength];
                bytes.get(READER_NAME_OFFSET, ascii);
                stale = ShmLiveness.DEAD == ShmLiveness.check(file.getParent(),
                    new String(ascii, StandardCharsets.US_ASCII), bytes.getLong(READER_INCARNATION_OFFSET));
            }
            else
            {
                stale = System.currentTimeMillis() - Files.getLastModifiedTime(file).toMillis() >
                    ShmLiveness.STALE_LOCK_MIN_AGE_MS;
            }
            return stale && Files.deleteIfExists(file);
        }
        catch (final IOException | RuntimeException ex)
        {
            return false;
        }
    }

    /**
     * @return the request ring.
     */
    OneToOneRingBuffer requests()
    {
        return requests;
    }

    /**
     * @return the answer ring.
     */
    OneToOneRingBuffer answers()
    {
        return answers;
    }

    /**
     * @return the file's path.
     */
    Path path()
    {
        return path;
    }

    /**
     * Reader: is nothing committed left in either ring (a claim its dead writer never committed counts as
     * nothing)? Only meaningful once the writer is known dead.
     *
     * @return true when drained.
     */
    boolean drained()
    {
        return drained(requests) && drained(answers);
    }

    private static boolean drained(final OneToOneRingBuffer ring)
    {
        final long head = ring.consumerPosition();
        if (head == ring.producerPosition())
        {
            return true;
        }
        final int index = (int) (head & (ring.capacity() - 1));
        return ring.buffer().getIntVolatile(RecordDescriptor.lengthOffset(index)) <= 0;
    }

    /**
     * Has the file become shorter than its mapping? One fstat.
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
     * Remove the file (the mapping stays valid until closed).
     */
    void delete()
    {
        deleteQuietly(path);
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
            // the stale-file scan removes it
        }
    }

    @Override
    public String toString()
    {
        return "ShmLaneFile{" + path + "}";
    }
}
