package io.jfabric.aries;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.jfabric.aries.AriesFixture.put;
import static io.jfabric.aries.AriesFixture.register;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FmaBteTest
{
    @Test
    void shouldPutAtAnyAlignmentAndCompleteWithPostEvent()
    {
        try (AriesPair p = new AriesPair())
        {
            final UnsafeBuffer local = AriesFixture.memory(4096);
            final UnsafeBuffer remote = AriesFixture.memory(4096);
            final MemHandle lh = register(p.nicA, local, 0);
            final MemHandle rh = register(p.nicB, remote, 0);
            for (int i = 0; i < 64; i++)
            {
                local.putByte(i, (byte) (i + 1));
            }
            p.epA.setEventData(0x123, 0x456);
            final PostDescriptor d = put(TransactionKind.FMA_PUT, local, lh, 3, remote, rh, 5, 13);
            d.postId = 77;
            assertEquals(GniRc.SUCCESS, p.epA.postFma(d));
            assertEquals(1, p.epA.outstanding());
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
            final long event = p.cqA.event();
            assertEquals(GniCqEntry.TYPE_POST, GniCqEntry.type(event));
            assertEquals(0x123, GniCqEntry.instId(event));
            assertEquals(77, GniCqEntry.msgId(event));
            assertFalse(GniCqEntry.remote(event));
            assertSame(d, p.cqA.getCompleted(event));
            assertEquals(GniRc.SUCCESS, d.status);
            for (int i = 0; i < 32; i++)
            {
                final byte expected = i >= 5 && i < 18 ? (byte) (i - 5 + 4) : 0;
                assertEquals(expected, remote.getByte(i), "byte " + i);
            }
            assertEquals(0, p.epA.outstanding());
            assertEquals(1, p.nodeA.stats().posts(TransactionKind.FMA_PUT));
        }
    }

    @Test
    void shouldRequireFourByteAlignedRemoteAddressAndLengthForGet()
    {
        try (AriesPair p = new AriesPair())
        {
            final UnsafeBuffer local = AriesFixture.memory(4096);
            final UnsafeBuffer remote = AriesFixture.memory(4096);
            final MemHandle lh = register(p.nicA, local, 0);
            final MemHandle rh = register(p.nicB, remote, 0);
            assertEquals(GniRc.ALIGNMENT_ERROR,
                p.epA.postFma(put(TransactionKind.FMA_GET, local, lh, 0, remote, rh, 2, 8)));
            assertEquals(GniRc.ALIGNMENT_ERROR,
                p.epA.postFma(put(TransactionKind.FMA_GET, local, lh, 0, remote, rh, 4, 6)));
            assertEquals(GniRc.ALIGNMENT_ERROR,
                p.epA.postRdma(put(TransactionKind.RDMA_GET, local, lh, 0, remote, rh, 1, 8)));
            assertEquals(GniRc.INVALID_PARAM,
                p.epA.postFma(put(TransactionKind.FMA_GET, local, lh, 0, remote, rh, 0, 0)));
            assertEquals(GniRc.INVALID_PARAM,
                p.epA.postFma(put(TransactionKind.RDMA_GET, local, lh, 0, remote, rh, 0, 8)));
            assertEquals(GniRc.INVALID_PARAM,
                p.epA.postFma(put(TransactionKind.FMA_GET, local, lh, 4090, remote, rh, 0, 8)));
            assertEquals(0, p.epA.outstanding());
            // Local alignment does not matter.
            remote.putLong(8, 0x1122_3344_5566_7788L);
            assertEquals(GniRc.SUCCESS,
                p.epA.postFma(put(TransactionKind.FMA_GET, local, lh, 1, remote, rh, 8, 8)));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
            assertEquals(0x1122_3344_5566_7788L, local.getLong(1));
        }
    }

    @Test
    void shouldAllowZeroLengthPutAndRefuseUnboundEndpoint()
    {
        try (AriesPair p = new AriesPair())
        {
            final UnsafeBuffer local = AriesFixture.memory(4096);
            final UnsafeBuffer remote = AriesFixture.memory(4096);
            final MemHandle lh = register(p.nicA, local, 0);
            final MemHandle rh = register(p.nicB, remote, 0);
            assertEquals(GniRc.SUCCESS, p.epA.postFma(put(TransactionKind.FMA_PUT, local, lh, 0, remote, rh, 0, 0)));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
            final GniEp unbound = p.nicA.epCreate(p.cqA);
            assertEquals(GniRc.INVALID_STATE,
                unbound.postFma(put(TransactionKind.FMA_PUT, local, lh, 0, remote, rh, 0, 8)));
        }
    }

    @Test
    void shouldMoveOneMebibyteByBteInFramesAndCompleteOnce()
    {
        try (AriesPair p = new AriesPair())
        {
            final int length = 1 << 20;
            final UnsafeBuffer local = AriesFixture.memory(length);
            final UnsafeBuffer remote = AriesFixture.memory(length);
            final UnsafeBuffer back = AriesFixture.memory(length);
            final MemHandle lh = register(p.nicA, local, 0);
            final MemHandle rh = register(p.nicB, remote, 0);
            final MemHandle bh = register(p.nicA, back, 0);
            for (int i = 0; i < length; i += 4)
            {
                local.putInt(i, i * 31 + 7);
            }
            final long framesBefore = p.nodeA.stats().framesSent();
            assertEquals(GniRc.SUCCESS,
                p.epA.postRdma(put(TransactionKind.RDMA_PUT, local, lh, 0, remote, rh, 0, length)));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
            p.fixture.quiesce();
            assertEquals(GniRc.NOT_DONE, p.cqA.getEvent());
            assertEquals(256, p.nodeA.stats().framesSent() - framesBefore);
            assertEquals(GniRc.SUCCESS,
                p.epA.postRdma(put(TransactionKind.RDMA_GET, back, bh, 0, remote, rh, 0, length)));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
            p.fixture.quiesce();
            assertEquals(GniRc.NOT_DONE, p.cqA.getEvent());
            for (int i = 0; i < length; i += 4)
            {
                assertEquals(i * 31 + 7, remote.getInt(i));
                assertEquals(i * 31 + 7, back.getInt(i));
            }
        }
    }

    @Test
    void shouldKeepOrderAndCompleteUnderWireBackPressure()
    {
        // 64 KiB rings: a 1 MiB PUT cannot be in flight at once; the engine streams it over many steps.
        try (AriesPair p = new AriesPair(new AriesFixture(64 * 1024), null, null, 64))
        {
            final GniCq[] rx = CqAndSmsgTest.smsgInit(p, 8, 64, 64);
            final int length = 1 << 20;
            final UnsafeBuffer local = AriesFixture.memory(length);
            final UnsafeBuffer remote = AriesFixture.memory(length);
            final MemHandle lh = register(p.nicA, local, 0);
            final MemHandle rh = register(p.nicB, remote, 0);
            for (int i = 0; i < length; i += 8)
            {
                local.putLong(i, ~i);
            }
            assertEquals(GniRc.SUCCESS,
                p.epA.postRdma(put(TransactionKind.RDMA_PUT, local, lh, 0, remote, rh, 0, length)));
            // Posted behind the PUT's frames: must arrive after all of them.
            assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, CqAndSmsgTest.bytes("after"), 0, 5, 1, 10));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(rx[1]));
            assertEquals(~(length - 8), remote.getLong(length - 8));
            assertEquals("after", CqAndSmsgTest.next(p.epB));
            assertTrue(p.nodeA.stats().backPressured() > 0);
            int events = 0;
            p.fixture.quiesce();
            while (GniRc.SUCCESS == p.cqA.getEvent())
            {
                events++;
            }
            assertEquals(2, events);
            for (int i = 0; i < length; i += 8)
            {
                assertEquals(~i, remote.getLong(i));
            }
        }
    }

    @Test
    void shouldCompleteChainedFmaWithOneEvent()
    {
        try (AriesPair p = new AriesPair())
        {
            final UnsafeBuffer local = AriesFixture.memory(4096);
            final UnsafeBuffer remote = AriesFixture.memory(4096);
            final MemHandle lh = register(p.nicA, local, 0);
            final MemHandle rh = register(p.nicB, remote, 0);
            remote.putInt(0, 11);
            remote.putInt(100, 22);
            remote.putInt(200, 33);
            final PostDescriptor head = put(TransactionKind.FMA_GET, local, lh, 0, remote, rh, 0, 4);
            head.next = put(TransactionKind.FMA_GET, local, lh, 4, remote, rh, 100, 4);
            head.next.next = put(TransactionKind.FMA_GET, local, lh, 8, remote, rh, 200, 4);
            head.postId = 9;
            final PostDescriptor bad = put(TransactionKind.FMA_GET, local, lh, 0, remote, rh, 0, 4);
            bad.next = put(TransactionKind.FMA_GET, local, lh, 4, remote, rh, 101, 4);
            assertEquals(GniRc.ALIGNMENT_ERROR, p.epA.ctPostFma(bad));
            assertEquals(GniRc.SUCCESS, p.epA.ctPostFma(head));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
            assertSame(head, p.cqA.getCompleted(p.cqA.event()));
            assertEquals(9, GniCqEntry.msgId(p.cqA.event()));
            p.fixture.quiesce();
            assertEquals(GniRc.NOT_DONE, p.cqA.getEvent());
            assertEquals(11, local.getInt(0));
            assertEquals(22, local.getInt(4));
            assertEquals(33, local.getInt(8));
            assertEquals(3, p.nodeA.stats().posts(TransactionKind.FMA_GET));
        }
    }

    @Test
    void shouldBoundOutstandingTransactionsBySourceCq()
    {
        try (AriesPair p = new AriesPair(null, null, 4))
        {
            final UnsafeBuffer local = AriesFixture.memory(4096);
            final UnsafeBuffer remote = AriesFixture.memory(4096);
            final MemHandle lh = register(p.nicA, local, 0);
            final MemHandle rh = register(p.nicB, remote, 0);
            final PostDescriptor[] ds = new PostDescriptor[5];
            for (int i = 0; i < 5; i++)
            {
                ds[i] = put(TransactionKind.FMA_PUT, local, lh, 0, remote, rh, 8 * i, 8);
            }
            for (int i = 0; i < 4; i++)
            {
                assertEquals(GniRc.SUCCESS, p.epA.postFma(ds[i]));
            }
            assertEquals(GniRc.ERROR_RESOURCE, p.epA.postFma(ds[4]));
            assertEquals(GniRc.NOT_DONE, p.epA.unbind());
            p.fixture.quiesce();
            // Completed but unread events still hold their entries.
            assertEquals(GniRc.ERROR_RESOURCE, p.epA.postFma(ds[4]));
            assertEquals(GniRc.SUCCESS, p.cqA.getEvent());
            assertEquals(GniRc.SUCCESS, p.epA.postFma(ds[4]));
            p.fixture.quiesce();
            int events = 0;
            while (GniRc.SUCCESS == p.cqA.getEvent())
            {
                events++;
            }
            assertEquals(4, events);
            assertEquals(GniRc.SUCCESS, p.epA.unbind());
            assertFalse(p.epA.bound());
            assertTrue(p.epB.bound());
        }
    }
}
