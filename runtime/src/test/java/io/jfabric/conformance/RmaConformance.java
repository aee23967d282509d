package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.MemoryRegion;
import io.jfabric.Message;
import io.jfabric.MrAttr;
import io.jfabric.Progress;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * RMA over a pair: write and read back through the target agent, writedata's remote CQ data, bad remote access
 * failed at the initiator with the target untouched, access flags per region, registration by attributes and by
 * iov, fenced sends, duplicate keys.
 * <p>
 * A suite class: a provider runs it by extending it with its {@link PairFactory} (see {@link Conformance}).
 */
@Timeout(30)
public abstract class RmaConformance extends Conformance
{
    /**
     * @param factory the provider under test.
     */
    protected RmaConformance(final PairFactory factory)
    {
        super(factory);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldWriteThenReadBackByteForByteThroughTheTargetAgent(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 77))
            {
                assertEquals(77, mr.key());
                assertEquals(0, p.a.write(pattern(1000, 4), 0, 1000, p.addrBFromA, 100, 77, 1));
                final CompletionEntry w = one(p.cqA);
                assertEquals(1, w.context());
                assertEquals(Flags.RMA | Flags.WRITE, w.flags());
                assertPattern(target, 100, 1000, 4);
                assertEquals(0, target.getByte(99));
                assertEquals(0, target.getByte(1100));

                final UnsafeBuffer local = direct(1000);
                assertEquals(0, p.a.read(local, 0, 1000, p.addrBFromA, 100, 77, 2));
                final CompletionEntry r = one(p.cqA);
                assertEquals(2, r.context());
                assertEquals(Flags.RMA | Flags.READ, r.flags());
                assertPattern(local, 0, 1000, 4);

                final UnsafeBuffer whole = pattern(96, 8);
                final DirectBuffer[] iov = {new UnsafeBuffer(whole, 0, 32), new UnsafeBuffer(whole, 32, 64)};
                assertEquals(0, p.a.writev(iov, 2, p.addrBFromA, 2000, 77, 3));
                assertEquals(3, one(p.cqA).context());
                assertPattern(target, 2000, 96, 8);
                final UnsafeBuffer heap = new UnsafeBuffer(new byte[16]);
                heap.setMemory(0, 16, (byte) 0x5A);
                assertEquals(0, p.a.injectWrite(heap, 0, 16, p.addrBFromA, 3000, 77));
                heap.setMemory(0, 16, (byte) 0);
                final UnsafeBuffer check = direct(16);
                assertEquals(0, p.a.readmsg(new Message().buffer(check, 0, 16).addr(p.addrBFromA).rma(3000, 77)
                    .context(4), Flags.COMPLETION));
                assertEquals(4, one(p.cqA).context());
                assertEquals(0x5A, check.getByte(15));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldDeliverRemoteCqDataOfWritedataAtTheTarget(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = direct(64);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 64, Flags.REMOTE_WRITE, 5))
            {
                assertEquals(0, p.a.writedata(pattern(8, 1), 0, 8, 0xCAFE, p.addrBFromA, 8, mr.key(), 9));
                final CompletionEntry atTarget = one(p.cqB);
                assertEquals(0xCAFE, atTarget.data());
                assertEquals(Flags.REMOTE_WRITE | Flags.RMA | Flags.REMOTE_CQ_DATA, atTarget.flags());
                assertEquals(8, atTarget.len());
                assertEquals(9, one(p.cqA).context());
                assertPattern(target, 8, 8, 1);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldCompleteBadRemoteAccessWithErrorAtInitiatorAndLeaveTargetUntouched(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = direct(256);
            final MemoryRegion readOnly = p.domainB.registerMemory(target, 0, 128, Flags.REMOTE_READ, 1);
            final MemoryRegion writable = p.domainB.registerMemory(target, 128, 128, Flags.REMOTE_WRITE, 2);
            final UnsafeBuffer src = pattern(64, 3);

            assertEquals(0, p.a.write(src, 0, 64, p.addrBFromA, 0, 999, 10));
            CompletionErrorEntry err = error(p.cqA);
            assertEquals(Errno.EINVAL, err.errno());
            assertEquals(10, err.context());

            assertEquals(0, p.a.write(src, 0, 64, p.addrBFromA, 0, readOnly.key(), 11));
            err = error(p.cqA);
            assertEquals(Errno.EACCES, err.errno());
            assertEquals(Flags.RMA | Flags.WRITE, err.flags());

            assertEquals(0, p.a.write(src, 0, 64, p.addrBFromA, 100, writable.key(), 12));
            assertEquals(Errno.EACCES, error(p.cqA).errno());

            final UnsafeBuffer local = direct(64);
            assertEquals(0, p.a.read(local, 0, 64, p.addrBFromA, 0, writable.key(), 13));
            assertEquals(Errno.EACCES, error(p.cqA).errno());

            for (int i = 0; i < 256; i++)
            {
                assertEquals(0, target.getByte(i), "target byte " + i);
            }
            writable.close();
            assertEquals(0, p.a.write(src, 0, 64, p.addrBFromA, 0, 2, 14));
            assertEquals(Errno.EINVAL, error(p.cqA).errno());
            assertEquals(0, target.getByte(128));
            readOnly.close();
        }
    }

    @Test
    void shouldGrantRemoteAccessExactlyPerAccessFlagsAtManySizes()
    {
        final long[] bits = {Flags.READ, Flags.WRITE, Flags.REMOTE_READ, Flags.REMOTE_WRITE, Flags.SEND, Flags.RECV};
        final int[] sizes = {1, 64, 4096};
        try (Pair p = pair(Progress.MANUAL))
        {
            long key = 1000;
            for (int combo = 0; combo < 64; combo++)
            {
                long access = 0;
                for (int b = 0; b < bits.length; b++)
                {
                    access |= (combo & (1 << b)) != 0 ? bits[b] : 0;
                }
                for (final int size : sizes)
                {
                    final UnsafeBuffer target = direct(size);
                    try (MemoryRegion mr = p.domainB.registerMemory(target, 0, size, access, key++))
                    {
                        assertEquals(0, p.a.write(pattern(size, combo), 0, size, p.addrBFromA, 0, mr.key(), 1));
                        final boolean writable = (access & Flags.REMOTE_WRITE) != 0;
                        final CompletionEntry e = new CompletionEntry();
                        if (writable)
                        {
                            assertEquals(1, one(p.cqA).context());
                            assertPattern(target, 0, size, combo);
                        }
                        else
                        {
                            assertEquals(Errno.EACCES, error(p.cqA).errno());
                            assertEquals(0, target.getByte(size - 1));
                        }
                        final UnsafeBuffer local = direct(size);
                        assertEquals(0, p.a.read(local, 0, size, p.addrBFromA, 0, mr.key(), 2));
                        if ((access & Flags.REMOTE_READ) != 0)
                        {
                            assertEquals(2, one(p.cqA).context());
                            for (int i = 0; i < size; i++)
                            {
                                assertEquals(target.getByte(i), local.getByte(i));
                            }
                        }
                        else
                        {
                            assertEquals(Errno.EACCES, error(p.cqA).errno());
                        }
                        assertEquals(Errno.EAGAIN.negated(), p.cqA.read(e));
                    }
                }
            }
        }
    }

    @Test
    protected void shouldRegisterByAttributesWithContextAndRefuseWhatIsNotSupported()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final UnsafeBuffer first = direct(100);
            final UnsafeBuffer second = direct(200);
            final MrAttr attr = MrAttr.builder().iov(first, second).access(Flags.REMOTE_WRITE | Flags.REMOTE_READ)
                .requestedKey(17).context(0xC0FFEE).build();
            try (MemoryRegion mr = p.domainB.registerMemory(attr, 0))
            {
                assertEquals(17, mr.key());
                assertEquals(300, mr.length());
                assertEquals(0xC0FFEE, mr.context());
                assertEquals(Flags.REMOTE_WRITE | Flags.REMOTE_READ, mr.access());
                assertEquals(0, p.a.write(pattern(40, 5), 0, 40, p.addrBFromA, 150, 17, 1));
                assertEquals(1, one(p.cqA).context());
                assertPattern(second, 50, 40, 5);
                final UnsafeBuffer back = direct(40);
                assertEquals(0, p.a.read(back, 0, 40, p.addrBFromA, 150, 17, 2));
                assertEquals(2, one(p.cqA).context());
                assertPattern(back, 0, 40, 5);
                // the key is taken while the region lives
                assertEquals(Errno.ENOKEY, assertThrows(FabricException.class,
                    () -> p.domainB.registerMemory(attr, 0)).errno());
            }
            final MrAttr.Builder ok = MrAttr.builder().iov(first).access(Flags.REMOTE_READ).requestedKey(18);
            assertEquals(Errno.EBADFLAGS, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory(ok.build(), Flags.RMA_EVENT)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory(MrAttr.builder().iov(first).offset(8).build(), 0)).errno());
            assertEquals(Errno.EOPNOTSUPP, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory(MrAttr.builder().iov(first).authKey(new byte[]{1}).build(), 0))
                .errno());
            assertEquals(Errno.ENOSYS, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory(MrAttr.builder().iov(first).iface(1).build(), 0)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory(MrAttr.builder().build(), 0)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory((MrAttr) null, 0)).errno());
            // nothing was registered by the refused calls: key 18 is free
            try (MemoryRegion mr = p.domainB.registerMemory(ok.build(), 0))
            {
                assertEquals(18, mr.key());
                assertEquals(0, mr.context());
            }
        }
    }

    @Test
    protected void shouldRegisterIovSegmentsAsOneRegionAndRefuseAccessAcrossSegments()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final UnsafeBuffer first = direct(100);
            final UnsafeBuffer second = direct(200);
            try (MemoryRegion mr = p.domainB.registerMemory(new DirectBuffer[]{first, second}, 2,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 7))
            {
                assertEquals(300, mr.length());
                assertEquals(0, p.a.write(pattern(50, 3), 0, 50, p.addrBFromA, 120, 7, 1));
                assertEquals(1, one(p.cqA).context());
                assertPattern(second, 20, 50, 3);
                assertEquals(0, p.a.write(pattern(50, 3), 0, 50, p.addrBFromA, 80, 7, 2));
                assertEquals(Errno.EACCES, error(p.cqA).errno());
                assertEquals(0, first.getByte(99));
            }
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> p.domainB.registerMemory(
                new DirectBuffer[]{first, second, first, second, first}, 5, Flags.REMOTE_READ, 8)).errno());
        }
    }

    @Test
    protected void shouldHoldFencedSendUntilEarlierWriteIsAcknowledged()
    {
        assumeTrue(factory.deliversWithTheSendCompletion(),
            "assumes the frame is at the peer when the send completes (see PairFactory.deliversWithTheSendCompletion)");
        try (Pair p = pair(Progress.MANUAL))
        {
            final UnsafeBuffer target = direct(64);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 64, Flags.REMOTE_WRITE, 1))
            {
                final UnsafeBuffer rx = direct(64);
                assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 100));
                assertEquals(0, p.a.write(pattern(32, 1), 0, 32, p.addrBFromA, 0, mr.key(), 1));
                assertEquals(0, p.a.sendmsg(new Message().buffer(pattern(8, 2), 0, 8).addr(p.addrBFromA).context(2),
                    Flags.COMPLETION | Flags.FENCE));
                p.domainA.progress();
                final CompletionEntry e = new CompletionEntry();
                for (int i = 0; i < 20; i++)
                {
                    // B applies the write and answers, but A has not seen the answer: the fenced send waits.
                    assertEquals(Errno.EAGAIN.negated(), p.cqB.read(e));
                }
                assertPattern(target, 0, 32, 1);
                assertEquals(1, one(p.cqA).context());
                assertEquals(2, one(p.cqA).context());
                assertEquals(100, one(p.cqB).context());
                assertPattern(rx, 0, 8, 2);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldRefuseDuplicateKeysAndReRegisterAfterClose(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = direct(64);
            final MemoryRegion mr = p.domainB.registerMemory(target, 0, 64, Flags.REMOTE_READ, 42);
            assertEquals(Errno.ENOKEY, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory(target, 0, 64, Flags.REMOTE_READ, 42)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory(new UnsafeBuffer(new byte[8]), 0, 8, Flags.REMOTE_READ, 43)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory(target, 0, 64, Flags.MULTI_RECV, 44)).errno());
            mr.close();
            try (MemoryRegion again = p.domainB.registerMemory(target, 0, 64, Flags.REMOTE_READ, 42))
            {
                assertEquals(42, again.key());
            }
        }
    }
}
