package io.jfabric.provider.gni;

import io.jfabric.CompletionErrorEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.MemoryRegion;
import io.jfabric.Progress;
import io.jfabric.conformance.LargeTransferConformance;
import io.jfabric.conformance.Pair;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Pair.assertEmpty;
import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link LargeTransferConformance} over the {@code gni} provider. Overridden by its gni form: the bad-range case,
 * whose read-only region starts right after the writable one, at byte 1 MiB + 3 of the buffer
 * ({@link GniDifferences#PAGE_ALIGNED}: that registration is {@code EINVAL}; the case then runs with the read-only
 * region on the next page).
 */
class GniLargeTransferConformanceTest extends LargeTransferConformance
{
    private static final int MIB = 1 << 20;
    private static final int PAGE = 4096;

    GniLargeTransferConformanceTest()
    {
        super(GniConformance.FACTORY);
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni PAGE_ALIGNED: a region at byte 1 MiB + 3 EINVAL; page-aligned, a bad range fails all of it")
    protected void shouldFailALargeTransferWholeWhenAnyPartOfItsRangeIsBad(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final int size = MIB + 3;
            final int second = (size + PAGE - 1) & -PAGE;
            final UnsafeBuffer target = direct(second + size);
            final MemoryRegion writable = p.domainB.registerMemory(target, 0, size, Flags.REMOTE_WRITE |
                Flags.REMOTE_READ, 40);
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory(target, size, size, Flags.REMOTE_READ, 41)).errno());
            final MemoryRegion readOnly = p.domainB.registerMemory(target, second, size, Flags.REMOTE_READ, 41);
            final UnsafeBuffer src = pattern(size, 5);

            assertEquals(0, p.a.write(src, 0, size, p.addrBFromA, 1, writable.key(), 1));
            CompletionErrorEntry err = error(p.cqA);
            assertEquals(Errno.EACCES, err.errno());
            assertEquals(1, err.context());
            assertEquals(Flags.RMA | Flags.WRITE, err.flags());

            assertEquals(0, p.a.write(src, 0, size, p.addrBFromA, 0, readOnly.key(), 2));
            assertEquals(Errno.EACCES, error(p.cqA).errno());
            assertEquals(0, p.a.write(src, 0, size, p.addrBFromA, 0, 999, 3));
            assertEquals(Errno.EINVAL, error(p.cqA).errno());
            assertEquals(0, p.a.writedata(src, 0, size, 5, p.addrBFromA, 2, writable.key(), 4));
            assertEquals(Errno.EACCES, error(p.cqA).errno());
            assertEmpty(p.cqB);
            for (int i = 0; i < second + size; i++)
            {
                if (0 != target.getByte(i))
                {
                    fail("target byte " + i + " was written");
                }
            }

            final UnsafeBuffer local = direct(size);
            assertEquals(0, p.a.read(local, 0, size, p.addrBFromA, 3, readOnly.key(), 5));
            assertEquals(Errno.EACCES, error(p.cqA).errno());
            assertEquals(0, p.a.read(local, 0, size, p.addrBFromA, 0, writable.key() + 100, 6));
            assertEquals(Errno.EINVAL, error(p.cqA).errno());
            for (int i = 0; i < size; i++)
            {
                if (0 != local.getByte(i))
                {
                    fail("local byte " + i + " was written by a failed read");
                }
            }

            assertEquals(0, p.a.write(src, 0, size, p.addrBFromA, 0, writable.key(), 7));
            assertEquals(7, one(p.cqA).context());
            assertPattern(target, 0, size, 5);
            readOnly.close();
            writable.close();
        }
    }
}
