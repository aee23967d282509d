package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.Counter;
import io.jfabric.Endpoint;
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
 * Transfers above the transport's frame limit (512 KiB for inproc) and above the eager threshold with several
 * buffers: RMA streamed in chunks after the target checked every byte of the range, iov sends by rendezvous over the
 * gathered buffers; data verified byte for byte across segment and chunk boundaries.
 */
@Timeout(60)
public abstract class LargeTransferConformance extends Conformance
{
    /**
     * @param factory the provider under test.
     */
    protected LargeTransferConformance(final PairFactory factory)
    {
        super(factory);
    }

    private static final int MIB = 1024 * 1024;

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldWriteAndReadBackOneMebibytePlusThreeThroughChunkedFrames(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final int size = MIB + 3;
            final UnsafeBuffer target = direct(size + 200);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, size + 200,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 31))
            {
                assertEquals(0, p.a.write(pattern(size, 7), 0, size, p.addrBFromA, 100, mr.key(), 1));
                final CompletionEntry w = one(p.cqA);
                assertEquals(1, w.context());
                assertEquals(Flags.RMA | Flags.WRITE, w.flags());
                assertPattern(target, 100, size, 7);
                assertEquals(0, target.getByte(99));
                assertEquals(0, target.getByte(100 + size));

                final UnsafeBuffer local = direct(size + 2);
                assertEquals(0, p.a.read(local, 1, size, p.addrBFromA, 100, mr.key(), 2));
                final CompletionEntry r = one(p.cqA);
                assertEquals(2, r.context());
                assertEquals(Flags.RMA | Flags.READ, r.flags());
                assertPattern(local, 1, size, 7);
                assertEquals(0, local.getByte(0));
                assertEquals(0, local.getByte(size + 1));
                assertEmpty(p.cqA);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldWriteAndReadSixteenMebibytesWithDataVerified(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final int size = 16 * MIB;
            final UnsafeBuffer target = direct(size);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, size,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 32))
            {
                assertEquals(0, p.a.write(pattern(size, 3), 0, size, p.addrBFromA, 0, mr.key(), 1));
                assertEquals(1, one(p.cqA).context());
                assertPattern(target, 0, size, 3);

                final UnsafeBuffer local = direct(size);
                assertEquals(0, p.a.read(local, 0, size, p.addrBFromA, 0, mr.key(), 2));
                assertEquals(2, one(p.cqA).context());
                assertPattern(local, 0, size, 3);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldCompleteLargeWritedataOnceAtTheTargetWithItsDataAndCountBothSides(final Progress progress)
    {
        try (Pair p = pair(progress);
            Counter written = p.domainA.counter();
            Counter remoteWritten = p.domainB.counter())
        {
            final Info info = p.a.info();
            final AddressVector av = p.domainA.addressVector(AvType.TABLE, 1);
            final AddressVector avB = p.domainB.addressVector(AvType.TABLE, 1);
            final Endpoint a2 = p.domainA.endpoint(info).bind(av, 0).bind(p.cqA, Flags.TRANSMIT)
                .bind(written, Flags.WRITE).enable();
            final Endpoint b2 = p.domainB.endpoint(info).bind(avB, 0).bind(p.cqB, Flags.RECV)
                .bind(remoteWritten, Flags.REMOTE_WRITE).enable();
            final long dest = av.insert(b2.name());
            final int size = 2 * MIB + 3;
            final UnsafeBuffer target = direct(size);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, size, Flags.REMOTE_WRITE, 33))
            {
                assertEquals(0, a2.writedata(pattern(size, 11), 0, size, 0xD00DL, dest, 0, mr.key(), 9));
                final CompletionEntry atTarget = one(p.cqB);
                assertEquals(0xD00DL, atTarget.data());
                assertEquals(Flags.REMOTE_WRITE | Flags.RMA | Flags.REMOTE_CQ_DATA, atTarget.flags());
                assertEquals(size, atTarget.len());
                assertEquals(9, one(p.cqA).context());
                assertPattern(target, 0, size, 11);
                assertEquals(0, written.await(1, 20_000));
                assertEquals(0, remoteWritten.await(1, 20_000));
                assertEquals(1, written.read());
                assertEquals(1, remoteWritten.read());
                assertEmpty(p.cqB);
            }
            a2.close();
            b2.close();
            av.close();
            avB.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldFailALargeTransferWholeWhenAnyPartOfItsRangeIsBad(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final int size = MIB + 3;
            final UnsafeBuffer target = direct(2 * size);
            final MemoryRegion writable = p.domainB.registerMemory(target, 0, size, Flags.REMOTE_WRITE |
                Flags.REMOTE_READ, 40);
            final MemoryRegion readOnly = p.domainB.registerMemory(target, size, size, Flags.REMOTE_READ, 41);
            final UnsafeBuffer src = pattern(size, 5);

            // One byte past the end of the region: the whole write fails, nothing of it lands.
            assertEquals(0, p.a.write(src, 0, size, p.addrBFromA, 1, writable.key(), 1));
            CompletionErrorEntry err = error(p.cqA);
            assertEquals(Errno.EACCES, err.errno());
            assertEquals(1, err.context());
            assertEquals(Flags.RMA | Flags.WRITE, err.flags());

            assertEquals(0, p.a.write(src, 0, size, p.addrBFromA, 0, readOnly.key(), 2));
            assertEquals(Errno.EACCES, error(p.cqA).errno());
            assertEquals(0, p.a.write(src, 0, size, p.addrBFromA, 0, 999, 3));
            assertEquals(Errno.EINVAL, error(p.cqA).errno());
            assertEquals(0, p.a.writedata(src, 0, size, 5, p.addrBFromA, 2, writable.key(), 4));
            assertEquals(Errno.EACCES, error(p.cqA).errno());
            assertEmpty(p.cqB);
            for (int i = 0; i < 2 * size; i++)
            {
                if (0 != target.getByte(i))
                {
                    fail("target byte " + i + " was written");
                }
            }

            final UnsafeBuffer local = direct(size);
            assertEquals(0, p.a.read(local, 0, size, p.addrBFromA, 3, readOnly.key(), 5));
            assertEquals(Errno.EACCES, error(p.cqA).errno());
            assertEquals(0, p.a.read(local, 0, size, p.addrBFromA, 0, writable.key() + 100, 6));
            assertEquals(Errno.EINVAL, error(p.cqA).errno());
            for (int i = 0; i < size; i++)
            {
                if (0 != local.getByte(i))
                {
                    fail("local byte " + i + " was written by a failed read");
                }
            }

            // The endpoint keeps working after the failures.
            assertEquals(0, p.a.write(src, 0, size, p.addrBFromA, 0, writable.key(), 7));
            assertEquals(7, one(p.cqA).context());
            assertPattern(target, 0, size, 5);
            readOnly.close();
            writable.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldSendIovAboveTheEagerThresholdByRendezvousPostedOrUnexpected(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final int size = MIB + 3;
            final UnsafeBuffer whole = pattern(size, 13);
            // Odd segment boundaries: one byte, a chunk-and-a-bit, the rest.
            final DirectBuffer[] iov = {
                new UnsafeBuffer(whole, 0, 1),
                new UnsafeBuffer(whole, 1, 256 * 1024 + 5),
                new UnsafeBuffer(whole, 256 * 1024 + 6, size - (256 * 1024 + 6))};
            final UnsafeBuffer rx = direct(size);
            assertEquals(0, p.b.recv(rx, 0, size, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, p.a.sendv(iov, 3, p.addrBFromA, 2));
            CompletionEntry e = one(p.cqB);
            assertEquals(1, e.context());
            assertEquals(size, e.len());
            assertPattern(rx, 0, size, 13);
            assertEquals(2, one(p.cqA).context());

            // Unexpected: the request waits at the receiver, the buffers stay in place until the pull.
            final UnsafeBuffer rx2 = direct(size);
            assertEquals(0, p.a.tsendv(iov, 3, p.addrBFromA, 77, 3));
            assertEmpty(p.cqA);
            assertEquals(0, p.b.trecv(rx2, 0, size, AddressVector.ADDR_UNSPEC, 77, 0, 4));
            e = one(p.cqB);
            assertEquals(4, e.context());
            assertEquals(77, e.tag());
            assertEquals(size, e.len());
            assertPattern(rx2, 0, size, 13);
            assertEquals(3, one(p.cqA).context());

            // sendmsg with an iov and remote CQ data; truncated into a shorter buffer.
            final UnsafeBuffer rx3 = direct(20_000);
            assertEquals(0, p.b.recv(rx3, 0, 20_000, AddressVector.ADDR_UNSPEC, 5));
            assertEquals(0, p.a.sendmsg(new Message().iov(iov, 3).addr(p.addrBFromA).context(6).data(0xAB),
                Flags.COMPLETION | Flags.REMOTE_CQ_DATA));
            final CompletionErrorEntry trunc = error(p.cqB);
            assertEquals(Errno.ETRUNC, trunc.errno());
            assertEquals(20_000, trunc.len());
            assertEquals(size - 20_000, trunc.olen());
            assertEquals(0xAB, trunc.data());
            assertPattern(rx3, 0, 20_000, 13);
            assertEquals(6, one(p.cqA).context());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldScatterARendezvousIovIntoAReceiveIovWithOtherBoundaries(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            if (!receiveIovOf(p, 4))
            {
                return;
            }
            final int size = 300_001;
            final UnsafeBuffer whole = pattern(size, 21);
            final DirectBuffer[] send = {
                new UnsafeBuffer(whole, 0, 100_000), new UnsafeBuffer(whole, 100_000, 3),
                new UnsafeBuffer(whole, 100_003, size - 100_003)};
            final UnsafeBuffer rxWhole = direct(size + 10);
            final DirectBuffer[] recv = {
                new UnsafeBuffer(rxWhole, 0, 7), new UnsafeBuffer(rxWhole, 7, 150_000),
                new UnsafeBuffer(rxWhole, 150_007, 100_000), new UnsafeBuffer(rxWhole, 250_007, size - 250_007 + 10)};
            assertEquals(0, p.b.trecvv(recv, 4, AddressVector.ADDR_UNSPEC, 5, 0, 1));
            assertEquals(0, p.a.tsendv(send, 3, p.addrBFromA, 5, 2));
            final CompletionEntry e = one(p.cqB);
            assertEquals(1, e.context());
            assertEquals(size, e.len());
            assertEquals(rxWhole.addressOffset(), e.buf());
            assertPattern(rxWhole, 0, size, 21);
            for (int i = size; i < size + 10; i++)
            {
                assertEquals(0, rxWhole.getByte(i));
            }
            assertEquals(2, one(p.cqA).context());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldWritevAndReadvSeveralLocalBuffersAboveOneFrame(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final int size = MIB + 3;
            final UnsafeBuffer whole = pattern(size, 17);
            final DirectBuffer[] iov = {
                new UnsafeBuffer(whole, 0, 600_000), new UnsafeBuffer(whole, 600_000, 1),
                new UnsafeBuffer(whole, 600_001, size - 600_001)};
            final UnsafeBuffer target = direct(size);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, size,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 50))
            {
                assertEquals(0, p.a.writev(iov, 3, p.addrBFromA, 0, mr.key(), 1));
                assertEquals(1, one(p.cqA).context());
                assertPattern(target, 0, size, 17);

                final UnsafeBuffer back = direct(size);
                final DirectBuffer[] into = {
                    new UnsafeBuffer(back, 0, 3), new UnsafeBuffer(back, 3, 700_000),
                    new UnsafeBuffer(back, 700_003, size - 700_003)};
                assertEquals(0, p.a.readv(into, 3, p.addrBFromA, 0, mr.key(), 2));
                assertEquals(2, one(p.cqA).context());
                assertPattern(back, 0, size, 17);

                // A small readv with several buffers is streamed too (one chunk per segment).
                final UnsafeBuffer small = direct(40);
                assertEquals(0, p.a.readv(new DirectBuffer[]{new UnsafeBuffer(small, 0, 10),
                    new UnsafeBuffer(small, 10, 30)}, 2, p.addrBFromA, 5, mr.key(), 3));
                assertEquals(3, one(p.cqA).context());
                for (int i = 0; i < 40; i++)
                {
                    assertEquals(target.getByte(5 + i), small.getByte(i));
                }
            }
        }
    }

    @Test
    void shouldHoldFencedSendUntilStreamedWriteIsAcknowledged()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final int size = MIB + 3;
            final UnsafeBuffer target = direct(size);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, size, Flags.REMOTE_WRITE, 60))
            {
                final UnsafeBuffer rx = direct(64);
                assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 100));
                assertEquals(0, p.a.write(pattern(size, 2), 0, size, p.addrBFromA, 0, mr.key(), 1));
                assertEquals(0, p.a.sendmsg(new Message().buffer(pattern(8, 9), 0, 8).addr(p.addrBFromA).context(2),
                    Flags.COMPLETION | Flags.FENCE));
                final CompletionEntry e = new CompletionEntry();
                // A sends the write request; B answers; A streams; the fenced send waits for B's acknowledgement
                // (B answers in the duty cycle that read the request, so the write is done after A's fourth cycle).
                for (int i = 0; i < 3; i++)
                {
                    p.domainA.progress();
                    assertEquals(Errno.EAGAIN.negated(), p.cqB.read(e));
                }
                assertEquals(1, one(p.cqA).context());
                assertEquals(2, one(p.cqA).context());
                assertEquals(100, one(p.cqB).context());
                assertPattern(target, 0, size, 2);
                assertPattern(rx, 0, 8, 9);
            }
        }
    }

    /**
     * Issue 10 (d): closing the target's memory region while a streamed write into it is landing fails the rest of
     * that write (the initiator's completion is {@code EINVAL}, the key being no longer valid) and nothing is written
     * into the region's memory after {@code close} returns. Manual progress places the close after the first chunks.
     */
    @Test
    protected void shouldFailAStreamedWriteWhoseTargetRegionClosesMidStreamAndWriteNothingAfterTheClose()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final int size = 16 * MIB;
            final UnsafeBuffer target = direct(size);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, size, Flags.REMOTE_WRITE, 62))
            {
                assertEquals(0, p.a.write(pattern(size, 3), 0, size, p.addrBFromA, 0, mr.key(), 1));
                // Request, CTS, then chunks (at most 16 per duty cycle of a): stop once the first chunk landed.
                final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
                while (3 != target.getByte(0))
                {
                    assertTrue(System.nanoTime() - deadline < 0, "no chunk landed before the deadline");
                    p.domainA.progress();
                    p.domainB.progress();
                }
                assertEquals(0, target.getByte(size - 1), "the write is still streaming");
                mr.close();
                final byte[] atClose = new byte[size];
                target.getBytes(0, atClose);

                final CompletionErrorEntry err = error(p.cqA);
                assertEquals(1, err.context());
                assertEquals(Errno.EINVAL, err.errno());
                assertEquals(Flags.RMA | Flags.WRITE, err.flags());
                for (int i = 0; i < size; i++)
                {
                    if (atClose[i] != target.getByte(i))
                    {
                        fail("byte " + i + " was written after the region closed");
                    }
                }
                assertEquals(0, target.getByte(size - 1), "the rest of the write never landed");
                assertEmpty(p.cqB);

                // The key is gone for later writes too; the domain goes on with a new region.
                assertEquals(0, p.a.write(pattern(64, 4), 0, 64, p.addrBFromA, 0, 62, 2));
                assertEquals(Errno.EINVAL, error(p.cqA).errno());
                final UnsafeBuffer again = direct(size);
                try (MemoryRegion next = p.domainB.registerMemory(again, 0, size, Flags.REMOTE_WRITE, 62))
                {
                    assertEquals(0, p.a.write(pattern(size, 5), 0, size, p.addrBFromA, 0, next.key(), 3));
                    assertEquals(3, one(p.cqA).context());
                    assertPattern(again, 0, size, 5);
                }
            }
        }
    }

    /**
     * As above for a streamed read served from a region that closes mid-stream: the target reads the region no more,
     * the initiator's read completes with {@code EINVAL}, and no byte of the region reaches the initiator after the
     * close.
     */
    @Test
    protected void shouldFailAStreamedReadWhoseSourceRegionClosesMidStream()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final int size = 16 * MIB;
            final UnsafeBuffer source = pattern(size, 7);
            final UnsafeBuffer local = direct(size);
            try (MemoryRegion mr = p.domainB.registerMemory(source, 0, size, Flags.REMOTE_READ, 63))
            {
                assertEquals(0, p.a.read(local, 0, size, p.addrBFromA, 0, mr.key(), 1));
                final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
                while (7 != local.getByte(0))
                {
                    assertTrue(System.nanoTime() - deadline < 0, "no chunk arrived before the deadline");
                    p.domainA.progress();
                    p.domainB.progress();
                }
                mr.close();
                // What b had sent before the close may still be on its way (a ring, or a network): it precedes the
                // failed answer on the same lane, so once the error is in, everything b sent is in.
                final CompletionErrorEntry err = error(p.cqA);
                assertEquals(1, err.context());
                assertEquals(Errno.EINVAL, err.errno());
                assertEquals(Flags.RMA | Flags.READ, err.flags());
                final byte[] atClose = new byte[size];
                local.getBytes(0, atClose);
                assertEquals(0, local.getByte(size - 1), "the read was still streaming");
                for (int i = 0; i < 20; i++)
                {
                    p.domainA.progress();
                    p.domainB.progress();
                }
                for (int i = 0; i < size; i++)
                {
                    if (atClose[i] != local.getByte(i))
                    {
                        fail("byte " + i + " of the closed region arrived after the close");
                    }
                }
                assertEquals(0, local.getByte(size - 1));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldKeepManyLargeWritesAndReadsInFlightAndCompleteEachOnce(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final int size = 700_001;
            final int ops = 12;
            final UnsafeBuffer target = direct(size * ops);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, size * ops,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 70))
            {
                final UnsafeBuffer[] sources = new UnsafeBuffer[ops];
                for (int i = 0; i < ops; i++)
                {
                    sources[i] = pattern(size, 40 + i);
                    assertEquals(0, p.a.write(sources[i], 0, size, p.addrBFromA, (long) i * size, mr.key(), i));
                }
                final boolean[] seen = new boolean[ops];
                for (int i = 0; i < ops; i++)
                {
                    final int context = (int) one(p.cqA).context();
                    assertTrue(context >= 0 && context < ops && !seen[context], "completion " + context);
                    seen[context] = true;
                }
                for (int i = 0; i < ops; i++)
                {
                    assertPattern(target, i * size, size, 40 + i);
                }
                final UnsafeBuffer[] backs = new UnsafeBuffer[ops];
                for (int i = 0; i < ops; i++)
                {
                    backs[i] = direct(size);
                    assertEquals(0, p.a.read(backs[i], 0, size, p.addrBFromA, (long) i * size, mr.key(), 100 + i));
                }
                for (int i = 0; i < ops; i++)
                {
                    final int context = (int) one(p.cqA).context() - 100;
                    assertTrue(context >= 0 && context < ops && seen[context], "completion " + context);
                    seen[context] = false;
                }
                for (int i = 0; i < ops; i++)
                {
                    assertPattern(backs[i], 0, size, 40 + i);
                }
                assertEmpty(p.cqA);
            }
        }
    }
}
