package io.jfabric.matching;

import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.matching.MatchFlags.ADDR_UNSPEC;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MatchingEngineAllocationTest
{
    private static final int ROUNDS = 20_000;

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldNotAllocateInSteadyState(final TagStorage storage)
    {
        assertNoSteadyStateAllocation(new MatchingEngine(new MatchingContext().tagStorage(storage).rxSize(64)));
    }

    /**
     * AUTO with a switch depth of 3: the four receives per queue of each round move the queues to the index and
     * the matches empty them again, twice per round, and none of it allocates.
     */
    @Test
    void shouldNotAllocateWhenAutoQueuesMoveToTheIndexAndBack()
    {
        final MatchingEngine engine = new MatchingEngine(
            new MatchingContext().tagStorage(TagStorage.AUTO).indexDepth(3).rxSize(64));
        assertNoSteadyStateAllocation(engine);
        assertTrue(engine.indexSwitches() >= 5L * ROUNDS * 2, "switches " + engine.indexSwitches());
    }

    private static void assertNoSteadyStateAllocation(final MatchingEngine engine)
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final MatchResult result = new MatchResult();
        final long[] checksum = new long[1];

        cycle(engine, result, checksum);
        cycle(engine, result, checksum);
        final long threadId = Thread.currentThread().getId();
        // The least over three windows, so a one-off JVM allocation (compilation, class loading) is not counted.
        long least = Long.MAX_VALUE;
        for (int window = 0; window < 3; window++)
        {
            final long before = threads.getThreadAllocatedBytes(threadId);
            cycle(engine, result, checksum);
            least = Math.min(least, threads.getThreadAllocatedBytes(threadId) - before);
        }

        assertEquals(0, least, "bytes allocated in steady state");
        assertEquals(0, engine.postedCount());
        assertEquals(0, engine.unexpectedCount());
        assertEquals(5L * 2 * ROUNDS * 8 * 3, checksum[0]);
    }

    private static void cycle(final MatchingEngine engine, final MatchResult result, final long[] checksum)
    {
        for (int i = 0; i < ROUNDS; i++)
        {
            for (int t = 0; t < 8; t++)
            {
                engine.postReceive(true, t % 2 == 0 ? ADDR_UNSPEC : 3, t, t == 7 ? 0xF : 0, t, 0, 64, 0, result);
            }
            for (int t = 0; t < 8; t++)
            {
                engine.onArrival(3, true, t, 3, 0, t, result);
                checksum[0] += result.length();
            }
            for (int t = 0; t < 8; t++)
            {
                engine.onArrival(3, true, t, 3, 0, t, result);
            }
            for (int t = 0; t < 8; t++)
            {
                engine.postReceive(true, 3, t, 0, t, 0, 64, 0, result);
                checksum[0] += result.length();
            }
        }
    }
}
