/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

/**
 * Layout of a completion ring: the {@link RingDescriptor} header, for a shared ring an array of per-entry sequence
 * words, and a power-of-two number of 64-byte entries. An entry holds the largest CQ format (tagged) and the error
 * fields, so a CQ of any format decodes the entry it needs with a {@link CompletionFlyweight}.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Operation context (long)                      | 0
 *  +---------------------------------------------------------------+
 *  |                 Flags (long, FI_SEND, FI_TAGGED...)           | 8
 *  +---------------------------------------------------------------+
 *  |                 Length (long)                                 | 16
 *  +---------------------------------------------------------------+
 *  |                 Buffer address (long)                         | 24
 *  +---------------------------------------------------------------+
 *  |                 Remote CQ data (long)                         | 32
 *  +---------------------------------------------------------------+
 *  |                 Tag (long)                                    | 40
 *  +---------------------------------------------------------------+
 *  |    Errno (int, positive fi_errno; 0 = success entry)          | 48
 *  +---------------------------------------------------------------+
 *  |    Provider errno (int)                                       | 52
 *  +---------------------------------------------------------------+
 *  |    Overflow length (long, bytes cut off for ETRUNC)           | 56
 *  +---------------------------------------------------------------+
 * </pre>
 * Single-consumer ring: header, then entries at {@link RingDescriptor#HEADER_LENGTH}. The producer writes an entry
 * with plain stores and releases the tail; the consumer acquires the tail, reads entries and releases the head; the
 * producer acquires the head before it reuses an entry.
 * <p>
 * Shared ring: header, then one sequence word per entry at {@link RingDescriptor#HEADER_LENGTH}, each a long at the
 * start of its own {@link #SEQUENCE_LENGTH}-byte line (so that the producer publishing one entry and a reader releasing
 * its neighbour never write the same cache line), then the entries at {@link #sharedEntriesOffset(int)}. The sequence
 * word of entry {@code i} holds {@code seq - i}, where {@code seq} is the slot sequence of a bounded multi-consumer
 * queue (initially {@code i}, so a zeroed buffer is formatted): the producer may write position {@code p} when the word
 * is {@code p - i} and publishes it with a release store of {@code p + 1 - i}; a reader that acquires {@code p + 1 - i}
 * claims the position by a CAS on the head, reads the entry, and releases it with a store of {@code p + capacity - i}.
 * <p>
 * Threading: constants and static helpers, safe from any thread.
 */
public final class CompletionRingDescriptor
{
    /**
     * Length of an entry: one cache line.
     */
    public static final int ENTRY_LENGTH = 64;

    /**
     * log2 of {@link #ENTRY_LENGTH}.
     */
    public static final int ENTRY_SHIFT = 6;

    /**
     * Stride of a shared ring's per-entry sequence words: one cache line each, the long at its start.
     */
    public static final int SEQUENCE_LENGTH = 64;

    /**
     * Smallest capacity of a shared completion ring.
     */
    public static final int MIN_SHARED_CAPACITY = 16;

    /**
     * Offset of the operation context.
     */
    public static final int CONTEXT_OFFSET = 0;

    /**
     * Offset of the completion flags.
     */
    public static final int FLAGS_OFFSET = 8;

    /**
     * Offset of the length.
     */
    public static final int LENGTH_OFFSET = 16;

    /**
     * Offset of the buffer address.
     */
    public static final int BUFFER_OFFSET = 24;

    /**
     * Offset of the remote CQ data.
     */
    public static final int DATA_OFFSET = 32;

    /**
     * Offset of the tag.
     */
    public static final int TAG_OFFSET = 40;

    /**
     * Offset of the errno: 0 for a success entry, a positive fi_errno for an error entry.
     */
    public static final int ERRNO_OFFSET = 48;

    /**
     * Offset of the provider-specific errno.
     */
    public static final int PROV_ERRNO_OFFSET = 52;

    /**
     * Offset of the overflow length (bytes that did not fit, for ETRUNC).
     */
    public static final int OVERFLOW_LENGTH_OFFSET = 56;

    private CompletionRingDescriptor()
    {
    }

    /**
     * Buffer length of a single-consumer completion ring, header included.
     *
     * @param entries capacity, a power of two from {@link RingDescriptor#MIN_CAPACITY}.
     * @return the required buffer length in bytes.
     * @throws IllegalArgumentException naming the capacity if it is invalid.
     */
    public static int requiredLength(final int entries)
    {
        RingDescriptor.checkCapacity(entries, RingDescriptor.MIN_CAPACITY, "entries");
        return RingDescriptor.HEADER_LENGTH + (entries << ENTRY_SHIFT);
    }

    /**
     * Buffer length of a shared completion ring, header and sequence words included.
     *
     * @param entries capacity, a power of two from {@link #MIN_SHARED_CAPACITY}.
     * @return the required buffer length in bytes.
     * @throws IllegalArgumentException naming the capacity if it is invalid.
     */
    public static int sharedRequiredLength(final int entries)
    {
        RingDescriptor.checkCapacity(entries, MIN_SHARED_CAPACITY, "entries");
        return sharedEntriesOffset(entries) + (entries << ENTRY_SHIFT);
    }

    /**
     * Offset of the first entry of a shared completion ring.
     *
     * @param entries capacity of the ring.
     * @return the offset of entry 0.
     */
    public static int sharedEntriesOffset(final int entries)
    {
        return RingDescriptor.HEADER_LENGTH + entries * SEQUENCE_LENGTH;
    }
}
