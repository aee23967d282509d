package io.jfabric.aries;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.jfabric.aries.CqAndSmsgTest.TAG;
import static io.jfabric.aries.CqAndSmsgTest.bytes;
import static io.jfabric.aries.CqAndSmsgTest.next;
import static io.jfabric.aries.CqAndSmsgTest.smsgInit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The SMSG acknowledgement word (ARIES.md "SMSG acknowledgement word"): between two NICs of one process the target
 * acknowledges deposits in the sender's word instead of ACK frames, the local events keep their meaning (after the
 * deposit, in send order, one per message), and a refusal freezes the word so that a NACK is never lost behind it.
 */
class SmsgAckWordTest
{
    @Test
    void shouldRaiseLocalEventsInSendOrderAfterDepositWithoutAckFrames()
    {
        try (AriesPair p = new AriesPair())
        {
            final GniCq[] rx = smsgInit(p, 8, 64, 16);
            final UnsafeBuffer data = bytes("w");
            final long framesFromB = p.nodeB.stats().framesSent();
            for (int i = 0; i < 5; i++)
            {
                assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 100 + i, TAG));
            }
            // Nothing is acknowledged before the target's engine has deposited the messages.
            p.nodeA.doWork();
            p.nodeA.doWork();
            assertEquals(GniRc.NOT_DONE, p.cqA.getEvent());
            assertEquals(5, p.epA.outstanding());
            for (int i = 0; i < 5; i++)
            {
                assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
                final long local = p.cqA.event();
                assertEquals(GniCqEntry.TYPE_SMSG, GniCqEntry.type(local));
                assertEquals(100 + i, GniCqEntry.msgId(local));
                assertFalse(GniCqEntry.error(local));
                assertEquals(GniRc.SUCCESS, rx[1].getEvent());
            }
            assertEquals(GniRc.NOT_DONE, p.cqA.getEvent());
            assertEquals(0, p.epA.outstanding());
            assertEquals(5, p.nodeB.stats().ackWords());
            // B sent no ACK frame for them (and no credit frame yet: nothing released).
            assertEquals(framesFromB, p.nodeB.stats().framesSent());
            for (int i = 0; i < 5; i++)
            {
                assertEquals("w", next(p.epB));
            }
        }
    }

    @Test
    void shouldFreezeTheWordAtARefusalAndAcknowledgeByFramesAfterIt()
    {
        try (AriesPair p = new AriesPair())
        {
            // A believes B's mailbox holds 4 messages; it holds 2: the third is refused (mailbox full, a NACK).
            final GniCq rxA = p.nicA.cqCreate(16);
            final GniCq rxB = p.nicB.cqCreate(16);
            final SmsgAttr localA = attr(4, rxA);
            final SmsgAttr localB = attr(2, rxB);
            assertEquals(GniRc.SUCCESS, p.epA.smsgInit(localA, attr(4, rxB)));
            assertEquals(GniRc.SUCCESS, p.epB.smsgInit(localB, localA));
            final UnsafeBuffer data = bytes("f");
            for (int i = 0; i < 3; i++)
            {
                assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, i, TAG));
            }
            p.fixture.quiesce();
            assertEquals(2, p.nodeB.stats().ackWords());
            assertLocalEvent(p, 0, false);
            assertLocalEvent(p, 1, false);
            assertLocalEvent(p, 2, true);
            // The refused message gave its credit back; after B releases, the next deposits are acknowledged by
            // frames (the word stays frozen), still one event each, in order.
            assertEquals("f", next(p.epB));
            assertEquals("f", next(p.epB));
            p.fixture.quiesce();
            final long framesFromB = p.nodeB.stats().framesSent();
            assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 3, TAG));
            assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 4, TAG));
            p.fixture.quiesce();
            assertLocalEvent(p, 3, false);
            assertLocalEvent(p, 4, false);
            assertEquals(GniRc.NOT_DONE, p.cqA.getEvent());
            assertEquals(2, p.nodeB.stats().ackWords());
            assertEquals(framesFromB + 2, p.nodeB.stats().framesSent());
            assertEquals("f", next(p.epB));
            assertEquals("f", next(p.epB));
        }
    }

    @Test
    void shouldFailMessagesToAnUnpairedTargetInOrderAfterTheDepositedOnes()
    {
        try (AriesPair p = new AriesPair())
        {
            smsgInit(p, 8, 64, 16);
            final UnsafeBuffer data = bytes("u");
            assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 7, TAG));
            p.nodeA.doWork();
            p.nodeB.doWork();
            // B's endpoint goes away with the message deposited but A not yet stepped: the word holds its ACK.
            assertEquals(GniRc.SUCCESS, p.epB.unbind());
            assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 8, TAG));
            assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 9, TAG));
            p.fixture.quiesce();
            assertLocalEvent(p, 7, false);
            assertLocalEvent(p, 8, true);
            assertLocalEvent(p, 9, true);
            assertEquals(GniRc.NOT_DONE, p.cqA.getEvent());
            assertEquals(0, p.epA.outstanding());
        }
    }

    @Test
    void shouldLeaveTheRegistryWhenThePairingEnds()
    {
        final int before = SmsgAckWord.registered();
        try (AriesPair p = new AriesPair())
        {
            smsgInit(p, 4, 64, 16);
            assertEquals(before + 2, SmsgAckWord.registered());
            assertEquals(GniRc.SUCCESS, p.epB.unbind());
            assertEquals(before + 1, SmsgAckWord.registered());
        }
        assertEquals(before, SmsgAckWord.registered());
    }

    private static SmsgAttr attr(final int credits, final GniCq rxCq)
    {
        final SmsgAttr attr = new SmsgAttr();
        attr.maxCredit = credits;
        attr.msgMaxSize = 64;
        attr.rxCq = rxCq;
        return attr;
    }

    private static void assertLocalEvent(final AriesPair p, final long msgId, final boolean error)
    {
        final int rc = p.cqA.getEvent();
        assertEquals(error ? GniRc.TRANSACTION_ERROR : GniRc.SUCCESS, rc);
        final long event = p.cqA.event();
        assertEquals(GniCqEntry.TYPE_SMSG, GniCqEntry.type(event));
        assertEquals(msgId, GniCqEntry.msgId(event));
        assertEquals(error, GniCqEntry.error(event));
    }
}
