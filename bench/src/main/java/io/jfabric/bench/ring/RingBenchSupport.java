/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.bench.ring;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * Buffers and payload constants shared by the ring benchmarks, so that every ring moves the same bytes.
 * <p>
 * Threading: static helpers, safe from any thread.
 */
final class RingBenchSupport
{
    /**
     * Command ring capacity in 64-byte slots (the Agrona rings get the same number of bytes for records).
     */
    static final int SLOTS = 4096;

    /**
     * A command is one 64-byte slot: an 8-byte ring header plus a 56-byte body of seven longs. Agrona's records are
     * the same: an 8-byte record header plus 56 bytes.
     */
    static final int COMMAND_BODY_LENGTH = 56;

    /**
     * A completion entry is 64 bytes: eight longs. Agrona's one-to-one record gets the same 64-byte body.
     */
    static final int ENTRY_LENGTH = 64;

    /**
     * The most commands or entries a consumer takes per call.
     */
    static final int BATCH = 64;

    /**
     * JMH forks need Agrona's access to jdk.internal.misc.
     */
    static final String OPENS_MISC = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED";

    /**
     * JMH forks need Agrona's access to java.nio.
     */
    static final String OPENS_NIO = "--add-opens=java.base/java.nio=ALL-UNNAMED";

    private RingBenchSupport()
    {
    }

    static UnsafeBuffer aligned(final int length)
    {
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(length, 128));
    }

    static UnsafeBuffer agronaRingBuffer(final int dataLength)
    {
        return aligned(dataLength + RingBufferDescriptor.TRAILER_LENGTH);
    }
}
