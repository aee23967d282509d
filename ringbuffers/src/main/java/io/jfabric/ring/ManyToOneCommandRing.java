/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.concurrent.AtomicBuffer;

import static io.jfabric.ring.CommandRingDescriptor.CLAIMED_SLOTS_OFFSET;
import static io.jfabric.ring.CommandRingDescriptor.COMMIT_WORD_OFFSET;
import static io.jfabric.ring.CommandRingDescriptor.RECORD_HEADER_LENGTH;
import static io.jfabric.ring.CommandRingDescriptor.SLOT_SHIFT;
import static io.jfabric.ring.RingDescriptor.HEADER_LENGTH;
import static io.jfabric.ring.RingDescriptor.HEAD_CACHE_OFFSET;
import static io.jfabric.ring.RingDescriptor.HEAD_OFFSET;
import static io.jfabric.ring.RingDescriptor.TAIL_OFFSET;

/**
 * A command ring for many producers (application threads, or processes mapping the same file) and one consumer
 * (the domain agent). Layout: {@link CommandRingDescriptor}.
 * <p>
 * Producers claim by a CAS on the tail, checked against a head cache kept in the buffer so they rarely read the
 * consumer's head line. Compared with Agrona's {@code ManyToOneRingBuffer} a claim writes no header until commit and
 * the consumer clears only the first 8 bytes of each slot instead of the whole record.
 * <p>
 * Threading: {@link #tryClaim(int)}, {@link #commit(int)} and {@link #abort(int)} are safe for many threads; a
 * claimed index belongs to the claiming thread until it commits or aborts it. {@link #drain(CommandHandler, int)} is
 * for one consumer thread at a time. Lock-free for producers (a CAS loop); wait-free for the consumer.
 */
public final class ManyToOneCommandRing implements CommandRing
{
    private final AtomicBuffer buffer;
    private final int capacity;
    private final int mask;
    private final int maxCommandSlots;

    /**
     * Create a ring over a buffer: a zeroed buffer is formatted, one that already holds a command ring (for example a
     * second mapping of a file) is checked and used as it is.
     *
     * @param buffer of {@link CommandRingDescriptor#requiredLength(int)} bytes, 8-byte aligned.
     * @throws IllegalArgumentException if the length fits no command ring.
     * @throws IllegalStateException    if the buffer holds another kind of ring or a different capacity.
     */
    public ManyToOneCommandRing(final AtomicBuffer buffer)
    {
        this.buffer = buffer;
        this.capacity = RingDescriptor.formatOrValidate(buffer, RingKind.COMMAND);
        this.mask = capacity - 1;
        this.maxCommandSlots = CommandRingDescriptor.maxCommandSlots(capacity);
    }

    /**
     * {@inheritDoc}
     * <p>
     * Safe for many producer threads; never blocks: a CAS that loses a race retries with the new tail.
     */
    public int tryClaim(final int slots)
    {
        CommandRingSupport.checkSlots(slots, maxCommandSlots);
        final AtomicBuffer buffer = this.buffer;
        final int capacity = this.capacity;
        final int mask = this.mask;

        // acquire: pairs with the release by a producer that acquired the real head, so the slots it proves free
        // have their zeroed headers visible here.
        long head = buffer.getLongVolatile(HEAD_CACHE_OFFSET);
        long tail;
        int tailIndex;
        int padding;
        do
        {
            tail = buffer.getLongVolatile(TAIL_OFFSET);
            tailIndex = (int) tail & mask;
            final int toEnd = capacity - tailIndex;
            padding = slots > toEnd ? toEnd : 0;
            final int required = padding + slots;
            if (required > capacity - (tail - head))
            {
                // acquire: pairs with the consumer's release of the head after it zeroed the consumed headers.
                head = buffer.getLongVolatile(HEAD_OFFSET);
                if (required > capacity - (tail - head))
                {
                    return RingStatus.INSUFFICIENT_CAPACITY;
                }
                // release: shares the fresh head with other producers (see the acquire above).
                buffer.putLongRelease(HEAD_CACHE_OFFSET, head);
            }
        }
        while (!buffer.compareAndSetLong(TAIL_OFFSET, tail, tail + padding + slots));

        int headerOffset = HEADER_LENGTH + (tailIndex << SLOT_SHIFT);
        if (0 != padding)
        {
            // release: the consumer that acquires this word skips the padding to the end of the ring.
            buffer.putIntRelease(headerOffset + COMMIT_WORD_OFFSET, -padding);
            headerOffset = HEADER_LENGTH;
        }
        // plain: read back by this thread at commit or abort; the commit word stays 0 until then.
        buffer.putInt(headerOffset + CLAIMED_SLOTS_OFFSET, slots);
        return headerOffset + RECORD_HEADER_LENGTH;
    }

    /**
     * {@inheritDoc}
     * <p>
     * Called by the thread that claimed the index.
     */
    public void commit(final int index)
    {
        CommandRingSupport.commit(buffer, index, capacity);
    }

    /**
     * {@inheritDoc}
     * <p>
     * Called by the thread that claimed the index.
     */
    public void abort(final int index)
    {
        CommandRingSupport.abort(buffer, index, capacity);
    }

    /**
     * {@inheritDoc}
     * <p>
     * Not thread-safe: the single consumer (the domain agent) only. If the handler throws, the command it was given
     * counts as consumed and the exception propagates.
     */
    public int drain(final CommandHandler handler, final int limit)
    {
        return CommandRingSupport.drain(buffer, mask, handler, limit);
    }

    /**
     * {@inheritDoc}
     * <p>
     * Not thread-safe: the single consumer (the domain agent) only. If the handler throws, the command it was given
     * counts as consumed and the exception propagates.
     */
    public int controlledDrain(final ControlledCommandHandler handler, final int limit)
    {
        return CommandRingSupport.controlledDrain(buffer, mask, handler, limit);
    }

    /**
     * {@inheritDoc}
     */
    public long producerPosition()
    {
        return buffer.getLongVolatile(TAIL_OFFSET);
    }

    /**
     * {@inheritDoc}
     */
    public long consumerPosition()
    {
        return buffer.getLongVolatile(HEAD_OFFSET);
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
    public int maxCommandSlots()
    {
        return maxCommandSlots;
    }

    /**
     * {@inheritDoc}
     */
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    /**
     * {@inheritDoc}
     */
    public int size()
    {
        return CommandRingSupport.size(buffer, capacity);
    }
}
