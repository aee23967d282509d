package io.jfabric.provider.gni;

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
import io.jfabric.conformance.Pair;
import io.jfabric.conformance.RmaConformance;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
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

/**
 * {@link RmaConformance} over the {@code gni} provider. Overridden by their gni forms: the two cases that register
 * two segments ({@link GniDifferences#MR_IOV_1}: {@code EINVAL}, nothing registered, then the case with one segment)
 * and the bad-access case, which registers at an unaligned offset ({@link GniDifferences#PAGE_ALIGNED}:
 * {@code EINVAL}, then the case with its regions on page boundaries). The attribute case's auth-key step differs
 * too: gni takes 8-byte authorization keys, so a region under the domain's own key registers where a provider
 * without keys answers {@code EOPNOTSUPP}. The fenced-send case ({@link GniDifferences#MANUAL_CONNECT}): an RMA
 * waits on the VC for the peer's caps (GniPeerCaps, upstream's {@code peer_caps}), so with MANUAL domains the
 * connect needs the target's progress; connected first, the case runs as the suite's: the write goes one-sided to the
 * target's vMDH slot (no MR query) and the fenced send waits for its completion.
 */
class GniRmaConformanceTest extends RmaConformance
{
    private static final int PAGE = 4096;

    GniRmaConformanceTest()
    {
        super(GniConformance.FACTORY);
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni PAGE_ALIGNED: a region at offset 128 EINVAL; on page boundaries bad accesses fail, target kept")
    protected void shouldCompleteBadRemoteAccessWithErrorAtInitiatorAndLeaveTargetUntouched(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = direct(2 * PAGE);
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory(target, 128, 128, Flags.REMOTE_WRITE, 2)).errno());
            final MemoryRegion readOnly = p.domainB.registerMemory(target, 0, 128, Flags.REMOTE_READ, 1);
            final MemoryRegion writable = p.domainB.registerMemory(target, PAGE, 128, Flags.REMOTE_WRITE, 2);
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

            for (int i = 0; i < 2 * PAGE; i++)
            {
                assertEquals(0, target.getByte(i), "target byte " + i);
            }
            writable.close();
            assertEquals(0, p.a.write(src, 0, 64, p.addrBFromA, 0, 2, 14));
            assertEquals(Errno.EINVAL, error(p.cqA).errno());
            assertEquals(0, target.getByte(PAGE));
            readOnly.close();
            assertEmpty(p.cqA);
        }
    }

    @Override
    @Test
    @DisplayName("gni MR_IOV_1: regattr of two segments EINVAL; of one segment by attributes, with context")
    protected void shouldRegisterByAttributesWithContextAndRefuseWhatIsNotSupported()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final UnsafeBuffer first = direct(100);
            final UnsafeBuffer second = direct(200);
            final MrAttr two = MrAttr.builder().iov(first, second).access(Flags.REMOTE_WRITE | Flags.REMOTE_READ)
                .requestedKey(17).context(0xC0FFEE).build();
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory(two, 0)).errno());
            final MrAttr attr = MrAttr.builder().iov(second).access(Flags.REMOTE_WRITE | Flags.REMOTE_READ)
                .requestedKey(17).context(0xC0FFEE).build();
            try (MemoryRegion mr = p.domainB.registerMemory(attr, 0))
            {
                assertEquals(17, mr.key());
                assertEquals(200, mr.length());
                assertEquals(0xC0FFEE, mr.context());
                assertEquals(Flags.REMOTE_WRITE | Flags.REMOTE_READ, mr.access());
                assertEquals(0, p.a.write(pattern(40, 5), 0, 40, p.addrBFromA, 50, 17, 1));
                assertEquals(1, one(p.cqA).context());
                assertPattern(second, 50, 40, 5);
                final UnsafeBuffer back = direct(40);
                assertEquals(0, p.a.read(back, 0, 40, p.addrBFromA, 50, 17, 2));
                assertEquals(2, one(p.cqA).context());
                assertPattern(back, 0, 40, 5);
                assertEquals(Errno.ENOKEY, assertThrows(FabricException.class,
                    () -> p.domainB.registerMemory(attr, 0)).errno());
            }
            final MrAttr.Builder ok = MrAttr.builder().iov(first).access(Flags.REMOTE_READ).requestedKey(18);
            assertEquals(Errno.EBADFLAGS, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory(ok.build(), Flags.RMA_EVENT)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory(MrAttr.builder().iov(first).offset(8).build(), 0)).errno());
            // gni takes authorization keys (auth_key_size 8): a region under the domain's own key registers.
            try (MemoryRegion keyed = p.domainB.registerMemory(MrAttr.builder().iov(first).access(Flags.REMOTE_READ)
                .requestedKey(19).authKey(GniConformance.KEY).build(), 0))
            {
                assertEquals(19, keyed.key());
            }
            assertEquals(Errno.ENOSYS, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory(MrAttr.builder().iov(first).iface(1).build(), 0)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory(MrAttr.builder().build(), 0)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.domainB.registerMemory((MrAttr) null, 0)).errno());
            try (MemoryRegion mr = p.domainB.registerMemory(ok.build(), 0))
            {
                assertEquals(18, mr.key());
                assertEquals(0, mr.context());
            }
            try (MemoryRegion mr = p.domainB.registerMemory(MrAttr.builder().iov(first)
                .access(Flags.REMOTE_READ).requestedKey(17).build(), 0))
            {
                assertEquals(17, mr.key(), "the refused two-segment registration left key 17 free");
            }
        }
    }

    @Override
    @Test
    @DisplayName("gni MR_IOV_1: regv of two and five segments EINVAL; one segment bounds every access")
    protected void shouldRegisterIovSegmentsAsOneRegionAndRefuseAccessAcrossSegments()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final UnsafeBuffer first = direct(100);
            final UnsafeBuffer second = direct(200);
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> p.domainB.registerMemory(
                new DirectBuffer[]{first, second}, 2, Flags.REMOTE_WRITE | Flags.REMOTE_READ, 7)).errno());
            try (MemoryRegion mr = p.domainB.registerMemory(new DirectBuffer[]{second}, 1,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 7))
            {
                assertEquals(200, mr.length());
                assertEquals(0, p.a.write(pattern(50, 3), 0, 50, p.addrBFromA, 20, 7, 1));
                assertEquals(1, one(p.cqA).context());
                assertPattern(second, 20, 50, 3);
                assertEquals(0, p.a.write(pattern(50, 3), 0, 50, p.addrBFromA, 180, 7, 2));
                assertEquals(Errno.EACCES, error(p.cqA).errno());
                assertEquals(0, second.getByte(199));
                assertEquals(0, first.getByte(0));
            }
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> p.domainB.registerMemory(
                new DirectBuffer[]{first, second, first, second, first}, 5, Flags.REMOTE_READ, 8)).errno());
            assertEmpty(p.cqA);
        }
    }

    @Override
    @Test
    @DisplayName("gni MANUAL_CONNECT: VC connected (caps exchanged) first; the fenced send waits for the write")
    protected void shouldHoldFencedSendUntilEarlierWriteIsAcknowledged()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            GniPeerCapsTest.connectBothWays(p);
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
                    // A has not seen the write's completion: the fenced send waits.
                    assertEquals(Errno.EAGAIN.negated(), p.cqB.read(e));
                }
                assertEquals(1, one(p.cqA).context());
                assertPattern(target, 0, 32, 1);
                assertEquals(2, one(p.cqA).context());
                assertEquals(100, one(p.cqB).context());
                assertPattern(rx, 0, 8, 2);
            }
        }
    }
}
