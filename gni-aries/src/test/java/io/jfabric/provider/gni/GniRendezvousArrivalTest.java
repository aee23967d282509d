package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.Message;
import io.jfabric.Progress;
import io.jfabric.aries.AriesNode;
import io.jfabric.aries.FaultPlan;
import io.jfabric.aries.TransactionKind;
import io.jfabric.conformance.Conformance;
import io.jfabric.conformance.Drive;
import io.jfabric.conformance.Pair;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;

import static io.jfabric.conformance.Pair.assertEmpty;
import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gni's rendezvous arrival (the operation-level SPI's {@code arrive}/{@code pull}/{@code arrivalDone}): a START that
 * matches a posted receive is pulled by the BTE GET straight into the receive's buffer, at any alignment of the
 * sender's and the receiver's buffers (the head and tail bytes from the START), into a multi-recv buffer's slices,
 * and a multi-recv buffer with such a pull in flight refuses its cancel until the pull ends. What is not one buffer
 * of the message's size (a truncating receive, an iov) is pulled straight in too, cut where the buffers end, the
 * words straddling two buffers or holding the truncation point bounced (no staging buffer). The counters
 * {@code gni rendezvous pulls into the receive buffer}, {@code ... of several pieces} and {@code gni rendezvous words
 * bounced} say how each message was pulled.
 */
@Timeout(120)
class GniRendezvousArrivalTest extends Conformance
{
    private static final String DIRECT = "gni rendezvous pulls into the receive buffer";
    private static final String PIECES = "gni rendezvous pulls of several pieces";
    private static final String WORDS = "gni rendezvous words bounced";

    GniRendezvousArrivalTest()
    {
        super(GniConformance.FACTORY);
    }

    @AfterEach
    void clear()
    {
        GniFaults.clear();
    }

    @Test
    void shouldPullStraightIntoThePostedReceiveAtEveryAlignmentOfBothBuffers()
    {
        try (Pair p = pair(Progress.AUTO))
        {
            final Map<String, Long> before = GniTransportCounters.of(p.domainB, DIRECT);
            int messages = 0;
            for (int from = 0; from < 4; from++)
            {
                for (int to = 0; to < 4; to++)
                {
                    final int size = 20_000 + 4 * from + to;
                    final UnsafeBuffer out = direct(size + 8);
                    final UnsafeBuffer seeded = pattern(size, from * 4 + to);
                    out.putBytes(from, seeded, 0, size);
                    final UnsafeBuffer in = direct(size + 16);
                    in.setMemory(0, in.capacity(), (byte) 0x5A);
                    final long tag = 100 + messages;
                    assertEquals(0, p.b.trecv(in, to, size, AddressVector.ADDR_UNSPEC, tag, 0, tag));
                    assertEquals(0, p.a.tsend(out, from, size, p.addrBFromA, tag, tag));
                    final CompletionEntry e = one(p.cqB);
                    assertEquals(tag, e.context());
                    assertEquals(size, e.len());
                    assertEquals(tag, e.tag());
                    assertEquals(in.addressOffset() + to, e.buf());
                    assertEquals(tag, one(p.cqA).context());
                    final UnsafeBuffer landed = new UnsafeBuffer(in, to, size);
                    assertPattern(landed, 0, size, from * 4 + to);
                    for (int i = 0; i < to; i++)
                    {
                        assertEquals((byte) 0x5A, in.getByte(i), "byte " + i + " before the receive");
                    }
                    for (int i = to + size; i < in.capacity(); i++)
                    {
                        assertEquals((byte) 0x5A, in.getByte(i), "byte " + i + " after the receive");
                    }
                    messages++;
                }
            }
            final Map<String, Long> after = GniTransportCounters.of(p.domainB, DIRECT);
            assertEquals(messages, after.get(DIRECT) - before.get(DIRECT), "every message straight in: " + after);
            assertEquals(before.get(PIECES), after.get(PIECES), "one GET each: " + after);
        }
    }

    @Test
    void shouldPullRendezvousMessagesIntoTheSlicesOfAMultiRecvBuffer()
    {
        try (Pair p = pair(Progress.AUTO))
        {
            final Map<String, Long> before = GniTransportCounters.of(p.domainB, DIRECT);
            final int size = 50_001;
            final UnsafeBuffer buffer = direct(3 * size);
            assertEquals(0, p.b.trecvmsg(new Message().buffer(buffer, 0, 3 * size).addr(AddressVector.ADDR_UNSPEC)
                .tag(7).context(50), Flags.MULTI_RECV));
            assertEquals(0, p.a.tsend(pattern(size, 1), 0, size, p.addrBFromA, 7, 1));
            final CompletionEntry first = one(p.cqB);
            assertEquals(0, p.a.tsend(pattern(size, 2), 0, size, p.addrBFromA, 7, 2));
            final CompletionEntry second = one(p.cqB);
            assertEquals(50, first.context());
            assertEquals(50, second.context());
            assertEquals(size, first.len());
            assertEquals(size, second.len());
            assertEquals(buffer.addressOffset(), first.buf());
            assertEquals(buffer.addressOffset() + size, second.buf());
            assertPattern(buffer, 0, size, 1);
            assertPattern(buffer, size, size, 2);
            assertEquals(1, one(p.cqA).context());
            assertEquals(2, one(p.cqA).context());
            final Map<String, Long> after = GniTransportCounters.of(p.domainB, DIRECT);
            assertEquals(2, after.get(DIRECT) - before.get(DIRECT), "both slices straight in: " + after);

            assertEquals(0, p.b.cancel(50));
            final CompletionErrorEntry cancelled = error(p.cqB);
            assertEquals(Errno.ECANCELED, cancelled.errno());
            assertTrue((cancelled.flags() & Flags.MULTI_RECV) != 0);
            assertEmpty(p.cqB);
        }
    }

    @Test
    void shouldRefuseToCancelAMultiRecvBufferWhileTheGetIntoItIsInFlight()
    {
        // An empty plan: the nodes are kept, so that the receiver's NIC's posts can be read.
        GniFaults.install(FaultPlan.seeded(1));
        try (Pair p = pair(Progress.MANUAL))
        {
            connect(p);
            final AriesNode node = GniFaults.node(GniName.device(GniName.parse(p.b.name())));
            assertNotNull(node);
            final int size = 1 << 20;
            final UnsafeBuffer buffer = direct(4 * size);
            assertEquals(0, p.b.trecvmsg(new Message().buffer(buffer, 0, 4 * size).addr(AddressVector.ADDR_UNSPEC)
                .tag(7).context(50), Flags.MULTI_RECV));
            p.domainB.progress();
            final long gets = node.stats().posts(TransactionKind.RDMA_GET);
            assertEquals(0, p.a.tsend(pattern(size, 3), 0, size, p.addrBFromA, 7, 1));
            p.domainA.progress();
            // The receiver's duty cycle that reads the START matches the buffer and posts the GET into it.
            final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            while (node.stats().posts(TransactionKind.RDMA_GET) == gets)
            {
                assertTrue(System.nanoTime() - deadline < 0, "no GET posted before the deadline");
                p.domainB.progress();
                p.domainA.progress();
            }
            // A cancel's duty cycle reads the cancel before the NIC's events: the pull is still in flight.
            assertEquals(Errno.EAGAIN.negated(), p.b.cancel(50));
            final CompletionEntry e = Drive.one(p.cqB, p.domainB);
            assertEquals(50, e.context());
            assertEquals(size, e.len());
            assertEquals(buffer.addressOffset(), e.buf());
            assertPattern(buffer, 0, size, 3);
            assertEquals(1, Drive.one(p.cqA, p.domainA, p.domainB).context());

            // The pull ended: the cancel releases the buffer.
            assertEquals(0, p.b.cancel(50));
            final CompletionErrorEntry err = error(p.cqB);
            assertEquals(Errno.ECANCELED, err.errno());
            assertEquals(50, err.context());
            assertTrue((err.flags() & Flags.MULTI_RECV) != 0);
            assertEquals(0, p.b.cancel(50));
            assertEmpty(p.cqB);
        }
    }

    @Test
    void shouldReportTheReleaseOfAMultiRecvBufferAfterThePullStillCopyingIntoIt()
    {
        GniFaults.install(FaultPlan.seeded(4));
        try (Pair p = pair(Progress.MANUAL))
        {
            connect(p);
            final AriesNode node = GniFaults.node(GniName.device(GniName.parse(p.b.name())));
            assertNotNull(node);
            final int size = 100_000;
            final int eager = 1_000;
            // After both messages 32 bytes are left, under the minimum of 64: the eager message releases the buffer.
            final UnsafeBuffer buffer = direct(size + eager + 32);
            assertEquals(0, p.b.trecvmsg(new Message().buffer(buffer, 0, buffer.capacity())
                .addr(AddressVector.ADDR_UNSPEC).tag(7).context(50), Flags.MULTI_RECV));
            p.domainB.progress();
            final long gets = node.stats().posts(TransactionKind.RDMA_GET);
            assertEquals(0, p.a.tsend(pattern(size, 1), 0, size, p.addrBFromA, 7, 1));
            assertEquals(0, p.a.tsend(pattern(eager, 2), 0, eager, p.addrBFromA, 7, 2));
            // The eager send completes once it is in the receiver's mailbox, behind the START.
            assertEquals(2, Drive.one(p.cqA, p.domainA).context());
            // One receiver duty cycle takes both: the START matches at offset 0 and its GET is posted, the eager
            // message matches the rest and releases the buffer while the GET is in flight.
            final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            while (node.stats().posts(TransactionKind.RDMA_GET) == gets)
            {
                assertTrue(System.nanoTime() - deadline < 0, "no GET posted before the deadline");
                p.domainB.progress();
            }
            final CompletionEntry small = Drive.one(p.cqB, p.domainB);
            assertEquals(50, small.context());
            assertEquals(eager, small.len());
            assertEquals(buffer.addressOffset() + size, small.buf());
            assertEquals(0, small.flags() & Flags.MULTI_RECV);
            // The release (FI_MULTI_RECV: gni reports it with the last message) goes with the pull that still
            // copied into the buffer: its completion is the buffer's last.
            final CompletionEntry large = Drive.one(p.cqB, p.domainB);
            assertEquals(50, large.context());
            assertEquals(size, large.len());
            assertEquals(buffer.addressOffset(), large.buf());
            assertTrue((large.flags() & Flags.MULTI_RECV) != 0);
            assertPattern(buffer, 0, size, 1);
            assertPattern(new UnsafeBuffer(buffer, size, eager), 0, eager, 2);
            assertEquals(1, Drive.one(p.cqA, p.domainA, p.domainB).context());
            // Released: no longer posted.
            assertEquals(0, p.b.cancel(50));
            assertEmpty(p.cqB);
        }
    }

    @Test
    void shouldTruncateAndScatterStraightIntoTheReceiveWithoutStaging()
    {
        try (Pair p = pair(Progress.AUTO))
        {
            final Map<String, Long> before = GniTransportCounters.of(p.domainB, DIRECT);
            // A receive smaller than the message: FI_ETRUNC with the overflow, the first bytes in place; the word
            // holding the truncation point is bounced (upstream's GET_TAIL), nothing lands past the receive.
            final int size = 40_003;
            final UnsafeBuffer small = direct(30_004);
            small.setMemory(0, 30_004, (byte) 0x5A);
            assertEquals(0, p.b.trecv(small, 0, 30_001, AddressVector.ADDR_UNSPEC, 3, 0, 30));
            assertEquals(0, p.a.tsend(pattern(size, 4), 0, size, p.addrBFromA, 3, 31));
            final CompletionErrorEntry truncated = error(p.cqB);
            assertEquals(30, truncated.context());
            assertEquals(Errno.ETRUNC, truncated.errno());
            assertEquals(30_001, truncated.len());
            assertEquals(size - 30_001, truncated.olen());
            assertPattern(small, 0, 30_001, 4);
            for (int i = 30_001; i < 30_004; i++)
            {
                assertEquals((byte) 0x5A, small.getByte(i), "byte " + i + " past the receive");
            }
            assertEquals(31, one(p.cqA).context());
            int pulls = 1;
            int words = 1;

            // A receive of several buffers: the message scattered over them.
            if (p.infoB.rxAttr().iovLimit() >= 3)
            {
                final UnsafeBuffer[] iov = {direct(10_000), direct(7_001), direct(30_000)};
                assertEquals(0, p.b.trecvv(new DirectBuffer[] {iov[0], iov[1], iov[2]}, 3,
                    AddressVector.ADDR_UNSPEC, 5, 0, 40));
                assertEquals(0, p.a.tsend(pattern(size, 5), 0, size, p.addrBFromA, 5, 41));
                final CompletionEntry scattered = one(p.cqB);
                assertEquals(40, scattered.context());
                assertEquals(size, scattered.len());
                final UnsafeBuffer whole = direct(47_001);
                whole.putBytes(0, iov[0], 0, 10_000);
                whole.putBytes(10_000, iov[1], 0, 7_001);
                whole.putBytes(17_001, iov[2], 0, 30_000);
                assertPattern(whole, 0, size, 5);
                assertEquals(41, one(p.cqA).context());
                // Three GETs (one a buffer) and the word straddling the 2nd and 3rd buffers.
                pulls++;
                words++;
            }
            final Map<String, Long> after = GniTransportCounters.of(p.domainB, DIRECT);
            assertEquals(pulls, after.get(DIRECT) - before.get(DIRECT), "straight in: " + after);
            assertEquals(pulls, after.get(PIECES) - before.get(PIECES), "of several pieces: " + after);
            assertEquals(words, after.get(WORDS) - before.get(WORDS), "words bounced: " + after);
        }
    }

    @Test
    void shouldStoreAnUnmatchedArrivalWithoutItsPayloadAndPullItOnlyWhenAReceiveOrAClaimTakesIt()
    {
        GniFaults.install(FaultPlan.seeded(3));
        try (Pair p = pair(Progress.AUTO))
        {
            final AriesNode node = GniFaults.node(GniName.device(GniName.parse(p.b.name())));
            assertNotNull(node);
            final Map<String, Long> before = GniTransportCounters.of(p.domainB, DIRECT);
            final long gets = node.stats().posts(TransactionKind.RDMA_GET);
            final int size = 40_003;

            // No receive posted: stored by the runtime without its payload; a peek answers, nothing is pulled.
            assertEquals(0, p.a.tsend(pattern(size, 6), 0, size, p.addrBFromA, 9, 51));
            final CompletionEntry peeked = peek(p, 9, 60, Flags.PEEK);
            assertEquals(size, peeked.len());
            assertEquals(9, peeked.tag());
            assertEquals(gets, node.stats().posts(TransactionKind.RDMA_GET), "no GET while stored");
            assertEmpty(p.cqA);
            final UnsafeBuffer late = direct(size);
            assertEquals(0, p.b.trecv(late, 0, size, AddressVector.ADDR_UNSPEC, 9, 0, 50));
            final CompletionEntry matched = one(p.cqB);
            assertEquals(50, matched.context());
            assertEquals(size, matched.len());
            assertPattern(late, 0, size, 6);
            assertEquals(51, one(p.cqA).context());
            assertEquals(gets + 1, node.stats().posts(TransactionKind.RDMA_GET));

            // Peeked and claimed: pulled by the claiming receive.
            assertEquals(0, p.a.tsend(pattern(size, 7), 0, size, p.addrBFromA, 10, 52));
            assertEquals(size, peek(p, 10, 61, Flags.PEEK | Flags.CLAIM).len());
            assertEquals(gets + 1, node.stats().posts(TransactionKind.RDMA_GET), "no GET for a claim's peek");
            final UnsafeBuffer claimed = direct(size);
            assertEquals(0, p.b.trecvmsg(new Message().buffer(claimed, 0, size).tag(10).context(61), Flags.CLAIM));
            final CompletionEntry taken = one(p.cqB);
            assertEquals(61, taken.context());
            assertEquals(size, taken.len());
            assertPattern(claimed, 0, size, 7);
            assertEquals(52, one(p.cqA).context());

            // Discarded: never pulled, the send completes.
            assertEquals(0, p.a.tsend(pattern(size, 8), 0, size, p.addrBFromA, 11, 53));
            assertEquals(62, peek(p, 11, 62, Flags.PEEK | Flags.DISCARD).context());
            assertEquals(53, one(p.cqA).context());
            assertEquals(gets + 2, node.stats().posts(TransactionKind.RDMA_GET), "no GET for the discarded one");
            assertEquals(0, p.b.trecvmsg(new Message().addr(AddressVector.ADDR_UNSPEC).tag(11).context(63),
                Flags.PEEK));
            assertEquals(Errno.ENOMSG, error(p.cqB).errno());
            final Map<String, Long> after = GniTransportCounters.of(p.domainB, DIRECT);
            assertEquals(2, after.get(DIRECT) - before.get(DIRECT), "both pulled straight in: " + after);
            assertEquals(before.get(PIECES), after.get(PIECES), "one GET each: " + after);
        }
    }

    @Test
    void shouldRefuseTheSendOfAnArrivalStoredAtAnEndpointThatCloses()
    {
        try (Pair p = pair(Progress.AUTO))
        {
            final int size = 40_003;
            assertEquals(0, p.a.tsend(pattern(size, 6), 0, size, p.addrBFromA, 9, 51));
            assertEquals(size, peek(p, 9, 60, Flags.PEEK).len());
            p.b.close();
            final CompletionErrorEntry refused = error(p.cqA);
            assertEquals(51, refused.context());
            assertEquals(Errno.ECONNREFUSED, refused.errno());
        }
    }

    /**
     * Peek for {@code tag} until the message is there (each miss is an ENOMSG error entry), within the deadline.
     */
    private static CompletionEntry peek(final Pair p, final long tag, final long context, final long flags)
    {
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        while (true)
        {
            assertEquals(0, p.b.trecvmsg(new Message().addr(AddressVector.ADDR_UNSPEC).tag(tag).context(context),
                flags));
            final CompletionEntry e = new CompletionEntry();
            int n;
            // Each peek is answered once: a completion when found, else an ENOMSG error entry.
            while (Errno.EAGAIN.negated() == (n = p.cqB.read(e)))
            {
                assertTrue(System.nanoTime() - deadline < 0, "no answer to the peek before the deadline");
                Thread.yield();
            }
            if (1 == n)
            {
                assertEquals(context, e.context());
                return e;
            }
            assertEquals(Errno.EAVAIL.negated(), n);
            final CompletionErrorEntry err = new CompletionErrorEntry();
            assertEquals(1, p.cqB.readErr(err));
            assertEquals(Errno.ENOMSG, err.errno());
            assertTrue(System.nanoTime() - deadline < 0, "not there before the deadline");
            Thread.yield();
        }
    }

    private static void connect(final Pair p)
    {
        final UnsafeBuffer rx = direct(8);
        assertEquals(0, p.b.recv(rx, 0, 8, AddressVector.ADDR_UNSPEC, 900));
        assertEquals(0, p.a.send(pattern(8, 90), 0, 8, p.addrBFromA, 901));
        assertEquals(900, Drive.one(p.cqB, p.domainA, p.domainB).context());
        assertEquals(901, Drive.one(p.cqA, p.domainA, p.domainB).context());
    }
}
