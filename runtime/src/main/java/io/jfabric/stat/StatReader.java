package io.jfabric.stat;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import org.agrona.IoUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.errors.ErrorConsumer;
import org.agrona.concurrent.errors.ErrorLogReader;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Reads a process's counters file ({@link CountersFile}, layout {@link CountersFileDescriptor}) from any process,
 * the owner's included: {@link #list} finds the files in a directory, {@link #open} maps one read-only, then
 * {@link #forEachCounter} visits the allocated counters with their labels and values and {@link #readErrors} the
 * distinct error log. This is what {@code jfabric stat} is built on.
 * <p>
 * Values are read with acquire loads while the owner writes them: each value is a consistent snapshot of that
 * counter, not of the set. A file of this JVM is read through the owner's mapping (opening it would drop the owner's
 * lock, see {@link CountersFile}), which stays mapped until the reader closes.
 * <p>
 * Threading: an instance is for one thread at a time; the static methods are thread-safe.
 */
public final class StatReader implements AutoCloseable
{
    /**
     * What the owner's lock of a counters file says.
     */
    public enum Liveness
    {
        /** The lock is held: the owner lives (or it is this JVM's file). */
        ALIVE,
        /** The lock could be taken: the owner is gone, the file is stale. */
        DEAD,
        /** The lock could not be tried (no lock support, an I/O error, a symbolic link). */
        UNKNOWN
    }

    /**
     * Receives the allocated counters.
     */
    @FunctionalInterface
    public interface CounterConsumer
    {
        /**
         * @param counterId the counter's id in the file.
         * @param typeId    its type ({@link DomainCounters#TYPE_COMMANDS} ...,
         *                  {@link CountersFile#TYPE_PROCESS_ERRORS}).
         * @param value     its value.
         * @param label     its label.
         */
        void onCounter(int counterId, int typeId, long value, String label);
    }

    private final Path path;
    private final CountersFile local;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer buffer;
    private final CountersReader counters;
    private final AtomicBuffer errorLog;
    private boolean closed;

    private StatReader(final Path path, final CountersFile local, final MappedByteBuffer mapped,
        final UnsafeBuffer buffer)
    {
        this.path = path;
        this.local = local;
        this.mapped = mapped;
        this.buffer = buffer;
        this.counters = new CountersReader(
            new UnsafeBuffer(buffer, buffer.getInt(CountersFileDescriptor.METADATA_OFFSET_OFFSET),
                buffer.getInt(CountersFileDescriptor.METADATA_LENGTH_OFFSET)),
            new UnsafeBuffer(buffer, buffer.getInt(CountersFileDescriptor.VALUES_OFFSET_OFFSET),
                buffer.getInt(CountersFileDescriptor.VALUES_LENGTH_OFFSET)),
            StandardCharsets.US_ASCII);
        this.errorLog = new UnsafeBuffer(buffer, buffer.getInt(CountersFileDescriptor.ERROR_LOG_OFFSET_OFFSET),
            buffer.getInt(CountersFileDescriptor.ERROR_LOG_LENGTH_OFFSET));
    }

    /**
     * The default directory ({@link CountersConfiguration#directory()}).
     *
     * @return the directory this process's own file is (or would be) in.
     */
    public static Path defaultDirectory()
    {
        return CountersConfiguration.directory();
    }

    /**
     * The counters files in a directory ({@code counters-<pid>-<incarnation>.cnc}), stale ones included
     * ({@link #liveness}).
     *
     * @param dir the directory.
     * @return the files, sorted by name; empty when the directory does not exist.
     * @throws FabricException EIO when the directory cannot be read.
     */
    public static List<Path> list(final Path dir)
    {
        final List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir))
        {
            for (final Path file : stream)
            {
                final String name = file.getFileName().toString();
                if (name.startsWith(CountersFileDescriptor.PREFIX) && name.endsWith(CountersFileDescriptor.SUFFIX))
                {
                    files.add(file);
                }
            }
        }
        catch (final NoSuchFileException ex)
        {
            return Collections.emptyList();
        }
        catch (final IOException ex)
        {
            throw new FabricException(Errno.EIO, "cannot list counters files in " + dir + ": " + ex, ex);
        }
        Collections.sort(files);
        return files;
    }

    /**
     * Is the owner of a counters file alive (its lock held)? Opens the file of another JVM for a moment.
     *
     * @param file a counters file.
     * @return the owner's state.
     */
    public static Liveness liveness(final Path file)
    {
        return CountersFile.ownerState(file);
    }

    /**
     * Remove the files of dead owners from a directory, by the rule every new counters file's creator applies
     * ({@link CountersFile}: a file whose owner's lock can be taken, a temporary file too when older than 10 s; this
     * JVM's files never). For {@code jfabric stat --reclaim}.
     *
     * @param dir the directory.
     * @return files removed.
     */
    public static int reclaimStale(final Path dir)
    {
        return CountersFile.reclaimStale(dir.toAbsolutePath().normalize());
    }

    /**
     * Map a counters file read-only (or, for this JVM's own file, share the owner's mapping).
     *
     * @param file a counters file.
     * @return the reader; close it to unmap.
     * @throws FabricException ENOENT when the file does not exist; EIO when it cannot be read or is not a ready
     *                         counters file of this layout (the message says which).
     */
    public static StatReader open(final Path file)
    {
        final CountersFile own = CountersFile.retainLocal(file);
        if (null != own)
        {
            return new StatReader(file, own, null, new UnsafeBuffer(own.buffer(), 0, own.length()));
        }
        MappedByteBuffer mapped = null;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))
        {
            final long size = channel.size();
            mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, Math.min(size, Integer.MAX_VALUE));
            final UnsafeBuffer buffer = new UnsafeBuffer(mapped);
            final String defect = CountersFileDescriptor.defect(buffer, buffer.capacity());
            if (null != defect)
            {
                throw new FabricException(Errno.EIO, "counters file " + file + ": " + defect);
            }
            return new StatReader(file, null, mapped, buffer);
        }
        catch (final NoSuchFileException ex)
        {
            throw new FabricException(Errno.ENOENT, "no counters file " + file, ex);
        }
        catch (final IOException ex)
        {
            throw new FabricException(Errno.EIO, "cannot map counters file " + file + ": " + ex, ex);
        }
        catch (final RuntimeException ex)
        {
            if (null != mapped)
            {
                IoUtil.unmap(mapped);
            }
            throw ex;
        }
    }

    /**
     * @return the file read.
     */
    public Path path()
    {
        return path;
    }

    /**
     * @return the owner's pid (in the owner's PID namespace).
     */
    public long pid()
    {
        return buffer.getLong(CountersFileDescriptor.PID_OFFSET);
    }

    /**
     * @return the owner process's start time, epoch ms (0 when its platform did not say).
     */
    public long processStartMs()
    {
        return buffer.getLong(CountersFileDescriptor.PROCESS_START_OFFSET);
    }

    /**
     * @return when the file was created, epoch ms.
     */
    public long creationTimeMs()
    {
        return buffer.getLong(CountersFileDescriptor.CREATION_TIME_OFFSET);
    }

    /**
     * @return whether the owner is alive now ({@link #liveness(Path)}; this JVM's own file is alive).
     */
    public Liveness liveness()
    {
        return null != local ? Liveness.ALIVE : liveness(path);
    }

    /**
     * @return an Agrona counters reader over the file (for lookups by id, type or registration id).
     */
    public CountersReader counters()
    {
        return counters;
    }

    /**
     * Visit every allocated counter.
     *
     * @param consumer receives id, type, value and label.
     * @return how many were visited.
     */
    public int forEachCounter(final CounterConsumer consumer)
    {
        final CountersReader reader = counters;
        int visited = 0;
        for (int id = 0; id <= reader.maxCounterId(); id++)
        {
            final int state = reader.getCounterState(id);
            if (CountersReader.RECORD_ALLOCATED == state)
            {
                consumer.onCounter(id, reader.getCounterTypeId(id), reader.getCounterValue(id),
                    reader.getCounterLabel(id));
                visited++;
            }
            else if (CountersReader.RECORD_UNUSED == state)
            {
                // Counters are allocated from the lowest unused id up: nothing beyond the first never-used record.
                break;
            }
        }
        return visited;
    }

    /**
     * Read the distinct error log: each distinct error once, with how often it was seen and when first and last.
     *
     * @param consumer receives (observation count, first and last timestamp in epoch ms, the stack trace).
     * @return distinct errors read.
     */
    public int readErrors(final ErrorConsumer consumer)
    {
        return ErrorLogReader.read(errorLog, consumer);
    }

    /**
     * Unmap the file (or let go of the owner's mapping).
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (null != local)
        {
            local.releaseMapping();
        }
        else
        {
            IoUtil.unmap(mapped);
        }
    }
}
