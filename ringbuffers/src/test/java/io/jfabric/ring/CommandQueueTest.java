/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command queue as the agent uses it: opcode and length handed back as claimed, order kept, ABORT leaves a
 * command in place, BREAK stops after it, positions meet when drained, a full ring refuses until read.
 */
@Timeout(30)
class CommandQueueTest
{
    private static final int OP_SEND = 1;
    private static final int OP_TRECV = 4;
    private static final int OP_NOP = 9;

    private static int post(final CommandQueue queue, final int opcode, final int length, final long value)
    {
        final int index = queue.tryClaim(opcode, length);
        if (index >= 0)
        {
            for (int i = 0; i + 8 <= length; i += 8)
            {
                queue.buffer().putLong(index + i, value + i);
            }
            queue.commit(index);
        }
        return index;
    }

    /**
     * Records (opcode, length, first long) and answers from a script, then CONTINUE.
     */
    private static final class Recorder implements ControlledMessageHandler
    {
        final List<long[]> seen = new ArrayList<>();
        final List<Action> script = new ArrayList<>();

        public Action onMessage(
            final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            final long value = length >= 8 ? buffer.getLong(index) : -1;
            for (int i = 0; i + 8 <= length; i += 8)
            {
                assertEquals(value + i, buffer.getLong(index + i), "torn command body");
            }
            seen.add(new long[]{msgTypeId, length, value});
            return script.isEmpty() ? Action.CONTINUE : script.remove(0);
        }
    }

    @Test
    void shouldHandBackOpcodeLengthAndBodyInOrder()
    {
        final CommandQueue queue = new CommandQueue(1 << 16);
        assertTrue(post(queue, OP_SEND, 72, 100) >= 0);
        assertTrue(post(queue, OP_TRECV, 72 + 8 * 16, 200) >= 0);
        assertTrue(post(queue, OP_NOP, 0, 0) >= 0);
        final Recorder recorder = new Recorder();
        assertEquals(3, queue.controlledRead(recorder, 10));
        assertEquals(OP_SEND, recorder.seen.get(0)[0]);
        assertEquals(72, recorder.seen.get(0)[1]);
        assertEquals(100, recorder.seen.get(0)[2]);
        assertEquals(OP_TRECV, recorder.seen.get(1)[0]);
        assertEquals(200, recorder.seen.get(1)[1]);
        assertEquals(200, recorder.seen.get(1)[2]);
        assertEquals(OP_NOP, recorder.seen.get(2)[0]);
        assertEquals(0, recorder.seen.get(2)[1]);
        assertEquals(queue.producerPosition(), queue.consumerPosition());
    }

    @Test
    void shouldLeaveAnAbortedCommandInPlaceAndStopAfterABreak()
    {
        final CommandQueue queue = new CommandQueue(1 << 16);
        for (int i = 0; i < 4; i++)
        {
            post(queue, 1 + i, 80, i * 1000L);
        }
        final Recorder recorder = new Recorder();
        recorder.script.add(ControlledMessageHandler.Action.CONTINUE);
        recorder.script.add(ControlledMessageHandler.Action.ABORT);
        assertEquals(1, queue.controlledRead(recorder, 10));
        assertEquals(2, recorder.seen.size());
        assertTrue(queue.consumerPosition() < queue.producerPosition());
        recorder.script.add(ControlledMessageHandler.Action.BREAK);
        assertEquals(1, queue.controlledRead(recorder, 10));
        assertEquals(2, recorder.seen.get(2)[0]);
        assertEquals(2, queue.controlledRead(recorder, 10));
        assertEquals(3, recorder.seen.get(3)[0]);
        assertEquals(4, recorder.seen.get(4)[0]);
        assertEquals(3000, recorder.seen.get(4)[2]);
        assertEquals(queue.producerPosition(), queue.consumerPosition());
    }

    @Test
    void shouldRefuseWhenFullAndAcceptAgainAfterReading()
    {
        final CommandQueue queue = new CommandQueue(1 << 12);
        int posted = 0;
        while (post(queue, 1, 72, posted) >= 0)
        {
            posted++;
        }
        assertTrue(posted > 10);
        assertTrue(queue.tryClaim(1, 72) < 0);
        final Recorder recorder = new Recorder();
        assertEquals(posted, queue.controlledRead(recorder, Integer.MAX_VALUE));
        assertTrue(post(queue, 1, 72, 7) >= 0);
        final DirectBuffer unused = queue.buffer();
        assertTrue(unused.capacity() > 0);
        assertThrows(IllegalArgumentException.class, () -> queue.tryClaim(1, queue.maxCommandLength() + 1));
    }
}
