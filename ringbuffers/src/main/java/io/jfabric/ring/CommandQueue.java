/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.ByteBuffer;

/**
 * One of a domain's command rings (control, receive, send): application threads claim a command of a given opcode
 * and length, encode it at the returned index and commit it; the domain agent reads committed commands in order and
 * may leave one in place ({@code ABORT}) when it cannot take it yet.
 * <p>
 * The one command ring of the product, on Agrona's {@code ManyToOneRingBuffer}: the record type is the opcode;
 * records are 8-byte aligned behind an 8-byte header, so a command of {@code n} bytes takes {@code n + 8} bytes of
 * ring rounded up to 8. It replaced a slot ring of this module (64-byte slots, a command of 80 bytes taking two)
 * that measured no faster (see {@code ringbuffers/README.md}).
 * <p>
 * Threading: {@link #tryClaim}, {@link #buffer()} and {@link #commit} are safe for many producer threads (a claim is
 * a CAS on the tail, a commit a release store of the record's length); {@link #controlledRead} is for the single
 * consumer; the positions may be read by any thread. Nothing allocates after construction.
 */
public final class CommandQueue
{
    private final ManyToOneRingBuffer ring;

    /**
     * Create an empty queue in direct memory.
     *
     * @param capacity bytes of ring (a power of two).
     * @throws IllegalStateException when the capacity is not a power of two.
     */
    public CommandQueue(final int capacity)
    {
        ring = new ManyToOneRingBuffer(new UnsafeBuffer(
            ByteBuffer.allocateDirect(capacity + RingBufferDescriptor.TRAILER_LENGTH)));
    }

    /**
     * Claim room for a command.
     *
     * @param msgTypeId the command's opcode (positive).
     * @param length    the command's length in bytes.
     * @return the index of the command in {@link #buffer()}, or a negative value when the ring has no room now.
     * @throws IllegalArgumentException when the length exceeds {@link #maxCommandLength()} (a programming error).
     */
    public int tryClaim(final int msgTypeId, final int length)
    {
        return ring.tryClaim(msgTypeId, length);
    }

    /**
     * @return the buffer commands are encoded into.
     */
    public AtomicBuffer buffer()
    {
        return ring.buffer();
    }

    /**
     * Publish a claimed command to the consumer (a release store: the consumer sees every field written before).
     *
     * @param index from {@link #tryClaim}.
     */
    public void commit(final int index)
    {
        ring.commit(index);
    }

    /**
     * Hand committed commands to a handler in order: {@code CONTINUE} or {@code COMMIT} consumes a command,
     * {@code BREAK} consumes it and stops, {@code ABORT} leaves it in place and stops.
     *
     * @param handler receives (opcode, buffer, index, length) as {@link #tryClaim} was given.
     * @param limit   the most commands to consume.
     * @return commands consumed.
     */
    public int controlledRead(final ControlledMessageHandler handler, final int limit)
    {
        return ring.controlledRead(handler, limit);
    }

    /**
     * @return the longest command a claim accepts, in bytes.
     */
    public int maxCommandLength()
    {
        return ring.maxMsgLength();
    }

    /**
     * @return how far producers have claimed, in bytes (a snapshot).
     */
    public long producerPosition()
    {
        return ring.producerPosition();
    }

    /**
     * @return how far the consumer has consumed, in bytes (a snapshot, comparable with {@link #producerPosition()}).
     */
    public long consumerPosition()
    {
        return ring.consumerPosition();
    }
}
