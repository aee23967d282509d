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
 * remote CQ data arrives as a target completion, each of several regions gets its own data; counters bound to
 * regions ({@code fi_mr_bind}) count the accesses of their region only (one-frame, several-range and streamed
 * writes, reads, atomics); the endpoint bind of {@code FI_MR_ENDPOINT} answers {@code ENOSYS}, as the providers'
 * {@code mr_mode} (without that bit) says.
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
    protected void shouldAdvertiseRmaEventWithoutRegionLevelModes()
    {
        final Info info = info(Info.builder().caps(Flags.RMA | Flags.RMA_EVENT).build());
        assertEquals(Flags.RMA_EVENT, info.caps() & Flags.RMA_EVENT);
        assertEquals(0, info.domainAttr().mrMode() & (MrMode.RMA_EVENT | MrMode.ENDPOINT));
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldCountRemoteAccessesOfManyRegionsAtTheTargetEndpoint(final Progress progress)
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
    protected void shouldCheckRegionBindArgumentsAndRefuseEndpointBinds()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final UnsafeBuffer memory = direct(64);
            final Counter counter = p.domainB.counter();
            final Counter foreign = p.domainA.counter();
            final MemoryRegion mr = p.domainB.registerMemory(memory, 0, 64, Flags.REMOTE_WRITE, 5);
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
            assertEquals(Errno.EOPBADSTATE, assertThrows(FabricException.class,
                () -> mr.bind(counter, Flags.REMOTE_WRITE)).errno());
            counter.close();
            foreign.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldCountRemoteAccessesPerRegionWithFiMrBind(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final Counter writesA = p.domainB.counter();
            final Counter readsA = p.domainB.counter();
            final Counter both = p.domainB.counter();
            final UnsafeBuffer memA = direct(SIZE);
            final UnsafeBuffer memB = direct(SIZE);
            final MemoryRegion a = p.domainB.registerMemory(memA, 0, SIZE, Flags.REMOTE_READ | Flags.REMOTE_WRITE, 11);
            final MemoryRegion b = p.domainB.registerMemory(memB, 0, SIZE, Flags.REMOTE_READ | Flags.REMOTE_WRITE, 12);
            a.bind(writesA, Flags.REMOTE_WRITE);
            a.bind(readsA, Flags.REMOTE_READ);
            b.bind(both, Flags.REMOTE_WRITE | Flags.REMOTE_READ);
            assertEquals(0, a.enable());
            for (int i = 0; i < 3; i++)
            {
                assertEquals(0, p.a.write(pattern(SIZE, i + 1), 0, SIZE, p.addrBFromA, 0, a.key(), i));
                assertEquals(i, one(p.cqA).context());
                assertEquals(i + 1, writesA.read(), "counted once the data is in place, before the completion");
                assertPattern(memA, 0, SIZE, i + 1);
            }
            // Two ranges of region b in one write: one event for b, none for a.
            assertEquals(0, p.a.writemsg(new io.jfabric.Message().buffer(pattern(64, 7), 0, 64).addr(p.addrBFromA)
                .rmaIov(new long[]{0, 512}, new long[]{32, 32}, new long[]{12, 12}, 2).context(20),
                Flags.COMPLETION));
            assertEquals(20, one(p.cqA).context());
            assertEquals(1, both.read());
            final UnsafeBuffer back = direct(SIZE);
            assertEquals(0, p.a.read(back, 0, SIZE, p.addrBFromA, 0, a.key(), 21));
            assertEquals(21, one(p.cqA).context());
            assertPattern(back, 0, SIZE, 3);
            assertEquals(1, readsA.read());
            final UnsafeBuffer operand = direct(8);
            operand.putLong(0, 1);
            assertEquals(0, p.a.atomic(operand, 0, 1, p.addrBFromA, 8, b.key(), io.jfabric.AtomicDatatype.INT64,
                io.jfabric.AtomicOp.SUM, 22));
            assertEquals(22, one(p.cqA).context());
            assertEquals(2, both.read(), "an atomic counts as a remote write");
            // A streamed write (larger than one frame) counts once, at its end.
            final int large = 1 << 20;
            final UnsafeBuffer big = direct(large);
            final MemoryRegion c = p.domainB.registerMemory(big, 0, large, Flags.REMOTE_WRITE, 13);
            c.bind(both, Flags.REMOTE_WRITE);
            assertEquals(0, p.a.write(pattern(large, 5), 0, large, p.addrBFromA, 0, c.key(), 23));
            assertEquals(23, one(p.cqA).context());
            assertEquals(3, both.read());
            assertPattern(big, 0, large, 5);
            assertEquals(3, writesA.read());
            assertEquals(1, readsA.read());
            assertEquals(Errno.EBUSY, assertThrows(FabricException.class, writesA::close).errno());
            a.close();
            b.close();
            c.close();
            writesA.close();
            readsA.close();
            both.close();
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
