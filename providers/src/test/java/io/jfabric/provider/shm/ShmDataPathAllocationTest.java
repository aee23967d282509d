package io.jfabric.provider.shm;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.Progress;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shm data path allocates nothing after warm-up: posts, duty cycles (offers into a peer's mapped ring, polls,
 * the liveness scans with their fstat), CQ reads, with manual progress on the calling thread.
 */
@Timeout(120)
class ShmDataPathAllocationTest
{
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException
    {
        dir = ShmTests.useNewDirectory("jfabric-shm-alloc-");
    }

    @AfterAll
    static void cleanup() throws IOException
    {
        ShmTests.deleteTree(dir);
    }

    private static long allocatedBytes()
    {
        final com.sun.management.ThreadMXBean bean =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        return bean.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    @Test
    void shouldAllocateNothingForEagerAndRendezvousPingPongWithManualProgressAfterWarmUp()
    {
        measure("-alloc", false);
    }

    @Test
    void shouldAllocateNothingForSingleCopyRendezvousFromThePoolAfterWarmUp()
    {
        measure("-allocpool", true);
    }

    private static void measure(final String suffix, final boolean fromPool)
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, suffix))
        {
            final int big = ShmProvider.EAGER_THRESHOLD + 1;
            final UnsafeBuffer tx = fromPool ?
                new UnsafeBuffer(p.domainA.allocateShared(big).addressOffset(), big) : ShmTests.pattern(big, 1);
            final long directBefore = ShmTests.transport(p.domainB).directReads();
            final UnsafeBuffer rx = ShmTests.direct(big);
            final CompletionEntry entry = new CompletionEntry();
            final CompletionEntry[] entries = {new CompletionEntry(), new CompletionEntry()};
            for (int i = 0; i < 20_000; i++)
            {
                roundTrip(p, tx, rx, entry, entries, i);
            }
            allocatedBytes();
            final long calibrateStart = allocatedBytes();
            final long overhead = allocatedBytes() - calibrateStart;
            final long before = allocatedBytes();
            final long started = System.nanoTime();
            for (int i = 0; i < 50_000; i++)
            {
                roundTrip(p, tx, rx, entry, entries, i);
            }
            final long allocated = allocatedBytes() - before - overhead;
            final long elapsedMs = (System.nanoTime() - started) / 1_000_000;
            // 50k round trips post 200k operations (a tenth of them rendezvous) over ~elapsedMs / 50 liveness scans:
            // one allocation per call would be megabytes; what remains is the JVM's own noise.
            assertTrue(allocated < 65536, "bytes allocated by 50k round trips in " + elapsedMs + " ms: " + allocated);
            // A tenth of the 70k round trips are rendezvous: from the pool each is one direct read.
            assertEquals(fromPool ? 7_000 : 0, ShmTests.transport(p.domainB).directReads() - directBefore);
        }
    }

    private static void roundTrip(
        final ShmPair p,
        final UnsafeBuffer tx,
        final UnsafeBuffer rx,
        final CompletionEntry entry,
        final CompletionEntry[] entries,
        final int i)
    {
        final int size = 0 == i % 10 ? ShmProvider.EAGER_THRESHOLD + 1 : 64;
        if (0 != p.b.trecv(rx, 0, size, AddressVector.ADDR_UNSPEC, 3, 0, i) ||
            0 != p.a.tsend(tx, 0, size, p.addrBFromA, 3, 5) ||
            0 != p.a.inject(tx, 0, 8, p.addrBFromA) ||
            0 != p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, i))
        {
            throw new IllegalStateException("post failed");
        }
        int got = 0;
        while (got < 2)
        {
            p.domainA.progress();
            p.domainB.progress();
            final int n = p.cqB.read(entries, 2);
            if (n > 0)
            {
                got += n;
            }
        }
        while (1 != p.cqA.read(entry))
        {
            p.domainA.progress();
            p.domainB.progress();
        }
        p.sendCntrA.read();
    }
}
