package io.jfabric.provider.gni;

import io.jfabric.Counter;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Flags;
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
 * usable and unbound counters count nothing; gni's {@code FI_RMA_EVENT} counting is the suite's other cases.
 */
class GniRmaEventConformanceTest extends RmaEventConformance
{
    private static final int SIZE = 1024;

    GniRmaEventConformanceTest()
    {
        super(GniConformance.FACTORY);
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
}
