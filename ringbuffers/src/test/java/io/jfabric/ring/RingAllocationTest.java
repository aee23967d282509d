/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.concurrent.AtomicBuffer;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RingAllocationTest
{
    private static final int WARM_UP = 50_000;
    private static final int MEASURED = 50_000;
    private static final int ROUNDS = 3;

    private final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private long sum;

    private final CommandHandler commandHandler = this::onCommand;
    private final CompletionFlyweight flyweight = new CompletionFlyweight();
    private final CompletionHandler completionHandler = this::onCompletion;

    private void onCommand(final AtomicBuffer buffer, final int offset, final int slots)
    {
        sum += buffer.getLong(offset) + slots;
    }

    private void onCompletion(final AtomicBuffer buffer, final int offset)
    {
        sum += flyweight.wrap(buffer, offset).context() + flyweight.tag();
    }

    private long allocatedBytes()
    {
        return threads.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    private void cycleCommands(final CommandRing ring, final int iterations)
    {
        for (int i = 0; i < iterations; i++)
        {
            final int slots = 1 + (i & 3);
            final int index = ring.tryClaim(slots);
            ring.buffer().putLong(index, i);
            if ((i & 7) == 7)
            {
                ring.abort(index);
            }
            else
            {
                ring.commit(index);
            }
            ring.drain(commandHandler, 16);
        }
    }

    private void cycleCompletions(final CompletionRing ring, final int iterations)
    {
        for (int i = 0; i < iterations; i++)
        {
            if ((i & 15) == 15)
            {
                ring.writeError(i, 1, 2, 3, 4, 5, 265, 0, 0);
                ring.read(completionHandler, 16);
                ring.readError(completionHandler);
            }
            else
            {
                ring.write(i, 1, 2, 3, 4, 5);
                ring.read(completionHandler, 16);
            }
        }
    }

    @Test
    void shouldNotAllocateOnClaimCommitAbortDrain()
    {
        threads.setThreadAllocatedMemoryEnabled(true);
        assertTrue(threads.isThreadAllocatedMemoryEnabled());
        final CommandRing manyToOne = CommandRingTest.newRing(true, 1024);
        final CommandRing oneToOne = CommandRingTest.newRing(false, 1024);
        cycleCommands(manyToOne, WARM_UP);
        cycleCommands(oneToOne, WARM_UP);
        allocatedBytes();

        // a per-call allocation would show in every round; a one-off JIT or runtime event shows in one at most.
        long fewest = Long.MAX_VALUE;
        for (int round = 0; round < ROUNDS && fewest != 0; round++)
        {
            final long before = allocatedBytes();
            cycleCommands(manyToOne, MEASURED);
            cycleCommands(oneToOne, MEASURED);
            fewest = Math.min(fewest, allocatedBytes() - before);
        }

        assertEquals(0, fewest, "bytes allocated by " + 2 * MEASURED + " claim/commit/drain cycles");
        assertEquals(0, manyToOne.size());
        assertEquals(0, oneToOne.size());
        assertTrue(sum != 0);
    }

    @Test
    void shouldNotAllocateOnWriteAndRead()
    {
        threads.setThreadAllocatedMemoryEnabled(true);
        final CompletionRing oneToOne = CompletionRingTest.newRing(false, 1024);
        final CompletionRing shared = CompletionRingTest.newRing(true, 1024);
        cycleCompletions(oneToOne, WARM_UP);
        cycleCompletions(shared, WARM_UP);
        allocatedBytes();

        long fewest = Long.MAX_VALUE;
        for (int round = 0; round < ROUNDS && fewest != 0; round++)
        {
            final long before = allocatedBytes();
            cycleCompletions(oneToOne, MEASURED);
            cycleCompletions(shared, MEASURED);
            fewest = Math.min(fewest, allocatedBytes() - before);
        }

        assertEquals(0, fewest, "bytes allocated by " + 2 * MEASURED + " write/read cycles");
        assertEquals(0, oneToOne.size());
        assertEquals(0, shared.size());
    }
}
