package io.jfabric.conformance;

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
import io.jfabric.Message;
import io.jfabric.Progress;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;

import static io.jfabric.conformance.Pair.assertEmpty;
import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Untagged messages over a pair: ping-pong both ways, sendv/recvv, inject, senddata with remote CQ data, direct
 * byte buffers, bad arguments refused with a negative errno, rendezvous above the eager threshold, multi-recv, source
 * addresses with {@code FI_SOURCE}.
 * <p>
 * A suite class: a provider runs it by extending it with its {@link PairFactory} (see {@link Conformance}).
 */
@Timeout(30)
public abstract class MsgConformance extends Conformance
{
    /**
     * @param factory the provider under test.
     */
    protected MsgConformance(final PairFactory factory)
    {
        super(factory);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldPingPongUntaggedMessagesInBothDirections(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer rxA = direct(512);
            final UnsafeBuffer rxB = direct(512);
            for (int i = 0; i < 100; i++)
            {
                assertEquals(0, p.b.recv(rxB, 0, 512, AddressVector.ADDR_UNSPEC, 1000 + i));
                assertEquals(0, p.a.send(pattern(100 + i, i), 0, 100 + i, p.addrBFromA, i));
                final CompletionEntry atB = one(p.cqB);
                assertEquals(1000 + i, atB.context());
                assertEquals(Flags.RECV | Flags.MSG, atB.flags());
                assertEquals(100 + i, atB.len());
                assertPattern(rxB, 0, 100 + i, i);
                assertEquals(i, one(p.cqA).context());

                assertEquals(0, p.a.recv(rxA, 0, 512, p.addrBFromA, 2000 + i));
                assertEquals(0, p.b.send(rxB, 0, 100 + i, p.addrAFromB, 3000 + i));
                assertEquals(3000 + i, one(p.cqB).context());
                final CompletionEntry atA = one(p.cqA);
                assertEquals(2000 + i, atA.context());
                assertPattern(rxA, 0, 100 + i, i);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldGatherSendvAndDeliverIntoRecvv(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer whole = pattern(300, 5);
            final DirectBuffer[] iov = {
                new UnsafeBuffer(whole, 0, 100), new UnsafeBuffer(whole, 100, 150), new UnsafeBuffer(whole, 250, 50)};
            final UnsafeBuffer rx = direct(300);
            assertEquals(0, p.b.recvv(new DirectBuffer[]{rx}, 1, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, p.a.sendv(iov, 3, p.addrBFromA, 2));
            assertEquals(300, one(p.cqB).len());
            assertPattern(rx, 0, 300, 5);
            assertEquals(2, one(p.cqA).context());
            // The rx iov limit is 8: nine buffers are refused.
            assertEquals(Errno.EINVAL.negated(),
                p.b.recvv(new DirectBuffer[]{rx, rx, rx, rx, rx, rx, rx, rx, rx}, 9, AddressVector.ADDR_UNSPEC, 3));
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldInjectFromReusableBufferWithoutCompletionButCountIt(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer heap = new UnsafeBuffer(new byte[64]);
            final UnsafeBuffer rx1 = direct(64);
            final UnsafeBuffer rx2 = direct(64);
            assertEquals(0, p.b.recv(rx1, 0, 64, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, p.b.recv(rx2, 0, 64, AddressVector.ADDR_UNSPEC, 2));
            heap.setMemory(0, 64, (byte) 0x11);
            assertEquals(0, p.a.inject(heap, 0, 64, p.addrBFromA));
            heap.setMemory(0, 64, (byte) 0x22);
            assertEquals(0, p.a.injectdata(heap, 0, 64, 0xBEEF, p.addrBFromA));
            heap.setMemory(0, 64, (byte) 0x33);
            assertEquals(1, one(p.cqB).context());
            final CompletionEntry second = one(p.cqB);
            assertEquals(2, second.context());
            assertEquals(0xBEEF, second.data());
            assertTrue((second.flags() & Flags.REMOTE_CQ_DATA) != 0);
            assertEquals(0x11, rx1.getByte(63));
            assertEquals(0x22, rx2.getByte(0));
            assertEmpty(p.cqA);
            assertEquals(0, p.sendCntrA.await(2, 20_000));
            final int above = (int) p.infoA.txAttr().injectSize() + 1;
            assertEquals(Errno.EMSGSIZE.negated(), p.a.inject(direct(above), 0, above, p.addrBFromA));
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldDeliverSenddataAndSendmsgWithRemoteCqData(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, p.b.recvmsg(new Message().buffer(rx, 0, 64).addr(AddressVector.ADDR_UNSPEC).context(4),
                Flags.COMPLETION));
            assertEquals(0, p.a.senddata(pattern(10, 1), 0, 10, 77, p.addrBFromA, 5));
            final CompletionEntry e = one(p.cqB);
            assertEquals(4, e.context());
            assertEquals(77, e.data());
            assertEquals(rx.addressOffset(), e.buf());

            // Remote CQ data of value 0 is still flagged; a plain send is not.
            assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 20));
            assertEquals(0, p.a.senddata(pattern(4, 1), 0, 4, 0, p.addrBFromA, 21));
            assertEquals(Flags.REMOTE_CQ_DATA, one(p.cqB).flags() & Flags.REMOTE_CQ_DATA);
            assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 22));
            assertEquals(0, p.a.send(pattern(4, 1), 0, 4, p.addrBFromA, 23));
            assertEquals(0, one(p.cqB).flags() & Flags.REMOTE_CQ_DATA);
            assertEquals(5, one(p.cqA).context());
            assertEquals(21, one(p.cqA).context());
            assertEquals(23, one(p.cqA).context());
            assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 6));
            assertEquals(0, p.a.sendmsg(new Message().buffer(pattern(20, 2), 0, 20).addr(p.addrBFromA).context(7)
                .data(99), Flags.COMPLETION | Flags.REMOTE_CQ_DATA));
            final CompletionEntry m = one(p.cqB);
            assertEquals(6, m.context());
            assertEquals(99, m.data());
            assertEquals(20, m.len());
            assertPattern(rx, 0, 20, 2);
            assertEquals(7, one(p.cqA).context());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldSendAndReceiveDirectByteBuffers(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final ByteBuffer tx = ByteBuffer.allocateDirect(32);
            for (int i = 0; i < 32; i++)
            {
                tx.put(i, (byte) i);
            }
            final ByteBuffer rx = ByteBuffer.allocateDirect(32);
            assertEquals(0, p.b.recv(rx, 0, 32, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, p.a.send(tx, 0, 32, p.addrBFromA, 2));
            assertEquals(32, one(p.cqB).len());
            for (int i = 0; i < 32; i++)
            {
                assertEquals((byte) i, rx.get(i));
            }
            assertEquals(Errno.EINVAL.negated(), p.a.send(ByteBuffer.allocate(8), 0, 8, p.addrBFromA, 3));
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldRefuseBadArgumentsWithNegativeErrnoAndKeepWorking(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            assertEquals(Errno.EINVAL.negated(), p.a.send(new UnsafeBuffer(new byte[8]), 0, 8, p.addrBFromA, 1));
            assertEquals(Errno.EINVAL.negated(), p.a.send(direct(8), 4, 8, p.addrBFromA, 1));
            assertEquals(Errno.EINVAL.negated(), p.a.send(direct(8), 0, 8, 99, 1));
            // More buffers than the tx iov limit (8), or a heap buffer among them, are refused.
            final DirectBuffer[] nine = new DirectBuffer[9];
            for (int i = 0; i < 9; i++)
            {
                nine[i] = direct(8);
            }
            assertEquals(Errno.EINVAL.negated(), p.a.sendv(nine, 9, p.addrBFromA, 1));
            assertEquals(Errno.EINVAL.negated(),
                p.a.sendv(new DirectBuffer[]{direct(8), new UnsafeBuffer(new byte[8])}, 2, p.addrBFromA, 1));
            final UnsafeBuffer rx = direct(8);
            assertEquals(0, p.b.recv(rx, 0, 8, AddressVector.ADDR_UNSPEC, 2));
            assertEquals(0, p.a.send(pattern(8, 8), 0, 8, p.addrBFromA, 3));
            assertEquals(2, one(p.cqB).context());
            assertPattern(rx, 0, 8, 8);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldMoveLargeMessagesByRendezvousPostedOrUnexpected(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final int size = 3 * 1024 * 1024 + 17;
            final UnsafeBuffer tx = pattern(size, 9);
            final UnsafeBuffer rx = direct(size);
            assertEquals(0, p.b.trecv(rx, 0, size, AddressVector.ADDR_UNSPEC, 5, 0, 1));
            assertEquals(0, p.a.tsend(tx, 0, size, p.addrBFromA, 5, 2));
            final CompletionEntry e = one(p.cqB);
            assertEquals(1, e.context());
            assertEquals(size, e.len());
            assertPattern(rx, 0, size, 9);
            assertEquals(2, one(p.cqA).context());

            // Unexpected: the request waits at the receiver, the sender's buffer stays in place until the pull.
            final UnsafeBuffer tx2 = pattern(100_000, 4);
            assertEquals(0, p.a.send(tx2, 0, 100_000, p.addrBFromA, 3));
            Pair.assertEmpty(p.cqA);
            final UnsafeBuffer rx2 = direct(100_000);
            assertEquals(0, p.b.recv(rx2, 0, 100_000, AddressVector.ADDR_UNSPEC, 4));
            assertEquals(4, one(p.cqB).context());
            assertPattern(rx2, 0, 100_000, 4);
            assertEquals(3, one(p.cqA).context());

            // Truncated rendezvous: only what fits is pulled.
            final UnsafeBuffer small = direct(50_000);
            assertEquals(0, p.b.recv(small, 0, 20_000, AddressVector.ADDR_UNSPEC, 6));
            assertEquals(0, p.a.send(tx2, 0, 100_000, p.addrBFromA, 7));
            final CompletionErrorEntry err = Pair.error(p.cqB);
            assertEquals(Errno.ETRUNC, err.errno());
            assertEquals(20_000, err.len());
            assertEquals(80_000, err.olen());
            assertPattern(small, 0, 20_000, 4);
            assertEquals(0, small.getByte(20_000));
            assertEquals(7, one(p.cqA).context());
            assertEquals(3, p.sendCntrA.read());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldFillMultiRecvBufferAtIncreasingOffsetsAndReleaseIt(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            p.b.setOption(Endpoint.OPT_MIN_MULTI_RECV, 100);
            assertEquals(100, p.b.option(Endpoint.OPT_MIN_MULTI_RECV));
            final UnsafeBuffer big = direct(1000);
            assertEquals(0, p.b.recvmsg(new Message().buffer(big, 0, 1000).addr(AddressVector.ADDR_UNSPEC)
                .context(50), Flags.MULTI_RECV | Flags.COMPLETION));
            long expectedOffset = 0;
            for (int i = 0; i < 5; i++)
            {
                assertEquals(0, p.a.send(pattern(200, i), 0, 200, p.addrBFromA, i));
                final CompletionEntry e = one(p.cqB);
                assertEquals(50, e.context());
                assertEquals(200, e.len());
                assertEquals(big.addressOffset() + expectedOffset, e.buf());
                assertPattern(big, (int) expectedOffset, 200, i);
                // Released once the free space (1000 - consumed) is under the 100-byte minimum.
                assertEquals(i == 4 ? Flags.MULTI_RECV : 0, e.flags() & Flags.MULTI_RECV);
                expectedOffset += 200;
            }
            final UnsafeBuffer next = direct(64);
            assertEquals(0, p.b.recv(next, 0, 64, AddressVector.ADDR_UNSPEC, 51));
            assertEquals(0, p.a.send(pattern(10, 9), 0, 10, p.addrBFromA, 9));
            assertEquals(51, one(p.cqB).context());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldReportSourceAddressWithReadFromAndRehomeUnknownSources(final Progress progress)
    {
        final Info info = info(progress, 0, 0);
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain d1 = fabric.domain(info, "yield");
            final Domain d2 = fabric.domain(info, "yield");
            final AddressVector av1 = d1.addressVector(AvType.MAP, 4);
            final AddressVector av2 = d2.addressVector(AvType.MAP, 4);
            final CompletionQueue cq1 = d1.completionQueue(64, CqFormat.TAGGED);
            final CompletionQueue cq2 = d2.completionQueue(64, CqFormat.TAGGED);
            final Endpoint e1 = d1.endpoint(info).bind(av1, 0).bind(cq1, Flags.TRANSMIT | Flags.RECV).enable();
            final Endpoint e2 = d2.endpoint(info).bind(av2, 0).bind(cq2, Flags.TRANSMIT | Flags.RECV).enable();
            final long to2 = av1.insert(e2.name());
            assertTrue(to2 >= 0);
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, e1.tsend(pattern(16, 3), 0, 16, to2, 1, 1));
            final CompletionEntry[] entries = {new CompletionEntry()};
            final long[] sources = new long[1];
            final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            while (1 != cq1.read(entries, 1))
            {
                assertTrue(System.nanoTime() < deadline);
                d2.progress();
            }
            // e1 is not yet in e2's AV: a directed receive for it must wait until it is inserted.
            final long from1 = av2.insert(e1.name());
            assertEquals(0, e2.trecv(rx, 0, 64, from1, 1, 0, 9));
            while (1 != cq2.readFrom(entries, sources, 1))
            {
                assertTrue(System.nanoTime() < deadline);
                d1.progress();
            }
            assertEquals(9, entries[0].context());
            assertEquals(from1, sources[0]);
            assertPattern(rx, 0, 16, 3);
            e1.close();
            e2.close();
            cq1.close();
            cq2.close();
            av1.close();
            av2.close();
            d1.close();
            d2.close();
        }
    }
}
