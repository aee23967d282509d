package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.Message;
import io.jfabric.Progress;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.SplittableRandom;

import static io.jfabric.conformance.Pair.assertEmpty;
import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Several buffers on either side of an operation: rx iov (recvv, trecvv, recvmsg, trecvmsg), local iov for RMA,
 * several remote ranges (rma_iov) for RMA and atomics, atomics over operand, compare and result iovs; the iov
 * limits the provider's info advertises are honoured (exactly the limit taken, one more refused with
 * {@code -EINVAL}). A receive iov above the provider's {@code rx_attr.iov_limit} (shm's is 1) is checked to be
 * refused, and the scatter cases that need one end there.
 */
@Timeout(60)
public abstract class IovConformance extends Conformance
{
    /** The most iov entries the suite tries (inproc's limit, the runtime's {@code DomainAgent.MAX_IOV}). */
    private static final int MAX_IOV = 8;

    /**
     * @param factory the provider under test.
     */
    protected IovConformance(final PairFactory factory)
    {
        super(factory);
    }

    @Test
    void shouldAdvertiseTheIovLimitsItHonours()
    {
        final Info info = info(Progress.MANUAL, 0, 0);
        final int tx = (int) info.txAttr().iovLimit();
        final int rx = (int) info.rxAttr().iovLimit();
        assertTrue(tx >= 1 && tx <= MAX_IOV, "tx iov_limit " + tx);
        assertTrue(rx >= 1 && rx <= MAX_IOV, "rx iov_limit " + rx);
        assertTrue(info.txAttr().rmaIovLimit() >= 1 && info.txAttr().rmaIovLimit() <= MAX_IOV, "rma_iov_limit");
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 64))
        {
            // Exactly the limit is taken, one more is refused, on each side.
            assertEquals(Errno.EINVAL.negated(), p.b.recvv(buffers(rx + 1, 64), rx + 1, AddressVector.ADDR_UNSPEC, 1));
            final DirectBuffer[] in = buffers(rx, 64);
            assertEquals(0, p.b.recvv(in, rx, AddressVector.ADDR_UNSPEC, 2));
            final DirectBuffer[] out = new DirectBuffer[tx + 1];
            for (int i = 0; i <= tx; i++)
            {
                out[i] = pattern(8, i);
            }
            assertEquals(Errno.EINVAL.negated(), p.a.sendv(out, tx + 1, p.addrBFromA, 3));
            assertEquals(0, p.a.sendv(out, tx, p.addrBFromA, 4));
            final CompletionEntry e = one(p.cqB);
            assertEquals(2, e.context());
            assertEquals(8L * tx, e.len());
            for (int i = 0; i < tx; i++)
            {
                final int at = i * 8;
                final UnsafeBuffer got = (UnsafeBuffer) in[at / 64];
                assertPattern(new UnsafeBuffer(got, at % 64, 8), 0, 8, i);
            }
            assertEquals(4, one(p.cqA).context());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldScatterEagerMessagesAcrossReceiveBuffersPostedOrUnexpected(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            if (!receiveIovOf(p, 4))
            {
                return;
            }
            final UnsafeBuffer rxWhole = direct(120);
            final DirectBuffer[] rx = {
                new UnsafeBuffer(rxWhole, 0, 1), new UnsafeBuffer(rxWhole, 1, 49), new UnsafeBuffer(rxWhole, 50, 30),
                new UnsafeBuffer(rxWhole, 80, 40)};
            // Posted first.
            assertEquals(0, p.b.recvv(rx, 4, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, p.a.send(pattern(100, 3), 0, 100, p.addrBFromA, 2));
            CompletionEntry e = one(p.cqB);
            assertEquals(1, e.context());
            assertEquals(100, e.len());
            assertEquals(rxWhole.addressOffset(), e.buf());
            assertPattern(rxWhole, 0, 100, 3);
            assertEquals(0, rxWhole.getByte(100));
            assertEquals(2, one(p.cqA).context());

            // Unexpected first, tagged, through trecvmsg with an iov.
            rxWhole.setMemory(0, 120, (byte) 0);
            assertEquals(0, p.a.tsend(pattern(120, 4), 0, 120, p.addrBFromA, 9, 3));
            assertEquals(3, one(p.cqA).context());
            assertEquals(0, p.b.trecvmsg(new Message().iov(rx, 4).addr(AddressVector.ADDR_UNSPEC).tag(9).context(4),
                Flags.COMPLETION));
            e = one(p.cqB);
            assertEquals(4, e.context());
            assertEquals(120, e.len());
            assertEquals(9, e.tag());
            assertPattern(rxWhole, 0, 120, 4);

            // trecvv and recvmsg with an iov.
            rxWhole.setMemory(0, 120, (byte) 0);
            assertEquals(0, p.b.trecvv(rx, 3, AddressVector.ADDR_UNSPEC, 5, 0, 5));
            assertEquals(0, p.a.tsend(pattern(80, 6), 0, 80, p.addrBFromA, 5, 6));
            assertEquals(5, one(p.cqB).context());
            assertPattern(rxWhole, 0, 80, 6);
            assertEquals(0, p.b.recvmsg(new Message().iov(rx, 2).addr(AddressVector.ADDR_UNSPEC).context(7), 0));
            assertEquals(0, p.a.send(pattern(50, 8), 0, 50, p.addrBFromA, 8));
            assertEquals(7, one(p.cqB).context());
            assertPattern(rxWhole, 0, 50, 8);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldTruncateAcrossReceiveBuffersAndRefuseBadIovs(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            if (!receiveIovOf(p, 2))
            {
                return;
            }
            final UnsafeBuffer first = direct(10);
            final UnsafeBuffer second = direct(15);
            assertEquals(0, p.b.recvv(new DirectBuffer[]{first, second}, 2, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, p.a.send(pattern(40, 2), 0, 40, p.addrBFromA, 2));
            final CompletionErrorEntry err = error(p.cqB);
            assertEquals(Errno.ETRUNC, err.errno());
            assertEquals(25, err.len());
            assertEquals(15, err.olen());
            assertPattern(first, 0, 10, 2);
            for (int i = 0; i < 15; i++)
            {
                assertEquals((byte) (2 + (10 + i) * 31), second.getByte(i));
            }
            assertEquals(2, one(p.cqA).context());

            final int above = (int) p.infoB.rxAttr().iovLimit() + 1;
            final DirectBuffer[] nine = buffers(above, 8);
            assertEquals(Errno.EINVAL.negated(), p.b.recvv(nine, above, AddressVector.ADDR_UNSPEC, 3));
            assertEquals(Errno.EINVAL.negated(), p.b.trecvv(nine, 0, AddressVector.ADDR_UNSPEC, 0, 0, 3));
            assertEquals(Errno.EINVAL.negated(),
                p.b.recvv(new DirectBuffer[]{direct(8), new UnsafeBuffer(new byte[8])}, 2, AddressVector.ADDR_UNSPEC,
                3));
            // A multi-recv buffer is one buffer.
            assertEquals(Errno.EINVAL.negated(), p.b.recvmsg(new Message().iov(nine, 2)
                .addr(AddressVector.ADDR_UNSPEC).context(3), Flags.MULTI_RECV));
            assertEmpty(p.cqB);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldCancelAPostedReceiveIovAndReuseItsEntry(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            if (!receiveIovOf(p, 2))
            {
                return;
            }
            final UnsafeBuffer whole = direct(64);
            final DirectBuffer[] rx = {new UnsafeBuffer(whole, 0, 32), new UnsafeBuffer(whole, 32, 32)};
            // Far more than the per-endpoint table of receive iovs: cancelled entries must be reused.
            for (int i = 0; i < 600; i++)
            {
                assertEquals(0, p.b.trecvv(rx, 2, AddressVector.ADDR_UNSPEC, 1000 + i, 0, i));
                assertEquals(0, p.b.cancel(i));
                final CompletionErrorEntry err = error(p.cqB);
                assertEquals(Errno.ECANCELED, err.errno());
                assertEquals(i, err.context());
                assertEquals(whole.addressOffset(), err.buf());
            }
            assertEquals(0, p.b.trecvv(rx, 2, AddressVector.ADDR_UNSPEC, 7, 0, 700));
            assertEquals(0, p.a.tsend(pattern(64, 1), 0, 64, p.addrBFromA, 7, 701));
            assertEquals(700, one(p.cqB).context());
            assertPattern(whole, 0, 64, 1);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
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
                // Small: one frame with the remote list; local iov of two buffers with another split.
                final UnsafeBuffer src = pattern(300, 5);
                final long[] addresses = {10, 500, 200};
                final long[] lengths = {100, 50, 150};
                final long[] keys = {81, 82, 81};
                assertEquals(0, p.a.writemsg(new Message()
                    .iov(new DirectBuffer[]{new UnsafeBuffer(src, 0, 120), new UnsafeBuffer(src, 120, 180)}, 2)
                    .addr(p.addrBFromA).rmaIov(addresses, lengths, keys, 3).context(1), Flags.COMPLETION));
                assertEquals(1, one(p.cqA).context());
                for (int i = 0; i < 100; i++)
                {
                    assertEquals(src.getByte(i), regionOne.getByte(10 + i));
                }
                for (int i = 0; i < 50; i++)
                {
                    assertEquals(src.getByte(100 + i), regionTwo.getByte(500 + i));
                }
                for (int i = 0; i < 150; i++)
                {
                    assertEquals(src.getByte(150 + i), regionOne.getByte(200 + i), "byte " + i);
                }
                assertEquals(0, regionOne.getByte(9));
                assertEquals(0, regionOne.getByte(110));
                assertEquals(0, regionOne.getByte(350));

                final UnsafeBuffer back = direct(300);
                assertEquals(0, p.a.readmsg(new Message().buffer(back, 0, 300).addr(p.addrBFromA)
                    .rmaIov(addresses, lengths, keys, 3).context(2), Flags.COMPLETION));
                assertEquals(2, one(p.cqA).context());
                assertPattern(back, 0, 300, 5);

                // Large: streamed, with the data split unevenly over three ranges of both regions.
                final int size = 900_003;
                final UnsafeBuffer big = pattern(size, 9);
                final long[] bigAddresses = {1, 0, 600_000};
                final long[] bigLengths = {999, 600_000, size - 600_999};
                final long[] bigKeys = {81, 82, 82};
                regionOne.setMemory(0, 1000, (byte) 0);
                assertEquals(0, p.a.writemsg(new Message().buffer(big, 0, size).addr(p.addrBFromA)
                    .rmaIov(bigAddresses, bigLengths, bigKeys, 3).context(3), Flags.COMPLETION));
                assertEquals(3, one(p.cqA).context());
                assertEquals(0, regionOne.getByte(0));
                for (int i = 0; i < 999; i++)
                {
                    assertEquals(big.getByte(i), regionOne.getByte(1 + i));
                }
                for (int i = 0; i < size - 999; i++)
                {
                    if (big.getByte(999 + i) != regionTwo.getByte(i))
                    {
                        fail("region two byte " + i + " differs");
                    }
                }
                final UnsafeBuffer bigBack = direct(size);
                final DirectBuffer[] into = {new UnsafeBuffer(bigBack, 0, 5), new UnsafeBuffer(bigBack, 5, size - 5)};
                assertEquals(0, p.a.readmsg(new Message().iov(into, 2).addr(p.addrBFromA)
                    .rmaIov(bigAddresses, bigLengths, bigKeys, 3).context(4), Flags.COMPLETION));
                assertEquals(4, one(p.cqA).context());
                assertPattern(bigBack, 0, size, 9);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldFailTheWholeOperationWhenOneRemoteRangeIsBad(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = direct(2048);
            try (MemoryRegion rw = p.domainB.registerMemory(target, 0, 1024,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 91);
                MemoryRegion ro = p.domainB.registerMemory(target, 1024, 1024, Flags.REMOTE_READ, 92))
            {
                final UnsafeBuffer src = pattern(600_000, 3);
                // Second range runs past its region; third is read-only; fourth has an unknown key.
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
                    assertEquals(0, p.a.writemsg(new Message().buffer(src, 0, 200).addr(p.addrBFromA)
                        .rmaIov(addresses, lengths, keys, 2).context(k), Flags.COMPLETION));
                    final CompletionErrorEntry err = error(p.cqA);
                    assertEquals(expected[k], err.errno());
                    assertEquals(k, err.context());
                    // Streamed: the same checks, before any byte moves.
                    final long[] bigLengths = {l[1], 600_000 - l[1]};
                    assertEquals(0, p.a.writemsg(new Message().buffer(src, 0, 600_000).addr(p.addrBFromA)
                        .rmaIov(addresses, bigLengths, keys, 2).context(10 + k), Flags.COMPLETION));
                    assertEquals(10 + k, error(p.cqA).context());
                }
                for (int i = 0; i < 2048; i++)
                {
                    assertEquals(0, target.getByte(i), "target byte " + i);
                }
                final UnsafeBuffer back = direct(200);
                back.setMemory(0, 200, (byte) 0x77);
                assertEquals(0, p.a.readmsg(new Message().buffer(back, 0, 200).addr(p.addrBFromA)
                    .rmaIov(new long[]{0, 1000}, new long[]{100, 100}, new long[]{91, 92}, 2).context(20),
                    Flags.COMPLETION));
                assertEquals(Errno.EACCES, error(p.cqA).errno());
                assertEquals(0x77, back.getByte(0));

                // Remote lists that do not add up to the local length, or are too long, are refused at post.
                assertEquals(Errno.EINVAL.negated(), p.a.writemsg(new Message().buffer(src, 0, 200)
                    .addr(p.addrBFromA).rmaIov(new long[]{0, 0}, new long[]{100, 99}, new long[]{91, 91}, 2), 0));
                final long[] ones = {1, 1, 1, 1, 1, 1, 1, 1, 1};
                final long[] keys91 = {91, 91, 91, 91, 91, 91, 91, 91, 91};
                assertEquals(Errno.EINVAL.negated(), p.a.writemsg(new Message().buffer(src, 0, 9)
                    .addr(p.addrBFromA).rmaIov(new long[9], ones, keys91, 9), 0));
                // Eight ranges (the limit) of one byte each work.
                assertEquals(0, p.a.writemsg(new Message().buffer(src, 0, 8).addr(p.addrBFromA)
                    .rmaIov(new long[]{7, 6, 5, 4, 3, 2, 1, 0}, ones, keys91, 8).context(30), Flags.COMPLETION));
                assertEquals(30, one(p.cqA).context());
                for (int i = 0; i < 8; i++)
                {
                    assertEquals(src.getByte(7 - i), target.getByte(i));
                }
                assertEmpty(p.cqA);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
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
                // atomicv: five INT64 operands over three buffers, added to target[0..5).
                final DirectBuffer[] operands = {longs(1), longs(2, 3), longs(4, 5)};
                assertEquals(0, p.a.atomicv(operands, 3, p.addrBFromA, 0, mr.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 1));
                assertEquals(1, one(p.cqA).context());
                for (int i = 0; i < 5; i++)
                {
                    assertEquals(100 + i + (i + 1), target.getLong(i * 8));
                }

                // fetchAtomicv: old values scattered over two result buffers with another split.
                final UnsafeBuffer r1 = direct(16);
                final UnsafeBuffer r2 = direct(24);
                assertEquals(0, p.a.fetchAtomicv(operands, 3, new DirectBuffer[]{r1, r2}, 2, p.addrBFromA, 0,
                    mr.key(), AtomicDatatype.INT64, AtomicOp.SUM, 2));
                assertEquals(2, one(p.cqA).context());
                assertEquals(101, r1.getLong(0));
                assertEquals(103, r1.getLong(8));
                assertEquals(105, r2.getLong(0));
                assertEquals(107, r2.getLong(8));
                assertEquals(109, r2.getLong(16));
                assertEquals(102, target.getLong(0));

                // compareAtomicv: CSWAP of three elements, compare values over two buffers; only matches swap.
                final UnsafeBuffer c1 = longs(102);
                final UnsafeBuffer c2 = longs(0, 108);
                final UnsafeBuffer res = direct(24);
                assertEquals(0, p.a.compareAtomicv(new DirectBuffer[]{longs(-1, -2, -3)}, 1,
                    new DirectBuffer[]{c1, c2}, 2, new DirectBuffer[]{res}, 1, p.addrBFromA, 0, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.CSWAP, 3));
                assertEquals(3, one(p.cqA).context());
                assertEquals(102, res.getLong(0));
                assertEquals(105, res.getLong(8));
                assertEquals(108, res.getLong(16));
                assertEquals(-1, target.getLong(0));
                assertEquals(105, target.getLong(8));
                assertEquals(-3, target.getLong(16));

                // atomicmsg to two remote ranges: elements 0..1 to target[10..12), element 2 to target[15].
                final Message msg = new Message().iov(new DirectBuffer[]{longs(1000, 2000, 3000)}, 1)
                    .addr(p.addrBFromA).rmaIov(new long[]{80, 120}, new long[]{16, 8}, new long[]{7, 7}, 2)
                    .context(4);
                assertEquals(0, p.a.atomicmsg(msg, AtomicDatatype.INT64, AtomicOp.SUM, Flags.COMPLETION));
                assertEquals(4, one(p.cqA).context());
                assertEquals(1110, target.getLong(80));
                assertEquals(2111, target.getLong(88));
                assertEquals(3115, target.getLong(120));
                assertEquals(112, target.getLong(96));

                // fetchAtomicmsg with result iov and remote ranges: ATOMIC_READ without operands.
                final UnsafeBuffer f1 = direct(8);
                final UnsafeBuffer f2 = direct(16);
                assertEquals(0, p.a.fetchAtomicv(null, 0, new DirectBuffer[]{f1, f2}, 2, p.addrBFromA, 80,
                    mr.key(), AtomicDatatype.INT64, AtomicOp.ATOMIC_READ, 5));
                assertEquals(5, one(p.cqA).context());
                assertEquals(1110, f1.getLong(0));
                assertEquals(2111, f2.getLong(0));
                assertEquals(112, f2.getLong(8));
                final UnsafeBuffer g = direct(24);
                assertEquals(0, p.a.fetchAtomicmsg(new Message().iov(new DirectBuffer[]{longs(1, 1, 1)}, 1)
                    .addr(p.addrBFromA).rmaIov(new long[]{120, 0}, new long[]{8, 16}, new long[]{7, 7}, 2).context(6),
                    new DirectBuffer[]{g}, 1, AtomicDatatype.INT64, AtomicOp.SUM, Flags.COMPLETION));
                assertEquals(6, one(p.cqA).context());
                assertEquals(3115, g.getLong(0));
                assertEquals(-1, g.getLong(8));
                assertEquals(105, g.getLong(16));
                assertEquals(3116, target.getLong(120));
                assertEquals(0, target.getLong(0));

                // A bad remote range fails the whole atomic; nothing changes.
                assertEquals(0, p.a.atomicmsg(new Message().iov(new DirectBuffer[]{longs(5, 5)}, 1)
                    .addr(p.addrBFromA).rmaIov(new long[]{0, 128}, new long[]{8, 8}, new long[]{7, 7}, 2).context(7),
                    AtomicDatatype.INT64, AtomicOp.SUM, Flags.COMPLETION));
                assertEquals(Errno.EACCES, error(p.cqA).errno());
                assertEquals(0, target.getLong(0));
                // Results that do not match the operands, a partial element, too many buffers: refused at post.
                assertEquals(Errno.EINVAL.negated(), p.a.fetchAtomicv(operands, 3, new DirectBuffer[]{r1}, 1,
                    p.addrBFromA, 0, mr.key(), AtomicDatatype.INT64, AtomicOp.SUM, 8));
                assertEquals(Errno.EINVAL.negated(), p.a.atomicv(new DirectBuffer[]{direct(12)}, 1, p.addrBFromA, 0,
                    mr.key(), AtomicDatatype.INT64, AtomicOp.SUM, 8));
                assertEquals(Errno.EINVAL.negated(), p.a.atomicv(buffers(9, 8), 9, p.addrBFromA, 0, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 8));
                assertEmpty(p.cqA);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldDeliverEveryByteForRandomSplitsOnBothSides(final Progress progress)
    {
        final SplittableRandom random = new SplittableRandom(20261123L);
        final int[] sizes = {1, 8191, 8192, 8193, 65_537, 262_144, 262_145, 700_001};
        try (Pair p = pair(progress))
        {
            // Random splits within the advertised limits (the runtime's 8 on inproc).
            final int txParts = (int) Math.min(MAX_IOV, p.infoA.txAttr().iovLimit());
            final int rxParts = (int) Math.min(MAX_IOV, p.infoB.rxAttr().iovLimit());
            int round = 0;
            for (final int size : sizes)
            {
                for (int rep = 0; rep < 3; rep++)
                {
                    round++;
                    final UnsafeBuffer src = pattern(size, round);
                    final UnsafeBuffer dst = direct(size);
                    final DirectBuffer[] send = split(src, size, 1 + random.nextInt(txParts), random);
                    final DirectBuffer[] recv = split(dst, size, 1 + random.nextInt(rxParts), random);
                    final boolean unexpected = random.nextBoolean();
                    if (!unexpected)
                    {
                        assertEquals(0, p.b.trecvv(recv, recv.length, AddressVector.ADDR_UNSPEC, round, 0, round));
                    }
                    assertEquals(0, p.a.tsendv(send, send.length, p.addrBFromA, round, -round));
                    if (unexpected)
                    {
                        assertEquals(0, p.b.trecvv(recv, recv.length, AddressVector.ADDR_UNSPEC, round, 0, round));
                    }
                    final CompletionEntry e = one(p.cqB);
                    assertEquals(round, e.context());
                    assertEquals(size, e.len());
                    assertPattern(dst, 0, size, round);
                    assertEquals(-round, one(p.cqA).context());
                }
            }
        }
    }

    private static DirectBuffer[] split(
        final UnsafeBuffer whole, final int size, final int parts, final SplittableRandom random)
    {
        final int n = Math.min(parts, size);
        final int[] cuts = new int[n + 1];
        cuts[n] = size;
        for (int i = 1; i < n; i++)
        {
            cuts[i] = Math.max(cuts[i - 1], Math.min(size, cuts[i - 1] + random.nextInt(Math.max(1, size / n * 2))));
        }
        final DirectBuffer[] buffers = new DirectBuffer[n];
        for (int i = 0; i < n; i++)
        {
            buffers[i] = new UnsafeBuffer(whole, cuts[i], cuts[i + 1] - cuts[i]);
        }
        return buffers;
    }

    private static DirectBuffer[] buffers(final int count, final int size)
    {
        final DirectBuffer[] buffers = new DirectBuffer[count];
        for (int i = 0; i < count; i++)
        {
            buffers[i] = direct(size);
        }
        return buffers;
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
}
