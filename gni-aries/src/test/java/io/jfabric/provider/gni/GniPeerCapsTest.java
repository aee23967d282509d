package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import io.jfabric.OpenOps;
import io.jfabric.Progress;
import io.jfabric.aries.AriesNode;
import io.jfabric.aries.FaultPlan;
import io.jfabric.aries.TransactionKind;
import io.jfabric.conformance.Drive;
import io.jfabric.conformance.Pair;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The peer's caps (GNI.md §2.2, §2.5; upstream's {@code peer_caps}, {@code gnix_ops_allowed}): every endpoint's
 * caps travel to the peer NIC's VC ({@code EP_CAPS}, on connect), an RMA write to an endpoint without
 * {@code FI_REMOTE_WRITE} (a read without {@code FI_REMOTE_READ}; an initiator without the matching {@code FI_WRITE}
 * or {@code FI_READ}) fails as upstream's does: posted (0), then an error completion {@code err FI_EOPNOTSUPP},
 * {@code prov_errno -FI_ECANCELED}, flags {@code FI_RMA | FI_WRITE}/{@code FI_READ}, len 0, the write counter's error
 * count one up, the target untouched; before the caps came the operation waits on the VC, after they came it is
 * refused at once (no NIC post). {@code FI_RMA_EVENT} of the target endpoint decides whether its remote counters
 * count (upstream's rule): without it a one-sided write completes on the initiator's NIC event with no message to the
 * target (so it completes while the target never progresses) and nothing is counted; with it the target counts and
 * the initiator completes on its acknowledgement. Atomics are gated by the same rule with {@code FI_ATOMIC}: a
 * non-fetching atomic and every {@code native_amo} in the write direction, a fetching or compare one in the read
 * direction (upstream's flags for them).
 */
@Timeout(60)
class GniPeerCapsTest
{
    private static final long INITIATOR = Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC;

    static Info info(final long mrMode, final Progress progress, final long caps)
    {
        final Info info = GniOpsTest.info(mrMode, progress, null, caps);
        final long directions = Flags.READ | Flags.WRITE | Flags.REMOTE_READ | Flags.REMOTE_WRITE;
        assertEquals(caps & (Flags.RMA | Flags.ATOMIC | Flags.RMA_EVENT),
            info.caps() & (Flags.RMA | Flags.ATOMIC | Flags.RMA_EVENT));
        if (0 != (caps & directions))
        {
            // getinfo adds every direction only to a primary cap asked without one (fi_getinfo(3)).
            assertEquals(caps & directions, info.caps() & directions, "the directions asked for");
        }
        return info;
    }

    /**
     * One message each way with both domains progressed: the VC of the pair's NICs is connected and each side holds
     * the other's caps (the peer's EP_CAPS is ahead of its message in the mailbox).
     *
     * @param p the pair.
     */
    static void connectBothWays(final Pair p)
    {
        final UnsafeBuffer rx = direct(8);
        assertEquals(0, p.b.recv(rx, 0, 8, AddressVector.ADDR_UNSPEC, 900));
        assertEquals(0, p.a.send(pattern(8, 90), 0, 8, p.addrBFromA, 901));
        assertEquals(900, Drive.one(p.cqB, p.domainA, p.domainB).context());
        assertEquals(901, Drive.one(p.cqA, p.domainA, p.domainB).context());
        assertEquals(0, p.a.recv(rx, 0, 8, AddressVector.ADDR_UNSPEC, 902));
        assertEquals(0, p.b.send(pattern(8, 91), 0, 8, p.addrAFromB, 903));
        assertEquals(902, Drive.one(p.cqA, p.domainA, p.domainB).context());
        assertEquals(903, Drive.one(p.cqB, p.domainA, p.domainB).context());
        assertPattern(rx, 0, 8, 91);
    }

    private static void assertRefused(final CompletionQueue cq, final long context, final long flags)
    {
        final CompletionErrorEntry e = error(cq);
        assertEquals(context, e.context());
        assertEquals(Errno.EOPNOTSUPP, e.errno());
        assertEquals(Errno.ECANCELED.negated(), e.provErrno(), "upstream's GNI_RC_TRANSACTION_ERROR");
        assertEquals(flags, e.flags());
        assertEquals(0, e.len());
        assertEquals(0, e.olen());
        assertEquals(0, e.data());
    }

    private static void assertUntouched(final UnsafeBuffer target, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            assertEquals(0, target.getByte(i), "target byte " + i);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldRefuseWritesToAPeerWithoutRemoteWriteBeforeAndAfterItsCapsCame(final Progress progress)
    {
        final long mr = MrMode.MMU_NOTIFY;
        try (Pair p = new Pair(info(mr, progress, INITIATOR),
            info(mr, progress, Flags.MSG | Flags.RMA | Flags.REMOTE_READ), 0, CqFormat.TAGGED, 64))
        {
            final Counter writes = p.domainA.counter();
            final Counter reads = p.domainA.counter();
            final CompletionQueue cq = p.domainA.completionQueue(64, CqFormat.DATA);
            final Endpoint w = p.domainA.endpoint(p.infoA).bind(p.avA, 0).bind(cq, Flags.TRANSMIT | Flags.RECV)
                .bind(writes, Flags.WRITE).bind(reads, Flags.READ).enable();
            final UnsafeBuffer target = direct(16384);
            target.putLong(12288, 0x1122334455667788L);
            try (MemoryRegion region = p.domainB.registerMemory(target, 0, 16384,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 5))
            {
                final OpenOps opsA = p.domainA.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
                final long fma = opsA.get(GniOps.GNI_STAT_FMA_POSTS);
                // The VC is not connected: the write waits for the peer's caps, then fails.
                assertEquals(0, w.write(pattern(64, 1), 0, 64, p.addrBFromA, 0, region.key(), 1));
                assertRefused(cq, 1, Flags.RMA | Flags.WRITE);
                assertEquals(1, writes.readErr());
                assertEquals(0, writes.read());
                // Now known: refused at once, twice more (FMA size and BTE size).
                assertEquals(0, w.write(pattern(64, 2), 0, 64, p.addrBFromA, 64, region.key(), 2));
                assertRefused(cq, 2, Flags.RMA | Flags.WRITE);
                assertEquals(0, w.write(pattern(9000, 3), 0, 9000, p.addrBFromA, 0, region.key(), 3));
                assertRefused(cq, 3, Flags.RMA | Flags.WRITE);
                assertEquals(3, writes.readErr());
                assertEquals(fma, opsA.get(GniOps.GNI_STAT_FMA_POSTS), "no write reached the NIC");
                assertUntouched(target, 12288);

                // A read is allowed (FI_REMOTE_READ): it moves the data.
                final UnsafeBuffer back = direct(8);
                assertEquals(0, w.read(back, 0, 8, p.addrBFromA, 12288, region.key(), 4));
                final CompletionEntry read = one(cq);
                assertEquals(4, read.context());
                assertEquals(Flags.RMA | Flags.READ, read.flags());
                assertEquals(0x1122334455667788L, back.getLong(0));
                assertEquals(1, reads.read());
                assertEquals(0, reads.readErr());
            }
            w.close();
            cq.close();
            writes.close();
            reads.close();
        }
    }

    @Test
    void shouldRefuseReadsToAPeerWithoutRemoteReadAndLetWritesThrough()
    {
        final long mr = MrMode.MMU_NOTIFY;
        try (Pair p = new Pair(info(mr, Progress.AUTO, INITIATOR),
            info(mr, Progress.AUTO, Flags.MSG | Flags.RMA | Flags.REMOTE_WRITE), 0, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion region = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 6))
            {
                final UnsafeBuffer back = direct(64);
                back.setMemory(0, 64, (byte) 0x5A);
                assertEquals(0, p.a.read(back, 0, 64, p.addrBFromA, 0, region.key(), 1));
                assertRefused(p.cqA, 1, Flags.RMA | Flags.READ);
                for (int i = 0; i < 64; i++)
                {
                    assertEquals(0x5A, back.getByte(i), "local byte " + i + " untouched");
                }
                assertEquals(0, p.a.write(pattern(100, 7), 0, 100, p.addrBFromA, 8, region.key(), 2));
                assertEquals(2, one(p.cqA).context());
                assertPattern(target, 8, 100, 7);
                // Atomics are gated too: the target has no FI_ATOMIC, so even a fetching one is refused.
                final UnsafeBuffer operand = direct(8);
                operand.putLong(0, 5);
                final UnsafeBuffer result = direct(8);
                assertEquals(0, p.a.fetchAtomic(operand, 0, 1, result, 0, p.addrBFromA, 1024, region.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 3));
                assertRefused(p.cqA, 3, Flags.ATOMIC | Flags.READ);
                assertEquals(0, target.getLong(1024));
                assertEquals(0, result.getLong(0));
            }
        }
    }

    @Test
    void shouldFollowUpstreamsRuleForInitiatorAndTargetCaps()
    {
        final long mr = MrMode.MMU_NOTIFY;
        // Initiator with FI_READ only: its writes are refused whatever the peer; a peer with FI_RMA and no
        // direction takes everything; a peer without FI_RMA nothing.
        try (Pair p = new Pair(info(mr, Progress.AUTO, Flags.MSG | Flags.RMA | Flags.READ),
            info(mr, Progress.AUTO, Flags.MSG | Flags.RMA), 0, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion region = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 7))
            {
                assertEquals(0, p.a.write(pattern(16, 1), 0, 16, p.addrBFromA, 0, region.key(), 1));
                assertRefused(p.cqA, 1, Flags.RMA | Flags.WRITE);
                assertUntouched(target, 16);
                target.putLong(64, 77);
                final UnsafeBuffer back = direct(8);
                assertEquals(0, p.a.read(back, 0, 8, p.addrBFromA, 64, region.key(), 2));
                assertEquals(2, one(p.cqA).context());
                assertEquals(77, back.getLong(0));
            }
        }
        try (Pair p = new Pair(info(mr, Progress.AUTO, INITIATOR), info(mr, Progress.AUTO, Flags.MSG),
            0, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion region = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 8))
            {
                assertEquals(0, p.a.write(pattern(16, 1), 0, 16, p.addrBFromA, 0, region.key(), 1));
                assertRefused(p.cqA, 1, Flags.RMA | Flags.WRITE);
                assertEquals(0, p.a.read(direct(8), 0, 8, p.addrBFromA, 0, region.key(), 2));
                assertRefused(p.cqA, 2, Flags.RMA | Flags.READ);
                assertUntouched(target, 4096);
            }
        }
    }

    @Test
    void shouldRefuseBasicModeWritesByCapsBeforeAnyMrQuery()
    {
        final long basic = MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY;
        try (Pair p = new Pair(info(basic, Progress.AUTO, INITIATOR),
            info(basic, Progress.AUTO, Flags.MSG | Flags.RMA | Flags.REMOTE_READ), 0, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion region = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 0))
            {
                final OpenOps opsB = p.domainB.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
                final long misses = opsB.get(GniOps.GNI_STAT_MR_CACHE_MISSES);
                assertEquals(0, p.a.write(pattern(32, 1), 0, 32, p.addrBFromA, target.addressOffset(),
                    region.key(), 1));
                assertRefused(p.cqA, 1, Flags.RMA | Flags.WRITE);
                assertUntouched(target, 32);
                assertEquals(misses, opsB.get(GniOps.GNI_STAT_MR_CACHE_MISSES), "no MR query was answered");
                target.putInt(100, 4242);
                final UnsafeBuffer back = direct(4);
                assertEquals(0, p.a.read(back, 0, 4, p.addrBFromA, target.addressOffset() + 100, region.key(), 2));
                assertEquals(2, one(p.cqA).context());
                assertEquals(4242, back.getInt(0));
            }
        }
    }

    @Test
    void shouldCompleteWritesToATargetWithoutRmaEventOnTheLocalEventAndCountNothing()
    {
        final long mr = MrMode.MMU_NOTIFY;
        try (Pair p = new Pair(info(mr, Progress.MANUAL, INITIATOR), info(mr, Progress.MANUAL, INITIATOR),
            0, CqFormat.TAGGED, 64))
        {
            final Counter remoteWrites = p.domainB.counter();
            final CompletionQueue targetCq = p.domainB.completionQueue(16, CqFormat.DATA);
            final Endpoint t = p.domainB.endpoint(p.infoB).bind(p.avB, 0).bind(targetCq, Flags.TRANSMIT | Flags.RECV)
                .bind(remoteWrites, Flags.REMOTE_WRITE).enable();
            final long toT = p.avA.insert(t.name());
            connectBothWays(p);
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion region = p.domainB.registerMemory(target, 0, 4096, Flags.REMOTE_WRITE, 9))
            {
                // EP_CAPS of t reaches A on B's next duty cycle after t opened: one more progress of both.
                Drive.progress(p.domainA, p.domainB);
                // From now on only the initiator progresses: the write completes on its own NIC event.
                assertEquals(0, p.a.write(pattern(512, 4), 0, 512, toT, 0, region.key(), 1));
                final CompletionEntry done = Drive.one(p.cqA, p.domainA);
                assertEquals(1, done.context());
                assertEquals(Flags.RMA | Flags.WRITE, done.flags());
                assertPattern(target, 0, 512, 4);
                for (int i = 0; i < 50; i++)
                {
                    p.domainB.progress();
                }
                assertEquals(0, remoteWrites.read(), "no FI_RMA_EVENT at the target: not counted");
                // Remote CQ data still reaches the target's CQ (the runtime's writedata rule), uncounted.
                assertEquals(0, p.a.writedata(pattern(8, 5), 0, 8, 0xD00DL, toT, 512, region.key(), 2));
                assertEquals(2, Drive.one(p.cqA, p.domainA, p.domainB).context());
                final CompletionEntry data = Drive.one(targetCq, p.domainA, p.domainB);
                assertEquals(Flags.REMOTE_WRITE | Flags.RMA | Flags.REMOTE_CQ_DATA, data.flags());
                assertEquals(0xD00DL, data.data());
                assertEquals(0, remoteWrites.read());
            }
            t.close();
            targetCq.close();
            remoteWrites.close();
        }
    }

    @Test
    void shouldCountAtATargetWithRmaEventAndCompleteOnItsAcknowledgement()
    {
        final long mr = MrMode.MMU_NOTIFY;
        try (Pair p = new Pair(info(mr, Progress.MANUAL, INITIATOR),
            info(mr, Progress.MANUAL, INITIATOR | Flags.RMA_EVENT), 0, CqFormat.TAGGED, 64))
        {
            final Counter remoteWrites = p.domainB.counter();
            final Counter remoteReads = p.domainB.counter();
            final Endpoint t = p.domainB.endpoint(p.infoB).bind(p.avB, 0).bind(p.cqB, Flags.TRANSMIT | Flags.RECV)
                .bind(remoteWrites, Flags.REMOTE_WRITE).bind(remoteReads, Flags.REMOTE_READ).enable();
            final long toT = p.avA.insert(t.name());
            connectBothWays(p);
            Drive.progress(p.domainA, p.domainB);
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion region = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 10))
            {
                assertEquals(0, p.a.write(pattern(512, 6), 0, 512, toT, 0, region.key(), 1));
                final CompletionEntry none = new CompletionEntry();
                final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
                while (target.getByte(511) != pattern(512, 6).getByte(511))
                {
                    assertTrue(System.nanoTime() < deadline, "the write never landed");
                    p.domainA.progress();
                    Thread.yield();
                }
                for (int i = 0; i < 50; i++)
                {
                    p.domainA.progress();
                }
                assertEquals(Errno.EAGAIN.negated(), p.cqA.read(none), "waits for the target's acknowledgement");
                final CompletionEntry done = Drive.one(p.cqA, p.domainA, p.domainB);
                assertEquals(1, done.context());
                assertEquals(Flags.RMA | Flags.WRITE, done.flags());
                assertEquals(1, remoteWrites.read(), "counted before the acknowledgement left");

                final UnsafeBuffer back = direct(512);
                assertEquals(0, p.a.read(back, 0, 512, toT, 0, region.key(), 2));
                assertEquals(2, Drive.one(p.cqA, p.domainA, p.domainB).context());
                assertPattern(back, 0, 512, 6);
                assertEquals(1, remoteReads.read());

                final UnsafeBuffer operand = direct(8);
                operand.putLong(0, 3);
                assertEquals(0, p.a.atomic(operand, 0, 1, toT, 1024, region.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 3));
                assertEquals(3, Drive.one(p.cqA, p.domainA, p.domainB).context());
                assertEquals(3, target.getLong(1024));
                assertEquals(2, remoteWrites.read(), "an atomic counts as a remote write");
                assertFalse(p.cqB.read(none) > 0, "no completion at the target for counted accesses");
            }
            t.close();
            remoteWrites.close();
            remoteReads.close();
        }
    }

    @Test
    void shouldNotifyPeersOfTheCapsOfAnEndpointOpenedAfterTheConnect()
    {
        final long mr = MrMode.MMU_NOTIFY;
        try (Pair p = new Pair(info(mr, Progress.AUTO, INITIATOR), info(mr, Progress.AUTO, INITIATOR),
            0, CqFormat.TAGGED, 64))
        {
            connectBothWays(p);
            final Domain domainB = p.domainB;
            final Info readOnlyTarget = info(mr, Progress.AUTO, Flags.MSG | Flags.RMA | Flags.REMOTE_READ);
            final Endpoint t = domainB.endpoint(readOnlyTarget).bind(p.avB, 0).bind(p.cqB, Flags.TRANSMIT |
                Flags.RECV).enable();
            final long toT = p.avA.insert(t.name());
            // A message from t to A comes after t's EP_CAPS in A's mailbox.
            final UnsafeBuffer rx = direct(8);
            assertEquals(0, p.a.recv(rx, 0, 8, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, t.send(pattern(8, 3), 0, 8, p.addrAFromB, 2));
            assertEquals(1, one(p.cqA).context());
            assertEquals(2, one(p.cqB).context());
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion region = domainB.registerMemory(target, 0, 4096, Flags.REMOTE_WRITE, 11))
            {
                assertEquals(0, p.a.write(pattern(8, 4), 0, 8, toT, 0, region.key(), 3));
                assertRefused(p.cqA, 3, Flags.RMA | Flags.WRITE);
                assertEquals(0, p.a.write(pattern(8, 4), 0, 8, p.addrBFromA, 0, region.key(), 4));
                assertEquals(4, one(p.cqA).context());
                assertPattern(target, 0, 8, 4);
            }
            t.close();
        }
    }

    @AfterEach
    void clear()
    {
        GniFaults.clear();
    }

    private static long amoPosts(final Endpoint endpoint)
    {
        final AriesNode node = GniFaults.node(GniName.device(GniName.parse(endpoint.name())));
        assertNotNull(node);
        return node.stats().posts(TransactionKind.AMO);
    }

    private static UnsafeBuffer int64(final long value)
    {
        final UnsafeBuffer b = direct(8);
        b.putLong(0, value);
        return b;
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldRefuseEveryAtomicFormToAPeerWithoutAtomicBeforeAndAfterItsCapsCame(final Progress progress)
    {
        GniFaults.install(FaultPlan.seeded(41));
        final long mr = MrMode.MMU_NOTIFY;
        try (Pair p = new Pair(info(mr, progress, INITIATOR), info(mr, progress, Flags.MSG | Flags.RMA), 0,
            CqFormat.TAGGED, 64))
        {
            final Counter writes = p.domainA.counter();
            final Counter reads = p.domainA.counter();
            final CompletionQueue cq = p.domainA.completionQueue(64, CqFormat.DATA);
            final Endpoint w = p.domainA.endpoint(p.infoA).bind(p.avA, 0).bind(cq, Flags.TRANSMIT | Flags.RECV)
                .bind(writes, Flags.WRITE).bind(reads, Flags.READ).enable();
            final GniEpOps native1 = w.openOps(GniOps.FI_GNI_EP_OPS_1).as(GniEpOps.class);
            final UnsafeBuffer target = direct(4096);
            target.putLong(0, 100);
            try (MemoryRegion region = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 12))
            {
                final long amos = amoPosts(w);
                final UnsafeBuffer result = direct(8);
                result.putLong(0, 0x5A5A);
                // The VC is not connected: the atomic waits for the peer's caps, then fails.
                assertEquals(0, w.atomic(int64(5), 0, 1, p.addrBFromA, 0, region.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 1));
                assertRefused(cq, 1, Flags.ATOMIC | Flags.WRITE);
                assertEquals(1, writes.readErr());
                // Now known: refused at once, every form.
                assertEquals(0, w.fetchAtomic(int64(5), 0, 1, result, 0, p.addrBFromA, 0, region.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 2));
                assertRefused(cq, 2, Flags.ATOMIC | Flags.READ);
                assertEquals(0, w.fetchAtomic(null, 0, 1, result, 0, p.addrBFromA, 0, region.key(),
                    AtomicDatatype.INT64, AtomicOp.ATOMIC_READ, 3));
                assertRefused(cq, 3, Flags.ATOMIC | Flags.READ);
                assertEquals(0, w.compareAtomic(int64(7), 0, 1, int64(100), 0, result, 0, p.addrBFromA, 0,
                    region.key(), AtomicDatatype.INT64, AtomicOp.CSWAP, 4));
                assertRefused(cq, 4, Flags.ATOMIC | Flags.READ);
                final UnsafeBuffer operands = direct(16);
                operands.putLong(0, 0);
                operands.putLong(8, 1);
                assertEquals(0, native1.nativeAmo(w, operands, 0, null, 0, p.addrBFromA, 0, region.key(),
                    GniOps.GNIX_FAB_RQ_NAMO_AX, 5));
                assertRefused(cq, 5, Flags.ATOMIC | Flags.READ);
                assertEquals(1, writes.readErr());
                assertEquals(0, writes.read());
                assertEquals(4, reads.readErr());
                assertEquals(0, reads.read());
                assertEquals(100, target.getLong(0), "the target untouched");
                assertEquals(0x5A5A, result.getLong(0), "no result written");
                assertEquals(amos, amoPosts(w), "no atomic reached the NIC");
                // RMA is allowed (FI_RMA, no direction: all of them).
                assertEquals(0, w.write(pattern(8, 6), 0, 8, p.addrBFromA, 64, region.key(), 6));
                assertEquals(6, one(cq).context());
                assertPattern(target, 64, 8, 6);
            }
            w.close();
            cq.close();
            writes.close();
            reads.close();
        }
    }

    @Test
    void shouldGateAtomicsByTheTargetsRemoteDirectionAsUpstreamFlagsThem()
    {
        GniFaults.install(FaultPlan.seeded(42));
        final long mr = MrMode.MMU_NOTIFY;
        // FI_REMOTE_READ only: fetching and compare atomics (upstream flags them FI_READ) run; non-fetching ones and
        // native_amo (flagged FI_WRITE upstream) are refused.
        try (Pair p = new Pair(info(mr, Progress.AUTO, INITIATOR),
            info(mr, Progress.AUTO, Flags.MSG | Flags.ATOMIC | Flags.REMOTE_READ), 0, CqFormat.TAGGED, 64))
        {
            final GniEpOps ops = p.a.openOps(GniOps.FI_GNI_EP_OPS_1).as(GniEpOps.class);
            final UnsafeBuffer target = direct(4096);
            target.putLong(0, 100);
            try (MemoryRegion region = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 13))
            {
                final UnsafeBuffer result = direct(8);
                assertEquals(0, p.a.atomic(int64(5), 0, 1, p.addrBFromA, 0, region.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 1));
                assertRefused(p.cqA, 1, Flags.ATOMIC | Flags.WRITE);
                final UnsafeBuffer operands = direct(16);
                operands.putLong(0, 0);
                operands.putLong(8, 1);
                assertEquals(0, ops.nativeAmo(p.a, operands, 0, null, 0, p.addrBFromA, 0, region.key(),
                    GniOps.GNIX_FAB_RQ_NAMO_AX, 2));
                assertRefused(p.cqA, 2, Flags.ATOMIC | Flags.READ);
                assertEquals(100, target.getLong(0));
                final long amos = amoPosts(p.a);
                assertEquals(0, p.a.fetchAtomic(int64(5), 0, 1, result, 0, p.addrBFromA, 0, region.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 3));
                assertEquals(3, one(p.cqA).context());
                assertEquals(100, result.getLong(0));
                assertEquals(105, target.getLong(0));
                assertEquals(0, p.a.compareAtomic(int64(7), 0, 1, int64(105), 0, result, 0, p.addrBFromA, 0,
                    region.key(), AtomicDatatype.INT64, AtomicOp.CSWAP, 4));
                assertEquals(4, one(p.cqA).context());
                assertEquals(105, result.getLong(0));
                assertEquals(7, target.getLong(0));
                assertEquals(0, p.a.fetchAtomic(null, 0, 1, result, 0, p.addrBFromA, 0, region.key(),
                    AtomicDatatype.INT64, AtomicOp.ATOMIC_READ, 5));
                assertEquals(5, one(p.cqA).context());
                assertEquals(7, result.getLong(0));
                assertEquals(amos + 3, amoPosts(p.a), "each allowed atomic is one AMO");
            }
        }
        // FI_REMOTE_WRITE only: the other way round.
        try (Pair p = new Pair(info(mr, Progress.AUTO, INITIATOR),
            info(mr, Progress.AUTO, Flags.MSG | Flags.ATOMIC | Flags.REMOTE_WRITE), 0, CqFormat.TAGGED, 64))
        {
            final GniEpOps ops = p.a.openOps(GniOps.FI_GNI_EP_OPS_1).as(GniEpOps.class);
            final UnsafeBuffer target = direct(4096);
            target.putLong(0, 100);
            try (MemoryRegion region = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 14))
            {
                final UnsafeBuffer result = direct(8);
                result.putLong(0, -1);
                assertEquals(0, p.a.fetchAtomic(int64(5), 0, 1, result, 0, p.addrBFromA, 0, region.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 1));
                assertRefused(p.cqA, 1, Flags.ATOMIC | Flags.READ);
                assertEquals(0, p.a.compareAtomic(int64(7), 0, 1, int64(100), 0, result, 0, p.addrBFromA, 0,
                    region.key(), AtomicDatatype.INT64, AtomicOp.CSWAP, 2));
                assertRefused(p.cqA, 2, Flags.ATOMIC | Flags.READ);
                assertEquals(0, p.a.fetchAtomic(null, 0, 1, result, 0, p.addrBFromA, 0, region.key(),
                    AtomicDatatype.INT64, AtomicOp.ATOMIC_READ, 3));
                assertRefused(p.cqA, 3, Flags.ATOMIC | Flags.READ);
                assertEquals(-1, result.getLong(0));
                assertEquals(100, target.getLong(0));
                assertEquals(0, p.a.atomic(int64(5), 0, 1, p.addrBFromA, 0, region.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 4));
                assertEquals(4, one(p.cqA).context());
                assertEquals(105, target.getLong(0));
                // AX: new = (old & op1) ^ op2.
                final UnsafeBuffer operands = direct(16);
                operands.putLong(0, 0xF0L);
                operands.putLong(8, 0x3L);
                assertEquals(0, ops.nativeAmo(p.a, operands, 0, null, 0, p.addrBFromA, 0, region.key(),
                    GniOps.GNIX_FAB_RQ_NAMO_AX, 5));
                assertEquals(5, one(p.cqA).context());
                assertEquals((105 & 0xF0L) ^ 0x3L, target.getLong(0));
            }
        }
    }

    @Test
    void shouldGateAtomicsByTheInitiatorsCaps()
    {
        final long mr = MrMode.MMU_NOTIFY;
        // An initiator with FI_ATOMIC | FI_READ: fetching atomics only. One without FI_ATOMIC: none.
        try (Pair p = new Pair(info(mr, Progress.AUTO, Flags.MSG | Flags.ATOMIC | Flags.READ),
            info(mr, Progress.AUTO, Flags.MSG | Flags.ATOMIC), 0, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer target = direct(4096);
            target.putLong(8, 40);
            try (MemoryRegion region = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 15))
            {
                assertEquals(0, p.a.atomic(int64(2), 0, 1, p.addrBFromA, 8, region.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 1));
                assertRefused(p.cqA, 1, Flags.ATOMIC | Flags.WRITE);
                assertEquals(40, target.getLong(8));
                final UnsafeBuffer result = direct(8);
                assertEquals(0, p.a.fetchAtomic(int64(2), 0, 1, result, 0, p.addrBFromA, 8, region.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 2));
                assertEquals(2, one(p.cqA).context());
                assertEquals(40, result.getLong(0));
                assertEquals(42, target.getLong(8));
            }
        }
        try (Pair p = new Pair(info(mr, Progress.AUTO, Flags.MSG | Flags.RMA),
            info(mr, Progress.AUTO, INITIATOR), 0, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer target = direct(4096);
            target.putInt(16, 9);
            try (MemoryRegion region = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 16))
            {
                final UnsafeBuffer operand = direct(4);
                operand.putInt(0, 1);
                assertEquals(0, p.a.atomic(operand, 0, 1, p.addrBFromA, 16, region.key(), AtomicDatatype.INT32,
                    AtomicOp.SUM, 1));
                assertRefused(p.cqA, 1, Flags.ATOMIC | Flags.WRITE);
                final UnsafeBuffer result = direct(4);
                assertEquals(0, p.a.fetchAtomic(operand, 0, 1, result, 0, p.addrBFromA, 16, region.key(),
                    AtomicDatatype.INT32, AtomicOp.SUM, 2));
                assertRefused(p.cqA, 2, Flags.ATOMIC | Flags.READ);
                assertEquals(9, target.getInt(16));
                // Its RMA still runs.
                assertEquals(0, p.a.write(pattern(4, 8), 0, 4, p.addrBFromA, 32, region.key(), 3));
                assertEquals(3, one(p.cqA).context());
                assertPattern(target, 32, 4, 8);
            }
        }
    }
}
