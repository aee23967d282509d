package io.jfabric.provider.aeron;

import io.aeron.driver.MediaDriver;
import io.jfabric.AddressVector;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.Progress;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * aeron's data path allocates nothing: two domains with MANUAL progress, both driven from the test thread, so that
 * every post, the agents' duty cycles (offers, polls, fragment reassembly, the liveness scan) and every CQ read run
 * on this thread, whose allocated bytes the JVM counts. After a warm-up, rounds of tsend/trecv, send/recv,
 * tinject/trecv, RMA write, RMA read and fetch-atomic, each with its completions read, over UDP loopback and over
 * {@code aeron:ipc}. The media driver and the Aeron client's conductor run on their own threads (Aeron's, not
 * counted). Bounded by the test's timeout, never timed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AeronDataPathAllocationTest
{
    private static final int SIZE = 64;
    private static final long KEY = 17;
    private static final int WARM_UP = 3000;
    private static final int ROUNDS = 3000;

    private static long allocatedBytes()
    {
        final com.sun.management.ThreadMXBean bean =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        return bean.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    @ParameterizedTest(name = "ipc={0}")
    @ValueSource(booleans = {false, true})
    void shouldAllocateNothingOnTheDataPathAfterWarmUp(final boolean ipc)
    {
        // The driver yields instead of parking between duty cycles, so that a round trip takes microseconds.
        System.setProperty(io.aeron.driver.Configuration.SHARED_IDLE_STRATEGY_PROP_NAME, "yield");
        final MediaDriver driver;
        try
        {
            driver = AeronTests.startSharedDriver(ipc);
        }
        finally
        {
            System.clearProperty(io.aeron.driver.Configuration.SHARED_IDLE_STRATEGY_PROP_NAME);
        }
        try
        {
            final Info hints = Info.builder().caps(Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC)
                .fabricAttr(FabricAttr.builder().provName(AeronProvider.NAME).build())
                .domainAttr(DomainAttr.builder().dataProgress(Progress.MANUAL).build()).build();
            final Info info = Fabric.getInfo(hints).get(0);
            try (Fabric fabric = Fabric.open(info);
                Domain a = fabric.domain(info, "yield");
                Domain b = fabric.domain(info, "yield");
                AddressVector avA = a.addressVector(AvType.TABLE, 4);
                AddressVector avB = b.addressVector(AvType.TABLE, 4);
                CompletionQueue cqA = a.completionQueue(256, CqFormat.TAGGED);
                CompletionQueue cqB = b.completionQueue(256, CqFormat.TAGGED);
                Endpoint epA = a.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable();
                Endpoint epB = b.endpoint(info).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV).enable())
            {
                final UnsafeBuffer target = AeronNode.direct(4096);
                try (MemoryRegion region = b.registerMemory(target, 0, 4096,
                    Flags.REMOTE_READ | Flags.REMOTE_WRITE, KEY))
                {
                    final Rounds rounds = new Rounds(a, b, epA, epB, cqA, cqB, avA.insert(epB.name()),
                        avB.insert(epA.name()), target);
                    assertEquals(KEY, region.key());
                    for (int i = 0; i < WARM_UP; i++)
                    {
                        rounds.run(i);
                    }
                    allocatedBytes();
                    final long calibrateStart = allocatedBytes();
                    final long overhead = allocatedBytes() - calibrateStart;
                    final long before = allocatedBytes();
                    for (int i = 0; i < ROUNDS; i++)
                    {
                        rounds.run(WARM_UP + i);
                    }
                    final long allocated = allocatedBytes() - before - overhead;
                    // 3000 rounds post 21k operations and read 24k completions: one 16-byte object per call would
                    // be over 700 KB. What may remain is the JVM's own (JIT, allocation accounting): a few KB at
                    // most, independent of the count.
                    System.out.println("aeron data path, ipc=" + ipc + ": " + allocated + " bytes allocated by " +
                        ROUNDS + " rounds (" + (7 * ROUNDS) + " operations)");
                    assertTrue(allocated < 16384, "bytes allocated by " + ROUNDS + " rounds: " + allocated);
                }
            }
        }
        finally
        {
            AeronTests.stopSharedDriver(driver);
        }
    }

    /**
     * One round of every op family, each checked; the buffers and entries are made once.
     */
    private static final class Rounds
    {
        private final Domain a;
        private final Domain b;
        private final Endpoint epA;
        private final Endpoint epB;
        private final CompletionQueue cqA;
        private final CompletionQueue cqB;
        private final long toB;
        private final long toA;
        private final UnsafeBuffer target;
        private final UnsafeBuffer tx = AeronNode.direct(SIZE);
        private final UnsafeBuffer rx = AeronNode.direct(SIZE);
        private final UnsafeBuffer operand = AeronNode.direct(8);
        private final UnsafeBuffer result = AeronNode.direct(8);
        private final CompletionEntry entry = new CompletionEntry();

        Rounds(final Domain a, final Domain b, final Endpoint epA, final Endpoint epB, final CompletionQueue cqA,
            final CompletionQueue cqB, final long toB, final long toA, final UnsafeBuffer target)
        {
            this.a = a;
            this.b = b;
            this.epA = epA;
            this.epB = epB;
            this.cqA = cqA;
            this.cqB = cqB;
            this.toB = toB;
            this.toA = toA;
            this.target = target;
            operand.putLong(0, 1);
        }

        void run(final int i)
        {
            tx.putLong(0, i);
            check(epB.trecv(rx, 0, SIZE, toA, 5, 0, 1));
            check(epA.tsend(tx, 0, SIZE, toB, 5, 2));
            await(cqB, a, 1);
            assertTrue(rx.getLong(0) == i, "tagged payload");
            await(cqA, b, 2);
            check(epB.recv(rx, 0, SIZE, toA, 3));
            check(epA.send(tx, 0, SIZE, toB, 4));
            await(cqB, a, 3);
            await(cqA, b, 4);
            check(epB.trecv(rx, 0, SIZE, toA, 6, 0, 5));
            check(epA.tinject(tx, 0, 8, toB, 6));
            await(cqB, a, 5);
            check(epA.write(tx, 0, 8, toB, 64, KEY, 6));
            await(cqA, b, 6);
            assertTrue(target.getLong(64) == i, "written");
            check(epA.read(rx, 0, 8, toB, 64, KEY, 7));
            await(cqA, b, 7);
            check(epA.fetchAtomic(operand, 0, 1, result, 0, toB, 256, KEY, AtomicDatatype.UINT64, AtomicOp.SUM, 8));
            await(cqA, b, 8);
            assertTrue(result.getLong(0) == i, "fetched");
        }

        private static void check(final int status)
        {
            if (0 != status)
            {
                throw new AssertionError("post returned " + status);
            }
        }

        /**
         * Read one completion with the expected context, running the other domain's duty cycle meanwhile.
         */
        private void await(final CompletionQueue cq, final Domain other, final long context)
        {
            while (true)
            {
                other.progress();
                final int n = cq.read(entry);
                if (1 == n)
                {
                    if (entry.context() != context)
                    {
                        throw new AssertionError("context " + entry.context() + ", expected " + context);
                    }
                    return;
                }
                if (Errno.EAVAIL.negated() == n)
                {
                    final CompletionErrorEntry error = new CompletionErrorEntry();
                    throw new AssertionError("error completion while waiting for " + context + ": " +
                        (1 == cq.readErr(error) ? "context " + error.context() + " errno " + error.errno() +
                        " prov_errno " + error.provErrno() : "unreadable"));
                }
                if (Errno.EAGAIN.negated() != n)
                {
                    throw new AssertionError("cq.read returned " + n);
                }
            }
        }
    }
}
