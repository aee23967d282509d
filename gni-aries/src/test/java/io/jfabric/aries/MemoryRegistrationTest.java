package io.jfabric.aries;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemoryRegistrationTest
{
    @Test
    void shouldRegisterWholePagesAndEncodeHandle()
    {
        try (AriesFixture fixture = new AriesFixture())
        {
            final GniNic nic = AriesFixture.nic(fixture.node(1), 1);
            final UnsafeBuffer buffer = AriesFixture.memory(3 * MemHandle.PAGE_SIZE);
            final MemHandle handle = new MemHandle();
            assertEquals(GniRc.SUCCESS, nic.memRegister(
                buffer.addressOffset() + 100, MemHandle.PAGE_SIZE, null, GniNic.MEM_READ_ONLY, 0, handle));
            assertEquals(buffer.addressOffset(), handle.baseAddress());
            assertEquals(2, handle.pages());
            assertTrue(handle.readOnly());
            assertTrue(handle.checkValid());
            assertEquals(0, handle.index());
            final MemHandle tampered = new MemHandle().set(handle.qword1() + MemHandle.PAGE_SIZE, handle.qword2());
            assertFalse(tampered.checkValid());
            assertEquals(1, nic.mddsInUse());
            assertEquals(GniRc.SUCCESS, nic.memDeregister(handle));
            assertEquals(GniRc.INVALID_PARAM, nic.memDeregister(handle));
            assertEquals(0, nic.mddsInUse());
        }
    }

    @Test
    void shouldRefuseZeroLengthBadFlagsAndHeapMemory()
    {
        try (AriesFixture fixture = new AriesFixture())
        {
            final GniNic nic = AriesFixture.nic(fixture.node(1), 1);
            final UnsafeBuffer buffer = AriesFixture.memory(MemHandle.PAGE_SIZE);
            final MemHandle handle = new MemHandle();
            assertEquals(GniRc.INVALID_PARAM, nic.memRegister(buffer.addressOffset(), 0, null, 0, 0, handle));
            assertEquals(GniRc.INVALID_PARAM, nic.memRegister(buffer.addressOffset(), 8, null, 0x8, 0, handle));
            assertEquals(GniRc.INVALID_PARAM, nic.memRegister(new UnsafeBuffer(new byte[4096]), 0, 4096, null, 0,
                0, handle));
            assertEquals(GniRc.INVALID_PARAM, nic.memRegister(new UnsafeBuffer(ByteBuffer.allocate(4096)), 0, 4096,
                null, 0, 0, handle));
            assertEquals(GniRc.INVALID_PARAM, nic.memRegister(buffer, 0, MemHandle.PAGE_SIZE + 1, null, 0, 0,
                handle));
            assertEquals(0, nic.mddsInUse());
        }
    }

    @Test
    void shouldExhaustMddsAtJobLimitAndReuseAfterDeregister()
    {
        try (AriesFixture fixture = new AriesFixture())
        {
            fixture.jobs.limits(AriesFixture.PTAG, 4, 3);
            final GniNic nic = AriesFixture.nic(fixture.node(1), 1);
            final UnsafeBuffer buffer = AriesFixture.memory(MemHandle.PAGE_SIZE);
            final MemHandle[] handles = new MemHandle[3];
            for (int i = 0; i < 3; i++)
            {
                handles[i] = AriesFixture.register(nic, buffer, 0);
            }
            assertEquals(GniRc.ERROR_RESOURCE, nic.memRegister(buffer, 0, 64, null, 0, 0, new MemHandle()));
            assertEquals(GniRc.SUCCESS, nic.memDeregister(handles[1]));
            final MemHandle reused = AriesFixture.register(nic, buffer, 0);
            assertEquals(1, reused.index());
            // The slot's generation changed: the stale handle names nothing.
            assertEquals(GniRc.INVALID_PARAM, nic.memDeregister(handles[1]));
            for (int i = 0; i < 4; i++)
            {
                nic.cqCreate(1);
            }
            assertEquals(GniRc.ERROR_RESOURCE, assertThrows(GniException.class, () -> nic.cqCreate(1)).rc());
        }
    }

    @Test
    void shouldDefaultTo4096MddsPerNic()
    {
        try (AriesFixture fixture = new AriesFixture())
        {
            final GniNic nic = AriesFixture.nic(fixture.node(1), 1);
            final UnsafeBuffer buffer = AriesFixture.memory(MemHandle.PAGE_SIZE);
            final MemHandle handle = new MemHandle();
            for (int i = 0; i < JobRegistry.DEFAULT_MAX_MDDS; i++)
            {
                assertEquals(GniRc.SUCCESS, nic.memRegister(buffer, 0, 64, null, 0, 0, handle));
            }
            assertEquals(4095, handle.index());
            assertEquals(GniRc.ERROR_RESOURCE, nic.memRegister(buffer, 0, 64, null, 0, 0, handle));
        }
    }

    @Test
    void shouldUseVmdhSlotsOnlyAfterSetMddResourcesAndOncePerNode()
    {
        try (AriesFixture fixture = new AriesFixture())
        {
            final AriesNode node = fixture.node(1);
            final GniNic nic = AriesFixture.nic(node, 1);
            final GniNic sibling = AriesFixture.nic(node, 2);
            final UnsafeBuffer buffer = AriesFixture.memory(MemHandle.PAGE_SIZE);
            final MemHandle handle = new MemHandle();
            assertEquals(GniRc.INVALID_STATE, nic.memRegister(buffer, 0, 64, null, GniNic.MEM_USE_VMDH, 3, handle));
            assertEquals(GniRc.SUCCESS, nic.setMddResources(8));
            assertEquals(GniRc.SUCCESS, sibling.setMddResources(8));
            assertEquals(GniRc.INVALID_PARAM, nic.memRegister(buffer, 0, 64, null, GniNic.MEM_USE_VMDH, 8, handle));
            assertEquals(GniRc.SUCCESS, nic.memRegister(buffer, 0, 64, null, GniNic.MEM_USE_VMDH, 3, handle));
            assertEquals(3, handle.index());
            assertEquals(GniRc.ERROR_RESOURCE,
                nic.memRegister(buffer, 0, 64, null, GniNic.MEM_USE_VMDH, 3, new MemHandle()));
            // The node-wide bitmap of the ptag: another process's NIC of the same ptag cannot take slot 3 either.
            assertEquals(GniRc.ERROR_RESOURCE,
                sibling.memRegister(buffer, 0, 64, null, GniNic.MEM_USE_VMDH, 3, new MemHandle()));
            assertEquals(GniRc.SUCCESS, nic.memDeregister(handle));
            assertEquals(GniRc.SUCCESS,
                sibling.memRegister(buffer, 0, 64, null, GniNic.MEM_USE_VMDH, 3, new MemHandle()));
            assertEquals(0, nic.mddsInUse());
        }
    }

    @Test
    void shouldMakeReservedPagesLiveOnlyThroughUpdate()
    {
        try (AriesFixture fixture = new AriesFixture())
        {
            final GniNic nic = AriesFixture.nic(fixture.node(1), 1);
            final UnsafeBuffer buffer = AriesFixture.memory(2 * MemHandle.PAGE_SIZE);
            final MemHandle handle = new MemHandle();
            assertEquals(GniRc.SUCCESS, nic.memRegister(buffer, 0, buffer.capacity(), null,
                GniNic.MEM_RESERVE_REGION, 0, handle));
            final Registration registration = nic.registration(handle.qword1(), handle.qword2());
            assertFalse(registration.pagesLive(buffer.addressOffset(), 8));
            assertEquals(GniRc.SUCCESS, nic.memRegister(buffer.addressOffset(), 8, null,
                GniNic.MEM_UPDATE_REGION, 0, handle));
            assertTrue(registration.pagesLive(buffer.addressOffset(), MemHandle.PAGE_SIZE));
            assertFalse(registration.pagesLive(buffer.addressOffset(), MemHandle.PAGE_SIZE + 1));
            assertEquals(GniRc.INVALID_PARAM, nic.memRegister(buffer.addressOffset() + 3 * MemHandle.PAGE_SIZE, 8,
                null, GniNic.MEM_UPDATE_REGION, 0, handle));
        }
    }
}
