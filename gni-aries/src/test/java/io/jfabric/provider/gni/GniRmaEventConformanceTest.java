package io.jfabric.provider.gni;

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
import io.jfabric.Progress;
import io.jfabric.conformance.Pair;
import io.jfabric.conformance.RmaEventConformance;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link RmaEventConformance} over the {@code gni} provider. The per-region counter case is overridden by its gni
 * form ({@link GniDifferences#NO_MR_BIND}): {@code fi_mr_bind} to a counter is {@code ENOSYS}, the region stays
 * usable and unbound counters count nothing; gni's {@code FI_RMA_EVENT} counting is the suite's other cases. The
 * many-regions case ({@link GniDifferences#RMA_EVENT_BY_CAPS}): the suite's pair asks for no {@code FI_RMA_EVENT}, and
 * upstream counts a target's remote accesses only when its caps have it; the gni form asserts that nothing is
 * counted then and runs the case with a target endpoint opened with {@code FI_RMA_EVENT}.
 */
class GniRmaEventConformanceTest extends RmaEventConformance
{
    private static final int SIZE = 1024;
    private static final int REGIONS = 8;

    GniRmaEventConformanceTest()
    {
        super(GniConformance.WITH_ATOMICS);
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni NO_MR_BIND: fi_mr_bind to a counter ENOSYS; the region still takes writes and reads")
    protected void shouldCountRemoteAccessesPerRegionWithFiMrBind(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final Counter writes = p.domainB.counter();
            final UnsafeBuffer mem = direct(SIZE);
            try (MemoryRegion mr = p.domainB.registerMemory(mem, 0, SIZE, Flags.REMOTE_READ | Flags.REMOTE_WRITE,
                11))
            {
                assertEquals(Errno.ENOSYS, assertThrows(FabricException.class,
                    () -> mr.bind(writes, Flags.REMOTE_WRITE)).errno());
                assertEquals(Errno.ENOSYS, assertThrows(FabricException.class,
                    () -> mr.bind(writes, Flags.REMOTE_READ)).errno());
                assertEquals(0, p.a.write(pattern(SIZE, 4), 0, SIZE, p.addrBFromA, 0, mr.key(), 1));
                assertEquals(1, one(p.cqA).context());
                assertPattern(mem, 0, SIZE, 4);
                final UnsafeBuffer back = direct(SIZE);
                assertEquals(0, p.a.read(back, 0, SIZE, p.addrBFromA, 0, mr.key(), 2));
                assertEquals(2, one(p.cqA).context());
                assertPattern(back, 0, SIZE, 4);
                assertEquals(0, writes.read(), "an unbound counter counts nothing");
            }
            writes.close();
        }
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni RMA_EVENT_BY_CAPS: a target without FI_RMA_EVENT counts nothing; with it, every access")
    protected void shouldCountRemoteAccessesOfManyRegionsAtTheTargetEndpoint(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            assertEquals(0, p.infoB.caps() & Flags.RMA_EVENT, "the suite's pair asks for no FI_RMA_EVENT");
            final Info withEvents = p.infoB.toBuilder().caps(p.infoB.caps() | Flags.RMA_EVENT).build();
            for (final Info targetInfo : new Info[]{p.infoB, withEvents})
            {
                final boolean counts = 0 != (targetInfo.caps() & Flags.RMA_EVENT);
                final Counter remoteWrites = p.domainB.counter();
                final Counter remoteReads = p.domainB.counter();
                final CompletionQueue targetCq = p.domainB.completionQueue(64, CqFormat.DATA);
                final Endpoint target = p.domainB.endpoint(targetInfo).bind(p.avB, 0)
                    .bind(targetCq, Flags.TRANSMIT | Flags.RECV).bind(remoteWrites, Flags.REMOTE_WRITE)
                    .bind(remoteReads, Flags.REMOTE_READ).enable();
                final long addr = p.avA.insert(target.name());
                // A message from the new endpoint: its caps (EP_CAPS) are ahead of it at the initiator.
                final UnsafeBuffer rx = direct(8);
                assertEquals(0, p.a.recv(rx, 0, 8, io.jfabric.AddressVector.ADDR_UNSPEC, 50));
                assertEquals(0, target.send(pattern(8, 1), 0, 8, p.addrAFromB, 51));
                assertEquals(50, one(p.cqA).context());
                assertEquals(51, one(targetCq).context());
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
                    assertEquals(counts ? i + 1 : 0, remoteWrites.read(), "counted once the data is in place");
                    assertPattern(memory[i], 0, SIZE, i + 1);
                }
                for (int i = 0; i < REGIONS; i++)
                {
                    final UnsafeBuffer back = direct(SIZE);
                    assertEquals(0, p.a.read(back, 0, SIZE, addr, 0, regions[i].key(), 100 + i));
                    assertEquals(100 + i, one(p.cqA).context());
                    assertPattern(back, 0, SIZE, i + 1);
                    assertEquals(counts ? i + 1 : 0, remoteReads.read());
                }
                assertEquals(0, p.a.writedata(pattern(64, 9), 0, 64, 0x5EEDL, addr, 0, regions[3].key(), 7));
                assertEquals(7, one(p.cqA).context());
                final CompletionEntry event = one(targetCq);
                assertEquals(Flags.REMOTE_WRITE | Flags.RMA | Flags.REMOTE_CQ_DATA, event.flags());
                assertEquals(0x5EEDL, event.data());
                assertEquals(counts ? REGIONS + 1 : 0, remoteWrites.read());
                assertPattern(memory[3], 0, 64, 9);
                Pair.assertEmpty(targetCq);
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
    }
}
