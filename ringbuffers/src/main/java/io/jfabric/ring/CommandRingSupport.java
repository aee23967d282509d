/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.concurrent.AtomicBuffer;

import static io.jfabric.ring.CommandRingDescriptor.CLAIMED_SLOTS_OFFSET;
import static io.jfabric.ring.CommandRingDescriptor.COMMIT_WORD_OFFSET;
import static io.jfabric.ring.CommandRingDescriptor.RECORD_HEADER_LENGTH;
import static io.jfabric.ring.CommandRingDescriptor.SLOT_LENGTH;
import static io.jfabric.ring.CommandRingDescriptor.SLOT_SHIFT;
import static io.jfabric.ring.RingDescriptor.HEADER_LENGTH;
import static io.jfabric.ring.RingDescriptor.HEAD_OFFSET;
import static io.jfabric.ring.RingDescriptor.TAIL_OFFSET;

/**
 * Consumer side and commit logic shared by both command rings (same layout).
 */
final class CommandRingSupport
{
    private CommandRingSupport()
    {
    }

    static int checkSlots(final int slots, final int maxCommandSlots)
    {
        if (slots < 1 || slots > maxCommandSlots)
        {
            throw new IllegalArgumentException("command of " + slots + " slots (" +
                CommandRingDescriptor.bodyLength(Math.max(slots, 1)) + " body bytes) is outside the ring's range " +
                "of 1 to " + maxCommandSlots + " slots (" + CommandRingDescriptor.bodyLength(maxCommandSlots) +
                " body bytes)");
        }
        return slots;
    }

    static int headerOffsetOfClaim(final AtomicBuffer buffer, final int index, final int capacity)
    {
        final int headerOffset = index - RECORD_HEADER_LENGTH;
        final int relative = headerOffset - HEADER_LENGTH;
        if (relative < 0 || relative >= (capacity << SLOT_SHIFT) || (relative & (SLOT_LENGTH - 1)) != 0)
        {
            throw new IllegalArgumentException("index " + index + " is not a command index of this ring");
        }
        final int slots = buffer.getInt(headerOffset + CLAIMED_SLOTS_OFFSET);
        if (slots < 1 || slots > capacity || buffer.getInt(headerOffset + COMMIT_WORD_OFFSET) != 0)
        {
            throw new IllegalArgumentException("index " + index + " is not a claimed, uncommitted command");
        }
        return headerOffset;
    }

    static void commit(final AtomicBuffer buffer, final int index, final int capacity)
    {
        final int headerOffset = headerOffsetOfClaim(buffer, index, capacity);
        final int slots = buffer.getInt(headerOffset + CLAIMED_SLOTS_OFFSET);
        // release: the body written with plain stores is visible to the consumer that acquires the commit word.
        buffer.putIntRelease(headerOffset + COMMIT_WORD_OFFSET, slots);
    }

    static void abort(final AtomicBuffer buffer, final int index, final int capacity)
    {
        final int headerOffset = headerOffsetOfClaim(buffer, index, capacity);
        final int slots = buffer.getInt(headerOffset + CLAIMED_SLOTS_OFFSET);
        // release: the consumer skips the slots as padding; nothing in the body is read.
        buffer.putIntRelease(headerOffset + COMMIT_WORD_OFFSET, -slots);
    }

    static int drain(
        final AtomicBuffer buffer, final int mask, final CommandHandler handler, final int limit)
    {
        // plain: only this consumer writes the head.
        final long head = buffer.getLong(HEAD_OFFSET);
        long position = head;
        int count = 0;
        try
        {
            while (count < limit)
            {
                final int headerOffset = HEADER_LENGTH + (((int) position & mask) << SLOT_SHIFT);
                // acquire: pairs with the producer's release of the commit word, so the body is complete.
                final int word = buffer.getIntVolatile(headerOffset + COMMIT_WORD_OFFSET);
                if (0 == word)
                {
                    break;
                }
                if (word > 0)
                {
                    count++;
                    try
                    {
                        handler.onCommand(buffer, headerOffset + RECORD_HEADER_LENGTH, word);
                    }
                    finally
                    {
                        // plain: every slot's first 8 bytes may be a record header next lap; the head release below
                        // publishes these zeroes to producers.
                        final int end = headerOffset + (word << SLOT_SHIFT);
                        for (int offset = headerOffset; offset < end; offset += SLOT_LENGTH)
                        {
                            buffer.putLong(offset, 0L);
                        }
                        position += word;
                    }
                }
                else
                {
                    // padding or aborted command: skip it; an aborted body may have dirtied later slots' headers.
                    final int end = headerOffset + ((-word) << SLOT_SHIFT);
                    for (int offset = headerOffset; offset < end; offset += SLOT_LENGTH)
                    {
                        buffer.putLong(offset, 0L);
                    }
                    position -= word;
                }
            }
        }
        finally
        {
            if (position != head)
            {
                // release: the zeroed headers and the consumer's reads happen before producers reuse the slots.
                buffer.putLongRelease(HEAD_OFFSET, position);
            }
        }
        return count;
    }

    static int controlledDrain(
        final AtomicBuffer buffer, final int mask, final ControlledCommandHandler handler, final int limit)
    {
        // plain: only this consumer writes the head.
        final long head = buffer.getLong(HEAD_OFFSET);
        long position = head;
        int count = 0;
        try
        {
            while (count < limit)
            {
                final int headerOffset = HEADER_LENGTH + (((int) position & mask) << SLOT_SHIFT);
                // acquire: pairs with the producer's release of the commit word, so the body is complete.
                final int word = buffer.getIntVolatile(headerOffset + COMMIT_WORD_OFFSET);
                if (0 == word)
                {
                    break;
                }
                if (word > 0)
                {
                    ControlledCommandHandler.Action action = ControlledCommandHandler.Action.CONTINUE;
                    try
                    {
                        action = handler.onCommand(buffer, headerOffset + RECORD_HEADER_LENGTH, word);
                    }
                    finally
                    {
                        if (ControlledCommandHandler.Action.ABORT != action)
                        {
                            // plain: as in drain; published by the head release below.
                            final int end = headerOffset + (word << SLOT_SHIFT);
                            for (int offset = headerOffset; offset < end; offset += SLOT_LENGTH)
                            {
                                buffer.putLong(offset, 0L);
                            }
                            position += word;
                            count++;
                        }
                    }
                    if (ControlledCommandHandler.Action.CONTINUE != action)
                    {
                        // ABORT: the command stays committed at the head, untouched; BREAK: consumed, stop.
                        break;
                    }
                }
                else
                {
                    // padding or aborted command: skip it; an aborted body may have dirtied later slots' headers.
                    final int end = headerOffset + ((-word) << SLOT_SHIFT);
                    for (int offset = headerOffset; offset < end; offset += SLOT_LENGTH)
                    {
                        buffer.putLong(offset, 0L);
                    }
                    position -= word;
                }
            }
        }
        finally
        {
            if (position != head)
            {
                // release: the zeroed headers and the consumer's reads happen before producers reuse the slots.
                buffer.putLongRelease(HEAD_OFFSET, position);
            }
        }
        return count;
    }

    static int size(final AtomicBuffer buffer, final int capacity)
    {
        final long head = buffer.getLongVolatile(HEAD_OFFSET);
        final long tail = buffer.getLongVolatile(TAIL_OFFSET);
        final long size = tail - head;
        return (int) Math.max(0, Math.min(capacity, size));
    }
}
