package io.jfabric.aries;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static io.jfabric.aries.AriesFixture.put;
import static io.jfabric.aries.AriesFixture.register;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The steady-state data path (SMSG send/receive/release, PUT/GET/AMO, CQ reads, engine steps, in-JVM wire)
 * allocates nothing once warm (within the allocation counter's own jitter).
 */
class DataPathAllocationTest
{
    private static long allocated()
    {
        final com.sun.management.ThreadMXBean bean =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        return bean.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    private static void drain(final GniCq cq)
    {
        while (GniRc.NOT_DONE != cq.getEvent())
        {
            assertEquals(false, GniCqEntry.error(cq.event()));
        }
    }

    private static void round(
        final AriesPair p, final GniCq[] rx, final UnsafeBuffer message, final PostDescriptor[] posts)
    {
        assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, message, 0, 64, 1, 10));
        for (final PostDescriptor d : posts)
        {
            assertEquals(GniRc.SUCCESS, TransactionKind.RDMA_PUT == d.type ? p.epA.postRdma(d) : p.epA.postFma(d));
        }
        for (int i = 0; i < 8; i++)
        {
            p.nodeA.doWork();
            p.nodeB.doWork();
        }
        assertEquals(GniRc.SUCCESS, p.epB.smsgGetNextWTag(GniEp.SMSG_ANY_TAG));
        assertEquals(GniRc.SUCCESS, p.epB.smsgRelease());
        drain(p.cqA);
        drain(rx[1]);
    }

    @Test
    void shouldNotAllocateOnSteadyStateDataPath()
    {
        try (AriesPair p = new AriesPair())
        {
            final GniCq[] rx = CqAndSmsgTest.smsgInit(p, 8, 256, 64);
            final UnsafeBuffer local = AriesFixture.memory(64 * 1024);
            final UnsafeBuffer remote = AriesFixture.memory(64 * 1024);
            final MemHandle lh = register(p.nicA, local, 0);
            final MemHandle rh = register(p.nicB, remote, 0);
            final UnsafeBuffer message = AriesFixture.memory(4096);
            final PostDescriptor amo = new PostDescriptor();
            amo.type = TransactionKind.AMO;
            amo.amoCmd = AmoCmd.FIADD;
            amo.remoteAddr = remote.addressOffset();
            amo.remoteMemHandle.set(rh);
            amo.localAddr = local.addressOffset() + 8;
            amo.localMemHandle.set(lh);
            amo.firstOperand = 1;
            final PostDescriptor[] posts = {
                put(TransactionKind.FMA_PUT, local, lh, 0, remote, rh, 64, 100),
                put(TransactionKind.FMA_GET, local, lh, 256, remote, rh, 64, 100),
                put(TransactionKind.RDMA_PUT, local, lh, 0, remote, rh, 8192, 40_000),
                amo};
            for (int i = 0; i < 20_000; i++)
            {
                round(p, rx, message, posts);
            }
            // What reading the counter itself costs, measured the same way around nothing.
            long start = allocated();
            final long overhead = allocated() - start;
            start = allocated();
            for (int i = 0; i < 20_000; i++)
            {
                round(p, rx, message, posts);
            }
            final long bytes = allocated() - start - overhead;
            // One object per round would be >= 16 B x 20k = 320 KB; allow the counter's own jitter (tens of bytes).
            assertTrue(bytes < 1024, "bytes allocated by 20k warm rounds: " + bytes);
            assertEquals(40_000, remote.getLong(0));
        }
    }
}
