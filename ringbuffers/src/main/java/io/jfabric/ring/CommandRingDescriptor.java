/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

/**
 * Layout of a command ring: the {@link RingDescriptor} header followed by a power-of-two number of 64-byte slots.
 * <p>
 * A command takes one or more consecutive slots and starts with an 8-byte record header; its body follows the header
 * and runs to the end of its last slot, so a command of {@code n} slots has {@code n * 64 - 8} body bytes and the
 * body of a single-slot command is 56 bytes.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |  Commit word: 0 free or claimed, n &gt; 0 committed command of  | 0
 *  |  n slots, -n padding or aborted command of n slots to skip    |
 *  +---------------------------------------------------------------+
 *  |          Claimed slot count (written at claim, plain)         | 4
 *  +---------------------------------------------------------------+
 *  |                 Body: n * 64 - 8 bytes, written              ...| 8
 * ...                 by the producer between claim and commit     ...|
 *  +---------------------------------------------------------------+
 * </pre>
 * A command never wraps: when it does not fit before the end of the data region, the producer claims the slots up to
 * the end as padding together with the command's slots at the start, so a handler always sees contiguous slots.
 * <p>
 * Memory ordering: the producer writes the body with plain stores and publishes the command with a release store of
 * the commit word; the consumer reads the commit word with acquire (volatile) semantics, so a positive word
 * guarantees a whole body. After handling a command the consumer zeroes the first 8 bytes of each of its slots with
 * plain stores (any of them can be a record header on the next lap) and then releases the head; a producer acquires
 * the head (or the head cache another producer released after acquiring it) before claiming, so it always finds the
 * zeroed commit word.
 * <p>
 * Threading: constants and static helpers, safe from any thread.
 */
public final class CommandRingDescriptor
{
    /**
     * Length of a slot in bytes: one cache line.
     */
    public static final int SLOT_LENGTH = 64;

    /**
     * log2 of {@link #SLOT_LENGTH}.
     */
    public static final int SLOT_SHIFT = 6;

    /**
     * Length of a record header at the start of a command's first slot.
     */
    public static final int RECORD_HEADER_LENGTH = 8;

    /**
     * Offset of the commit word within the record header.
     */
    public static final int COMMIT_WORD_OFFSET = 0;

    /**
     * Offset of the claimed slot count within the record header.
     */
    public static final int CLAIMED_SLOTS_OFFSET = 4;

    /**
     * Body bytes of a single-slot command.
     */
    public static final int SINGLE_SLOT_BODY_LENGTH = SLOT_LENGTH - RECORD_HEADER_LENGTH;

    /**
     * A ring's largest command is its capacity divided by this, so a command always fits, padding included, once
     * the ring has drained.
     */
    public static final int MAX_COMMAND_DIVISOR = 8;

    private CommandRingDescriptor()
    {
    }

    /**
     * Buffer length of a command ring of the given capacity, header included.
     *
     * @param slots capacity in slots, a power of two from {@link RingDescriptor#MIN_CAPACITY}.
     * @return the required buffer length in bytes.
     * @throws IllegalArgumentException naming the capacity if it is invalid.
     */
    public static int requiredLength(final int slots)
    {
        RingDescriptor.checkCapacity(slots, RingDescriptor.MIN_CAPACITY, "slots");
        return RingDescriptor.HEADER_LENGTH + (slots << SLOT_SHIFT);
    }

    /**
     * Body length of a command of the given number of slots.
     *
     * @param slots the command takes.
     * @return body bytes available to the command.
     */
    public static int bodyLength(final int slots)
    {
        return (slots << SLOT_SHIFT) - RECORD_HEADER_LENGTH;
    }

    /**
     * Number of slots a command with a body of the given length takes.
     *
     * @param bodyLength in bytes, not negative.
     * @return the number of slots, at least one.
     */
    public static int slotsFor(final int bodyLength)
    {
        if (bodyLength < 0)
        {
            throw new IllegalArgumentException("command body length must not be negative: " + bodyLength);
        }
        final long total = (long) bodyLength + RECORD_HEADER_LENGTH;
        return (int) ((total + SLOT_LENGTH - 1) >> SLOT_SHIFT);
    }

    /**
     * Largest command, in slots, that a ring of the given capacity accepts.
     *
     * @param capacitySlots of the ring.
     * @return the largest command in slots.
     */
    public static int maxCommandSlots(final int capacitySlots)
    {
        return Math.max(1, capacitySlots / MAX_COMMAND_DIVISOR);
    }
}
