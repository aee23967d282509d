package io.jfabric.loadtest;

import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The measured loops over two inproc sides with manual progress, each on its own thread as in the in-process mode:
 * every round trip completes with checked data, one histogram value per round trip, and after warm-up the loops
 * (posts, duty cycles, completion reads, checks, recording) allocate nothing on either thread. The watchdog allows
 * for the spinning case on a loaded 2-core machine (two spinning threads took 54 s there at load 21-26).
 */
@Timeout(180)
class PingpongLoopTest
{
    private static final int WARMUP = 20_000;
    private static final int MEASURED = 100_000;
    /** JVM noise allowance, far below the 1.6 MB that 16 bytes per round trip would take. */
    private static final long ALLOWANCE = 64 * 1024;

    private static long allocated()
    {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
            .getCurrentThreadAllocatedBytes();
    }

    /**
     * Sizes 64 and 4000 with yielding waits; 64 also with spinning waits, whose wait round runs only the read's own
     * duty cycle (issue 16).
     */
    @ParameterizedTest
    @CsvSource({ "64, yield", "4000, yield", "64, spin" })
    void shouldCompleteEveryRoundTripWithoutAllocating(final int size, final String idle) throws InterruptedException
    {
        final Info info = FabricInfos.resolve("inproc", Flags.TAGGED, Progress.MANUAL);
        try (PingpongEndpoint client = PingpongEndpoint.open(info, true, size, idle, 20_000);
            PingpongEndpoint server = PingpongEndpoint.open(info, true, size, idle, 20_000))
        {
            client.peer(server.name());
            server.peer(client.name());
            assertEquals(0, server.postRecv(size));
            final AtomicLong serverAllocated = new AtomicLong(-1);
            final PingpongLoop.Stats serverStats = new PingpongLoop.Stats();
            final Thread pong = new Thread(() ->
            {
                PingpongLoop.pong(server, size, WARMUP, 0, true, true, serverStats);
                if (0 == serverStats.status())
                {
                    final long before = allocated();
                    PingpongLoop.pong(server, size, MEASURED, WARMUP, false, true, serverStats);
                    serverAllocated.set(allocated() - before);
                }
                // manual progress: the last answer leaves when this side's domain runs
                while (!server.aborted())
                {
                    server.domain().progress();
                    Thread.yield();
                }
            }, "test-pong");
            pong.setDaemon(true);
            pong.start();

            final Histogram histogram = new Histogram(1, RigResult.HIGHEST_NS, 3);
            final PingpongLoop.Stats stats = new PingpongLoop.Stats();
            PingpongLoop.ping(client, size, WARMUP, 0, true, null, stats);
            assertEquals(0, stats.status());
            final long before = allocated();
            PingpongLoop.ping(client, size, MEASURED, WARMUP, true, histogram, stats);
            final long clientAllocated = allocated() - before;
            server.abort();
            pong.join(20_000);

            assertEquals(0, stats.status(), "client status");
            assertEquals(MEASURED, stats.completed());
            assertEquals(MEASURED, histogram.getTotalCount());
            assertTrue(histogram.getMinValue() > 0);
            assertEquals(0, serverStats.status(), "server status");
            assertEquals(MEASURED, serverStats.completed());
            assertTrue(clientAllocated < ALLOWANCE, "client thread allocated " + clientAllocated + " B");
            assertTrue(serverAllocated.get() >= 0 && serverAllocated.get() < ALLOWANCE,
                "server thread allocated " + serverAllocated.get() + " B");
        }
    }
}
