package io.jfabric.aries;

import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * A frame (or a stream of frames from registered memory) waiting for the wire: queued when the wire pushed back,
 * when a fault holds it for a number of engine steps, or while a large transfer is being cut into frames. Pooled
 * by the engine; its buffer grows to the largest frame it has held.
 * <p>
 * Threading: not thread-safe; touched under the node's lock.
 */
final class Outbound
{
    long peer;
    long releaseStep;
    GniEp ep;
    int length;
    UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(AriesFrameDescriptor.HEADER_LENGTH + 256));
    boolean stream;
    long source;
    long total;
    long sent;
    Transaction transaction;
    int transactionGeneration;
    /**
     * For a GET's data stream: the target NIC, the memory handle it reads through and that registration's generation
     * when the stream began, checked per frame (an index-only vMDH handle names a slot, whatever region holds it).
     */
    GniNic sourceNic;
    long sourceHandle1;
    long sourceHandle2;
    int sourceGeneration;

    void ensureCapacity(final int capacity)
    {
        if (buffer.capacity() < capacity)
        {
            buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(capacity));
        }
    }

    void reset()
    {
        peer = -1;
        releaseStep = 0;
        ep = null;
        length = 0;
        stream = false;
        source = 0;
        total = 0;
        sent = 0;
        transaction = null;
        transactionGeneration = 0;
        sourceNic = null;
        sourceHandle1 = 0;
        sourceHandle2 = 0;
        sourceGeneration = 0;
    }
}
