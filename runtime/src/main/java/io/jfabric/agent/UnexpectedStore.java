package io.jfabric.agent;

import org.agrona.BufferUtil;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * The payload memory of one endpoint's unexpected eager messages: blocks of a few size classes (64 B, 256 B,
 * 1 KiB, ... up to the eager threshold), carved from chunks of direct memory that are allocated when first needed
 * and then kept and reused (a freed block goes to its class's free list; nothing is given back on the data path).
 * The chunks of all classes together never exceed the configured byte bound: past it {@link #allocate} answers 0
 * and the agent refuses to store the message.
 * <p>
 * Threading: not thread-safe; owned by the domain agent.
 */
final class UnexpectedStore
{
    private static final int MIN_BLOCK = 64;
    private static final int CHUNK = 256 * 1024;

    private final long maxBytes;
    private final int[] classSize;
    private final long[] cursor;
    private final long[] end;
    private final long[][] free;
    private final int[] freeCount;
    private final ArrayList<ByteBuffer> chunks = new ArrayList<>();
    private long chunkBytes;

    /**
     * @param maxPayload the largest payload (the eager threshold).
     * @param maxBytes   most bytes of chunks.
     */
    UnexpectedStore(final int maxPayload, final long maxBytes)
    {
        this.maxBytes = maxBytes;
        int classes = 1;
        for (long size = MIN_BLOCK; size < maxPayload; size <<= 2)
        {
            classes++;
        }
        classSize = new int[classes];
        for (int c = 0; c < classes; c++)
        {
            classSize[c] = c == classes - 1 ? Math.max(MIN_BLOCK, maxPayload) : MIN_BLOCK << (2 * c);
        }
        cursor = new long[classes];
        end = new long[classes];
        free = new long[classes][16];
        freeCount = new int[classes];
    }

    private int classOf(final long length)
    {
        int c = 0;
        while (c < classSize.length - 1 && classSize[c] < length)
        {
            c++;
        }
        return c;
    }

    /**
     * A block for {@code length} bytes.
     *
     * @param length payload bytes (at most the eager threshold).
     * @return its address, or 0 when the byte bound is reached (or the length is above the largest class).
     */
    long allocate(final long length)
    {
        final int c = classOf(length);
        if (length > classSize[c])
        {
            return 0;
        }
        if (freeCount[c] > 0)
        {
            return free[c][--freeCount[c]];
        }
        if (cursor[c] == end[c])
        {
            final int chunk = Math.max(CHUNK, classSize[c]);
            if (chunkBytes + chunk > maxBytes)
            {
                return 0;
            }
            // Kept for the life of the endpoint: a flood's memory serves the next one.
            final ByteBuffer memory = ByteBuffer.allocateDirect(chunk);
            chunks.add(memory);
            chunkBytes += chunk;
            cursor[c] = BufferUtil.address(memory);
            end[c] = cursor[c] + (chunk / classSize[c]) * (long) classSize[c];
        }
        final long address = cursor[c];
        cursor[c] += classSize[c];
        return address;
    }

    /**
     * Would {@link #allocate} succeed now?
     *
     * @param length payload bytes.
     * @return true when a block of that size is free or can be carved within the bound.
     */
    boolean canAllocate(final long length)
    {
        final int c = classOf(length);
        return length <= classSize[c] && (freeCount[c] > 0 || cursor[c] != end[c] ||
            chunkBytes + Math.max(CHUNK, classSize[c]) <= maxBytes);
    }

    /**
     * Give a block back.
     *
     * @param address from {@link #allocate}.
     * @param length  the length it was allocated for.
     */
    void free(final long address, final long length)
    {
        final int c = classOf(length);
        if (freeCount[c] == free[c].length)
        {
            free[c] = Arrays.copyOf(free[c], freeCount[c] * 2);
        }
        free[c][freeCount[c]++] = address;
    }

    /**
     * @return bytes of direct memory taken so far.
     */
    long chunkBytes()
    {
        return chunkBytes;
    }
}
