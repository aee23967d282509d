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
 * A command ring for one producer (an endpoint owned by one thread) and one consumer (the domain agent). Same layout
 * as {@link ManyToOneCommandRing} ({@link CommandRingDescriptor}) but the claim is a plain increment of a tail the
 * producer owns, with no CAS.
 * <p>
 * Threading: {@link #tryClaim(int)}, {@link #commit(int)} and {@link #abort(int)} are for one producer thread at a
 * time (hand-over between threads needs a happens-before edge, such as a lock or a volatile write);
 * {@link #drain(CommandHandler, int)} for one consumer thread at a time. Wait-free on both sides. Never open the same
 * ring with both this class and {@link ManyToOneCommandRing} as producers.
 */
public final class OneToOneCommandRing implements CommandRing
{
    private final AtomicBuffer buffer;
    private final int capacity;
    private final int mask;
    private final int maxCommandSlots;

    /**
     * Create a ring over a buffer: a zeroed buffer is formatted, one that already holds a command ring (for example a
     * second mapping of a file) is checked and used as it is, continuing from its tail.
     *
     * @param buffer of {@link CommandRingDescriptor#requiredLength(int)} bytes, 8-byte aligned.
     * @throws IllegalArgumentException if the length fits no command ring.
     * @throws IllegalStateException    if the buffer holds another kind of ring or a different capacity.
     */
    public OneToOneCommandRing(final AtomicBuffer buffer)
    {
        this.buffer = buffer;
        this.capacity = RingDescriptor.formatOrValidate(buffer, RingKind.COMMAND);
        this.mask = capacity - 1;
        this.maxCommandSlots = CommandRingDescriptor.maxCommandSlots(capacity);
        // the producer's tail and head cache live in the buffer (see RingDescriptor), not in fields of this object.
    }

    /**
     * {@inheritDoc}
     * <p>
     * Not thread-safe: the single producer only.
     */
    public int tryClaim(final int slots)
    {
        CommandRingSupport.checkSlots(slots, maxCommandSlots);
        final AtomicBuffer buffer = this.buffer;
        final int capacity = this.capacity;
        // plain: the single producer owns the tail and the head cache.
        final long tail = buffer.getLong(TAIL_OFFSET);
        final int tailIndex = (int) tail & mask;
        final int toEnd = capacity - tailIndex;
        final int padding = slots > toEnd ? toEnd : 0;
        final int required = padding + slots;
        // acquire/release on the cache: an earlier producer of a reopened ring may have written it (see the
        // ManyToOneCommandRing head cache); both are plain moves on x86.
        if (required > capacity - (tail - buffer.getLongAcquire(HEAD_CACHE_OFFSET)))
        {
            // acquire: pairs with the consumer's release of the head after it zeroed the consumed headers.
            final long head = buffer.getLongVolatile(HEAD_OFFSET);
            if (required > capacity - (tail - head))
            {
                return RingStatus.INSUFFICIENT_CAPACITY;
            }
            buffer.putLongRelease(HEAD_CACHE_OFFSET, head);
        }

        final long newTail = tail + required;
        // release: for observers (size, a reopening producer); the consumer reads commit words, not the tail.
        buffer.putLongRelease(TAIL_OFFSET, newTail);

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
     * Not thread-safe: the single producer only.
     */
    public void commit(final int index)
    {
        CommandRingSupport.commit(buffer, index, capacity);
    }

    /**
     * {@inheritDoc}
     * <p>
     * Not thread-safe: the single producer only.
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
