package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.Errno;
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

import java.lang.management.ManagementFactory;

import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Rendezvous through the emulated NIC with iovs on both sides and truncating receives, no staging buffer
 * ({@link GniPullPlan}): an iov send registers each of its buffers (no gather), the receiver GETs every aligned
 * middle straight into its buffers and bounces the words that straddle two buffers or hold the truncation point.
 * Every byte is checked, and the guard bytes around each receive buffer; sizes at the eager limit (16 344 B) and
 * the rendezvous threshold (16 384 B) -1/exact/+1, 20 003 B and 1 MiB + 3, every alignment 0..7 of each piece. An
 * endpoint closed while a GET into its receive is in flight: nothing lands after the close returns.
 */
@Timeout(300)
class GniRendezvousPiecesTest extends Conformance
{
    private static final byte GUARD = (byte) 0x5A;
    private static final int GAP = 16;

    GniRendezvousPiecesTest()
    {
        super(GniConformance.FACTORY);
    }

    @AfterEach
    void clear()
    {
        GniFaults.clear();
    }

    @Test
    void shouldMoveIovSendsIntoIovReceivesAtEveryAlignmentOfEachPiece()
    {
        try (Pair p = pair(Progress.AUTO))
        {
            final int[] sizes = {16_343, 16_344, 16_345, 16_383, 16_384, 16_385, 20_003};
            long tag = 1;
            for (final int size : sizes)
            {
                for (int s = 0; s < 8; s++)
                {
                    for (int r = 0; r < 8; r++)
                    {
                        final int[] pieces = {size / 3 + 1, size / 5, size - size / 3 - 1 - size / 5};
                        final int[] segments = {size / 4, size / 2 + 3, size - size / 4 - size / 2 - 3};
                        exchange(p, tag++, size, pieces, new int[] {s, (s + 1) % 8, (s + 2) % 8}, segments,
                            new int[] {r, (r + 3) % 8, (r + 6) % 8});
                    }
                }
            }
            // Eight pieces into eight buffers (fi_gni's iov limit), tiny ones among them: the longest START.
            for (int s = 0; s < 8; s++)
            {
                final int[] align = new int[8];
                final int[] shifted = new int[8];
                for (int i = 0; i < 8; i++)
                {
                    align[i] = (s + i) % 8;
                    shifted[i] = (s + 3 * i) % 8;
                }
                exchange(p, tag++, 20_003, new int[] {1, 2, 3, 5, 7, 9_000, 3, 10_982}, align,
                    new int[] {10_000, 1, 4, 6, 2, 8, 3, 9_982}, shifted);
            }
            final int big = (1 << 20) + 3;
            for (int s = 0; s < 8; s++)
            {
                exchange(p, tag++, big, new int[] {big - 5, 5}, new int[] {s, 7 - s}, new int[] {3, big - 3},
                    new int[] {(s + 5) % 8, s});
                exchange(p, tag++, big, new int[] {big}, new int[] {s}, new int[] {big}, new int[] {(s + 3) % 8});
            }
        }
    }

    @Test
    void shouldTruncateIntoABufferAndAnIovAtEveryAlignment()
    {
        try (Pair p = pair(Progress.AUTO))
        {
            long tag = 1000;
            for (final int size : new int[] {20_003, (1 << 20) + 3})
            {
                for (int s = 0; s < 8; s++)
                {
                    for (final int room : new int[] {1, 3, 5, size / 2 + 1, size - 4, size - 3, size - 1})
                    {
                        final int r = (s + room) % 8;
                        truncate(p, tag++, size, new int[] {size}, new int[] {s}, new int[] {room}, new int[] {r});
                        final int first = room / 3;
                        truncate(p, tag++, size, new int[] {7, size - 7}, new int[] {r, s},
                            new int[] {first, room - first}, new int[] {s, r});
                    }
                }
            }
        }
    }

    @Test
    void shouldPostOneGetPerPieceAndOneFmaGetPerStraddlingWord()
    {
        GniFaults.install(FaultPlan.seeded(21));
        try (Pair p = pair(Progress.AUTO))
        {
            final AriesNode receiver = GniFaults.node(GniName.device(GniName.parse(p.b.name())));
            assertNotNull(receiver);
            long rdma = receiver.stats().posts(TransactionKind.RDMA_GET);
            long fma = receiver.stats().posts(TransactionKind.FMA_GET);
            // Three aligned pieces of 8 KiB (page-aligned buffers) into one buffer: three BTE GETs, nothing bounced.
            exchange(p, 1, 3 * 8192, new int[] {8192, 8192, 8192}, new int[] {0, 0, 0}, new int[] {3 * 8192},
                new int[] {0});
            assertEquals(rdma + 3, receiver.stats().posts(TransactionKind.RDMA_GET));
            assertEquals(fma, receiver.stats().posts(TransactionKind.FMA_GET));
            rdma += 3;
            // One aligned piece truncated at 30 001: one BTE GET, and the word holding the cut by FMA (GET_TAIL).
            truncate(p, 2, 40_003, new int[] {40_003}, new int[] {0}, new int[] {30_001}, new int[] {0});
            assertEquals(rdma + 1, receiver.stats().posts(TransactionKind.RDMA_GET));
            assertEquals(fma + 1, receiver.stats().posts(TransactionKind.FMA_GET));
            rdma++;
            fma++;
            // Into 10 000 + 7 001 + the rest: three BTE GETs and the word straddling the 2nd and 3rd buffers once.
            exchange(p, 3, 40_003, new int[] {40_003}, new int[] {0}, new int[] {10_000, 7_001, 23_002},
                new int[] {0, 0, 0});
            assertEquals(rdma + 3, receiver.stats().posts(TransactionKind.RDMA_GET));
            assertEquals(fma + 1, receiver.stats().posts(TransactionKind.FMA_GET));
        }
    }

    @Test
    void shouldLandNothingInTheReceiveOfAnEndpointClosedWithItsGetInFlight()
    {
        GniFaults.install(FaultPlan.seeded(22));
        try (Pair p = pair(Progress.MANUAL))
        {
            connect(p);
            final AriesNode sender = GniFaults.node(GniName.device(GniName.parse(p.a.name())));
            final AriesNode receiver = GniFaults.node(GniName.device(GniName.parse(p.b.name())));
            assertNotNull(sender);
            assertNotNull(receiver);
            final int size = (1 << 20) + 3;
            final UnsafeBuffer in = direct(size + 2 * GAP);
            in.setMemory(0, in.capacity(), GUARD);
            assertEquals(0, p.b.trecv(in, GAP, size, AddressVector.ADDR_UNSPEC, 5, 0, 50));
            p.domainB.progress();
            final long starts = sender.stats().posts(TransactionKind.SMSG);
            assertEquals(0, p.a.tsend(pattern(size, 9), 0, size, p.addrBFromA, 5, 51));
            final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            while (sender.stats().posts(TransactionKind.SMSG) == starts)
            {
                assertTrue(System.nanoTime() - deadline < 0, "no START before the deadline");
                p.domainA.progress();
            }
            final long gets = receiver.stats().posts(TransactionKind.RDMA_GET);
            final long faults = receiver.stats().localProtectionFaults();
            // The sender's NIC serves no GET while this thread holds its node: the GET stays in flight.
            sender.enterBatch();
            try
            {
                while (receiver.stats().posts(TransactionKind.RDMA_GET) == gets)
                {
                    assertTrue(System.nanoTime() - deadline < 0, "no GET posted before the deadline");
                    p.domainB.progress();
                }
                p.b.close();
                assertUntouched(in, "when the close returns");
            }
            finally
            {
                sender.exitBatch();
            }
            // The sender's NIC now answers the GET: its data reaches the receiver's NIC, which drops it (the
            // receive's memory was deregistered at the close); the sender learns the endpoint closed.
            final CompletionErrorEntry refused = Drive.error(p.cqA, p.domainA, p.domainB);
            assertEquals(51, refused.context());
            assertEquals(Errno.ECONNREFUSED, refused.errno());
            while (receiver.stats().localProtectionFaults() == faults && GUARD == in.getByte(GAP) &&
                GUARD == in.getByte(GAP + size - 1))
            {
                assertTrue(System.nanoTime() - deadline < 0, "the GET's data never came back before the deadline");
                p.domainA.progress();
                p.domainB.progress();
            }
            assertUntouched(in, "after the GET's data came back");
            assertTrue(receiver.stats().localProtectionFaults() > faults, "the GET's data dropped by the NIC");
        }
    }

    @Test
    void shouldSendIovRendezvousMessagesWithoutAllocating()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            connect(p);
            final int size = 20_003;
            final UnsafeBuffer out = pattern(size + 64, 3);
            final DirectBuffer[] send = {new UnsafeBuffer(out, 1, 5_000), new UnsafeBuffer(out, 5_010, 7_001),
                new UnsafeBuffer(out, 12_020, size - 12_001)};
            final UnsafeBuffer in = direct(size + 64);
            final DirectBuffer[] receive = {new UnsafeBuffer(in, 3, 9_999), new UnsafeBuffer(in, 10_010,
                size - 9_999)};
            final CompletionEntry entry = new CompletionEntry();
            final com.sun.management.ThreadMXBean bean =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            final long thread = Thread.currentThread().getId();
            long allocated = 0;
            final int warm = 300;
            final int rounds = 2_000;
            for (int i = 0; i < warm + rounds; i++)
            {
                if (warm == i)
                {
                    allocated = bean.getThreadAllocatedBytes(thread);
                }
                assertEquals(0, p.b.trecvv(receive, 2, AddressVector.ADDR_UNSPEC, 7, 0, 70));
                assertEquals(0, p.a.tsendv(send, 3, p.addrBFromA, 7, 71));
                int got = 0;
                while (got < 2)
                {
                    p.domainA.progress();
                    p.domainB.progress();
                    if (1 == p.cqB.read(entry))
                    {
                        got++;
                    }
                    if (1 == p.cqA.read(entry))
                    {
                        got++;
                    }
                }
            }
            allocated = bean.getThreadAllocatedBytes(thread) - allocated;
            assertTrue(allocated < 64 * 1024, "allocated " + allocated + " B in " + rounds + " iov rendezvous rounds");
            final UnsafeBuffer whole = direct(size);
            whole.putBytes(0, receive[0], 0, 9_999);
            whole.putBytes(9_999, receive[1], 0, size - 9_999);
            final UnsafeBuffer expected = direct(size);
            expected.putBytes(0, out, 1, 5_000);
            expected.putBytes(5_000, out, 5_010, 7_001);
            expected.putBytes(12_001, out, 12_020, size - 12_001);
            for (int i = 0; i < size; i++)
            {
                assertEquals(expected.getByte(i), whole.getByte(i), "byte " + i);
            }
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

    private static void assertUntouched(final UnsafeBuffer in, final String when)
    {
        for (int i = 0; i < in.capacity(); i++)
        {
            if (GUARD != in.getByte(i))
            {
                fail("byte " + i + " of the closed endpoint's receive written " + when);
            }
        }
    }

    /**
     * A message of {@code size} bytes sent as {@code pieces} (at the given alignments) into a receive of
     * {@code segments} that holds it all; every byte and every guard byte checked.
     */
    private static void exchange(
        final Pair p, final long tag, final int size, final int[] pieces, final int[] pieceAlign, final int[] segments,
        final int[] segmentAlign)
    {
        final Layout send = new Layout(pieces, pieceAlign);
        final Layout receive = new Layout(segments, segmentAlign);
        send.fill(tag);
        assertEquals(0, p.b.trecvv(receive.views, receive.views.length, AddressVector.ADDR_UNSPEC, tag, 0, tag));
        assertEquals(0, p.a.tsendv(send.views, send.views.length, p.addrBFromA, tag, tag + 1));
        final CompletionEntry e = one(p.cqB);
        assertEquals(tag, e.context());
        assertEquals(size, e.len());
        assertEquals(tag, e.tag());
        assertEquals(tag + 1, one(p.cqA).context());
        receive.check(tag, size, "size " + size);
    }

    /**
     * As {@link #exchange} into a receive smaller than the message: {@code FI_ETRUNC} with the overflow.
     */
    private static void truncate(
        final Pair p, final long tag, final int size, final int[] pieces, final int[] pieceAlign, final int[] segments,
        final int[] segmentAlign)
    {
        final Layout send = new Layout(pieces, pieceAlign);
        final Layout receive = new Layout(segments, segmentAlign);
        send.fill(tag);
        assertEquals(0, p.b.trecvv(receive.views, receive.views.length, AddressVector.ADDR_UNSPEC, tag, 0, tag));
        assertEquals(0, p.a.tsendv(send.views, send.views.length, p.addrBFromA, tag, tag + 1));
        final CompletionErrorEntry e = error(p.cqB);
        assertEquals(tag, e.context());
        assertEquals(Errno.ETRUNC, e.errno());
        assertEquals(receive.total, e.len());
        assertEquals(size - receive.total, e.olen());
        assertEquals(tag + 1, one(p.cqA).context());
        receive.check(tag, receive.total, "size " + size + " into " + receive.total);
    }

    /**
     * Buffers cut from one region at given alignments, {@value #GAP}-byte guards between them.
     */
    private static final class Layout
    {
        final UnsafeBuffer region;
        final UnsafeBuffer[] views;
        final int[] at;
        final int total;

        Layout(final int[] lengths, final int[] align)
        {
            int capacity = GAP;
            int sum = 0;
            for (final int n : lengths)
            {
                capacity += n + 8 + GAP;
                sum += n;
            }
            total = sum;
            region = direct(capacity);
            region.setMemory(0, capacity, GUARD);
            views = new UnsafeBuffer[lengths.length];
            at = new int[lengths.length];
            int offset = GAP;
            for (int i = 0; i < lengths.length; i++)
            {
                at[i] = ((offset + 7) & ~7) + align[i];
                views[i] = new UnsafeBuffer(region, at[i], lengths[i]);
                offset = at[i] + lengths[i] + GAP;
            }
        }

        static byte expected(final long seed, final long i)
        {
            return (byte) (((i + 1) * 0x9E3779B97F4A7C15L + seed * 0xBF58476D1CE4E5B9L) >>> 41);
        }

        void fill(final long seed)
        {
            long m = 0;
            for (final UnsafeBuffer view : views)
            {
                for (int i = 0; i < view.capacity(); i++)
                {
                    view.putByte(i, expected(seed, m++));
                }
            }
        }

        void check(final long seed, final int length, final String what)
        {
            final boolean[] inside = new boolean[region.capacity()];
            long m = 0;
            for (int k = 0; k < views.length; k++)
            {
                for (int i = 0; i < views[k].capacity() && m < length; i++)
                {
                    inside[at[k] + i] = true;
                    if (expected(seed, m) != views[k].getByte(i))
                    {
                        fail(what + ": message byte " + m + " (buffer " + k + " byte " + i + ") differs");
                    }
                    m++;
                }
            }
            for (int i = 0; i < region.capacity(); i++)
            {
                if (!inside[i] && GUARD != region.getByte(i))
                {
                    fail(what + ": guard byte " + i + " written");
                }
            }
        }
    }
}
