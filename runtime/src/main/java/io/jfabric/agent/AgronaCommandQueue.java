package io.jfabric.agent;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.ByteBuffer;

/**
 * A {@link CommandQueue} on Agrona's {@code ManyToOneRingBuffer}: the record type is the opcode; records are 8-byte
 * aligned with an 8-byte header.
 * <p>
 * Threading: as {@link CommandQueue}.
 */
final class AgronaCommandQueue implements CommandQueue
{
    private final ManyToOneRingBuffer ring;

    /**
     * Create an empty queue.
     *
     * @param capacity bytes (a power of two).
     */
    AgronaCommandQueue(final int capacity)
    {
        ring = new ManyToOneRingBuffer(new UnsafeBuffer(
            ByteBuffer.allocateDirect(capacity + RingBufferDescriptor.TRAILER_LENGTH)));
    }

    @Override
    public int tryClaim(final int msgTypeId, final int length)
    {
        return ring.tryClaim(msgTypeId, length);
    }

    @Override
    public AtomicBuffer buffer()
    {
        return ring.buffer();
    }

    @Override
    public void commit(final int index)
    {
        ring.commit(index);
    }

    @Override
    public int controlledRead(final ControlledMessageHandler handler, final int limit)
    {
        return ring.controlledRead(handler, limit);
    }

    @Override
    public long producerPosition()
    {
        return ring.producerPosition();
    }

    @Override
    public long consumerPosition()
    {
        return ring.consumerPosition();
    }
}
