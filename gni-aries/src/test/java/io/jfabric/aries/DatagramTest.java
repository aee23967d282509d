package io.jfabric.aries;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;

class DatagramTest
{
    private static UnsafeBuffer buffer(final int length)
    {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(length));
    }

    private static UnsafeBuffer text(final String value)
    {
        final UnsafeBuffer buffer = buffer(value.length());
        buffer.putStringWithoutLengthAscii(0, value);
        return buffer;
    }

    private static String received(final GniEp ep, final UnsafeBuffer out)
    {
        return out.getStringWithoutLengthAscii(0, ep.postDataReceivedLength());
    }

    /**
     * Wait until the NIC's probe finds the datagram, then test it: returns the post state.
     */
    private static int complete(final AriesFixture fixture, final GniNic nic, final GniEp ep, final long id)
    {
        fixture.await(() -> GniRc.SUCCESS == nic.postDataProbeById(), "datagram probe");
        assertEquals(id, nic.probedId());
        assertEquals(GniRc.SUCCESS, ep.postDataTestById(id));
        return ep.postState();
    }

    @Test
    void shouldSwapPayloadsBetweenTwoBoundPosts()
    {
        try (AriesPair p = new AriesPair())
        {
            final UnsafeBuffer outA = buffer(128);
            final UnsafeBuffer outB = buffer(128);
            assertEquals(GniRc.SUCCESS, p.epA.postDataWId(text("from A"), 0, 6, outA, 0, 128, 100));
            assertEquals(GniRc.SUCCESS, p.epB.postDataWId(text("from B!"), 0, 7, outB, 0, 128, 200));
            assertEquals(GniRc.ERROR_RESOURCE, p.epA.postDataWId(text("x"), 0, 1, outA, 0, 128, 101));
            assertEquals(GniEp.POST_STATE_COMPLETED, complete(p.fixture, p.nicA, p.epA, 100));
            assertEquals(GniEp.POST_STATE_COMPLETED, complete(p.fixture, p.nicB, p.epB, 200));
            assertEquals("from B!", received(p.epA, outA));
            assertEquals("from A", received(p.epB, outB));
            assertEquals(AriesPair.DEV_B, p.epA.postDataRemoteDeviceAddress());
            assertEquals(AriesPair.INST_B, p.epA.postDataRemoteInstId());
            assertEquals(AriesPair.INST_A, p.epB.postDataRemoteInstId());
            // Exactly one exchange: no second completion.
            p.fixture.quiesce();
            assertEquals(GniRc.NO_MATCH, p.nicA.postDataProbeById());
            assertEquals(GniRc.NO_MATCH, p.nicB.postDataProbeById());
            assertEquals(1, p.nodeA.stats().datagramsMatched() + p.nodeB.stats().datagramsMatched());
            assertEquals(GniRc.NO_MATCH, p.epA.postDataTestById(100));
            assertEquals(GniRc.SUCCESS, p.epA.postDataWId(text("again"), 0, 5, outA, 0, 128, 102));
        }
    }

    @Test
    void shouldMatchWildcardPostWithBoundPostAndHoldEarlyArrivals()
    {
        try (AriesFixture fixture = new AriesFixture())
        {
            final GniNic server = AriesFixture.nic(fixture.node(1), 1);
            final GniNic client = AriesFixture.nic(fixture.node(2), 2);
            final GniEp wildcard = server.epCreate(server.cqCreate(4));
            final GniEp bound = client.epCreate(client.cqCreate(4));
            bound.bind(1, 1);
            final UnsafeBuffer clientOut = buffer(128);
            final UnsafeBuffer serverOut = buffer(128);
            // The request arrives before the wildcard is posted: held, then matched by the post.
            assertEquals(GniRc.SUCCESS, bound.postDataWId(text("CONN_REQ"), 0, 8, clientOut, 0, 128, 1));
            fixture.quiesce();
            assertEquals(GniRc.NO_MATCH, server.postDataProbeById());
            assertEquals(GniRc.SUCCESS, wildcard.postDataWId(text("CONN_RESP"), 0, 9, serverOut, 0, 4, 2));
            assertEquals(GniEp.POST_STATE_COMPLETED, complete(fixture, server, wildcard, 2));
            assertEquals(GniEp.POST_STATE_COMPLETED, complete(fixture, client, bound, 1));
            assertEquals("CONN_RESP", received(bound, clientOut));
            // out was 4 bytes long: the rest is cut.
            assertEquals("CONN", received(wildcard, serverOut));
            assertEquals(2, wildcard.postDataRemoteDeviceAddress());
            assertEquals(2, wildcard.postDataRemoteInstId());
        }
    }

    @Test
    void shouldNeverMatchAcrossCookies()
    {
        try (AriesFixture fixture = new AriesFixture())
        {
            final AriesNode serverNode = fixture.node(1);
            final GniNic server = serverNode.cdmCreate(1, AriesFixture.OTHER_PTAG, AriesFixture.OTHER_COOKIE, 0)
                .attach(0);
            final GniNic client = AriesFixture.nic(fixture.node(2), 2);
            final GniEp wildcard = server.epCreate(server.cqCreate(4));
            final GniEp bound = client.epCreate(client.cqCreate(4));
            bound.bind(1, 1);
            assertEquals(GniRc.SUCCESS, wildcard.postDataWId(text("s"), 0, 1, buffer(8), 0, 8, 1));
            assertEquals(GniRc.SUCCESS, bound.postDataWId(text("c"), 0, 1, buffer(8), 0, 8, 2));
            fixture.quiesce();
            assertEquals(GniRc.NO_MATCH, server.postDataProbeById());
            assertEquals(GniRc.NO_MATCH, client.postDataProbeById());
            assertEquals(GniRc.SUCCESS, bound.postDataTestById(2));
            assertEquals(GniEp.POST_STATE_PENDING, bound.postState());
            assertEquals(1, serverNode.stats().crossJobDrops());
            assertEquals(GniRc.SUCCESS, bound.postDataCancelById(2));
            assertEquals(GniRc.SUCCESS, bound.postDataTestById(2));
            assertEquals(GniEp.POST_STATE_TERMINATED, bound.postState());
            assertEquals(GniRc.NO_MATCH, bound.postDataCancelById(2));
        }
    }

    @Test
    void shouldRefuseOversizedDatagramsAndTimeOutProbeWait()
    {
        try (AriesPair p = new AriesPair())
        {
            final UnsafeBuffer big = buffer(129);
            assertEquals(GniRc.SIZE_ERROR, p.epA.postDataWId(big, 0, 129, big, 0, 128, 1));
            assertEquals(GniRc.SIZE_ERROR, p.epA.postDataWId(big, 0, 128, big, 0, 129, 1));
            assertEquals(GniRc.SUCCESS, p.epA.postDataWId(big, 0, 128, big, 0, 128, 1));
            assertEquals(GniRc.TIMEOUT, p.nicA.postDataProbeWaitById(20));
            assertEquals(GniRc.NO_MATCH, p.nicA.postDataProbeById());
        }
    }

    @Test
    void shouldFindCompletionWithProbeWait()
    {
        try (AriesPair p = new AriesPair())
        {
            final UnsafeBuffer outA = buffer(16);
            assertEquals(GniRc.SUCCESS, p.epB.postDataWId(text("b"), 0, 1, buffer(16), 0, 16, 7));
            assertEquals(GniRc.SUCCESS, p.epA.postDataWId(text("a"), 0, 1, outA, 0, 16, 8));
            // B's engine answers; A's probe-wait steps A's own engine (deterministic mode) until the answer is in.
            p.nodeA.doWork();
            p.nodeB.doWork();
            assertEquals(GniRc.SUCCESS, p.nicA.postDataProbeWaitById(60_000));
            assertEquals(8, p.nicA.probedId());
            assertEquals(AriesPair.INST_B, p.nicA.probedRemoteInstId());
            assertEquals(GniRc.SUCCESS, p.epA.postDataTestById(8));
            assertEquals(GniEp.POST_STATE_COMPLETED, p.epA.postState());
            assertEquals("b", received(p.epA, outA));
        }
    }
}
