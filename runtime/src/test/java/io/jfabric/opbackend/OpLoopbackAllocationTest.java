package io.jfabric.opbackend;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.DomainAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.Progress;
import io.jfabric.conformance.Pair;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operation level's data path allocates nothing: with manual progress both domains' duty cycles (the
 * {@code OperationAdapter}, the back-end, the runtime's matching and completion writer) run on the test thread, whose
 * allocated bytes are measured over many tagged round trips, RMA writes and fetching atomics.
 */
@Timeout(120)
class OpLoopbackAllocationTest
{
    private static long allocatedBytes()
    {
        final com.sun.management.ThreadMXBean bean =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        return bean.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    @Test
    void shouldAllocateNothingForTaggedRoundTripsWritesAndAtomicsAfterWarmUp()
    {
        final Info info = LoopbackOperationProvider.info(Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC)
            .domainAttr(DomainAttr.builder().dataProgress(Progress.MANUAL).build())
            .build());
        try (Pair p = new Pair(info, info, 0, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer target = Pair.direct(4096);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 5))
            {
                final UnsafeBuffer tx = Pair.pattern(64, 1);
                final UnsafeBuffer rx = Pair.direct(64);
                final UnsafeBuffer operand = Pair.direct(8);
                operand.putLong(0, 1);
                final UnsafeBuffer result = Pair.direct(8);
                final CompletionEntry entry = new CompletionEntry();
                for (int i = 0; i < 5_000; i++)
                {
                    round(p, mr.key(), tx, rx, operand, result, entry);
                }
                allocatedBytes();
                final long calibrateStart = allocatedBytes();
                final long overhead = allocatedBytes() - calibrateStart;
                final long before = allocatedBytes();
                final int rounds = 20_000;
                for (int i = 0; i < rounds; i++)
                {
                    round(p, mr.key(), tx, rx, operand, result, entry);
                }
                final long allocated = allocatedBytes() - before - overhead;
                assertEquals(5_000 + rounds, target.getLong(64), "every atomic landed once");
                // 20k rounds post 80k operations and read 100k completions: one object per call would be megabytes.
                assertTrue(allocated < 65536, "bytes allocated by " + rounds + " rounds: " + allocated);
            }
        }
    }

    private static void round(
        final Pair p,
        final long key,
        final UnsafeBuffer tx,
        final UnsafeBuffer rx,
        final UnsafeBuffer operand,
        final UnsafeBuffer result,
        final CompletionEntry entry)
    {
        assertEquals(0, p.b.trecv(rx, 0, 64, p.addrAFromB, 3, 0, 1));
        assertEquals(0, p.a.tsend(tx, 0, 64, p.addrBFromA, 3, 2));
        await(p, p.cqB, entry);
        assertEquals(1, entry.context());
        await(p, p.cqA, entry);
        assertEquals(2, entry.context());
        assertEquals(0, p.a.write(tx, 0, 64, p.addrBFromA, 0, key, 3));
        await(p, p.cqA, entry);
        assertEquals(3, entry.context());
        assertEquals(0, p.a.fetchAtomic(operand, 0, 1, result, 0, p.addrBFromA, 64, key, AtomicDatatype.INT64,
            AtomicOp.SUM, 4));
        await(p, p.cqA, entry);
        assertEquals(4, entry.context());
    }

    private static void await(final Pair p, final CompletionQueue cq, final CompletionEntry entry)
    {
        // Bounded by the class's @Timeout; each pass drives both domains (manual progress).
        while (1 != cq.read(entry))
        {
            p.domainA.progress();
            p.domainB.progress();
        }
    }
}
