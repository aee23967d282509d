package io.jfabric.conformance;

import io.jfabric.CompletionEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.CqFormat;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import io.jfabric.Progress;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static io.jfabric.conformance.Pair.progressAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * RMA events at the target ({@code FI_RMA_EVENT}) and many memory regions (fabtests {@code multi_mr}): the target
 * endpoint's {@code FI_REMOTE_WRITE}/{@code FI_REMOTE_READ} counters count each access once its data is in place,
 * remote CQ data arrives as a target completion, each of several regions gets its own data; and the region-level
 * binds libfabric has for {@code FI_MR_RMA_EVENT}/{@code FI_MR_ENDPOINT} answer {@code ENOSYS}, as the providers'
 * {@code mr_mode} (without those bits) says.
 * <p>
 * A suite class: a provider runs it by extending it with its {@link PairFactory} (see {@link Conformance}).
 */
@Timeout(60)
public abstract class RmaEventConformance extends Conformance
{
    private static final int REGIONS = 8;
    private static final int SIZE = 1024;

    /**
     * @param factory the provider under test.
     */
    protected RmaEventConformance(final PairFactory factory)
    {
        super(factory);
    }

    @Test
    void shouldAdvertiseRmaEventWithoutRegionLevelModes()
    {
        final Info info = info(Info.builder().caps(Flags.RMA | Flags.RMA_EVENT).build());
        assertEquals(Flags.RMA_EVENT, info.caps() & Flags.RMA_EVENT);
        assertEquals(0, info.domainAttr().mrMode() & (MrMode.RMA_EVENT | MrMode.ENDPOINT));
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldCountRemoteAccessesOfManyRegionsAtTheTargetEndpoint(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final Counter remoteWrites = p.domainB.counter();
            final Counter remoteReads = p.domainB.counter();
            final CompletionQueue targetCq = p.domainB.completionQueue(64, CqFormat.DATA);
            final Endpoint target = p.domainB.endpoint(p.infoB).bind(p.avB, 0)
                .bind(targetCq, Flags.TRANSMIT | Flags.RECV).bind(remoteWrites, Flags.REMOTE_WRITE)
                .bind(remoteReads, Flags.REMOTE_READ).enable();
            final long addr = p.avA.insert(target.name());
            final UnsafeBuffer[] memory = new UnsafeBuffer[REGIONS];
            final MemoryRegion[] regions = new MemoryRegion[REGIONS];
            for (int i = 0; i < REGIONS; i++)
            {
                memory[i] = direct(SIZE);
                regions[i] = p.domainB.registerMemory(memory[i], 0, SIZE, Flags.REMOTE_READ | Flags.REMOTE_WRITE,
                    200 + i);
            }
            for (int i = 0; i < REGIONS; i++)
            {
                assertEquals(0, p.a.write(pattern(SIZE, i + 1), 0, SIZE, addr, 0, regions[i].key(), i));
                assertEquals(i, one(p.cqA).context());
                assertEquals(i + 1, remoteWrites.read(), "one event per write, counted once the data is in place");
                assertPattern(memory[i], 0, SIZE, i + 1);
            }
            for (int i = 0; i < REGIONS; i++)
            {
                final UnsafeBuffer back = direct(SIZE);
                assertEquals(0, p.a.read(back, 0, SIZE, addr, 0, regions[i].key(), 100 + i));
                assertEquals(100 + i, one(p.cqA).context());
                assertPattern(back, 0, SIZE, i + 1);
            }
            awaitCount(remoteReads, REGIONS);
            assertEquals(REGIONS, remoteWrites.read());
            Pair.assertEmpty(targetCq);

            // Remote CQ data: a target completion on the target endpoint's CQ.
            assertEquals(0, p.a.writedata(pattern(64, 9), 0, 64, 0x5EEDL, addr, 0, regions[3].key(), 7));
            assertEquals(7, one(p.cqA).context());
            final CompletionEntry event = one(targetCq);
            assertEquals(Flags.REMOTE_WRITE | Flags.RMA | Flags.REMOTE_CQ_DATA, event.flags());
            assertEquals(0x5EEDL, event.data());
            assertEquals(REGIONS + 1, remoteWrites.read());
            assertPattern(memory[3], 0, 64, 9);

            for (final MemoryRegion mr : regions)
            {
                mr.close();
            }
            target.close();
            targetCq.close();
            remoteWrites.close();
            remoteReads.close();
        }
    }

    @Test
    void shouldAnswerRegionLevelBindsThatAreNotOffered()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final UnsafeBuffer memory = direct(64);
            final Counter counter = p.domainB.counter();
            final Counter foreign = p.domainA.counter();
            final MemoryRegion mr = p.domainB.registerMemory(memory, 0, 64, Flags.REMOTE_WRITE, 5);
            assertEquals(Errno.ENOSYS, assertThrows(FabricException.class,
                () -> mr.bind(counter, Flags.REMOTE_WRITE)).errno());
            assertEquals(Errno.ENOSYS, assertThrows(FabricException.class,
                () -> mr.bind(counter, Flags.REMOTE_WRITE | Flags.REMOTE_READ)).errno());
            assertEquals(Errno.EBADFLAGS, assertThrows(FabricException.class,
                () -> mr.bind(counter, Flags.SEND)).errno());
            assertEquals(Errno.EBADFLAGS, assertThrows(FabricException.class, () -> mr.bind(counter, 0)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> mr.bind((Counter) null, Flags.REMOTE_WRITE)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> mr.bind(foreign, Flags.REMOTE_WRITE)).errno());
            assertEquals(Errno.ENOSYS, assertThrows(FabricException.class, () -> mr.bind(p.b, 0)).errno());
            assertEquals(Errno.EBADFLAGS, assertThrows(FabricException.class,
                () -> mr.bind(p.b, Flags.REMOTE_WRITE)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> mr.bind(p.a, 0)).errno());
            assertEquals(0, mr.enable());
            mr.close();
            assertEquals(Errno.EOPBADSTATE.negated(), mr.enable());
            counter.close();
            foreign.close();
        }
    }

    private static void awaitCount(final Counter counter, final long value)
    {
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        while (counter.read() < value)
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("counter stayed at " + counter.read() + ", expected " + value);
            }
            progressAll();
        }
        assertEquals(value, counter.read());
    }
}
