package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.Counter;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
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
 * region on the next page). The large writedata case ({@link GniDifferences#RMA_EVENT_BY_CAPS}): its target endpoint
 * has no {@code FI_RMA_EVENT}, so its remote write counter does not count (upstream's rule); the gni form asserts
 * that, then runs the case with a target endpoint opened with {@code FI_RMA_EVENT}, whose counter counts the write.
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

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni RMA_EVENT_BY_CAPS: 2 MiB writedata; the target's counter counts only with FI_RMA_EVENT")
    protected void shouldCompleteLargeWritedataOnceAtTheTargetWithItsDataAndCountBothSides(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final Info info = p.a.info();
            assertEquals(0, info.caps() & Flags.RMA_EVENT);
            final Info withEvents = info.toBuilder().caps(info.caps() | Flags.RMA_EVENT).build();
            for (final Info targetInfo : new Info[]{info, withEvents})
            {
                final boolean counts = targetInfo == withEvents;
                final Counter written = p.domainA.counter();
                final Counter remoteWritten = p.domainB.counter();
                final AddressVector av = p.domainA.addressVector(AvType.TABLE, 1);
                final AddressVector avB = p.domainB.addressVector(AvType.TABLE, 1);
                final Endpoint a2 = p.domainA.endpoint(info).bind(av, 0).bind(p.cqA, Flags.TRANSMIT)
                    .bind(written, Flags.WRITE).enable();
                final Endpoint b2 = p.domainB.endpoint(targetInfo).bind(avB, 0).bind(p.cqB, Flags.RECV)
                    .bind(remoteWritten, Flags.REMOTE_WRITE).enable();
                final long dest = av.insert(b2.name());
                final int size = 2 * MIB + 3;
                final UnsafeBuffer target = direct(size);
                try (MemoryRegion mr = p.domainB.registerMemory(target, 0, size, Flags.REMOTE_WRITE, 33))
                {
                    assertEquals(0, a2.writedata(pattern(size, 11), 0, size, 0xD00DL, dest, 0, mr.key(), 9));
                    final CompletionEntry atTarget = one(p.cqB);
                    assertEquals(0xD00DL, atTarget.data());
                    assertEquals(Flags.REMOTE_WRITE | Flags.RMA | Flags.REMOTE_CQ_DATA, atTarget.flags());
                    assertEquals(size, atTarget.len());
                    assertEquals(9, one(p.cqA).context());
                    assertPattern(target, 0, size, 11);
                    assertEquals(0, written.await(1, 20_000));
                    assertEquals(1, written.read());
                    // The writedata completes at the initiator on the target's acknowledgement of its event message,
                    // sent after the target published (or, without FI_RMA_EVENT, did not count) the write.
                    assertEquals(counts ? 1 : 0, remoteWritten.read());
                    assertEmpty(p.cqB);
                    assertEquals(counts ? 1 : 0, remoteWritten.read());
                }
                a2.close();
                b2.close();
                av.close();
                avB.close();
                written.close();
                remoteWritten.close();
            }
        }
    }
}
