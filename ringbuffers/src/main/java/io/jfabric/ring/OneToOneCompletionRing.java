/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.concurrent.AtomicBuffer;

import static io.jfabric.ring.CompletionRingDescriptor.BUFFER_OFFSET;
import static io.jfabric.ring.CompletionRingDescriptor.CONTEXT_OFFSET;
import static io.jfabric.ring.CompletionRingDescriptor.DATA_OFFSET;
import static io.jfabric.ring.CompletionRingDescriptor.ENTRY_SHIFT;
import static io.jfabric.ring.CompletionRingDescriptor.ERRNO_OFFSET;
import static io.jfabric.ring.CompletionRingDescriptor.FLAGS_OFFSET;
import static io.jfabric.ring.CompletionRingDescriptor.LENGTH_OFFSET;
import static io.jfabric.ring.CompletionRingDescriptor.OVERFLOW_LENGTH_OFFSET;
import static io.jfabric.ring.CompletionRingDescriptor.PROV_ERRNO_OFFSET;
import static io.jfabric.ring.CompletionRingDescriptor.TAG_OFFSET;
import static io.jfabric.ring.RingDescriptor.HEADER_LENGTH;
import static io.jfabric.ring.RingDescriptor.HEAD_CACHE_OFFSET;
import static io.jfabric.ring.RingDescriptor.HEAD_OFFSET;
import static io.jfabric.ring.RingDescriptor.TAIL_CACHE_OFFSET;
import static io.jfabric.ring.RingDescriptor.TAIL_OFFSET;

/**
 * A completion ring with one producer (the domain agent) and one reader (a CQ read by one thread at a time).
 * Layout: {@link CompletionRingDescriptor}. Entries carry no per-entry header: the producer releases the tail after
 * writing an entry and the reader releases the head after reading, each caching the other's position (in the
 * buffer, on its own cache line) so that it reads the other side's line once per batch rather than once per entry.
 * Nothing is zeroed on read.
 * <p>
 * Threading: {@link #write} and {@link #writeError} for one producer thread at a time; {@link #read} and
 * {@link #readError} for one reader thread at a time (hand-over needs a happens-before edge, such as the lock of a
 * CQ opened with FI_THREAD_SAFE; prefer {@link SharedCompletionRing} for concurrent readers). Wait-free.
 */
public final class OneToOneCompletionRing implements CompletionRing
{
    private final AtomicBuffer buffer;
    private final int capacity;
    private final int mask;

    /**
     * Create a ring over a buffer: a zeroed buffer is formatted, one that already holds a completion ring (for
     * example a second mapping of a file) is checked and used as it is, continuing from its head and tail.
     *
     * @param buffer of {@link CompletionRingDescriptor#requiredLength(int)} bytes, 8-byte aligned.
     * @throws IllegalArgumentException if the length fits no completion ring.
     * @throws IllegalStateException    if the buffer holds another kind of ring or a different capacity.
     */
    public OneToOneCompletionRing(final AtomicBuffer buffer)
    {
        this.buffer = buffer;
        this.capacity = RingDescriptor.formatOrValidate(buffer, RingKind.COMPLETION);
        this.mask = capacity - 1;
        // private cached positions live in the buffer (see RingDescriptor), not in fields of this object; they are
        // only ever lower bounds of the real positions, so a reopened ring continues with them as they are.
    }

    /**
     * {@inheritDoc}
     * <p>
     * Not thread-safe: the single producer only.
     */
    public int write(
        final long context, final long flags, final long length, final long address, final long data, final long tag)
    {
        return append(context, flags, length, address, data, tag, 0, 0, 0L);
    }

    /**
     * {@inheritDoc}
     * <p>
     * Not thread-safe: the single producer only.
     */
    public int writeError(
        final long context,
        final long flags,
        final long length,
        final long address,
        final long data,
        final long tag,
        final int errno,
        final int providerErrno,
        final long overflowLength)
    {
        if (errno <= 0)
        {
            throw new IllegalArgumentException("error entry errno must be a positive fi_errno: " + errno);
        }
        return append(context, flags, length, address, data, tag, errno, providerErrno, overflowLength);
    }

    private int append(
        final long context,
        final long flags,
        final long length,
        final long address,
        final long data,
        final long tag,
        final int errno,
        final int providerErrno,
        final long overflowLength)
    {
        final AtomicBuffer buffer = this.buffer;
        // plain: the single producer owns the tail and the head cache.
        final long tail = buffer.getLong(TAIL_OFFSET);
        // acquire/release on the cache: it may have been written by an earlier producer (a reopened ring), and the
        // chain reader release -> acquire of head -> release of cache -> acquire here orders the reader's reads
        // before our overwrite. Both are plain moves on x86.
        if (tail - buffer.getLongAcquire(HEAD_CACHE_OFFSET) >= capacity)
        {
            // acquire: pairs with the reader's release of the head, so it has finished reading the entry we reuse.
            final long head = buffer.getLongVolatile(HEAD_OFFSET);
            buffer.putLongRelease(HEAD_CACHE_OFFSET, head);
            if (tail - head >= capacity)
            {
                return RingStatus.INSUFFICIENT_CAPACITY;
            }
        }
        final int offset = HEADER_LENGTH + (((int) tail & mask) << ENTRY_SHIFT);
        buffer.putLong(offset + CONTEXT_OFFSET, context);
        buffer.putLong(offset + FLAGS_OFFSET, flags);
        buffer.putLong(offset + LENGTH_OFFSET, length);
        buffer.putLong(offset + BUFFER_OFFSET, address);
        buffer.putLong(offset + DATA_OFFSET, data);
        buffer.putLong(offset + TAG_OFFSET, tag);
        buffer.putInt(offset + ERRNO_OFFSET, errno);
        buffer.putInt(offset + PROV_ERRNO_OFFSET, providerErrno);
        buffer.putLong(offset + OVERFLOW_LENGTH_OFFSET, overflowLength);
        // release: the plain stores of the entry above are visible to a reader that acquires the tail.
        buffer.putLongRelease(TAIL_OFFSET, tail + 1);
        return 0;
    }

    /**
     * {@inheritDoc}
     * <p>
     * Not thread-safe: the single reader only. If the handler throws, the entry it was given counts as read.
     */
    public int read(final CompletionHandler handler, final int limit)
    {
        final AtomicBuffer buffer = this.buffer;
        final int mask = this.mask;
        // plain: the single reader owns the head and the tail cache.
        final long initialHead = buffer.getLong(HEAD_OFFSET);
        long head = initialHead;
        final long wanted = head + Math.max(0, limit);
        // acquire/release on the cache, for the same reason as the producer's head cache.
        long tail = buffer.getLongAcquire(TAIL_CACHE_OFFSET);
        if (tail < wanted)
        {
            // acquire: pairs with the producer's release of the tail, so the entries before it are complete.
            tail = buffer.getLongVolatile(TAIL_OFFSET);
            buffer.putLongRelease(TAIL_CACHE_OFFSET, tail);
        }
        if (head >= tail)
        {
            return 0;
        }

        final long end = Math.min(tail, wanted);
        try
        {
            while (head < end)
            {
                final int offset = HEADER_LENGTH + (((int) head & mask) << ENTRY_SHIFT);
                if (0 != buffer.getInt(offset + ERRNO_OFFSET))
                {
                    break;
                }
                head++;
                handler.onCompletion(buffer, offset);
            }
        }
        finally
        {
            if (head != initialHead)
            {
                // release: our reads of the entries happen before the producer reuses them.
                buffer.putLongRelease(HEAD_OFFSET, head);
            }
        }

        final int count = (int) (head - initialHead);
        return 0 == count && head < end ? RingStatus.ERROR_AVAILABLE : count;
    }

    /**
     * {@inheritDoc}
     * <p>
     * Not thread-safe: the single reader only.
     */
    public int readError(final CompletionHandler handler)
    {
        final AtomicBuffer buffer = this.buffer;
        // plain: the single reader owns the head and the tail cache.
        final long head = buffer.getLong(HEAD_OFFSET);
        if (head >= buffer.getLongAcquire(TAIL_CACHE_OFFSET))
        {
            // acquire: pairs with the producer's release of the tail.
            final long tail = buffer.getLongVolatile(TAIL_OFFSET);
            buffer.putLongRelease(TAIL_CACHE_OFFSET, tail);
            if (head >= tail)
            {
                return 0;
            }
        }
        final int offset = HEADER_LENGTH + (((int) head & mask) << ENTRY_SHIFT);
        if (0 == buffer.getInt(offset + ERRNO_OFFSET))
        {
            return 0;
        }
        try
        {
            handler.onCompletion(buffer, offset);
        }
        finally
        {
            // release: our read of the entry happens before the producer reuses it.
            buffer.putLongRelease(HEAD_OFFSET, head + 1);
        }
        return 1;
    }

    /**
     * {@inheritDoc}
     */
    public int capacity()
    {
        return capacity;
    }

    /**
     * {@inheritDoc}
     */
    public int size()
    {
        final long head = buffer.getLongVolatile(HEAD_OFFSET);
        final long tail = buffer.getLongVolatile(TAIL_OFFSET);
        return (int) Math.max(0, Math.min(capacity, tail - head));
    }

    /**
     * {@inheritDoc}
     */
    public AtomicBuffer buffer()
    {
        return buffer;
    }
}
