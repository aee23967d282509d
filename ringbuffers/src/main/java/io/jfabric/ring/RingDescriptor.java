/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.concurrent.AtomicBuffer;

/**
 * The header every jfabric ring starts with, so that a second mapping (another thread or another process) can check
 * what the buffer holds before touching it.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                    Magic 'JFRG' (0x4752464A)                  | 0
 *  +---------------------------------------------------------------+
 *  |                        Layout version                         | 4
 *  +---------------------------------------------------------------+
 *  |                  Kind (RingKind code: 1, 2, 3)                | 8
 *  +---------------------------------------------------------------+
 *  |              Slot or entry length in bytes (64)               | 12
 *  +---------------------------------------------------------------+
 *  |          Capacity in slots or entries (power of two)          | 16
 *  +---------------------------------------------------------------+
 *  |                  Reserved to byte 128 (zero)                 ...| 20
 *  +---------------------------------------------------------------+
 *  |         Tail: producer position, long, own 128 bytes         ...| 128
 *  +---------------------------------------------------------------+
 *  |   Head cache: producers' last seen head, long, own 128 bytes ...| 256
 *  +---------------------------------------------------------------+
 *  |        Head: consumer position, long                         ...| 384
 *  +---------------------------------------------------------------+
 *  |  Tail cache: a single consumer's last seen tail, long, shares ...| 392
 *  |  the head's 128 bytes (only the consumer writes either)       ...|
 *  +---------------------------------------------------------------+
 *  |                 Data (kind specific) from 512                ...| 512
 *  +---------------------------------------------------------------+
 * </pre>
 * Tail, head cache and head sit 128 bytes apart so that producers and consumers never share a cache line, nor the
 * adjacent line the hardware prefetcher pulls in with it. Single-producer and single-consumer rings keep their
 * private cached positions here too (the producer's in the head cache line, the consumer's beside the head), never
 * in fields of the ring object, whose immutable fields both sides read: a field written on every operation would
 * share a cache line with them. Positions are counts of slots or entries since the ring was
 * formatted; they never wrap in practice (2^63 slots).
 * <p>
 * The magic is written last, with release semantics, so a reader that sees the magic with acquire semantics sees the
 * whole header.
 * <p>
 * Threading: constants and static checks, safe from any thread.
 */
public final class RingDescriptor
{
    /**
     * 'JFRG' in little-endian byte order.
     */
    public static final int MAGIC = 0x4752464A;

    /**
     * Version of the layout described here.
     */
    public static final int LAYOUT_VERSION = 1;

    /**
     * Offset of the magic int.
     */
    public static final int MAGIC_OFFSET = 0;

    /**
     * Offset of the layout version int.
     */
    public static final int VERSION_OFFSET = 4;

    /**
     * Offset of the kind int.
     */
    public static final int KIND_OFFSET = 8;

    /**
     * Offset of the slot or entry length int.
     */
    public static final int ENTRY_LENGTH_OFFSET = 12;

    /**
     * Offset of the capacity int.
     */
    public static final int CAPACITY_OFFSET = 16;

    /**
     * Offset of the producer position (long).
     */
    public static final int TAIL_OFFSET = 128;

    /**
     * Offset of the producers' cached head (long).
     */
    public static final int HEAD_CACHE_OFFSET = 256;

    /**
     * Offset of the consumer position (long).
     */
    public static final int HEAD_OFFSET = 384;

    /**
     * Offset of a single consumer's cached tail (long), on the head's cache line.
     */
    public static final int TAIL_CACHE_OFFSET = HEAD_OFFSET + 8;

    /**
     * Length of the header; the data region starts here.
     */
    public static final int HEADER_LENGTH = 512;

    /**
     * Smallest capacity of a command ring or single-consumer completion ring.
     */
    public static final int MIN_CAPACITY = 8;

    /**
     * Largest capacity in slots or entries, so that a ring fits an int-indexed buffer.
     */
    public static final int MAX_CAPACITY = 1 << 24;

    private RingDescriptor()
    {
    }

    /**
     * Check that a capacity is a power of two within [min, {@link #MAX_CAPACITY}].
     *
     * @param capacity to check.
     * @param min      smallest accepted capacity.
     * @param what     name of the unit for the message ("slots" or "entries").
     * @throws IllegalArgumentException naming the capacity and the limits if it is invalid.
     */
    public static void checkCapacity(final int capacity, final int min, final String what)
    {
        if (capacity < min || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1)
        {
            throw new IllegalArgumentException("ring capacity must be a power of two between " + min + " and " +
                MAX_CAPACITY + " " + what + ": " + capacity);
        }
    }

    /**
     * Format a zeroed buffer's header for the given kind, or, if the header is already written, check that it
     * describes a ring of this kind that fits the buffer.
     *
     * @param buffer over the whole ring, header included; must be 8-byte aligned.
     * @param kind   of ring the caller expects.
     * @return the ring's capacity in slots or entries.
     * @throws IllegalArgumentException if the buffer length fits no ring of this kind.
     * @throws IllegalStateException    if the header is written and names another kind, version or capacity.
     */
    static int formatOrValidate(final AtomicBuffer buffer, final RingKind kind)
    {
        buffer.verifyAlignment();
        final int length = buffer.capacity();
        final int capacity = kind.capacityFor(length);
        if (capacity < 0)
        {
            throw new IllegalArgumentException("buffer of " + length + " bytes fits no " + kind +
                " ring: it must be " + RingDescriptor.HEADER_LENGTH + " header bytes plus a power-of-two capacity " +
                "(for example " + kind.requiredLength(1024) + " bytes for 1024)");
        }
        // acquire: pairs with the release of the magic below, so the fields written before it are visible.
        final int magic = buffer.getIntVolatile(MAGIC_OFFSET);
        if (magic == 0)
        {
            buffer.putInt(VERSION_OFFSET, LAYOUT_VERSION);
            buffer.putInt(KIND_OFFSET, kind.code());
            buffer.putInt(ENTRY_LENGTH_OFFSET, CommandRingDescriptor.SLOT_LENGTH);
            buffer.putInt(CAPACITY_OFFSET, capacity);
            // release: the header fields above are visible to whoever reads the magic with acquire.
            buffer.putIntRelease(MAGIC_OFFSET, MAGIC);
            return capacity;
        }
        final String problem = headerProblem(buffer, kind, length);
        if (null != problem)
        {
            throw new IllegalStateException(problem);
        }
        return capacity;
    }

    /**
     * Describe what is wrong with a written header, or return null if it describes a ring of the kind that fits the
     * length.
     *
     * @param buffer holding the header.
     * @param kind   expected.
     * @param length of the whole ring in bytes.
     * @return null when valid, otherwise a message naming the expected and found values.
     */
    static String headerProblem(final AtomicBuffer buffer, final RingKind kind, final long length)
    {
        final int magic = buffer.getIntVolatile(MAGIC_OFFSET);
        if (magic != MAGIC)
        {
            return "ring header magic is 0x" + Integer.toHexString(magic) + ", expected 0x" +
                Integer.toHexString(MAGIC) + " (not a jfabric ring, or not formatted yet)";
        }
        final int version = buffer.getInt(VERSION_OFFSET);
        if (version != LAYOUT_VERSION)
        {
            return "ring layout version is " + version + ", expected " + LAYOUT_VERSION;
        }
        final int kindCode = buffer.getInt(KIND_OFFSET);
        if (kindCode != kind.code())
        {
            return "ring kind is " + RingKind.fromCode(kindCode) + " (code " + kindCode + "), expected " + kind;
        }
        final int entryLength = buffer.getInt(ENTRY_LENGTH_OFFSET);
        if (entryLength != CommandRingDescriptor.SLOT_LENGTH)
        {
            return "ring entry length is " + entryLength + " bytes, expected " + CommandRingDescriptor.SLOT_LENGTH;
        }
        final int capacity = buffer.getInt(CAPACITY_OFFSET);
        if (capacity < kind.minCapacity() || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1)
        {
            return "ring header capacity " + capacity + " is not a valid " + kind + " capacity";
        }
        final int required = kind.requiredLength(capacity);
        if (required != length)
        {
            return "ring header says " + capacity + " entries, which needs " + required + " bytes, but the ring is " +
                length + " bytes";
        }
        return null;
    }
}
