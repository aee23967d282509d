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
import static io.jfabric.ring.CompletionRingDescriptor.SEQUENCE_LENGTH;
import static io.jfabric.ring.CompletionRingDescriptor.TAG_OFFSET;
import static io.jfabric.ring.RingDescriptor.HEADER_LENGTH;
import static io.jfabric.ring.RingDescriptor.HEAD_OFFSET;
import static io.jfabric.ring.RingDescriptor.TAIL_OFFSET;

/**
 * A completion ring with one producer (the domain agent) and several reader threads sharing it (a CQ opened with
 * FI_THREAD_SAFE and read from many threads): each entry is delivered to exactly one reader. Layout and sequence
 * protocol: {@link CompletionRingDescriptor} (a bounded multi-consumer queue with a sequence word per entry).
 * <p>
 * A reader claims the head position by CAS and releases the entry after its handler returns, so a reader that is
 * descheduled inside its handler holds that one entry; the producer then sees the ring as full at that entry
 * ({@link RingStatus#INSUFFICIENT_CAPACITY}) until it is released. An error entry stops {@link #read} without being
 * claimed; under concurrent readers another thread may take it first, in which case {@link #readError} returns 0.
 * <p>
 * Threading: {@link #write} and {@link #writeError} for one producer thread at a time; {@link #read} and
 * {@link #readError} safe for many threads. Lock-free for readers (a CAS loop); wait-free for the producer.
 */
public final class SharedCompletionRing implements CompletionRing
{
    private final AtomicBuffer buffer;
    private final int capacity;
    private final int mask;
    private final int entriesOffset;

    /**
     * Create a ring over a buffer: a zeroed buffer is formatted (the zeroed sequence words are the initial state),
     * one that already holds a shared completion ring is checked and used as it is, continuing from its tail.
     *
     * @param buffer of {@link CompletionRingDescriptor#sharedRequiredLength(int)} bytes, 8-byte aligned.
     * @throws IllegalArgumentException if the length fits no shared completion ring.
     * @throws IllegalStateException    if the buffer holds another kind of ring or a different capacity.
     */
    public SharedCompletionRing(final AtomicBuffer buffer)
    {
        this.buffer = buffer;
        this.capacity = RingDescriptor.formatOrValidate(buffer, RingKind.SHARED_COMPLETION);
        this.mask = capacity - 1;
        this.entriesOffset = CompletionRingDescriptor.sharedEntriesOffset(capacity);
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
        // plain: the single producer owns the tail; it lives in the buffer, not in a field the readers' line holds.
        final long tail = buffer.getLong(TAIL_OFFSET);
        final int index = (int) tail & mask;
        final int sequenceOffset = HEADER_LENGTH + index * SEQUENCE_LENGTH;
        // acquire: pairs with the release by the reader of the previous lap, so it has finished reading the entry.
        if (buffer.getLongVolatile(sequenceOffset) != tail - index)
        {
            return RingStatus.INSUFFICIENT_CAPACITY;
        }
        final int offset = entriesOffset + (index << ENTRY_SHIFT);
        buffer.putLong(offset + CONTEXT_OFFSET, context);
        buffer.putLong(offset + FLAGS_OFFSET, flags);
        buffer.putLong(offset + LENGTH_OFFSET, length);
        buffer.putLong(offset + BUFFER_OFFSET, address);
        buffer.putLong(offset + DATA_OFFSET, data);
        buffer.putLong(offset + TAG_OFFSET, tag);
        buffer.putInt(offset + ERRNO_OFFSET, errno);
        buffer.putInt(offset + PROV_ERRNO_OFFSET, providerErrno);
        buffer.putLong(offset + OVERFLOW_LENGTH_OFFSET, overflowLength);
        // release: the entry's plain stores are visible to the reader that acquires this sequence value.
        buffer.putLongRelease(sequenceOffset, tail + 1 - index);
        // opaque: readers use the sequence words; the tail is for the producer itself and observers (size).
        buffer.putLongOpaque(TAIL_OFFSET, tail + 1);
        return 0;
    }

    /**
     * {@inheritDoc}
     * <p>
     * Safe for many reader threads. If the handler throws, the entry it was given counts as read.
     */
    public int read(final CompletionHandler handler, final int limit)
    {
        int count = 0;
        while (count < limit)
        {
            final int result = claimAndRead(handler, false);
            if (result <= 0)
            {
                return 0 == count && RingStatus.ERROR_AVAILABLE == result ? result : count;
            }
            count++;
        }
        return count;
    }

    /**
     * {@inheritDoc}
     * <p>
     * Safe for many reader threads.
     */
    public int readError(final CompletionHandler handler)
    {
        return claimAndRead(handler, true) > 0 ? 1 : 0;
    }

    private int claimAndRead(final CompletionHandler handler, final boolean wantError)
    {
        final AtomicBuffer buffer = this.buffer;
        final int mask = this.mask;
        while (true)
        {
            // acquire: a fresh head, so the sequence we read next is at least as new as that head's claim.
            final long head = buffer.getLongVolatile(HEAD_OFFSET);
            final int index = (int) head & mask;
            final int sequenceOffset = HEADER_LENGTH + index * SEQUENCE_LENGTH;
            // acquire: pairs with the producer's release, so the entry is complete when the sequence says ready.
            final long difference = buffer.getLongVolatile(sequenceOffset) - (head + 1 - index);
            if (difference < 0)
            {
                return 0;
            }
            if (difference > 0)
            {
                // another reader claimed this position after we read the head: retry with the new head.
                continue;
            }
            final int offset = entriesOffset + (index << ENTRY_SHIFT);
            final boolean isError = 0 != buffer.getInt(offset + ERRNO_OFFSET);
            if (isError != wantError)
            {
                return isError ? RingStatus.ERROR_AVAILABLE : 0;
            }
            if (!buffer.compareAndSetLong(HEAD_OFFSET, head, head + 1))
            {
                continue;
            }
            try
            {
                handler.onCompletion(buffer, offset);
            }
            finally
            {
                // release: our read of the entry happens before the producer, acquiring this value, reuses it.
                buffer.putLongRelease(sequenceOffset, head + capacity - index);
            }
            return 1;
        }
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
