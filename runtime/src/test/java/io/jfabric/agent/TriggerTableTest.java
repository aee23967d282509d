package io.jfabric.agent;

import io.jfabric.Flags;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The held store of {@link TriggerTable} on the agent's side, driven the way the duty cycle drives it (the send ring
 * through {@code gate}, then {@code fire}), with the interleavings a second thread can produce made explicit.
 */
final class TriggerTableTest
{
    private static final int[] THRESHOLDS = {3, 1, 2, 2, 5};

    private final AtomicReferenceArray<EndpointState> endpoints = new AtomicReferenceArray<>(1);
    private final List<Long> issued = new ArrayList<>();
    private final CommandFlyweight reader = new CommandFlyweight();
    private final TriggerTable table;
    private final CounterCell trigger = new CounterCell();
    private final UnsafeBuffer record = new UnsafeBuffer(ByteBuffer.allocateDirect(CommandDescriptor.HEADER_LENGTH));
    private final int[] contexts = new int[THRESHOLDS.length];

    TriggerTableTest()
    {
        endpoints.set(0, new EndpointState(0, 64, 64, 8192, 1 << 20));
        table = new TriggerTable(endpoints, (type, buffer, index, length) ->
        {
            issued.add(reader.wrap(buffer, index).tag());
            return ControlledMessageHandler.Action.CONTINUE;
        });
        for (int i = 0; i < THRESHOLDS.length; i++)
        {
            contexts[i] = table.openContext(trigger, THRESHOLDS[i], TriggerTable.WORK_NONE, 0, null, 0, null);
            assertTrue(contexts[i] >= 0);
        }
    }

    @Test
    void shouldWaitForPostsStillInTheRingBeforeIssuingInThresholdOrder()
    {
        // Five posts, each counted by reserve before its command is committed; the agent reads the first three,
        // then the application commits the other two and moves the counter before the agent's fire.
        for (int i = 0; i < THRESHOLDS.length; i++)
        {
            assertTrue(table.reserve(contexts[i]));
        }
        ringRead(0, 3);
        trigger.set(4);

        assertEquals(1, table.fire(), "a cycle of work, nothing issued while two posts are in the ring");
        assertEquals(List.of(), issued);

        ringRead(3, 5);
        assertEquals(4, table.fire());
        assertEquals(List.of(1L, 2L, 3L, 0L), issued, "threshold order, ties in posting order");
        assertEquals(1, table.pending(contexts[4]));

        trigger.add(1);
        assertEquals(1, table.fire());
        assertEquals(List.of(1L, 2L, 3L, 0L, 4L), issued);
    }

    @Test
    void shouldIssueWhatIsHeldWhenAPostStaysInTheRing()
    {
        // A post that never reaches the store (its ring's head waits on a held operation) delays firing a bounded
        // number of cycles, never for ever.
        for (int i = 0; i < THRESHOLDS.length; i++)
        {
            assertTrue(table.reserve(contexts[i]));
        }
        ringRead(0, 4);
        trigger.set(4);
        int cycles = 0;
        while (issued.isEmpty())
        {
            assertEquals(1, table.fire() > 0 ? 1 : 0, "every cycle reports work");
            assertTrue(++cycles <= 64, "fired within a bounded number of cycles");
        }
        assertEquals(List.of(1L, 2L, 3L, 0L), issued);
        assertTrue(cycles > 1, "waited at least one cycle for the post in transit");
    }

    @Test
    void shouldIssueAtOnceWhenNothingIsInTheRing()
    {
        for (int i = 0; i < 4; i++)
        {
            assertTrue(table.reserve(contexts[i]));
        }
        ringRead(0, 4);
        trigger.set(2);
        assertEquals(3, table.fire());
        assertEquals(List.of(1L, 2L, 3L), issued);
    }

    private void ringRead(final int from, final int to)
    {
        for (int i = from; i < to; i++)
        {
            new CommandFlyweight().wrapForEncode(record, 0)
                .endpoint(0).flags(Flags.TRIGGER | Flags.COMPLETION).context(table.handle(contexts[i])).tag(i);
            assertEquals(ControlledMessageHandler.Action.CONTINUE,
                table.gate.onMessage(1, record, 0, CommandDescriptor.HEADER_LENGTH));
        }
    }
}
