/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A ring in a memory-mapped file, so that another process (or another mapping in this one) can map the same ring.
 * {@link #create(Path, RingKind, int)} makes a zeroed file of the right length and formats its header;
 * {@link #open(Path, RingKind)} maps an existing file after checking its length and header, refusing a missing,
 * truncated, foreign or mismatched file with an exception that names the file and the sizes. Build the ring over
 * {@link #buffer()}: {@code new ManyToOneCommandRing(file.buffer())}.
 * <p>
 * Threading: creation and {@link #close()} are control-path calls for one thread; {@link #buffer()} is safe from any
 * thread. Closing unmaps the file: no ring over the buffer may be used afterwards. Truncating the file while it is
 * mapped is outside this contract (the operating system faults on access beyond the end).
 */
public final class MappedRingFile implements AutoCloseable
{
    private final Path path;
    private final RingKind kind;
    private final int capacity;
    private final MappedByteBuffer mappedBuffer;
    private final UnsafeBuffer buffer;
    private boolean closed;

    private MappedRingFile(final Path path, final RingKind kind, final int capacity, final MappedByteBuffer mapped)
    {
        this.path = path;
        this.kind = kind;
        this.capacity = capacity;
        this.mappedBuffer = mapped;
        this.buffer = new UnsafeBuffer(mapped);
    }

    /**
     * Create (or replace) a file holding a zeroed, formatted ring of the given kind and capacity, and map it.
     *
     * @param path     of the file; its parent directory must exist.
     * @param kind     of ring.
     * @param capacity in slots or entries, a power of two.
     * @return the mapped file.
     * @throws IllegalArgumentException if the capacity is invalid for the kind.
     * @throws UncheckedIOException     naming the file if it cannot be created or mapped.
     */
    public static MappedRingFile create(final Path path, final RingKind kind, final int capacity)
    {
        final int length = kind.requiredLength(capacity);
        final MappedByteBuffer mapped;
        try
        {
            mapped = IoUtil.mapNewFile(path.toFile(), length, true);
        }
        catch (final RuntimeException ex)
        {
            throw new UncheckedIOException("cannot create ring file " + path + " of " + length + " bytes",
                ex.getCause() instanceof IOException ? (IOException) ex.getCause() : new IOException(ex));
        }
        final MappedRingFile file = new MappedRingFile(path, kind, capacity, mapped);
        RingDescriptor.formatOrValidate(file.buffer, kind);
        return file;
    }

    /**
     * Map an existing ring file after checking that it holds a formatted ring of the expected kind whose capacity
     * matches the file's length.
     *
     * @param path of the file.
     * @param kind of ring expected.
     * @return the mapped file.
     * @throws IllegalStateException naming the file and the sizes if the file is missing, too short, too long, not a
     *                               ring, another kind of ring, or its header disagrees with its length.
     */
    public static MappedRingFile open(final Path path, final RingKind kind)
    {
        final long fileLength;
        try
        {
            fileLength = Files.size(path);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot open ring file " + path + ": " + ex, ex);
        }
        if (fileLength < RingDescriptor.HEADER_LENGTH)
        {
            throw new IllegalStateException("ring file " + path + " is " + fileLength + " bytes, shorter than the " +
                RingDescriptor.HEADER_LENGTH + "-byte ring header (truncated or not a ring)");
        }
        if (fileLength > Integer.MAX_VALUE)
        {
            throw new IllegalStateException("ring file " + path + " is " + fileLength +
                " bytes, longer than any ring (" + Integer.MAX_VALUE + " bytes)");
        }

        final MappedByteBuffer headerMapping = IoUtil.mapExistingFile(
            path.toFile(), "ring header", 0, RingDescriptor.HEADER_LENGTH);
        final String problem;
        try
        {
            problem = RingDescriptor.headerProblem(new UnsafeBuffer(headerMapping), kind, fileLength);
        }
        finally
        {
            IoUtil.unmap(headerMapping);
        }
        if (null != problem)
        {
            throw new IllegalStateException("ring file " + path + " (" + fileLength + " bytes) refused: " + problem);
        }

        final MappedByteBuffer mapped = IoUtil.mapExistingFile(path.toFile(), "ring", 0, fileLength);
        final MappedRingFile file = new MappedRingFile(path, kind, kind.capacityFor((int) fileLength), mapped);
        RingDescriptor.formatOrValidate(file.buffer, kind);
        return file;
    }

    /**
     * The mapped ring, header included; build a ring of {@link #kind()} over it.
     *
     * @return the buffer over the whole file.
     */
    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    /**
     * The file this ring lives in.
     *
     * @return the path.
     */
    public Path path()
    {
        return path;
    }

    /**
     * The kind of ring in the file.
     *
     * @return the kind.
     */
    public RingKind kind()
    {
        return kind;
    }

    /**
     * The ring's capacity.
     *
     * @return the capacity in slots or entries.
     */
    public int capacity()
    {
        return capacity;
    }

    /**
     * Unmap the file (the file itself stays). Idempotent.
     */
    public void close()
    {
        if (!closed)
        {
            closed = true;
            IoUtil.unmap(mappedBuffer);
        }
    }
}
