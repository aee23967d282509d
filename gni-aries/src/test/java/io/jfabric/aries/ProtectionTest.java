package io.jfabric.aries;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.jfabric.aries.AriesFixture.put;
import static io.jfabric.aries.AriesFixture.register;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every target-side check NACKs the initiator with a non-recoverable transaction error and leaves the target's
 * memory byte-identical.
 */
class ProtectionTest
{
    private static byte[] snapshot(final UnsafeBuffer buffer)
    {
        final byte[] bytes = new byte[buffer.capacity()];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    private static void fill(final UnsafeBuffer buffer, final int seed)
    {
        for (int i = 0; i < buffer.capacity(); i++)
        {
            buffer.putByte(i, (byte) (i * 7 + seed));
        }
    }

    private static void assertNacked(final AriesPair p, final PostDescriptor d, final int detail)
    {
        assertEquals(GniRc.TRANSACTION_ERROR, p.fixture.nextEvent(p.cqA));
        final long event = p.cqA.event();
        assertFalse(GniCqEntry.recoverable(event));
        assertSame(d, p.cqA.getCompleted(event));
        assertEquals(GniRc.TRANSACTION_ERROR, d.status);
        assertEquals(detail, d.errorDetail);
    }

    @Test
    void shouldNackPutToReadOnlyRegionAndKeepMemory()
    {
        try (AriesPair p = new AriesPair())
        {
            final UnsafeBuffer local = AriesFixture.memory(8192);
            final UnsafeBuffer remote = AriesFixture.memory(8192);
            fill(local, 1);
            fill(remote, 2);
            final byte[] before = snapshot(remote);
            final MemHandle lh = register(p.nicA, local, 0);
            final MemHandle rh = register(p.nicB, remote, GniNic.MEM_READ_ONLY);
            final PostDescriptor d = put(TransactionKind.RDMA_PUT, local, lh, 0, remote, rh, 0, 8192);
            assertEquals(GniRc.SUCCESS, p.epA.postRdma(d));
            assertNacked(p, d, GniRc.PERMISSION_ERROR);
            assertArrayEquals(before, snapshot(remote));
            final PostDescriptor amo = new PostDescriptor();
            amo.type = TransactionKind.AMO;
            amo.amoCmd = AmoCmd.IADD;
            amo.remoteAddr = remote.addressOffset();
            amo.remoteMemHandle.set(rh);
            amo.firstOperand = 1;
            assertEquals(GniRc.SUCCESS, p.epA.postFma(amo));
            assertNacked(p, amo, GniRc.PERMISSION_ERROR);
            assertArrayEquals(before, snapshot(remote));
            // Reading a read-only region is allowed.
            final PostDescriptor get = put(TransactionKind.FMA_GET, local, lh, 0, remote, rh, 0, 64);
            assertEquals(GniRc.SUCCESS, p.epA.postFma(get));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
            assertEquals(2, p.nodeB.stats().protectionNacks());
            assertEquals(2, p.nodeA.stats().transactionErrors());
        }
    }

    @Test
    void shouldNackOutOfBoundsStaleAndCorruptHandles()
    {
        try (AriesPair p = new AriesPair())
        {
            final UnsafeBuffer local = AriesFixture.memory(8192);
            final UnsafeBuffer remote = AriesFixture.memory(3 * 4096);
            fill(local, 3);
            fill(remote, 4);
            final byte[] before = snapshot(remote);
            final MemHandle lh = register(p.nicA, local, 0);
            final MemHandle rh = new MemHandle();
            // Registers the first page only (of three).
            assertEquals(GniRc.SUCCESS, p.nicB.memRegister(remote, 0, 100, null, 0, 0, rh));

            PostDescriptor d = put(TransactionKind.FMA_PUT, local, lh, 0, remote, rh, 4090, 8);
            assertEquals(GniRc.SUCCESS, p.epA.postFma(d));
            assertNacked(p, d, GniRc.INVALID_PARAM);

            d = put(TransactionKind.FMA_GET, local, lh, 0, remote, rh, 4092, 8);
            assertEquals(GniRc.SUCCESS, p.epA.postFma(d));
            assertNacked(p, d, GniRc.INVALID_PARAM);

            // Page-granular: the rest of the registered page is accessible.
            d = put(TransactionKind.FMA_PUT, local, lh, 0, remote, rh, 4000, 96);
            assertEquals(GniRc.SUCCESS, p.epA.postFma(d));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
            local.getBytes(0, before, 4000, 96);

            final MemHandle corrupt = new MemHandle().set(rh.qword1(), rh.qword2() ^ (1L << 56));
            d = put(TransactionKind.FMA_PUT, local, lh, 0, remote, corrupt, 0, 8);
            assertEquals(GniRc.SUCCESS, p.epA.postFma(d));
            assertNacked(p, d, GniRc.INVALID_PARAM);

            final MemHandle otherIndex = new MemHandle();
            MemHandle.encode(otherIndex, rh.baseAddress(), 1, 7, 1, 0);
            d = put(TransactionKind.FMA_PUT, local, lh, 0, remote, otherIndex, 0, 8);
            assertEquals(GniRc.SUCCESS, p.epA.postFma(d));
            assertNacked(p, d, GniRc.INVALID_PARAM);

            assertEquals(GniRc.SUCCESS, p.nicB.memDeregister(rh));
            d = put(TransactionKind.FMA_PUT, local, lh, 0, remote, rh, 0, 8);
            assertEquals(GniRc.SUCCESS, p.epA.postFma(d));
            assertNacked(p, d, GniRc.INVALID_PARAM);
            // Re-registered in the same MDD: the old handle's generation is stale.
            final MemHandle again = register(p.nicB, remote, 0);
            assertEquals(rh.index(), again.index());
            assertEquals(GniRc.SUCCESS, p.epA.postFma(d));
            assertNacked(p, d, GniRc.INVALID_PARAM);

            assertArrayEquals(before, snapshot(remote));
            assertEquals(6, p.nodeB.stats().protectionNacks());
        }
    }

    @Test
    void shouldFaultReservedPagesUntilUpdated()
    {
        try (AriesPair p = new AriesPair())
        {
            final UnsafeBuffer local = AriesFixture.memory(4096);
            final UnsafeBuffer remote = AriesFixture.memory(2 * 4096);
            fill(local, 5);
            final MemHandle lh = register(p.nicA, local, 0);
            final MemHandle rh = new MemHandle();
            assertEquals(GniRc.SUCCESS, p.nicB.setMddResources(4));
            assertEquals(GniRc.SUCCESS, p.nicB.memRegister(remote, 0, remote.capacity(), null,
                GniNic.MEM_USE_VMDH | GniNic.MEM_RESERVE_REGION, 2, rh));
            final PostDescriptor d = put(TransactionKind.FMA_PUT, local, lh, 0, remote, rh, 4096, 16);
            assertEquals(GniRc.SUCCESS, p.epA.postFma(d));
            assertNacked(p, d, GniRc.INVALID_STATE);
            assertEquals(0, remote.getLong(4096));
            assertEquals(GniRc.SUCCESS, p.nicB.memRegister(remote.addressOffset() + 4096, 4096, null,
                GniNic.MEM_UPDATE_REGION, 2, rh));
            assertEquals(GniRc.SUCCESS, p.epA.postFma(d));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
            assertEquals(local.getLong(0), remote.getLong(4096));
            // The first page was never updated.
            final PostDescriptor first = put(TransactionKind.FMA_PUT, local, lh, 0, remote, rh, 0, 16);
            assertEquals(GniRc.SUCCESS, p.epA.postFma(first));
            assertNacked(p, first, GniRc.INVALID_STATE);
        }
    }

    @Test
    void shouldNeverLetAnotherJobTouchMemory()
    {
        try (AriesFixture fixture = new AriesFixture())
        {
            final AriesNode a = fixture.node(1);
            final AriesNode b = fixture.node(2);
            final GniNic intruder = a.cdmCreate(1, AriesFixture.OTHER_PTAG, AriesFixture.OTHER_COOKIE, 0).attach(0);
            final GniNic victim = AriesFixture.nic(b, 2);
            final GniCq cq = intruder.cqCreate(8);
            final GniEp ep = intruder.epCreate(cq);
            ep.bind(2, 2);
            final UnsafeBuffer local = AriesFixture.memory(4096);
            final UnsafeBuffer remote = AriesFixture.memory(4096);
            fill(local, 6);
            fill(remote, 7);
            final byte[] before = snapshot(remote);
            final MemHandle lh = register(intruder, local, 0);
            final MemHandle rh = register(victim, remote, 0);
            final PostDescriptor d = put(TransactionKind.FMA_PUT, local, lh, 0, remote, rh, 0, 64);
            assertEquals(GniRc.SUCCESS, ep.postFma(d));
            assertEquals(GniRc.TRANSACTION_ERROR, fixture.nextEvent(cq));
            assertEquals(GniRc.PERMISSION_ERROR, cq.getCompleted(cq.event()).errorDetail);
            final PostDescriptor get = put(TransactionKind.FMA_GET, local, lh, 0, remote, rh, 0, 64);
            assertEquals(GniRc.SUCCESS, ep.postFma(get));
            assertEquals(GniRc.TRANSACTION_ERROR, fixture.nextEvent(cq));
            assertArrayEquals(before, snapshot(remote));
            final byte[] localBytes = snapshot(local);
            fill(local, 6);
            assertArrayEquals(snapshot(local), localBytes);
            assertEquals(2, b.stats().crossJobDrops());
            assertEquals(2, b.stats().protectionNacks());
        }
    }

    @Test
    void shouldFailTransactionsToUnknownOrVanishedPeers()
    {
        try (AriesPair p = new AriesPair())
        {
            final UnsafeBuffer local = AriesFixture.memory(4096);
            final MemHandle lh = register(p.nicA, local, 0);
            final GniEp nowhere = p.nicA.epCreate(p.cqA);
            nowhere.bind(9, 9);
            final PostDescriptor d = put(TransactionKind.FMA_PUT, local, lh, 0, local, lh, 0, 8);
            assertEquals(GniRc.SUCCESS, nowhere.postFma(d));
            assertEquals(GniRc.TRANSACTION_ERROR, p.fixture.nextEvent(p.cqA));
            assertEquals(GniRc.NO_MATCH, d.errorDetail);
            // A GET is in flight when the target's process goes away: the initiator learns it from the wire.
            final UnsafeBuffer remote = AriesFixture.memory(4096);
            final MemHandle rh = register(p.nicB, remote, 0);
            final PostDescriptor get = put(TransactionKind.FMA_GET, local, lh, 0, remote, rh, 0, 8);
            assertEquals(GniRc.SUCCESS, p.epA.postFma(get));
            p.nodeB.close();
            assertEquals(GniRc.TRANSACTION_ERROR, p.fixture.nextEvent(p.cqA));
            assertEquals(GniRc.TRANSACTION_ERROR, get.errorDetail);
            assertFalse(GniCqEntry.recoverable(p.cqA.event()));
        }
    }

    /**
     * A GET streaming through an index-only vMDH handle (what a peer builds from a scalable key) stops at the next
     * frame once its slot is deregistered, even when a new region takes the slot before that frame: nothing of the
     * old region leaves after its deregistration and nothing of the new one is read through the old stream (NACK,
     * {@code INVALID_PARAM}, not recoverable).
     */
    @Test
    void shouldStopAGetStreamWhoseVmdhSlotIsRegisteredAgainMidStream()
    {
        // 64 KiB rings: the 1 MiB GET streams over many steps.
        try (AriesPair p = new AriesPair(new AriesFixture(64 * 1024), null, null, 64))
        {
            final int length = 1 << 20;
            final UnsafeBuffer local = AriesFixture.memory(length);
            final UnsafeBuffer old = AriesFixture.memory(length);
            final UnsafeBuffer fresh = AriesFixture.memory(length);
            old.setMemory(0, length, (byte) 1);
            fresh.setMemory(0, length, (byte) 2);
            final MemHandle lh = register(p.nicA, local, 0);
            assertEquals(GniRc.SUCCESS, p.nicB.setMddResources(8));
            final MemHandle slot = new MemHandle();
            assertEquals(GniRc.SUCCESS, p.nicB.memRegister(old, 0, length, null, GniNic.MEM_USE_VMDH, 3, slot));
            final PostDescriptor d = new PostDescriptor();
            d.type = TransactionKind.RDMA_GET;
            d.localAddr = local.addressOffset();
            d.localMemHandle.set(lh);
            d.remoteAddr = 0;
            MemHandle.vmdh(d.remoteMemHandle, 3);
            d.length = length;
            assertEquals(GniRc.SUCCESS, p.epA.postRdma(d));
            int steps = 0;
            while (0 == local.getByteVolatile(0))
            {
                p.fixture.step();
                assertTrue(++steps < AriesFixture.MAX_STEPS, "the first frames land");
            }
            assertEquals(0, local.getByte(length - 1), "the stream is still in flight");

            assertEquals(GniRc.SUCCESS, p.nicB.memDeregister(slot));
            assertEquals(GniRc.SUCCESS,
                p.nicB.memRegister(fresh, 0, length, null, GniNic.MEM_USE_VMDH, 3, new MemHandle()));
            assertNacked(p, d, GniRc.INVALID_PARAM);
            p.fixture.quiesce();
            for (int i = 0; i < length; i++)
            {
                assertTrue(2 != local.getByte(i), "nothing of the new region read through the old stream");
            }
            assertEquals(0, local.getByte(length - 1), "the old region's stream stopped");
        }
    }
}
