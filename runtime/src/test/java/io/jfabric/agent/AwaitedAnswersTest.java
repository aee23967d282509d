package io.jfabric.agent;

import io.jfabric.Errno;
import io.jfabric.Flags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.function.LongUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent's own request → answer table (runtime v2: transports no longer track what awaits an answer).
 */
@Timeout(60)
class AwaitedAnswersTest
{
    /** Keys as shm builds them: peer domain in the high bits, endpoint in the low 16. */
    private static final LongUnaryOperator DOMAIN_OF = key -> key >>> 16;

    private static long key(final int domain, final int endpoint)
    {
        return ((long) domain << 16) | endpoint;
    }

    @Test
    void shouldFindARecordOnlyByItsWholeKeyAndForgetItOnceRemoved()
    {
        final AwaitedAnswers table = new AwaitedAnswers(16);
        table.add(key(1, 3), 2, 77, FrameDescriptor.OPCODE_ACK, FrameDescriptor.FLAG_WANT_COMPLETION, Flags.TAGGED);
        assertEquals(1, table.size());
        final int found = table.find(key(1, 3), 2, 77, FrameDescriptor.OPCODE_ACK);
        assertTrue(found >= 0);
        assertEquals(-1, table.find(key(1, 4), 2, 77, FrameDescriptor.OPCODE_ACK), "another peer endpoint");
        assertEquals(-1, table.find(key(1, 3), 1, 77, FrameDescriptor.OPCODE_ACK), "another local endpoint");
        assertEquals(-1, table.find(key(1, 3), 2, 78, FrameDescriptor.OPCODE_ACK), "another cookie");
        assertEquals(-1, table.find(key(1, 3), 2, 77, FrameDescriptor.OPCODE_FIN), "another answer");
        table.removeAt(found);
        assertEquals(0, table.size());
        assertEquals(-1, table.find(key(1, 3), 2, 77, FrameDescriptor.OPCODE_ACK));
    }

    @Test
    void shouldFailEveryRecordOfTheDeadPeerDomainAndKeepTheOthers()
    {
        final AwaitedAnswers table = new AwaitedAnswers(16);
        table.add(key(1, 0), 0, 10, FrameDescriptor.OPCODE_ACK, FrameDescriptor.FLAG_WANT_COMPLETION, Flags.MSG);
        table.add(key(2, 0), 0, 20, FrameDescriptor.OPCODE_RMA_ACK, 0, 0);
        table.add(key(1, 5), 3, 11, FrameDescriptor.OPCODE_FIN, FrameDescriptor.FLAG_TAGGED, Flags.TAGGED);
        table.add(key(1, 5), 3, 4, AwaitedAnswers.ANSWER_WRITE_DATA, 0, 0);
        table.add(key(2, 7), 1, 21, FrameDescriptor.OPCODE_READ_RESP, FrameDescriptor.FLAG_WANT_COMPLETION, 0);

        assertEquals(3, table.failPeer(DOMAIN_OF, 1, Errno.EIO.value()));
        assertEquals(2, table.size());
        assertEquals(3, table.failures());
        assertTrue(table.find(key(2, 0), 0, 20, FrameDescriptor.OPCODE_RMA_ACK) >= 0);
        assertTrue(table.find(key(2, 7), 1, 21, FrameDescriptor.OPCODE_READ_RESP) >= 0);
        assertEquals(-1, table.find(key(1, 0), 0, 10, FrameDescriptor.OPCODE_ACK));

        long cookies = 0;
        int writeData = 0;
        for (int i = 0; i < 3; i++)
        {
            assertEquals(Errno.EIO.value(), table.failedStatus());
            assertEquals(1, DOMAIN_OF.applyAsLong(table.failedPeer()));
            if (FrameDescriptor.OPCODE_ACK == table.failedAnswer())
            {
                assertEquals(0, table.failedEndpoint());
                assertEquals(Flags.MSG, table.failedTag());
                assertEquals(FrameDescriptor.FLAG_WANT_COMPLETION, table.failedFlags());
            }
            else if (FrameDescriptor.OPCODE_FIN == table.failedAnswer())
            {
                assertEquals(3, table.failedEndpoint());
                assertEquals(Flags.TAGGED, table.failedTag());
            }
            else
            {
                assertEquals(AwaitedAnswers.ANSWER_WRITE_DATA, table.failedAnswer());
                writeData++;
            }
            cookies += table.failedCookie();
            table.consumeFailure();
        }
        assertEquals(10 + 11 + 4, cookies);
        assertEquals(1, writeData);
        assertEquals(0, table.failures());
        assertEquals(0, table.failPeer(DOMAIN_OF, 1, Errno.EIO.value()), "nothing left of that domain");
    }

    @Test
    void shouldKeepEveryRecordFindableThroughGrowthAndRemovals()
    {
        final AwaitedAnswers table = new AwaitedAnswers(16);
        final int n = 5000;
        for (int i = 0; i < n; i++)
        {
            table.add(key(i % 7, i % 3), i % 5, i, FrameDescriptor.OPCODE_ATOMIC_RESP, i, 0);
        }
        assertEquals(n, table.size());
        for (int i = 0; i < n; i += 2)
        {
            final int found = table.find(key(i % 7, i % 3), i % 5, i, FrameDescriptor.OPCODE_ATOMIC_RESP);
            assertTrue(found >= 0, "record " + i);
            table.removeAt(found);
        }
        assertEquals(n / 2, table.size());
        for (int i = 0; i < n; i++)
        {
            final int found = table.find(key(i % 7, i % 3), i % 5, i, FrameDescriptor.OPCODE_ATOMIC_RESP);
            assertEquals(i % 2 == 1, found >= 0, "record " + i);
        }
    }

    @Test
    void shouldDeliverFailuresInOrderWhenTheirQueueGrows()
    {
        final AwaitedAnswers table = new AwaitedAnswers(16);
        for (int i = 0; i < 300; i++)
        {
            table.enqueueFailure(key(9, 0), 0, i, FrameDescriptor.OPCODE_RDATA, 0, 0, 100 + i);
            if (i % 3 == 2)
            {
                table.consumeFailure();
            }
        }
        int expected = 100;
        assertEquals(200, table.failures());
        while (table.failures() > 0)
        {
            assertEquals(expected + 100, table.failedStatus());
            assertEquals(expected, table.failedCookie());
            table.consumeFailure();
            expected++;
        }
        assertEquals(300, expected);
    }
}
