/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data path of both rings allocates nothing: claim/commit/controlled read (with ABORT) of the command queue, and
 * reserve/write/guarded read/error write and read of the completion ring, measured per thread by the JVM.
 */
class RingAllocationTest
{
    private static final int WARM_UP = 50_000;
    private static final int MEASURED = 50_000;
    private static final int ROUNDS = 3;

    private final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private long sum;
    private int aborts;

    private final ControlledMessageHandler commandHandler = this::onCommand;
    private final CompletionRing.CompletionSink sink = new CompletionRing.CompletionSink()
    {
        @Override
        public void onCompletion(
            final int index,
            final long context,
            final long flags,
            final long len,
            final long buf,
            final long data,
            final long tag,
            final long src)
        {
            sum += context + tag + src;
        }

        @Override
        public void onError(
            final long context,
            final long flags,
            final long len,
            final long buf,
            final long data,
            final long tag,
            final long olen,
            final int err,
            final int provErrno,
            final long src)
        {
            sum += context + err;
        }
    };

    private ControlledMessageHandler.Action onCommand(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        sum += buffer.getLong(index) + length;
        if (++aborts == 7)
        {
            aborts = 0;
            return ControlledMessageHandler.Action.ABORT;
        }
        return ControlledMessageHandler.Action.CONTINUE;
    }

    private long allocatedBytes()
    {
        return threads.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    private void cycleCommands(final CommandQueue queue, final int iterations)
    {
        for (int i = 0; i < iterations; i++)
        {
            final int length = 80 + 16 * (i & 3);
            final int index = queue.tryClaim(1 + (i & 7), length);
            queue.buffer().putLong(index, i);
            queue.commit(index);
            queue.controlledRead(commandHandler, 16);
        }
    }

    private void cycleCompletions(final CompletionRing ring, final int iterations)
    {
        for (int i = 0; i < iterations; i++)
        {
            ring.reserve();
            if ((i & 15) == 15)
            {
                ring.writeError(i, 1, 2, 3, 4, 5, 0, 265, 0, -1);
            }
            else
            {
                ring.write(i, 1, 2, 3, 4, 5, 6);
            }
            if (ring.tryLockRead())
            {
                if (ring.hasError())
                {
                    ring.readErrorInto(sink);
                }
                ring.readInto(sink, 16);
                ring.unlockRead();
            }
        }
    }

    @Test
    void shouldNotAllocateOnClaimCommitAbortRead()
    {
        threads.setThreadAllocatedMemoryEnabled(true);
        assertTrue(threads.isThreadAllocatedMemoryEnabled());
        final CommandQueue queue = new CommandQueue(1 << 16);
        cycleCommands(queue, WARM_UP);
        allocatedBytes();

        // a per-call allocation would show in every round; a one-off JIT or runtime event shows in one at most.
        long fewest = Long.MAX_VALUE;
        for (int round = 0; round < ROUNDS && fewest != 0; round++)
        {
            final long before = allocatedBytes();
            cycleCommands(queue, MEASURED);
            fewest = Math.min(fewest, allocatedBytes() - before);
        }

        assertEquals(0, fewest, "bytes allocated by " + MEASURED + " claim/commit/read cycles");
        assertTrue(queue.producerPosition() - queue.consumerPosition() < 16 * 128, "the reads kept up");
        assertTrue(sum != 0);
    }

    @Test
    void shouldNotAllocateOnReserveWriteAndRead()
    {
        threads.setThreadAllocatedMemoryEnabled(true);
        final CompletionRing ring = new CompletionRing(64);
        cycleCompletions(ring, WARM_UP);
        allocatedBytes();

        long fewest = Long.MAX_VALUE;
        for (int round = 0; round < ROUNDS && fewest != 0; round++)
        {
            final long before = allocatedBytes();
            cycleCompletions(ring, MEASURED);
            fewest = Math.min(fewest, allocatedBytes() - before);
        }

        assertEquals(0, fewest, "bytes allocated by " + MEASURED + " reserve/write/read cycles");
        assertEquals(0, ring.available());
        assertTrue(!ring.hasError());
    }
}
