/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.concurrent.AtomicBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static io.jfabric.ring.CommandRingTest.newRing;
import static io.jfabric.ring.CommandRingTest.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CommandRing#controlledDrain}: a handler that answers ABORT leaves the command in place, whole, for the next
 * drain; BREAK consumes and stops; positions and sizes stay exact.
 */
@Timeout(30)
class ControlledDrainTest
{
    private static final int CAPACITY = 64;

    /**
     * Records (first body long, slots) and checks every body long; answers from a script of actions, then CONTINUE.
     */
    static final class Scripted implements ControlledCommandHandler
    {
        final List<long[]> seen = new ArrayList<>();
        final List<Action> script = new ArrayList<>();

        Scripted(final Action... actions)
        {
            script.addAll(List.of(actions));
        }

        public Action onCommand(final AtomicBuffer buffer, final int offset, final int slots)
        {
            final long value = buffer.getLong(offset);
            final int bodyLength = CommandRingDescriptor.bodyLength(slots);
            for (int i = 0; i + 8 <= bodyLength; i += 8)
            {
                assertEquals(value + i, buffer.getLong(offset + i), "torn or changed body at " + i);
            }
            seen.add(new long[]{ value, slots });
            return script.isEmpty() ? Action.CONTINUE : script.remove(0);
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldLeaveAnAbortedCommandInPlaceAndHandItOverAgainWhole(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        post(ring, 3, 1L << 16);
        post(ring, 1, 2L << 16);
        final long head = ring.consumerPosition();

        final Scripted abort = new Scripted(ControlledCommandHandler.Action.ABORT);
        assertEquals(0, ring.controlledDrain(abort, 10));
        assertEquals(1, abort.seen.size());
        assertEquals(head, ring.consumerPosition());
        assertEquals(4, ring.size());

        final Scripted again = new Scripted();
        assertEquals(2, ring.controlledDrain(again, 10));
        assertEquals(1L << 16, again.seen.get(0)[0]);
        assertEquals(3, again.seen.get(0)[1]);
        assertEquals(2L << 16, again.seen.get(1)[0]);
        assertEquals(0, ring.size());
        assertEquals(ring.producerPosition(), ring.consumerPosition());
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldConsumeCommandsBeforeTheAbortedOneAndKeepTheOrderBehindIt(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        for (int i = 0; i < 5; i++)
        {
            post(ring, 1 + i % 2, (long) i << 16);
        }
        final Scripted handler = new Scripted(ControlledCommandHandler.Action.CONTINUE,
            ControlledCommandHandler.Action.CONTINUE, ControlledCommandHandler.Action.ABORT);
        assertEquals(2, ring.controlledDrain(handler, 10));
        assertEquals(3, handler.seen.size());
        assertEquals(1 + 1 + 2, ring.size());
        final Scripted rest = new Scripted();
        assertEquals(3, ring.controlledDrain(rest, 10));
        assertEquals(2L << 16, rest.seen.get(0)[0]);
        assertEquals(3L << 16, rest.seen.get(1)[0]);
        assertEquals(4L << 16, rest.seen.get(2)[0]);
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldStopAfterABreakHavingConsumedTheCommand(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        post(ring, 1, 1L << 16);
        post(ring, 1, 2L << 16);
        final Scripted handler = new Scripted(ControlledCommandHandler.Action.BREAK);
        assertEquals(1, ring.controlledDrain(handler, 10));
        assertEquals(1, handler.seen.size());
        assertEquals(1, ring.size());
        assertEquals(1, ring.controlledDrain(new Scripted(), 10));
        assertEquals(0, ring.size());
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldSkipPaddingAndProducerAbortsBeforeAnAbortedCommand(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        // Fill to near the end, drain, so that the next multi-slot command pads to the end of the ring.
        for (int i = 0; i < 60; i++)
        {
            post(ring, 1, (long) i << 16);
        }
        assertEquals(60, ring.controlledDrain(new Scripted(), 100));
        final int aborted = ring.tryClaim(2);
        ring.abort(aborted);
        post(ring, 5, 7L << 16);
        final long before = ring.consumerPosition();
        final Scripted abort = new Scripted(ControlledCommandHandler.Action.ABORT);
        assertEquals(0, ring.controlledDrain(abort, 10));
        assertEquals(7L << 16, abort.seen.get(0)[0]);
        // The producer's aborted slots and the padding were skipped; the aborted command waits at the head.
        assertTrue(ring.consumerPosition() > before);
        assertEquals(5, ring.size());
        final Scripted again = new Scripted();
        assertEquals(1, ring.controlledDrain(again, 10));
        assertEquals(7L << 16, again.seen.get(0)[0]);
        assertEquals(5, again.seen.get(0)[1]);
        assertEquals(0, ring.size());
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldDeliverEveryCommandOnceInOrderWithRandomAbortsOverManyLaps(final boolean manyToOne)
    {
        final SplittableRandom random = new SplittableRandom(42);
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        long posted = 0;
        long expected = 0;
        for (int round = 0; round < 2_000; round++)
        {
            while (post(ring, 1 + random.nextInt(ring.maxCommandSlots()), posted << 16) > 0)
            {
                posted++;
                if (random.nextInt(4) == 0)
                {
                    break;
                }
            }
            final ControlledCommandHandler.Action[] actions = new ControlledCommandHandler.Action[4];
            for (int i = 0; i < actions.length; i++)
            {
                actions[i] = ControlledCommandHandler.Action.values()[random.nextInt(3)];
            }
            final Scripted handler = new Scripted(actions);
            final int consumed = ring.controlledDrain(handler, 1 + random.nextInt(6));
            int counted = 0;
            for (int i = 0; i < handler.seen.size(); i++)
            {
                // Each command handed over is the next expected one, or the same one again after an ABORT.
                final long value = handler.seen.get(i)[0] >> 16;
                assertEquals(expected, value, "round " + round);
                final boolean wasAborted = i < actions.length && ControlledCommandHandler.Action.ABORT == actions[i];
                if (!wasAborted)
                {
                    expected++;
                    counted++;
                }
            }
            assertEquals(counted, consumed);
        }
        assertEquals(posted - expected, ring.controlledDrain(new Scripted(), Integer.MAX_VALUE) + 0L);
        assertEquals(0, ring.size());
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldCountAThrowingHandlersCommandAsConsumed(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        post(ring, 1, 1L << 16);
        post(ring, 1, 2L << 16);
        assertThrows(IllegalStateException.class, () -> ring.controlledDrain(
            (buffer, offset, slots) ->
            {
                throw new IllegalStateException("handler failure");
            }, 1));
        final Scripted rest = new Scripted();
        assertEquals(1, ring.controlledDrain(rest, 10));
        assertEquals(2L << 16, rest.seen.get(0)[0]);
    }
}
