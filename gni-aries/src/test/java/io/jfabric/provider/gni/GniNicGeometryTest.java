package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MrMode;
import io.jfabric.OpenOps;
import io.jfabric.Progress;
import io.jfabric.aries.AriesNode;
import io.jfabric.aries.FaultPlan;
import io.jfabric.aries.TransactionKind;
import io.jfabric.conformance.Drive;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.function.Consumer;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The domain options upstream's {@code gnix_nic_alloc} reads take effect when set before the domain's first endpoint
 * opens, and change nothing when set after it (kept and read back), as upstream's (GNI.md §2.12, "NIC alloc";
 * {@link GniNicGeometry}): the mailbox size (the eager limit follows it), the mailbox credits, the RX CQ's entries
 * (an overrun, nothing lost), the datagram progress timeout (the VC connect timeout is 30 of its periods).
 */
@Timeout(120)
class GniNicGeometryTest
{
    private static final long CAPS = Flags.MSG | Flags.TAGGED;

    @AfterEach
    void clear()
    {
        GniFaults.clear();
    }

    private static Info info(final Progress progress)
    {
        return GniOpsTest.info(MrMode.MMU_NOTIFY, progress, null, CAPS);
    }

    private static AriesNode node(final Endpoint endpoint)
    {
        final AriesNode node = GniFaults.node(GniName.device(GniName.parse(endpoint.name())));
        assertNotNull(node);
        return node;
    }

    @Test
    void shouldSizeTheMailboxesAndSoTheEagerLimitFromTheValueSetBeforeTheFirstEndpoint()
    {
        GniFaults.install(FaultPlan.seeded(31));
        try (GniOptionPair p = new GniOptionPair(info(Progress.AUTO),
            ops -> ops.set(GniOps.GNI_MBOX_MSG_MAX_SIZE, 4096)))
        {
            final AriesNode receiver = node(p.b);
            final long gets = receiver.stats().posts(TransactionKind.RDMA_GET);
            // A 4096-byte slot holds the 40-byte header and 4056 bytes: 4056 eager, 4057 by rendezvous.
            exchange(p, 4056, 1);
            assertEquals(gets, receiver.stats().posts(TransactionKind.RDMA_GET), "4056 B eager");
            exchange(p, 4057, 2);
            assertEquals(gets + 1, receiver.stats().posts(TransactionKind.RDMA_GET), "4057 B by rendezvous");
            // Set after the NIC exists: kept and read back, the mailboxes stay as they are.
            p.opsA.set(GniOps.GNI_MBOX_MSG_MAX_SIZE, 16384);
            p.opsB.set(GniOps.GNI_MBOX_MSG_MAX_SIZE, 16384);
            assertEquals(16384, p.opsA.get(GniOps.GNI_MBOX_MSG_MAX_SIZE));
            exchange(p, 4057, 3);
            assertEquals(gets + 2, receiver.stats().posts(TransactionKind.RDMA_GET), "still by rendezvous");
        }
        try (GniOptionPair p = new GniOptionPair(info(Progress.AUTO), ops -> { }))
        {
            final AriesNode receiver = node(p.b);
            final long gets = receiver.stats().posts(TransactionKind.RDMA_GET);
            exchange(p, 16_344, 4);
            assertEquals(gets, receiver.stats().posts(TransactionKind.RDMA_GET), "default slot: 16 344 B eager");
            p.opsA.set(GniOps.GNI_MBOX_MSG_MAX_SIZE, 4096);
            p.opsB.set(GniOps.GNI_MBOX_MSG_MAX_SIZE, 4096);
            exchange(p, 4057, 5);
            assertEquals(gets, receiver.stats().posts(TransactionKind.RDMA_GET), "set after: 4057 B still eager");
            exchange(p, 16_345, 6);
            assertEquals(gets + 1, receiver.stats().posts(TransactionKind.RDMA_GET), "16 345 B by rendezvous");
        }
    }

    @Test
    void shouldRefuseASlotSmallerThanTheLongestStartAndCarryAnEightBufferStartInTheSmallest()
    {
        final int slot = GniRendezvousStart.MAX_LENGTH;
        assertEquals(336, slot);
        try (GniOptionPair p = new GniOptionPair(info(Progress.AUTO), ops ->
        {
            assertEquals(Errno.EINVAL.value(), GniOpsTest.errno(() -> ops.set(GniOps.GNI_MBOX_MSG_MAX_SIZE, slot - 1)));
            ops.set(GniOps.GNI_MBOX_MSG_MAX_SIZE, slot);
        }))
        {
            exchange(p, slot - 40, 7);
            // 8 buffers of 125 B: by rendezvous, its START of 336 bytes fills the slot.
            final int size = 1000;
            final UnsafeBuffer out = pattern(size, 8);
            final org.agrona.DirectBuffer[] iov = new org.agrona.DirectBuffer[8];
            for (int i = 0; i < 8; i++)
            {
                iov[i] = new UnsafeBuffer(out, i * 125, 125);
            }
            final UnsafeBuffer in = direct(size);
            assertEquals(0, p.b.trecv(in, 0, size, AddressVector.ADDR_UNSPEC, 8, 0, 108));
            assertEquals(0, p.a.tsendv(iov, 8, p.addrBFromA, 8, 208));
            assertEquals(108, Drive.one(p.cqB, p.domainA, p.domainB).context());
            assertEquals(208, Drive.one(p.cqA, p.domainA, p.domainB).context());
            assertPattern(in, 0, size, 8);
        }
    }

    @Test
    void shouldHoldAsManyMessagesInAPeersMailboxAsTheCreditsSetBeforeTheFirstEndpoint()
    {
        GniFaults.install(FaultPlan.seeded(32));
        sentWithoutTheReceiver(ops -> ops.set(GniOps.GNI_MBOX_MAX_CREDIT, 2), 2);
        sentWithoutTheReceiver(ops -> { }, 5);
    }

    /**
     * Five 64-byte messages to a MANUAL receiver that does not progress: an eager send completes once its message is
     * in the receiver's mailbox, so the sends that complete are the mailbox's credits; then the receiver takes all
     * five.
     *
     * @param expected the sends that complete before the receiver progresses (asserted, and no more after 500 more
     *                 progress calls of the sender).
     */
    private static void sentWithoutTheReceiver(final Consumer<OpenOps> options, final int expected)
    {
        try (GniOptionPair p = new GniOptionPair(info(Progress.MANUAL), options))
        {
            connect(p);
            final AriesNode sender = node(p.a);
            final long stalls = sender.stats().creditStalls();
            for (int i = 0; i < 5; i++)
            {
                assertEquals(0, p.a.tsend(pattern(64, i), 0, 64, p.addrBFromA, 10 + i, 10 + i));
            }
            int completed = 0;
            final CompletionEntry e = new CompletionEntry();
            final long deadline = System.nanoTime() + io.jfabric.conformance.Pair.DEADLINE_NS;
            while (completed < expected)
            {
                assertTrue(System.nanoTime() - deadline < 0, completed + " of " + expected + " sends completed");
                p.domainA.progress();
                if (1 == p.cqA.read(e))
                {
                    assertEquals(10 + completed, e.context());
                    completed++;
                }
                Thread.yield();
            }
            for (int spin = 0; spin < 500 && expected < 5; spin++)
            {
                p.domainA.progress();
                assertEquals(Errno.EAGAIN.negated(), p.cqA.read(e), "a send beyond the credits completed");
                Thread.yield();
            }
            if (expected < 5)
            {
                assertTrue(sender.stats().creditStalls() > stalls, "the sends wait for credits");
            }
            final UnsafeBuffer[] in = new UnsafeBuffer[5];
            for (int i = 0; i < 5; i++)
            {
                in[i] = direct(64);
                assertEquals(0, p.b.trecv(in[i], 0, 64, AddressVector.ADDR_UNSPEC, 10 + i, 0, 20 + i));
            }
            for (int i = 0; i < 5; i++)
            {
                assertEquals(20 + i, Drive.one(p.cqB, p.domainA, p.domainB).context());
                assertPattern(in[i], 0, 64, i);
            }
            for (int i = completed; i < 5; i++)
            {
                assertEquals(10 + i, Drive.one(p.cqA, p.domainA, p.domainB).context());
            }
        }
    }

    @Test
    void shouldOverrunAnRxCqOfTheSizeSetBeforeTheFirstEndpointAndLoseNothing()
    {
        GniFaults.install(FaultPlan.seeded(33));
        assertTrue(overrunsOfTwentyMessages(ops -> ops.set(GniOps.GNI_RX_CQ_SIZE, 1), false) > 0,
            "an RX CQ of 1 entry overruns");
        assertEquals(0, overrunsOfTwentyMessages(ops -> { }, false), "16 384 entries do not");
        assertEquals(0, overrunsOfTwentyMessages(ops -> { }, true), "1 set after the first endpoint changes nothing");
    }

    /**
     * Twenty 64-byte messages into the mailbox of a MANUAL receiver that does not progress (one RX CQ event each),
     * then the receiver takes them all, every byte checked.
     *
     * @return the receiver NIC's RX CQ overruns meanwhile.
     */
    private static long overrunsOfTwentyMessages(final Consumer<OpenOps> options, final boolean rxCqOfOneAfter)
    {
        try (GniOptionPair p = new GniOptionPair(info(Progress.MANUAL), options))
        {
            if (rxCqOfOneAfter)
            {
                p.opsB.set(GniOps.GNI_RX_CQ_SIZE, 1);
                assertEquals(1, p.opsB.get(GniOps.GNI_RX_CQ_SIZE));
            }
            connect(p);
            final AriesNode receiver = node(p.b);
            final long overruns = receiver.stats().cqOverruns();
            final int n = 20;
            for (int i = 0; i < n; i++)
            {
                assertEquals(0, p.a.tsend(pattern(64, i), 0, 64, p.addrBFromA, 30 + i, 30 + i));
            }
            // Each send completes when its message is in the receiver's mailbox (and its event in the RX CQ).
            for (int i = 0; i < n; i++)
            {
                assertEquals(30 + i, Drive.one(p.cqA, p.domainA).context());
            }
            final long seen = receiver.stats().cqOverruns() - overruns;
            final UnsafeBuffer[] in = new UnsafeBuffer[n];
            for (int i = 0; i < n; i++)
            {
                in[i] = direct(64);
                assertEquals(0, p.b.trecv(in[i], 0, 64, AddressVector.ADDR_UNSPEC, 30 + i, 0, 60 + i));
            }
            for (int i = 0; i < n; i++)
            {
                final CompletionEntry e = Drive.one(p.cqB, p.domainA, p.domainB);
                assertEquals(60 + i, e.context());
                assertEquals(64, e.len());
                assertPattern(in[i], 0, 64, i);
            }
            return seen;
        }
    }

    @Test
    void shouldTimeAConnectOutAfterThirtyDatagramPeriodsOfTheValueSetBeforeTheFirstEndpoint()
    {
        System.clearProperty(GniConfiguration.CONNECT_TIMEOUT_PROP);
        final Info info = info(Progress.AUTO);
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield"))
        {
            final OpenOps ops = domain.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
            assertEquals(100, ops.get(GniOps.GNI_DGRAM_PROGRESS_TIMEOUT));
            ops.set(GniOps.GNI_DGRAM_PROGRESS_TIMEOUT, 10);
            try (AddressVector av = domain.addressVector(AvType.TABLE, 4);
                CompletionQueue cq = domain.completionQueue(64, CqFormat.TAGGED);
                Endpoint a = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable())
            {
                // Set after the NIC exists: no effect (the VC's timeout stays 30 x 10 ms).
                ops.set(GniOps.GNI_DGRAM_PROGRESS_TIMEOUT, 100_000);
                // A name no node answers: device 0x7FFF0000 is never handed out.
                final long nobody = av.insert(GniName.binary(GniName.key(0x7FFF_0000, 1, 0),
                    GniConfiguration.DEFAULT_COOKIE));
                final long start = System.nanoTime();
                assertEquals(0, a.tsend(pattern(64, 1), 0, 64, nobody, 1, 1));
                final CompletionErrorEntry failed = Drive.error(cq, domain);
                final long elapsedMs = (System.nanoTime() - start) / 1_000_000;
                assertEquals(1, failed.context());
                assertEquals(Errno.ETIMEDOUT.value(), failed.err());
                // Well before the default's 3000 ms (30 x 100 ms), and the later value's 50 minutes.
                assertTrue(elapsedMs < GniConfiguration.CONNECT_TIMEOUT_MS, "timed out after " + elapsedMs + " ms");
            }
        }
    }

    private static void connect(final GniOptionPair p)
    {
        final UnsafeBuffer rx = direct(8);
        assertEquals(0, p.b.recv(rx, 0, 8, AddressVector.ADDR_UNSPEC, 900));
        assertEquals(0, p.a.send(pattern(8, 90), 0, 8, p.addrBFromA, 901));
        assertEquals(900, Drive.one(p.cqB, p.domainA, p.domainB).context());
        assertEquals(901, Drive.one(p.cqA, p.domainA, p.domainB).context());
    }

    private static void exchange(final GniOptionPair p, final int size, final int seed)
    {
        final UnsafeBuffer in = direct(size);
        assertEquals(0, p.b.trecv(in, 0, size, AddressVector.ADDR_UNSPEC, seed, 0, 100 + seed));
        assertEquals(0, p.a.tsend(pattern(size, seed), 0, size, p.addrBFromA, seed, 200 + seed));
        final CompletionEntry e = Drive.one(p.cqB, p.domainA, p.domainB);
        assertEquals(100 + seed, e.context());
        assertEquals(size, e.len());
        assertEquals(200 + seed, Drive.one(p.cqA, p.domainA, p.domainB).context());
        assertPattern(in, 0, size, seed);
    }
}
