package io.jfabric.provider.gni;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.MemoryRegion;
import io.jfabric.Message;
import io.jfabric.Progress;
import io.jfabric.conformance.IovConformance;
import io.jfabric.conformance.Pair;
import org.agrona.DirectBuffer;
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
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link IovConformance} over the {@code gni} provider. Overridden by their gni forms: the two cases that name
 * several remote ranges in one RMA ({@link GniDifferences#RMA_IOV_1}: {@code -EINVAL} at post, nothing moved, then
 * the same data range by range, one RMA each) and the atomics over iovs of several elements
 * ({@link GniDifferences#ONE_ELEMENT}: {@code -EMSGSIZE} at post, then one element per operation through the iov
 * forms).
 */
class GniIovConformanceTest extends IovConformance
{
    private static final int PAGE = 4096;

    GniIovConformanceTest()
    {
        super(GniConformance.WITH_ATOMICS);
    }

    private static void assertSame(
        final UnsafeBuffer expected, final int from, final UnsafeBuffer actual, final int at, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (expected.getByte(from + i) != actual.getByte(at + i))
            {
                fail("byte " + i + " of " + length + " differs");
            }
        }
    }

    private static UnsafeBuffer longs(final long... values)
    {
        final UnsafeBuffer buffer = direct(values.length * 8);
        for (int i = 0; i < values.length; i++)
        {
            buffer.putLong(i * 8, values[i]);
        }
        return buffer;
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni RMA_IOV_1: writemsg/readmsg over 3 remote ranges EINVAL; the same ranges one RMA each")
    protected void shouldWriteAndReadSeveralRemoteRangesInOrder(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer regionOne = direct(1000);
            final UnsafeBuffer regionTwo = direct(1 << 20);
            try (MemoryRegion one = p.domainB.registerMemory(
                    regionOne, 0, 1000, Flags.REMOTE_READ | Flags.REMOTE_WRITE, 81);
                MemoryRegion two = p.domainB.registerMemory(
                    regionTwo, 0, 1 << 20, Flags.REMOTE_READ | Flags.REMOTE_WRITE, 82))
            {
                final UnsafeBuffer src = pattern(300, 5);
                final long[] addresses = {10, 500, 200};
                final long[] lengths = {100, 50, 150};
                final long[] keys = {81, 82, 81};
                assertEquals(Errno.EINVAL.negated(), p.a.writemsg(new Message()
                    .iov(new DirectBuffer[]{new UnsafeBuffer(src, 0, 120), new UnsafeBuffer(src, 120, 180)}, 2)
                    .addr(p.addrBFromA).rmaIov(addresses, lengths, keys, 3).context(1), Flags.COMPLETION));
                final UnsafeBuffer back = direct(300);
                assertEquals(Errno.EINVAL.negated(), p.a.readmsg(new Message().buffer(back, 0, 300)
                    .addr(p.addrBFromA).rmaIov(addresses, lengths, keys, 3).context(2), Flags.COMPLETION));
                for (int i = 0; i < 1000; i++)
                {
                    assertEquals(0, regionOne.getByte(i), "region one byte " + i);
                }
                assertEmpty(p.cqA);

                // Range by range, each with one remote range; the first with a local iov of two buffers.
                int offset = 0;
                for (int r = 0; r < 3; r++)
                {
                    final int length = (int) lengths[r];
                    final Message msg = 0 == r ?
                        new Message().iov(new DirectBuffer[]{new UnsafeBuffer(src, 0, 60),
                            new UnsafeBuffer(src, 60, 40)}, 2) :
                        new Message().buffer(src, offset, length);
                    assertEquals(0, p.a.writemsg(msg.addr(p.addrBFromA).rma(addresses[r], keys[r]).context(10 + r),
                        Flags.COMPLETION));
                    assertEquals(10 + r, one(p.cqA).context());
                    offset += length;
                }
                assertSame(src, 0, regionOne, 10, 100);
                assertSame(src, 100, regionTwo, 500, 50);
                assertSame(src, 150, regionOne, 200, 150);
                assertEquals(0, regionOne.getByte(9));
                assertEquals(0, regionOne.getByte(110));
                assertEquals(0, regionOne.getByte(350));
                offset = 0;
                for (int r = 0; r < 3; r++)
                {
                    final int length = (int) lengths[r];
                    assertEquals(0, p.a.readmsg(new Message().buffer(back, offset, length).addr(p.addrBFromA)
                        .rma(addresses[r], keys[r]).context(20 + r), Flags.COMPLETION));
                    assertEquals(20 + r, one(p.cqA).context());
                    offset += length;
                }
                assertPattern(back, 0, 300, 5);

                // Large: the three ranges of both regions in one writemsg are refused; one RMA per range moves them.
                final int size = 900_003;
                final UnsafeBuffer big = pattern(size, 9);
                final long[] bigAddresses = {1, 0, 600_000};
                final long[] bigLengths = {999, 600_000, size - 600_999};
                final long[] bigKeys = {81, 82, 82};
                regionOne.setMemory(0, 1000, (byte) 0);
                assertEquals(Errno.EINVAL.negated(), p.a.writemsg(new Message().buffer(big, 0, size)
                    .addr(p.addrBFromA).rmaIov(bigAddresses, bigLengths, bigKeys, 3).context(3), Flags.COMPLETION));
                assertEquals(0, regionOne.getByte(1));
                final UnsafeBuffer bigBack = direct(size);
                offset = 0;
                for (int r = 0; r < 3; r++)
                {
                    final int length = (int) bigLengths[r];
                    assertEquals(0, p.a.writemsg(new Message().buffer(big, offset, length).addr(p.addrBFromA)
                        .rma(bigAddresses[r], bigKeys[r]).context(30 + r), Flags.COMPLETION));
                    assertEquals(30 + r, one(p.cqA).context());
                    offset += length;
                }
                assertEquals(0, regionOne.getByte(0));
                assertSame(big, 0, regionOne, 1, 999);
                assertSame(big, 999, regionTwo, 0, size - 999);
                offset = 0;
                for (int r = 0; r < 3; r++)
                {
                    final int length = (int) bigLengths[r];
                    assertEquals(0, p.a.readmsg(new Message().buffer(bigBack, offset, length).addr(p.addrBFromA)
                        .rma(bigAddresses[r], bigKeys[r]).context(40 + r), Flags.COMPLETION));
                    assertEquals(40 + r, one(p.cqA).context());
                    offset += length;
                }
                assertPattern(bigBack, 0, size, 9);
                assertEmpty(p.cqA);
            }
        }
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni RMA_IOV_1: two remote ranges EINVAL at post; each bad range alone fails, target untouched")
    protected void shouldFailTheWholeOperationWhenOneRemoteRangeIsBad(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            // The suite's read-only region starts at byte 1024 of the buffer: here at the next page
            // (GniDifferences.PAGE_ALIGNED).
            final UnsafeBuffer target = direct(2 * PAGE);
            try (MemoryRegion rw = p.domainB.registerMemory(target, 0, 1024,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 91);
                MemoryRegion ro = p.domainB.registerMemory(target, PAGE, 1024, Flags.REMOTE_READ, 92))
            {
                final UnsafeBuffer src = pattern(600_000, 3);
                final long[][] badLists = {
                    {0, 100, 91, 1000, 100, 91},
                    {0, 100, 91, 0, 100, 92},
                    {0, 100, 91, 0, 100, 999}};
                final Errno[] expected = {Errno.EACCES, Errno.EACCES, Errno.EINVAL};
                for (int k = 0; k < badLists.length; k++)
                {
                    final long[] l = badLists[k];
                    final long[] addresses = {l[0], l[3]};
                    final long[] lengths = {l[1], l[4]};
                    final long[] keys = {l[2], l[5]};
                    assertEquals(Errno.EINVAL.negated(), p.a.writemsg(new Message().buffer(src, 0, 200)
                        .addr(p.addrBFromA).rmaIov(addresses, lengths, keys, 2).context(k), Flags.COMPLETION));
                    // The bad range alone: the provider's answer, before any byte moves; eager and large.
                    assertEquals(0, p.a.writemsg(new Message().buffer(src, 0, 100).addr(p.addrBFromA)
                        .rma(l[3], l[5]).context(k), Flags.COMPLETION));
                    final CompletionErrorEntry err = error(p.cqA);
                    assertEquals(expected[k], err.errno());
                    assertEquals(k, err.context());
                    assertEquals(0, p.a.writemsg(new Message().buffer(src, 0, 600_000).addr(p.addrBFromA)
                        .rma(l[3], l[5]).context(10 + k), Flags.COMPLETION));
                    final CompletionErrorEntry large = error(p.cqA);
                    assertEquals(10 + k, large.context());
                    assertEquals(0 == k ? Errno.EACCES : expected[k], large.errno());
                }
                for (int i = 0; i < 2 * PAGE; i++)
                {
                    assertEquals(0, target.getByte(i), "target byte " + i);
                }
                final UnsafeBuffer back = direct(200);
                back.setMemory(0, 200, (byte) 0x77);
                assertEquals(Errno.EINVAL.negated(), p.a.readmsg(new Message().buffer(back, 0, 200)
                    .addr(p.addrBFromA).rmaIov(new long[]{0, 1000}, new long[]{100, 100}, new long[]{91, 92}, 2)
                    .context(20), Flags.COMPLETION));
                assertEquals(0, p.a.readmsg(new Message().buffer(back, 0, 100).addr(p.addrBFromA).rma(1000, 92)
                    .context(21), Flags.COMPLETION));
                assertEquals(Errno.EACCES, error(p.cqA).errno());
                assertEquals(0x77, back.getByte(0));

                assertEquals(Errno.EINVAL.negated(), p.a.writemsg(new Message().buffer(src, 0, 200)
                    .addr(p.addrBFromA).rmaIov(new long[]{0}, new long[]{199}, new long[]{91}, 1), 0));
                final long[] ones = {1, 1, 1, 1, 1, 1, 1, 1};
                final long[] keys91 = {91, 91, 91, 91, 91, 91, 91, 91};
                assertEquals(Errno.EINVAL.negated(), p.a.writemsg(new Message().buffer(src, 0, 8)
                    .addr(p.addrBFromA).rmaIov(new long[]{7, 6, 5, 4, 3, 2, 1, 0}, ones, keys91, 8), 0));
                assertEquals(0, p.a.writemsg(new Message().buffer(src, 0, 8).addr(p.addrBFromA).rma(0, 91)
                    .context(30), Flags.COMPLETION));
                assertEquals(30, one(p.cqA).context());
                assertPattern(target, 0, 8, 3);
                assertEmpty(p.cqA);
            }
        }
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni ONE_ELEMENT: atomics of several elements over iovs EMSGSIZE; one element through the iov forms")
    protected void shouldRunAtomicsOverOperandCompareAndResultIovs(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = direct(128);
            for (int i = 0; i < 16; i++)
            {
                target.putLong(i * 8, 100 + i);
            }
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 128,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 7))
            {
                final DirectBuffer[] operands = {longs(1), longs(2, 3), longs(4, 5)};
                assertEquals(Errno.EMSGSIZE.negated(), p.a.atomicv(operands, 3, p.addrBFromA, 0, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 1));
                assertEquals(Errno.EMSGSIZE.negated(), p.a.fetchAtomicv(operands, 3,
                    new DirectBuffer[]{direct(16), direct(24)}, 2, p.addrBFromA, 0, mr.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 2));
                assertEquals(Errno.EMSGSIZE.negated(), p.a.compareAtomicv(new DirectBuffer[]{longs(-1, -2, -3)}, 1,
                    new DirectBuffer[]{longs(102), longs(0, 108)}, 2, new DirectBuffer[]{direct(24)}, 1, p.addrBFromA,
                    0, mr.key(), AtomicDatatype.INT64, AtomicOp.CSWAP, 3));
                assertEquals(Errno.EMSGSIZE.negated(), p.a.atomicmsg(new Message()
                    .iov(new DirectBuffer[]{longs(1000, 2000, 3000)}, 1).addr(p.addrBFromA)
                    .rmaIov(new long[]{80, 120}, new long[]{16, 8}, new long[]{7, 7}, 2).context(4),
                    AtomicDatatype.INT64, AtomicOp.SUM, Flags.COMPLETION));
                for (int i = 0; i < 16; i++)
                {
                    assertEquals(100 + i, target.getLong(i * 8), "target element " + i);
                }
                assertEmpty(p.cqA);

                assertEquals(0, p.a.atomicv(new DirectBuffer[]{longs(1)}, 1, p.addrBFromA, 0, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 1));
                assertEquals(1, one(p.cqA).context());
                assertEquals(101, target.getLong(0));

                final UnsafeBuffer r1 = direct(8);
                assertEquals(0, p.a.fetchAtomicv(new DirectBuffer[]{longs(1)}, 1, new DirectBuffer[]{r1}, 1,
                    p.addrBFromA, 0, mr.key(), AtomicDatatype.INT64, AtomicOp.SUM, 2));
                assertEquals(2, one(p.cqA).context());
                assertEquals(101, r1.getLong(0));
                assertEquals(102, target.getLong(0));

                final UnsafeBuffer res = direct(8);
                assertEquals(0, p.a.compareAtomicv(new DirectBuffer[]{longs(-1)}, 1,
                    new DirectBuffer[]{longs(102)}, 1, new DirectBuffer[]{res}, 1, p.addrBFromA, 0, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.CSWAP, 3));
                assertEquals(3, one(p.cqA).context());
                assertEquals(102, res.getLong(0));
                assertEquals(-1, target.getLong(0));

                assertEquals(0, p.a.atomicmsg(new Message().iov(new DirectBuffer[]{longs(1000)}, 1)
                    .addr(p.addrBFromA).rma(80, 7).context(4), AtomicDatatype.INT64, AtomicOp.SUM, Flags.COMPLETION));
                assertEquals(4, one(p.cqA).context());
                assertEquals(1110, target.getLong(80));
                assertEquals(111, target.getLong(88));

                final UnsafeBuffer f1 = direct(8);
                assertEquals(0, p.a.fetchAtomicv(null, 0, new DirectBuffer[]{f1}, 1, p.addrBFromA, 80, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.ATOMIC_READ, 5));
                assertEquals(5, one(p.cqA).context());
                assertEquals(1110, f1.getLong(0));
                final UnsafeBuffer g = direct(8);
                assertEquals(0, p.a.fetchAtomicmsg(new Message().iov(new DirectBuffer[]{longs(1)}, 1)
                    .addr(p.addrBFromA).rma(120, 7).context(6), new DirectBuffer[]{g}, 1, AtomicDatatype.INT64,
                    AtomicOp.SUM, Flags.COMPLETION));
                assertEquals(6, one(p.cqA).context());
                assertEquals(115, g.getLong(0));
                assertEquals(116, target.getLong(120));

                // A bad remote range fails the atomic; nothing changes.
                assertEquals(0, p.a.atomicmsg(new Message().iov(new DirectBuffer[]{longs(5)}, 1)
                    .addr(p.addrBFromA).rma(128, 7).context(7), AtomicDatatype.INT64, AtomicOp.SUM, Flags.COMPLETION));
                assertEquals(Errno.EACCES, error(p.cqA).errno());
                assertEquals(-1, target.getLong(0));
                assertEquals(Errno.EINVAL.negated(), p.a.fetchAtomicv(new DirectBuffer[]{longs(1)}, 1,
                    new DirectBuffer[]{direct(16)}, 1, p.addrBFromA, 0, mr.key(), AtomicDatatype.INT64, AtomicOp.SUM,
                    8));
                assertEquals(Errno.EINVAL.negated(), p.a.atomicv(new DirectBuffer[]{direct(12)}, 1, p.addrBFromA, 0,
                    mr.key(), AtomicDatatype.INT64, AtomicOp.SUM, 8));
                assertEmpty(p.cqA);
            }
        }
    }
}
