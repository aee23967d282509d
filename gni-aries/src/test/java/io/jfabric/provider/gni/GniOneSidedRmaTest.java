package io.jfabric.provider.gni;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import io.jfabric.OpenOps;
import io.jfabric.Progress;
import io.jfabric.conformance.Pair;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One-sided RMA and atomics of a scalable-mode domain (issue 15, GNI.md §2.5): the initiator builds the target's
 * vMDH handle from the key and posts FMA/BTE at once, with no MR query, so the target NIC moves the data while the
 * target application makes no progress (once the VC is connected and the peer's caps are in: {@link GniPeerCapsTest});
 * without {@code FI_RMA_EVENT} at the target the operation completes on the initiator's NIC event; a bad key,
 * missing rights, a range outside the region or a closed region fail at the initiator with the runtime's errno in
 * {@code err}, {@code prov_errno = -FI_ECANCELED} (the transaction error, GNI.md §1.10) and the target untouched.
 */
@Timeout(60)
class GniOneSidedRmaTest
{
    private static final long DEADLINE_NS = 20_000_000_000L;

    @Test
    void shouldWriteReadAndAtomicallyUpdateTheTargetWhileItMakesNoProgress()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.MANUAL))
        {
            // The first RMA to a peer waits for the VC's handshake and the peer's caps (the target's progress).
            GniPeerCapsTest.connectBothWays(p);
            final UnsafeBuffer target = direct(8192);
            target.putLong(4096, 40);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 8192,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 9))
            {
                final OpenOps opsA = p.domainA.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
                final long fma = opsA.get(GniOps.GNI_STAT_FMA_POSTS);
                final UnsafeBuffer source = pattern(1000, 4);
                assertEquals(0, p.a.write(source, 0, 1000, p.addrBFromA, 8, mr.key(), 1));
                // Only the initiator progresses: the target NIC writes on its own (no MR query to answer).
                final BackoffIdleStrategy idle = new BackoffIdleStrategy(1, 10, 1_000, 1_000_000);
                final long deadline = System.nanoTime() + DEADLINE_NS;
                while (target.getByte(8 + 999) != source.getByte(999))
                {
                    assertTrue(System.nanoTime() < deadline, "the write never landed without the target's progress");
                    p.domainA.progress();
                    idle.idle();
                }
                assertPattern(target, 8, 1000, 4);
                assertEquals(fma + 1, opsA.get(GniOps.GNI_STAT_FMA_POSTS), "one FMA PUT, nothing else");
                // No FI_RMA_EVENT at the target: complete on the local NIC event, still without the target.
                final CompletionEntry done = io.jfabric.conformance.Drive.one(p.cqA, p.domainA);
                assertEquals(1, done.context());
                assertEquals(Flags.RMA | Flags.WRITE, done.flags());

                final UnsafeBuffer back = direct(1000);
                assertEquals(0, p.a.read(back, 0, 1000, p.addrBFromA, 8, mr.key(), 2));
                assertEquals(2, one(p.cqA).context());
                assertPattern(back, 0, 1000, 4);

                final UnsafeBuffer operand = direct(8);
                operand.putLong(0, 2);
                final UnsafeBuffer result = direct(8);
                assertEquals(0, p.a.fetchAtomic(operand, 0, 1, result, 0, p.addrBFromA, 4096, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 3));
                final CompletionEntry atomic = one(p.cqA);
                assertEquals(3, atomic.context());
                assertEquals(Flags.ATOMIC | Flags.READ, atomic.flags());
                assertEquals(40, result.getLong(0));
                assertEquals(42, target.getLong(4096));
            }
        }
    }

    @Test
    void shouldFailBadAccessAtTheInitiatorWithErrAndProvErrnoAndLeaveTheTargetUntouched()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.AUTO))
        {
            final UnsafeBuffer readable = direct(4096);
            final UnsafeBuffer writable = direct(4096);
            final MemoryRegion readOnly = p.domainB.registerMemory(readable, 0, 128, Flags.REMOTE_READ, 1);
            final MemoryRegion writeOnly = p.domainB.registerMemory(writable, 0, 128, Flags.REMOTE_WRITE, 2);
            final UnsafeBuffer src = pattern(64, 3);

            assertFailed(p, p.a.write(src, 0, 64, p.addrBFromA, 0, 99, 10), 10, Errno.EINVAL, Flags.RMA | Flags.WRITE);
            assertFailed(p, p.a.write(src, 0, 64, p.addrBFromA, 0, readOnly.key(), 11), 11, Errno.EACCES,
                Flags.RMA | Flags.WRITE);
            assertFailed(p, p.a.write(src, 0, 64, p.addrBFromA, 100, writeOnly.key(), 12), 12, Errno.EACCES,
                Flags.RMA | Flags.WRITE);
            assertFailed(p, p.a.read(direct(64), 0, 64, p.addrBFromA, 0, writeOnly.key(), 13), 13, Errno.EACCES,
                Flags.RMA | Flags.READ);
            final UnsafeBuffer operand = direct(8);
            operand.putLong(0, 1);
            assertFailed(p, p.a.fetchAtomic(operand, 0, 1, direct(8), 0, p.addrBFromA, 0, writeOnly.key(),
                AtomicDatatype.INT64, AtomicOp.SUM, 14), 14, Errno.EACCES, Flags.ATOMIC | Flags.READ);
            assertFailed(p, p.a.atomic(operand, 0, 1, p.addrBFromA, 0, readOnly.key(), AtomicDatatype.INT64,
                AtomicOp.SUM, 15), 15, Errno.EACCES, Flags.ATOMIC | Flags.WRITE);
            for (int i = 0; i < 4096; i++)
            {
                assertEquals(0, readable.getByte(i), "read-only target byte " + i);
                assertEquals(0, writable.getByte(i), "write-only target byte " + i);
            }

            // Within the region and its rights: it lands.
            assertEquals(0, p.a.write(src, 0, 64, p.addrBFromA, 64, writeOnly.key(), 16));
            assertEquals(16, one(p.cqA).context());
            assertPattern(writable, 64, 64, 3);

            // Closed: the NIC's vMDH slot is deregistered, the next access names nothing.
            final long key = writeOnly.key();
            writeOnly.close();
            assertFailed(p, p.a.write(src, 0, 64, p.addrBFromA, 0, key, 17), 17, Errno.EINVAL,
                Flags.RMA | Flags.WRITE);
            assertEquals(0, writable.getByte(0));
            readOnly.close();
        }
    }

    @Test
    void shouldRefreshRangesOfAScalableRegionAndRefuseWhatIsOutsideIt()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.AUTO))
        {
            final GniDomainOps opsB = p.domainB.openOps(GniOps.FI_GNI_DOMAIN_OPS_1).as(GniDomainOps.class);
            final UnsafeBuffer target = direct(3 * 4096);
            final MemoryRegion mr = p.domainB.registerMemory(target, 0, 3 * 4096, Flags.REMOTE_WRITE, 4);
            assertEquals(0, opsB.refresh(mr, 0, 3 * 4096), "the whole registration");
            assertEquals(0, opsB.refresh(mr, 4096, 100), "some pages of it");
            assertEquals(Errno.EINVAL.negated(), opsB.refresh(mr, 2 * 4096, 4097), "beyond the region");
            assertEquals(Errno.EINVAL.negated(), opsB.refresh(mr, -1, 10));
            assertEquals(Errno.EINVAL.negated(), opsB.refresh(mr, 0, 0));
            assertEquals(0, p.a.write(pattern(64, 2), 0, 64, p.addrBFromA, 4096, mr.key(), 1));
            assertEquals(1, one(p.cqA).context());
            assertPattern(target, 4096, 64, 2);
            mr.close();
            assertEquals(Errno.EINVAL.negated(), opsB.refresh(mr, 0, 4096), "a closed region");
        }
        try (Pair basic = GniOpsTest.pair(MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY, Progress.AUTO))
        {
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion mr = basic.domainB.registerMemory(target, 0, 4096, Flags.REMOTE_WRITE, 0))
            {
                assertEquals(0, basic.domainB.openOps(GniOps.FI_GNI_DOMAIN_OPS_1).as(GniDomainOps.class)
                    .refresh(mr, 0, 4096), "basic mode: nothing reserved, nothing to do");
            }
        }
    }

    private static void assertFailed(final Pair p, final int posted, final long context, final Errno errno,
        final long flags)
    {
        assertEquals(0, posted);
        final CompletionErrorEntry e = error(p.cqA);
        assertEquals(context, e.context());
        assertEquals(errno, e.errno());
        assertEquals(Errno.ECANCELED.negated(), e.provErrno(), "prov_errno of a transaction error");
        assertEquals(flags, e.flags());
        assertEquals(0, e.len());
        assertEquals(0, e.olen());
    }
}
