/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.concurrent.AtomicBuffer;

/**
 * A ring of fixed 64-byte completion entries ({@link CompletionRingDescriptor}) from one producer (the domain agent)
 * to the threads that read a completion queue.
 * <p>
 * The producer appends success entries with {@link #write} and error entries with {@link #writeError}. Readers call
 * {@link #read(CompletionHandler, int)}, which stops before an error entry as fi_cq_read does, and
 * {@link #readError(CompletionHandler)}, which consumes an error entry at the head. A full ring refuses a write with
 * {@link RingStatus#INSUFFICIENT_CAPACITY}; nothing is ever overwritten or dropped.
 * <p>
 * Threading: one producer thread; readers as the implementation says: {@link OneToOneCompletionRing} for one reader,
 * {@link SharedCompletionRing} for several readers sharing it, each entry delivered to exactly one of them.
 */
public interface CompletionRing
{
    /**
     * Append a success entry.
     *
     * @param context  the operation context.
     * @param flags    the completion flags.
     * @param length   of the data.
     * @param address  of the data buffer.
     * @param data     remote CQ data.
     * @param tag      of a tagged operation.
     * @return 0, or {@link RingStatus#INSUFFICIENT_CAPACITY} when the ring is full.
     */
    int write(long context, long flags, long length, long address, long data, long tag);

    /**
     * Append an error entry.
     *
     * @param context        the operation context.
     * @param flags          the completion flags.
     * @param length         of the operation.
     * @param address        of the data buffer.
     * @param data           remote CQ data.
     * @param tag            of a tagged operation.
     * @param errno          positive fi_errno.
     * @param providerErrno  provider-specific errno.
     * @param overflowLength bytes that did not fit (ETRUNC), otherwise 0.
     * @return 0, or {@link RingStatus#INSUFFICIENT_CAPACITY} when the ring is full.
     * @throws IllegalArgumentException if errno is not positive.
     */
    int writeError(
        long context, long flags, long length, long address, long data, long tag,
        int errno, int providerErrno, long overflowLength);

    /**
     * Read success entries in order, stopping before the first error entry.
     *
     * @param handler called once per entry read.
     * @param limit   the most entries to read.
     * @return the number of entries read (0 when empty), or {@link RingStatus#ERROR_AVAILABLE} when nothing was read
     * because an error entry is at the head.
     */
    int read(CompletionHandler handler, int limit);

    /**
     * Read the error entry at the head, if the head holds one.
     *
     * @param handler called with the error entry.
     * @return 1 if an error entry was read, 0 if the ring is empty or its head is a success entry.
     */
    int readError(CompletionHandler handler);

    /**
     * Capacity of the ring.
     *
     * @return the number of entries.
     */
    int capacity();

    /**
     * Entries written and not yet read; a snapshot, exact only when producer and readers are quiet.
     *
     * @return the number of entries in the ring.
     */
    int size();

    /**
     * The buffer the ring lives in.
     *
     * @return the ring's buffer.
     */
    AtomicBuffer buffer();
}
