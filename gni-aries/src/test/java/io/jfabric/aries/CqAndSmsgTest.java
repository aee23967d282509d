package io.jfabric.aries;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CqAndSmsgTest
{
    static final int TAG = 10;

    /**
     * Pair both endpoints' mailboxes; remote events of each side go to {@code rx}.
     */
    static GniCq[] smsgInit(final AriesPair p, final int credits, final int maxSize, final int rxEntries)
    {
        final GniCq rxA = p.nicA.cqCreate(rxEntries);
        final GniCq rxB = p.nicB.cqCreate(rxEntries);
        final SmsgAttr localA = new SmsgAttr();
        localA.maxCredit = credits;
        localA.msgMaxSize = maxSize;
        localA.rxCq = rxA;
        final SmsgAttr localB = new SmsgAttr();
        localB.maxCredit = credits;
        localB.msgMaxSize = maxSize;
        localB.rxCq = rxB;
        assertEquals(GniRc.SUCCESS, p.epA.smsgInit(localA, localB));
        assertEquals(GniRc.SUCCESS, p.epB.smsgInit(localB, localA));
        return new GniCq[]{rxA, rxB};
    }

    static UnsafeBuffer bytes(final String text)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(text.length()));
        buffer.putStringWithoutLengthAscii(0, text);
        return buffer;
    }

    static String next(final GniEp ep)
    {
        assertEquals(GniRc.SUCCESS, ep.smsgGetNextWTag(GniEp.SMSG_ANY_TAG));
        final String text = ep.smsgMessage().getStringWithoutLengthAscii(0, ep.smsgMessage().capacity());
        assertEquals(GniRc.SUCCESS, ep.smsgRelease());
        return text;
    }

    @Test
    void shouldDepositWithRemoteEventAndCompleteSenderWithLocalEvent()
    {
        try (AriesPair p = new AriesPair())
        {
            final GniCq[] rx = smsgInit(p, 4, 64, 16);
            p.epA.setEventData(0xA1, 0xB2);
            final UnsafeBuffer hdr = bytes("hdr:");
            final UnsafeBuffer data = bytes("payload");
            assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(hdr, 0, 4, data, 0, 7, 0x1234_5678L, TAG));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(rx[1]));
            final long remote = rx[1].event();
            assertEquals(GniCqEntry.TYPE_SMSG, GniCqEntry.type(remote));
            assertTrue(GniCqEntry.remote(remote));
            assertEquals(0xB2, GniCqEntry.instId(remote));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
            final long local = p.cqA.event();
            assertEquals(GniCqEntry.TYPE_SMSG, GniCqEntry.type(local));
            assertEquals(0xA1, GniCqEntry.instId(local));
            assertEquals(0x1234_5678L, GniCqEntry.msgId(local));
            assertFalse(GniCqEntry.remote(local));
            assertEquals(GniRc.NO_MATCH, p.epB.smsgGetNextWTag(TAG + 1));
            assertEquals(GniRc.SUCCESS, p.epB.smsgGetNextWTag(TAG));
            assertEquals(TAG, p.epB.smsgTag());
            assertEquals("hdr:payload", p.epB.smsgMessage().getStringWithoutLengthAscii(0, 11));
            assertEquals(GniRc.SUCCESS, p.epB.smsgRelease());
            assertEquals(GniRc.INVALID_STATE, p.epB.smsgRelease());
            assertEquals(GniRc.NOT_DONE, p.epB.smsgGetNextWTag(GniEp.SMSG_ANY_TAG));
        }
    }

    @Test
    void shouldAnswerNotDoneWithoutCreditAndResumeWhenReleased()
    {
        try (AriesPair p = new AriesPair())
        {
            smsgInit(p, 3, 64, 16);
            final UnsafeBuffer data = bytes("m");
            for (int i = 0; i < 3; i++)
            {
                assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, i, TAG));
            }
            assertEquals(0, p.epA.smsgCredits());
            assertEquals(GniRc.NOT_DONE, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 3, TAG));
            p.fixture.quiesce();
            // Delivered but not released: still no credit.
            assertEquals(GniRc.NOT_DONE, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 3, TAG));
            assertEquals(2, p.nodeA.stats().creditStalls());
            assertEquals("m", next(p.epB));
            p.fixture.quiesce();
            assertEquals(1, p.epA.smsgCredits());
            assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 3, TAG));
        }
    }

    @Test
    void shouldReturnCreditsInQuarterMailboxBatches()
    {
        try (AriesPair p = new AriesPair(null, null, 128))
        {
            smsgInit(p, SmsgAttr.DEFAULT_MAX_CREDIT, 64, 128);
            final UnsafeBuffer data = bytes("c");
            for (int i = 0; i < 64; i++)
            {
                assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, i, TAG));
            }
            assertEquals(GniRc.NOT_DONE, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 64, TAG));
            p.fixture.quiesce();
            for (int i = 0; i < 15; i++)
            {
                assertEquals("c", next(p.epB));
            }
            p.fixture.quiesce();
            assertEquals(0, p.epA.smsgCredits());
            assertEquals("c", next(p.epB));
            p.fixture.quiesce();
            assertEquals(16, p.epA.smsgCredits());
        }
    }

    @Test
    void shouldRefuseMessagesAboveMailboxSizeAndBeforeInit()
    {
        try (AriesPair p = new AriesPair())
        {
            final UnsafeBuffer data = new UnsafeBuffer(ByteBuffer.allocateDirect(SmsgAttr.DEFAULT_MSG_MAX_SIZE + 1));
            assertEquals(GniRc.INVALID_STATE, p.epA.smsgSendWTag(null, 0, 0, data, 0, 8, 0, TAG));
            assertEquals(GniRc.INVALID_STATE, p.epB.smsgGetNextWTag(GniEp.SMSG_ANY_TAG));
            final GniEp unbound = p.nicA.epCreate(p.cqA);
            assertEquals(GniRc.INVALID_STATE, unbound.smsgInit(new SmsgAttr(), new SmsgAttr()));
            final GniCq[] rx = smsgInit(p, SmsgAttr.DEFAULT_MAX_CREDIT, SmsgAttr.DEFAULT_MSG_MAX_SIZE, 128);
            assertEquals(64, p.epA.smsgCredits());
            assertEquals(GniRc.ERROR_RESOURCE, p.epA.smsgSendWTag(data, 0, 8, data, 0,
                SmsgAttr.DEFAULT_MSG_MAX_SIZE - 7, 0, TAG));
            assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(data, 0, 8, data, 0,
                SmsgAttr.DEFAULT_MSG_MAX_SIZE - 8, 0, TAG));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(rx[1]));
            assertEquals(GniRc.SUCCESS, p.epB.smsgGetNextWTag(TAG));
            assertEquals(SmsgAttr.DEFAULT_MSG_MAX_SIZE, p.epB.smsgMessage().capacity());
            assertEquals(GniRc.INVALID_PARAM, p.epA.smsgSendWTag(null, 0, 0, data, 0, 1, 0, GniEp.SMSG_ANY_TAG));
            assertEquals(64L * 16448 + 64, new SmsgAttr().bufferSizeNeeded());
        }
    }

    @Test
    void shouldDeliverInSendOrderPerPair()
    {
        try (AriesPair p = new AriesPair())
        {
            smsgInit(p, 8, 64, 64);
            for (int round = 0; round < 5; round++)
            {
                for (int i = 0; i < 8; i++)
                {
                    final UnsafeBuffer data = bytes("r" + round + "m" + i);
                    assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, data.capacity(), i, TAG));
                }
                p.fixture.quiesce();
                for (int i = 0; i < 8; i++)
                {
                    assertEquals("r" + round + "m" + i, next(p.epB));
                }
                p.fixture.quiesce();
            }
        }
    }

    @Test
    void shouldReportOverrunOnceThenClearWithNothingLost()
    {
        try (AriesPair p = new AriesPair())
        {
            final GniCq[] rx = smsgInit(p, 16, 64, 3);
            for (int i = 0; i < 7; i++)
            {
                final UnsafeBuffer data = bytes("msg" + i);
                assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, data.capacity(), i, TAG));
            }
            p.fixture.quiesce();
            assertEquals(4, p.nodeB.stats().cqOverruns());
            assertEquals(GniRc.ERROR_RESOURCE, rx[1].testEvent());
            assertEquals(GniRc.ERROR_RESOURCE, rx[1].getEvent());
            for (int i = 0; i < 3; i++)
            {
                assertEquals(GniRc.SUCCESS, rx[1].getEvent());
                assertEquals(i, GniCqEntry.msgId(rx[1].event()));
            }
            assertEquals(GniRc.NOT_DONE, rx[1].getEvent());
            // Recovery as upstream does it: drain the mailbox; every message is there, in order.
            for (int i = 0; i < 7; i++)
            {
                assertEquals("msg" + i, next(p.epB));
            }
            assertEquals(GniRc.NOT_DONE, p.epB.smsgGetNextWTag(GniEp.SMSG_ANY_TAG));
            // Later events flow normally.
            final UnsafeBuffer data = bytes("after");
            assertEquals(GniRc.SUCCESS, p.epA.smsgSendWTag(null, 0, 0, data, 0, 5, 99, TAG));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(rx[1]));
            assertEquals(99, GniCqEntry.msgId(rx[1].event()));
            assertEquals("after", next(p.epB));
        }
    }

    @Test
    void shouldRaiseCqWriteEventAtRegistrationsDestinationCq()
    {
        try (AriesPair p = new AriesPair())
        {
            final GniCq irq = p.nicB.cqCreate(4);
            final UnsafeBuffer page = AriesFixture.memory(4096);
            final MemHandle handle = new MemHandle();
            assertEquals(GniRc.SUCCESS, p.nicB.memRegister(page, 0, 4096, irq, 0, 0, handle));
            p.epA.setEventData(1, 0x77);
            final PostDescriptor d = new PostDescriptor();
            d.type = TransactionKind.CQWRITE;
            d.remoteMemHandle.set(handle);
            d.firstOperand = 0xCAFE;
            assertEquals(GniRc.SUCCESS, p.epA.postCqWrite(d));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(irq));
            assertEquals(0xCAFE, GniCqEntry.msgId(irq.event()));
            assertEquals(0x77, GniCqEntry.instId(irq.event()));
            assertTrue(GniCqEntry.remote(irq.event()));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
        }
    }
}
