package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import io.jfabric.OpenOps;
import io.jfabric.Progress;
import io.jfabric.conformance.Drive;
import io.jfabric.conformance.Pair;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.util.function.Consumer;

import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code GNI_TX_CQ_SIZE} takes effect when set before the domain's first endpoint opens ({@link GniNicGeometry}): the
 * NIC's TX CQ and its TX descriptor pool get that many entries ({@link GniTxDescriptors}); a burst of RMA writes
 * (FMA and BTE), reads (aligned, and unaligned by a chain of three GETs) and fetching atomics larger than the pool
 * is posted without one {@code EAGAIN}, queued inside the provider in order and completed with every byte and every
 * atomic result right; the queue's high-water shows in the domain's counters ({@code gni TX descriptor queue
 * high-water}), while the default pool (2048) and a value set after the first endpoint queue nothing; the queued
 * path allocates nothing once warm; queued writes to one place land in posting order. In basic MR mode, where each
 * RMA is an MR query and an RMA done message (SMSG sends, which hold descriptors too), a pool of one carries the
 * burst as well, and a rendezvous and an eager message beside it. Injected failures ({@code GNI_ERR_INJECT_COUNT})
 * of queued posts are retransmitted with the descriptors their failure events free.
 */
@Timeout(120)
class GniTxCqSizeTest
{
    private static final long CAPS = Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC;
    private static final int OPS = 50;
    private static final int SLOT = 16384;
    private static final int BTE = 9000;
    /**
     * Posts of a burst: per five operations one each for the writes, the aligned read and the atomic, three for the
     * unaligned read (head word, middle, tail word).
     */
    private static final int POSTS = OPS / 5 * 7;
    private static final String HIGH_WATER = "gni TX descriptor queue high-water";
    private static final String WAITS = "gni TX descriptor waits";

    /**
     * The burst's buffers, allocated once: sources of the writes, destinations of the reads, atomic operands and
     * results.
     */
    private static final class Burst
    {
        final UnsafeBuffer target = direct(OPS * SLOT);
        final UnsafeBuffer[] sources = new UnsafeBuffer[OPS];
        final UnsafeBuffer[] sinks = new UnsafeBuffer[OPS];
        final UnsafeBuffer operands = direct(OPS * 8);
        final UnsafeBuffer results = direct(OPS * 8);
        final CompletionEntry entry = new CompletionEntry();
        final CompletionErrorEntry error = new CompletionErrorEntry();
        final long base;

        Burst(final boolean basic)
        {
            base = basic ? target.addressOffset() : 0;
            for (int i = 0; i < OPS; i++)
            {
                switch (i % 5)
                {
                    case 0:
                        sources[i] = pattern(64, i);
                        break;
                    case 1:
                        sources[i] = pattern(BTE, i);
                        break;
                    case 2:
                        target.putBytes(i * SLOT, pattern(100, i), 0, 100);
                        sinks[i] = direct(100);
                        break;
                    case 3:
                        target.putBytes(i * SLOT + 1, pattern(61, i), 0, 61);
                        sinks[i] = direct(61);
                        break;
                    default:
                        operands.putLong(i * 8, i + 1);
                        break;
                }
            }
        }

        /**
         * Post the 50 operations (none may answer {@code EAGAIN}), then read their 50 completions.
         */
        void run(final GniOptionPair p, final long key)
        {
            for (int i = 0; i < OPS; i++)
            {
                final long at = base + (long) i * SLOT;
                final int rc;
                switch (i % 5)
                {
                    case 0:
                        rc = p.a.write(sources[i], 0, 64, p.addrBFromA, at, key, i);
                        break;
                    case 1:
                        rc = p.a.write(sources[i], 0, BTE, p.addrBFromA, at, key, i);
                        break;
                    case 2:
                        rc = p.a.read(sinks[i], 0, 100, p.addrBFromA, at, key, i);
                        break;
                    case 3:
                        rc = p.a.read(sinks[i], 0, 61, p.addrBFromA, at + 1, key, i);
                        break;
                    default:
                        rc = p.a.fetchAtomic(operands, i * 8, 1, results, i * 8, p.addrBFromA, at, key,
                            AtomicDatatype.INT64, AtomicOp.SUM, i);
                        break;
                }
                if (0 != rc)
                {
                    fail("operation " + i + " posted " + rc + " (" + Errno.strerror(rc) + ")");
                }
            }
            int completed = 0;
            final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            while (completed < OPS)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    fail(completed + " of " + OPS + " completed before the deadline");
                }
                p.domainA.progress();
                p.domainB.progress();
                final int n = p.cqA.read(entry);
                if (1 == n)
                {
                    completed++;
                }
                else if (Errno.EAVAIL.negated() == n)
                {
                    p.cqA.readErr(error);
                    fail("operation " + error.context() + " failed " + error.errno());
                }
            }
        }

        /**
         * Every byte written and read, every atomic's result and target after {@code rounds} bursts.
         */
        void verify(final int rounds)
        {
            for (int i = 0; i < OPS; i++)
            {
                switch (i % 5)
                {
                    case 0:
                        Pair.assertPattern(target, i * SLOT, 64, i);
                        break;
                    case 1:
                        Pair.assertPattern(target, i * SLOT, BTE, i);
                        break;
                    case 2:
                        Pair.assertPattern(sinks[i], 0, 100, i);
                        break;
                    case 3:
                        Pair.assertPattern(sinks[i], 0, 61, i);
                        break;
                    default:
                        assertEquals((long) (rounds - 1) * (i + 1), results.getLong(i * 8), "atomic " + i);
                        assertEquals((long) rounds * (i + 1), target.getLong(i * SLOT), "atomic target " + i);
                        break;
                }
            }
        }
    }

    private static Info info(final long mrMode)
    {
        return GniOpsTest.info(mrMode, Progress.MANUAL, null, CAPS);
    }

    private static void connect(final GniOptionPair p)
    {
        final UnsafeBuffer rx = direct(8);
        assertEquals(0, p.b.recv(rx, 0, 8, AddressVector.ADDR_UNSPEC, 900));
        assertEquals(0, p.a.send(pattern(8, 90), 0, 8, p.addrBFromA, 901));
        assertEquals(900, Drive.one(p.cqB, p.domainA, p.domainB).context());
        assertEquals(901, Drive.one(p.cqA, p.domainA, p.domainB).context());
    }

    private static long counter(final GniOptionPair p, final String name)
    {
        return GniTransportCounters.of(p.domainA, name).get(name);
    }

    @Test
    void shouldQueueABurstBeyondAPoolOfTwoAndCompleteItWithoutEagainOrAllocation()
    {
        final Consumer<OpenOps> two = ops -> ops.set(GniOps.GNI_TX_CQ_SIZE, 2);
        try (GniOptionPair p = new GniOptionPair(info(MrMode.MMU_NOTIFY), two))
        {
            assertEquals(2, p.opsA.get(GniOps.GNI_TX_CQ_SIZE));
            connect(p);
            final Burst burst = new Burst(false);
            try (MemoryRegion region = p.domainB.registerMemory(burst.target, 0, OPS * SLOT,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 21))
            {
                burst.run(p, region.key());
                burst.verify(1);
                final long highWater = counter(p, HIGH_WATER);
                final long waits = counter(p, WAITS);
                // 50 operations of 70 posts against 2 descriptors: most of them waited.
                assertTrue(highWater >= OPS / 2 && highWater <= POSTS, "queue high-water " + highWater);
                assertTrue(waits >= highWater, "posts queued " + waits);

                final com.sun.management.ThreadMXBean bean =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
                final long thread = Thread.currentThread().getId();
                final int warm = 20;
                final int rounds = 200;
                long allocated = 0;
                for (int round = 1; round < 1 + warm + rounds; round++)
                {
                    if (1 + warm == round)
                    {
                        allocated = bean.getThreadAllocatedBytes(thread);
                    }
                    burst.run(p, region.key());
                }
                allocated = bean.getThreadAllocatedBytes(thread) - allocated;
                burst.verify(1 + warm + rounds);
                assertTrue(counter(p, WAITS) >= waits + rounds * (long) OPS / 2, "every burst waited");
                assertTrue(allocated < 64 * 1024,
                    "allocated " + allocated + " B in " + rounds + " bursts of " + OPS + " queued operations");

                // Queued in order: twenty writes to one place, most of them queued, leave the last one's bytes.
                final long before = counter(p, WAITS);
                final UnsafeBuffer[] writes = new UnsafeBuffer[20];
                for (int i = 0; i < writes.length; i++)
                {
                    writes[i] = pattern(256, 100 + i);
                }
                for (int i = 0; i < writes.length; i++)
                {
                    assertEquals(0, p.a.write(writes[i], 0, 256, p.addrBFromA, 0, region.key(), 1000 + i));
                }
                for (int i = 0; i < writes.length; i++)
                {
                    Drive.one(p.cqA, p.domainA, p.domainB);
                }
                assertTrue(counter(p, WAITS) > before, "the writes waited");
                Pair.assertPattern(burst.target, 0, 256, 100 + writes.length - 1);
            }
        }
    }

    @Test
    void shouldQueueNothingWithTheDefaultPoolOrAValueSetAfterTheFirstEndpoint()
    {
        try (GniOptionPair p = new GniOptionPair(info(MrMode.MMU_NOTIFY), ops -> { }))
        {
            assertEquals(2048, p.opsA.get(GniOps.GNI_TX_CQ_SIZE));
            connect(p);
            // Set after the NIC exists: kept and read back, the pool stays as it is.
            p.opsA.set(GniOps.GNI_TX_CQ_SIZE, 2);
            assertEquals(2, p.opsA.get(GniOps.GNI_TX_CQ_SIZE));
            final Burst burst = new Burst(false);
            try (MemoryRegion region = p.domainB.registerMemory(burst.target, 0, OPS * SLOT,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 22))
            {
                burst.run(p, region.key());
                burst.run(p, region.key());
                burst.verify(2);
                assertEquals(0, counter(p, HIGH_WATER));
                assertEquals(0, counter(p, WAITS));
            }
        }
    }

    @Test
    void shouldCarryABurstOfMrQueriesAndRmaDoneMessagesThroughAPoolOfOne()
    {
        final long basic = MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY;
        try (GniOptionPair p = new GniOptionPair(info(basic), ops -> ops.set(GniOps.GNI_TX_CQ_SIZE, 1)))
        {
            connect(p);
            final Burst burst = new Burst(true);
            try (MemoryRegion region = p.domainB.registerMemory(burst.target, 0, OPS * SLOT,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 0))
            {
                burst.run(p, region.key());
                burst.run(p, region.key());
                burst.run(p, region.key());
                burst.verify(3);
                assertTrue(counter(p, WAITS) > 0, "posts waited for the one descriptor");
                // Messages share the descriptor: an eager one and a rendezvous one pulled by several GETs.
                final int large = 100_003;
                final UnsafeBuffer[] halves = {direct(50_001), direct(large - 50_001)};
                final UnsafeBuffer small = direct(300);
                assertEquals(0, p.b.trecvv(halves, 2, AddressVector.ADDR_UNSPEC, 5, 0, 31));
                assertEquals(0, p.b.trecv(small, 0, 300, AddressVector.ADDR_UNSPEC, 6, 0, 32));
                assertEquals(0, p.a.tsend(pattern(large, 5), 0, large, p.addrBFromA, 5, 33));
                assertEquals(0, p.a.tsend(pattern(300, 6), 0, 300, p.addrBFromA, 6, 34));
                for (int i = 0; i < 2; i++)
                {
                    Drive.one(p.cqA, p.domainA, p.domainB);
                    Drive.one(p.cqB, p.domainA, p.domainB);
                }
                final UnsafeBuffer whole = direct(large);
                whole.putBytes(0, halves[0], 0, 50_001);
                whole.putBytes(50_001, halves[1], 0, large - 50_001);
                Pair.assertPattern(whole, 0, large, 5);
                Pair.assertPattern(small, 0, 300, 6);
            }
        }
    }

    @Test
    void shouldRetransmitInjectedFailuresOfQueuedPostsWithTheDescriptorsTheyFree()
    {
        final int n = 30;
        try (GniOptionPair p = new GniOptionPair(info(MrMode.MMU_NOTIFY), ops -> ops.set(GniOps.GNI_TX_CQ_SIZE, 2)))
        {
            connect(p);
            final UnsafeBuffer target = direct(n * SLOT);
            final UnsafeBuffer[] sources = new UnsafeBuffer[n];
            final UnsafeBuffer[] sinks = new UnsafeBuffer[n];
            try (MemoryRegion region = p.domainB.registerMemory(target, 0, n * SLOT,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 23))
            {
                // Each transfer fails its first two transmissions (GNI_ERR_INJECT_COUNT) and is posted again.
                p.opsA.set(GniOps.GNI_ERR_INJECT_COUNT, 2);
                final long waits = counter(p, WAITS);
                final long fma = p.opsA.get(GniOps.GNI_STAT_FMA_POSTS);
                final long bte = p.opsA.get(GniOps.GNI_STAT_BTE_POSTS);
                for (int i = 0; i < n; i++)
                {
                    final int rc;
                    if (0 == i % 3)
                    {
                        sources[i] = pattern(64, i);
                        rc = p.a.write(sources[i], 0, 64, p.addrBFromA, (long) i * SLOT, region.key(), i);
                    }
                    else if (1 == i % 3)
                    {
                        sources[i] = pattern(BTE, i);
                        rc = p.a.write(sources[i], 0, BTE, p.addrBFromA, (long) i * SLOT, region.key(), i);
                    }
                    else
                    {
                        target.putBytes(i * SLOT + 3, pattern(61, i), 0, 61);
                        sinks[i] = direct(61);
                        rc = p.a.read(sinks[i], 0, 61, p.addrBFromA, (long) i * SLOT + 3, region.key(), i);
                    }
                    assertEquals(0, rc, "operation " + i);
                }
                for (int i = 0; i < n; i++)
                {
                    Drive.one(p.cqA, p.domainA, p.domainB);
                }
                for (int i = 0; i < n; i++)
                {
                    if (2 == i % 3)
                    {
                        Pair.assertPattern(sinks[i], 0, 61, i);
                    }
                    else
                    {
                        Pair.assertPattern(target, i * SLOT, 0 == i % 3 ? 64 : BTE, i);
                    }
                }
                assertTrue(counter(p, WAITS) > waits, "posts waited for the two descriptors");
                // The NIC saw each transfer once (its two injected failures never reached it): 10 FMA writes, 10 BTE
                // writes, 10 reads at offset 3 of a head word and a 60-byte middle.
                assertEquals(fma + 30, p.opsA.get(GniOps.GNI_STAT_FMA_POSTS));
                assertEquals(bte + 10, p.opsA.get(GniOps.GNI_STAT_BTE_POSTS));
                // The injection was on: with one retransmission allowed, a write's two failures fail it.
                p.opsA.set(GniOps.GNI_MAX_RETRANSMITS, 1);
                assertEquals(0, p.a.write(sources[0], 0, 64, p.addrBFromA, 0, region.key(), 99));
                final CompletionErrorEntry failed = Drive.error(p.cqA, p.domainA, p.domainB);
                assertEquals(99, failed.context());
                assertEquals(Errno.ECANCELED, failed.errno());
            }
        }
    }
}
