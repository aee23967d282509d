/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

/**
 * The kinds of ring a buffer or a mapped file can hold; the kind is written into the ring header so that a second
 * mapping can refuse a file that holds a different kind of ring.
 * <p>
 * Threading: immutable, safe from any thread.
 */
public enum RingKind
{
    /**
     * A command ring (many or one producer, one consumer) of 64-byte slots.
     */
    COMMAND(1),

    /**
     * A completion ring with one producer and one consumer.
     */
    COMPLETION(2),

    /**
     * A completion ring with one producer and several consumers sharing it.
     */
    SHARED_COMPLETION(3);

    private final int code;

    RingKind(final int code)
    {
        this.code = code;
    }

    /**
     * The code stored in the ring header's kind field.
     *
     * @return the code stored in the ring header.
     */
    public int code()
    {
        return code;
    }

    /**
     * The buffer length a ring of this kind with the given capacity needs, header included.
     *
     * @param capacity in slots (command) or entries (completion); a power of two.
     * @return the required buffer length in bytes.
     * @throws IllegalArgumentException if the capacity is not a power of two within the kind's limits.
     */
    public int requiredLength(final int capacity)
    {
        switch (this)
        {
            case COMMAND:
                return CommandRingDescriptor.requiredLength(capacity);
            case COMPLETION:
                return CompletionRingDescriptor.requiredLength(capacity);
            case SHARED_COMPLETION:
                return CompletionRingDescriptor.sharedRequiredLength(capacity);
            default:
                throw new IllegalStateException("unknown ring kind " + this);
        }
    }

    /**
     * The capacity a ring of this kind has in a buffer of the given length, or -1 if no capacity fits exactly.
     *
     * @param length of the buffer in bytes, header included.
     * @return the capacity in slots or entries, or -1 when the length fits no valid capacity.
     */
    public int capacityFor(final int length)
    {
        final int dataLength = length - RingDescriptor.HEADER_LENGTH;
        final int perEntry;
        switch (this)
        {
            case COMMAND:
                perEntry = CommandRingDescriptor.SLOT_LENGTH;
                break;
            case COMPLETION:
                perEntry = CompletionRingDescriptor.ENTRY_LENGTH;
                break;
            case SHARED_COMPLETION:
                perEntry = CompletionRingDescriptor.ENTRY_LENGTH + CompletionRingDescriptor.SEQUENCE_LENGTH;
                break;
            default:
                throw new IllegalStateException("unknown ring kind " + this);
        }
        if (dataLength <= 0 || dataLength % perEntry != 0)
        {
            return -1;
        }
        final int capacity = dataLength / perEntry;
        if (capacity < minCapacity() || Integer.bitCount(capacity) != 1 || requiredLength(capacity) != length)
        {
            return -1;
        }
        return capacity;
    }

    /**
     * The smallest capacity a ring of this kind accepts.
     *
     * @return the minimum capacity in slots or entries.
     */
    public int minCapacity()
    {
        return this == SHARED_COMPLETION ? CompletionRingDescriptor.MIN_SHARED_CAPACITY : RingDescriptor.MIN_CAPACITY;
    }

    /**
     * The kind with the given header code, or null if none has it.
     *
     * @param code read from a ring header.
     * @return the kind or null.
     */
    public static RingKind fromCode(final int code)
    {
        switch (code)
        {
            case 1:
                return COMMAND;
            case 2:
                return COMPLETION;
            case 3:
                return SHARED_COMPLETION;
            default:
                return null;
        }
    }
}
