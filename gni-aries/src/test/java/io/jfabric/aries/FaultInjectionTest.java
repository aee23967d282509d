package io.jfabric.aries;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static io.jfabric.aries.AriesFixture.put;
import static io.jfabric.aries.AriesFixture.register;
import static io.jfabric.aries.CqAndSmsgTest.bytes;
import static io.jfabric.aries.CqAndSmsgTest.next;
import static io.jfabric.aries.CqAndSmsgTest.smsgInit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FaultInjectionTest
{
    private static final int TAG = CqAndSmsgTest.TAG;

    private static int putAndWait(final AriesPair p, final int offset)
    {
        final UnsafeBuffer local = AriesFixture.memory(4096);
        final UnsafeBuffer remote = AriesFixture.memory(4096);
        local.putLong(0, 0x0102_0304_0506_0708L + offset);
        final MemHandle lh = register(p.nicA, local, 0);
        final MemHandle rh = register(p.nicB, remote, 0);
        assertEquals(GniRc.SUCCESS, p.epA.postFma(put(TransactionKind.FMA_PUT, local, lh, 0, remote, rh, 0, 8)));
        final int rc = p.fixture.nextEvent(p.cqA);
        assertEquals(GniRc.SUCCESS == rc ? local.getLong(0) : 0, remote.getLong(0));
        return rc;
    }

    @Test
    void shouldFailNthPutWithRecoverableErrorAndTraceIt()
    {
        final FaultPlan plan = FaultPlan.seeded(1)
            .add(FaultPlan.on(TransactionKind.FMA_PUT, FaultPlan.Action.TRANSIENT_ERROR, 1).nth(2));
        try (AriesPair p = new AriesPair(plan, null, 16))
        {
            assertEquals(GniRc.SUCCESS, putAndWait(p, 1));
            assertEquals(GniRc.TRANSACTION_ERROR, putAndWait(p, 2));
            assertTrue(GniCqEntry.recoverable(p.cqA.event()));
            assertEquals(GniRc.SUCCESS, putAndWait(p, 3));
            assertEquals(1, plan.trace().size());
            assertTrue(plan.trace().get(0).contains("TRANSIENT_ERROR(1) FMA_PUT 1->2 ptag 10 match 2"),
                plan.trace().get(0));
        }
    }

    @Test
    void shouldFailEveryKthMatchingTransactionFatallyBySelector()
    {
        final FaultPlan plan = FaultPlan.seeded(1)
            .add(FaultPlan.on(TransactionKind.FMA_PUT, FaultPlan.Action.FATAL_ERROR, 0).to(AriesPair.DEV_B)
                .ptag(AriesFixture.PTAG).everyK(2))
            .add(FaultPlan.on(TransactionKind.FMA_PUT, FaultPlan.Action.FATAL_ERROR, 0).to(99));
        try (AriesPair p = new AriesPair(plan, null, 16))
        {
            final int[] expected = {GniRc.SUCCESS, GniRc.TRANSACTION_ERROR, GniRc.SUCCESS, GniRc.TRANSACTION_ERROR};
            for (int i = 0; i < expected.length; i++)
            {
                assertEquals(expected[i], putAndWait(p, i));
                if (GniRc.TRANSACTION_ERROR == expected[i])
                {
                    assertFalse(GniCqEntry.recoverable(p.cqA.event()));
                }
            }
            assertEquals(2, plan.trace().size());
        }
    }

    @Test
    void shouldDrawProbabilitiesFromTheSeed()
    {
        final int[] first = new int[40];
        final int[] second = new int[40];
        for (final int[] outcome : new int[][]{first, second})
        {
            final FaultPlan plan = FaultPlan.seeded(42)
                .add(FaultPlan.on(null, FaultPlan.Action.TRANSIENT_ERROR, 1).probability(0.5));
            try (AriesPair p = new AriesPair(plan, null, 16))
            {
                for (int i = 0; i < outcome.length; i++)
                {
                    outcome[i] = putAndWait(p, i);
                }
            }
        }
        assertEquals(java.util.Arrays.toString(first), java.util.Arrays.toString(second));
        final long failures = java.util.Arrays.stream(first).filter(rc -> GniRc.TRANSACTION_ERROR == rc).count();
        assertTrue(failures > 5 && failures < 35, "failures " + failures);
    }

    @Test
    void shouldAbsorbSmsgFailuresWithinRetransmitBudget()
    {
        final FaultPlan plan = FaultPlan.seeded(1)
            .add(FaultPlan.on(TransactionKind.SMSG, FaultPlan.Action.TRANSIENT_ERROR, 10).nth(1))
            .add(FaultPlan.on(TransactionKind.SMSG, FaultPlan.Action.TRANSIENT_ERROR, 11).nth(2));
        try (AriesPair p = new AriesPair(plan, null, 16))
        {
            final GniCq[] rx = smsgInit(p, 4, 64, 16);
            final UnsafeBuffer data = bytes("x");
            assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 1, TAG));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
            assertEquals(10, p.nodeA.stats().retransmits());
            assertEquals("x", next(p.epB));
            // Rule 2 (counting every SMSG too) fires on the second send: 11 failures exceed the 10 retransmits.
            assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 2, TAG));
            assertEquals(GniRc.TRANSACTION_ERROR, p.fixture.nextEvent(p.cqA));
            assertTrue(GniCqEntry.recoverable(p.cqA.event()));
            assertEquals(2, GniCqEntry.msgId(p.cqA.event()));
            assertEquals(20, p.nodeA.stats().retransmits());
            p.fixture.quiesce();
            assertEquals(GniRc.NOT_DONE, p.epB.smsgGetNextWTag(GniEp.SMSG_ANY_TAG));
            assertEquals(1, rx[1].size());
            // The failed message did not consume a credit.
            assertEquals(4, p.epA.smsgCredits());
        }
    }

    @Test
    void shouldWithholdCredits()
    {
        final FaultPlan plan = FaultPlan.seeded(1)
            .add(FaultPlan.on(TransactionKind.SMSG, FaultPlan.Action.WITHHOLD_CREDITS, 3).nth(2));
        try (AriesPair p = new AriesPair(plan, null, 16))
        {
            smsgInit(p, 4, 64, 16);
            final UnsafeBuffer data = bytes("y");
            assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 1, TAG));
            assertEquals(GniRc.NOT_DONE, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 2, TAG));
            assertEquals(GniRc.NOT_DONE, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 2, TAG));
            assertEquals(GniRc.NOT_DONE, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 2, TAG));
            assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 2, TAG));
            assertEquals(3, p.nodeA.stats().creditStalls());
            assertEquals(2, p.epA.smsgCredits());
        }
    }

    @Test
    void shouldShrinkCqToForceOverrun()
    {
        final FaultPlan plan = FaultPlan.seeded(1)
            .add(FaultPlan.on(TransactionKind.SMSG, FaultPlan.Action.SHRINK_CQ, 1).nth(1));
        try (AriesPair p = new AriesPair(null, plan, 16))
        {
            final GniCq[] rx = smsgInit(p, 8, 64, 64);
            for (int i = 0; i < 3; i++)
            {
                assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, bytes("z" + i), 0, 2, i, TAG));
            }
            p.fixture.quiesce();
            assertEquals(1, rx[1].capacity());
            assertEquals(GniRc.ERROR_RESOURCE, rx[1].getEvent());
            assertEquals(GniRc.SUCCESS, rx[1].getEvent());
            assertEquals(GniRc.NOT_DONE, rx[1].getEvent());
            assertEquals(2, p.nodeB.stats().cqOverruns());
            for (int i = 0; i < 3; i++)
            {
                assertEquals("z" + i, next(p.epB));
            }
        }
    }

    @Test
    void shouldPublishCqeBeforeMessageIsVisible()
    {
        final FaultPlan plan = FaultPlan.seeded(1)
            .add(FaultPlan.on(TransactionKind.SMSG, FaultPlan.Action.CQE_BEFORE_DATA, 0).nth(1));
        try (AriesPair p = new AriesPair(null, plan, 16))
        {
            final GniCq[] rx = smsgInit(p, 8, 64, 64);
            assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, bytes("early"), 0, 5, 1, TAG));
            p.nodeA.doWork();
            p.nodeB.doWork();
            assertEquals(GniRc.SUCCESS, rx[1].getEvent());
            assertEquals(GniRc.NOT_DONE, p.epB.smsgGetNextWTag(GniEp.SMSG_ANY_TAG));
            p.nodeB.doWork();
            assertEquals("early", next(p.epB));
        }
    }

    @Test
    void shouldDropDelayAndErrorDatagrams()
    {
        final FaultPlan plan = FaultPlan.seeded(1)
            .add(FaultPlan.on(TransactionKind.DATAGRAM, FaultPlan.Action.DROP_DATAGRAM, 0).nth(1))
            .add(FaultPlan.on(TransactionKind.DATAGRAM, FaultPlan.Action.ERROR_DATAGRAM, 0).nth(2))
            .add(FaultPlan.on(TransactionKind.DATAGRAM, FaultPlan.Action.DELAY_DATAGRAM, 50).nth(3));
        try (AriesPair p = new AriesPair(plan, null, 16))
        {
            final GniEp wildcard = p.nicB.epCreate(p.cqB);
            final UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(16));
            assertEquals(GniRc.SUCCESS, wildcard.postDataWId(bytes("w"), 0, 1, out, 0, 16, 9));
            assertEquals(GniRc.SUCCESS, p.epA.postDataWId(bytes("1"), 0, 1, out, 0, 16, 1));
            p.fixture.quiesce();
            assertEquals(GniRc.NO_MATCH, p.nicB.postDataProbeById());
            assertEquals(GniRc.SUCCESS, p.epA.postDataTestById(1));
            assertEquals(GniEp.POST_STATE_PENDING, p.epA.postState());
            assertEquals(GniRc.SUCCESS, p.epA.postDataCancelById(1));
            assertEquals(GniRc.SUCCESS, p.epA.postDataTestById(1));

            assertEquals(GniRc.SUCCESS, p.epA.postDataWId(bytes("2"), 0, 1, out, 0, 16, 2));
            assertEquals(GniRc.SUCCESS, p.nicA.postDataProbeById());
            assertEquals(GniRc.SUCCESS, p.epA.postDataTestById(2));
            assertEquals(GniEp.POST_STATE_ERROR, p.epA.postState());

            final long posted = p.nodeA.step();
            assertEquals(GniRc.SUCCESS, p.epA.postDataWId(bytes("3"), 0, 1, out, 0, 16, 3));
            p.fixture.await(() -> GniRc.SUCCESS == p.nicB.postDataProbeById(), "delayed datagram");
            assertTrue(p.nodeA.step() - posted >= 50, "matched after " + (p.nodeA.step() - posted) + " steps");
            assertEquals(3, plan.trace().size());
        }
    }

    @Test
    void shouldReorderAcrossEndpointsButNotWithinOne()
    {
        final FaultPlan plan = FaultPlan.seeded(1)
            .add(FaultPlan.on(TransactionKind.SMSG, FaultPlan.Action.REORDER, 0).nth(1));
        try (AriesFixture fixture = new AriesFixture())
        {
            final AriesNode a = fixture.node(1, plan);
            final AriesNode b = fixture.node(2);
            final GniNic a1 = AriesFixture.nic(a, 1);
            final GniNic a2 = AriesFixture.nic(a, 3);
            final GniNic nb = AriesFixture.nic(b, 2);
            final GniCq rx = nb.cqCreate(16);
            final GniEp ep1 = a1.epCreate(a1.cqCreate(8));
            final GniEp ep2 = a2.epCreate(a2.cqCreate(8));
            final GniEp peer1 = nb.epCreate(nb.cqCreate(8));
            final GniEp peer2 = nb.epCreate(nb.cqCreate(8));
            ep1.bind(2, 2);
            ep2.bind(2, 2);
            peer1.bind(1, 1);
            peer2.bind(1, 3);
            final SmsgAttr attr = new SmsgAttr();
            attr.maxCredit = 4;
            attr.msgMaxSize = 64;
            attr.rxCq = rx;
            final SmsgAttr senderAttr = new SmsgAttr();
            senderAttr.maxCredit = 4;
            senderAttr.msgMaxSize = 64;
            senderAttr.rxCq = ep1.srcCq();
            ep1.smsgInit(senderAttr, attr);
            senderAttr.rxCq = ep2.srcCq();
            ep2.smsgInit(senderAttr, attr);
            peer1.smsgInit(attr, attr);
            peer2.smsgInit(attr, attr);
            ep1.setEventData(0, 1);
            ep2.setEventData(0, 2);
            assertEquals(GniRc.SUCCESS, ep1.smsgSendWTag(null, 0, 0, bytes("1a"), 0, 2, 1, TAG));
            assertEquals(GniRc.SUCCESS, ep1.smsgSendWTag(null, 0, 0, bytes("1b"), 0, 2, 2, TAG));
            assertEquals(GniRc.SUCCESS, ep2.smsgSendWTag(null, 0, 0, bytes("2a"), 0, 2, 3, TAG));
            fixture.quiesce();
            final long[] order = new long[3];
            for (int i = 0; i < 3; i++)
            {
                assertEquals(GniRc.SUCCESS, rx.getEvent());
                order[i] = GniCqEntry.instId(rx.event()) * 10L + GniCqEntry.msgId(rx.event());
            }
            assertEquals("[23, 11, 12]", java.util.Arrays.toString(order));
            assertEquals("1a", next(peer1));
            assertEquals("1b", next(peer1));
            assertEquals("2a", next(peer2));
        }
    }
}
