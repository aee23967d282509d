package io.jfabric.aries;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class IdentityTest
{
    @Test
    void shouldGivePtagOfCookieAndRefuseUnregisteredCookie()
    {
        final JobRegistry jobs = new JobRegistry().register(0x1234_0001, 7);
        assertEquals(7, jobs.ptag(0x1234_0001));
        assertEquals(-1, jobs.ptag(0x1234_0002));
        assertEquals(GniRc.INVALID_PARAM,
            assertThrows(GniException.class, () -> jobs.register(0x1234_0001, 8)).rc());
        assertEquals(GniRc.INVALID_PARAM, assertThrows(GniException.class, () -> jobs.register(5, 2)).rc());
        assertEquals(GniRc.INVALID_PARAM, assertThrows(GniException.class, () -> jobs.register(5, 254)).rc());
    }

    @Test
    void shouldAnswerInvalidStateWhenAttachingTwice()
    {
        try (AriesFixture fixture = new AriesFixture())
        {
            final AriesNode node = fixture.node(0x42);
            final Cdm cdm = node.cdmCreate(5, AriesFixture.PTAG, AriesFixture.COOKIE, Cdm.MODE_ERR_NO_KILL);
            final GniNic nic = cdm.attach(0);
            assertEquals(0x42, nic.deviceAddress());
            assertEquals(5, nic.instId());
            assertEquals(GniRc.INVALID_STATE, assertThrows(GniException.class, () -> cdm.attach(0)).rc());
        }
    }

    @Test
    void shouldRefuseAttachForWrongPtagOrDevice()
    {
        try (AriesFixture fixture = new AriesFixture())
        {
            final AriesNode node = fixture.node(1);
            final Cdm wrongPtag = node.cdmCreate(1, AriesFixture.OTHER_PTAG, AriesFixture.COOKIE, 0);
            assertEquals(GniRc.PERMISSION_ERROR, assertThrows(GniException.class, () -> wrongPtag.attach(0)).rc());
            final Cdm cdm = node.cdmCreate(2, AriesFixture.PTAG, AriesFixture.COOKIE, 0);
            assertEquals(GniRc.INVALID_PARAM, assertThrows(GniException.class, () -> cdm.attach(1)).rc());
        }
    }

    @Test
    void shouldKeepInstIdsUniquePerNodeAndPublishWireAddress()
    {
        try (AriesFixture fixture = new AriesFixture())
        {
            final AriesNode a = fixture.node(1);
            final AriesNode b = fixture.node(1);
            final AriesNode other = fixture.node(2);
            final Cdm cdm = a.cdmCreate(9, AriesFixture.PTAG, AriesFixture.COOKIE, 0);
            assertEquals(GniRc.INVALID_PARAM, assertThrows(GniException.class,
                () -> b.cdmCreate(9, AriesFixture.PTAG, AriesFixture.COOKIE, 0)).rc());
            // Another node has its own inst id space.
            other.cdmCreate(9, AriesFixture.PTAG, AriesFixture.COOKIE, 0);
            assertNull(fixture.directory.lookup(1, 9));
            cdm.attach(0);
            assertArrayEquals(a.wire.localAddress(), fixture.directory.lookup(1, 9));
            assertEquals("injvm:0", new String(fixture.directory.lookup(1, 9), StandardCharsets.US_ASCII));
            assertEquals(GniRc.SUCCESS, cdm.destroy());
            assertNull(fixture.directory.lookup(1, 9));
            assertEquals(GniRc.INVALID_STATE, cdm.destroy());
            b.cdmCreate(9, AriesFixture.PTAG, AriesFixture.COOKIE, 0);
        }
    }

    @Test
    void shouldAllocateDistinctInstIdsAndRanks()
    {
        try (AriesFixture fixture = new AriesFixture())
        {
            final int first = fixture.directory.allocateInstId(3);
            final int second = fixture.directory.allocateInstId(3);
            assertNotEquals(first, second);
            assertEquals(1, first);
            assertEquals(2, second);
            assertEquals(0, fixture.directory.allocateNodeRank(3));
            assertEquals(1, fixture.directory.allocateNodeRank(3));
            fixture.directory.releaseNodeRank(3, 0);
            assertEquals(0, fixture.directory.allocateNodeRank(3));
            assertEquals(0, fixture.directory.allocateNodeRank(4));
        }
    }

    @Test
    void shouldAllowFourVmdhPtagsPerNode()
    {
        try (AriesFixture fixture = new AriesFixture())
        {
            final AriesNode node = fixture.node(1);
            for (int ptag = 20; ptag < 25; ptag++)
            {
                fixture.jobs.register(0x100 + ptag, ptag);
            }
            for (int ptag = 20; ptag < 24; ptag++)
            {
                final GniNic nic = node.cdmCreate(ptag, ptag, 0x100 + ptag, 0).attach(0);
                assertEquals(GniRc.SUCCESS, nic.setMddResources(16));
                assertEquals(GniRc.INVALID_STATE, nic.setMddResources(16));
            }
            final GniNic fifth = node.cdmCreate(24, 24, 0x100 + 24, 0).attach(0);
            assertEquals(GniRc.ERROR_RESOURCE, fifth.setMddResources(16));
            // A second NIC of a ptag that has a table shares it.
            final GniNic again = node.cdmCreate(30, 20, 0x100 + 20, 0).attach(0);
            assertEquals(GniRc.SUCCESS, again.setMddResources(16));
            assertEquals(GniRc.INVALID_PARAM, node.cdmCreate(31, 21, 0x100 + 21, 0).attach(0).setMddResources(0));
        }
    }
}
