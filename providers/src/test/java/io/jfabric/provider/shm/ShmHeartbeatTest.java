package io.jfabric.provider.shm;

import io.jfabric.Progress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The process-wide heartbeat (an Agrona {@code AgentRunner} on a daemon thread) keeps an idle MANUAL domain's ring
 * stamped, though nobody progresses it.
 */
class ShmHeartbeatTest
{
    @Test
    @Timeout(30)
    void shouldKeepStampingTheRingOfADomainNobodyProgresses() throws InterruptedException
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, "-heartbeat"))
        {
            final ShmRingFile file = ShmTests.transport(p.domainB).ownFile();
            final long first = file.heartbeat();
            // the heartbeat thread's stamps move the time forward with no call into the domain
            while (file.heartbeat() <= first)
            {
                Thread.sleep(5);
            }
            Thread runner = null;
            for (final Thread t : Thread.getAllStackTraces().keySet())
            {
                if ("jfabric-shm-heartbeat".equals(t.getName()))
                {
                    runner = t;
                }
            }
            assertTrue(null != runner && runner.isDaemon(), "a daemon thread jfabric-shm-heartbeat runs");
            assertTrue(file.heartbeat() > first);
        }
    }
}
