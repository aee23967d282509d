/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random single-threaded sequences of claims (several outstanding at once), commits and aborts in any order, and
 * bounded drains, checked against a small reference model of positions, padding and delivery order.
 */
class CommandRingPropertyTest
{
    private static final int CAPACITY = 32;

    /**
     * A record in the model: padding, or a command that is pending, committed or aborted.
     */
    private static final class ModelRecord
    {
        final long id;
        final int slots;
        final boolean padding;
        int state; // 0 pending, 1 committed, 2 aborted
        int index;

        ModelRecord(final long id, final int slots, final boolean padding)
        {
            this.id = id;
            this.slots = slots;
            this.padding = padding;
        }
    }

    @Provide
    Arbitrary<List<Integer>> operations()
    {
        return Arbitraries.integers().between(0, 999).list().ofMinSize(1).ofMaxSize(400);
    }

    @Property(tries = 200)
    void shouldMatchReferenceModelForManyToOne(@ForAll("operations") final List<Integer> operations)
    {
        check(CommandRingTest.newRing(true, CAPACITY), operations);
    }

    @Property(tries = 200)
    void shouldMatchReferenceModelForOneToOne(@ForAll("operations") final List<Integer> operations)
    {
        check(CommandRingTest.newRing(false, CAPACITY), operations);
    }

    private static void check(final CommandRing ring, final List<Integer> operations)
    {
        final int max = ring.maxCommandSlots();
        final ArrayDeque<ModelRecord> records = new ArrayDeque<>();
        final List<ModelRecord> outstanding = new ArrayList<>();
        final CommandRingTest.Recorder recorder = new CommandRingTest.Recorder();
        long head = 0;
        long tail = 0;
        long nextId = 1;

        for (final int op : operations)
        {
            final int kind = op % 4;
            final int arg = op / 4;
            if (kind <= 1)
            {
                final int slots = 1 + arg % max;
                final int toEnd = CAPACITY - (int) (tail % CAPACITY);
                final int padding = slots > toEnd ? toEnd : 0;
                final boolean fits = padding + slots <= CAPACITY - (tail - head);
                final int index = ring.tryClaim(slots);
                assertEquals(fits, index > 0, "claim of " + slots + " at tail " + tail + " head " + head);
                if (!fits)
                {
                    assertEquals(RingStatus.INSUFFICIENT_CAPACITY, index);
                    continue;
                }
                if (padding > 0)
                {
                    final ModelRecord pad = new ModelRecord(0, padding, true);
                    pad.state = 2;
                    records.add(pad);
                }
                final ModelRecord record = new ModelRecord(nextId++, slots, false);
                record.index = index;
                final int bodyLength = CommandRingDescriptor.bodyLength(slots);
                for (int i = 0; i < bodyLength; i += 8)
                {
                    ring.buffer().putLong(index + i, (record.id << 16) + i);
                }
                records.add(record);
                outstanding.add(record);
                tail += padding + slots;
            }
            else if (kind == 2 && !outstanding.isEmpty())
            {
                final ModelRecord record = outstanding.remove(arg % outstanding.size());
                if (arg % 5 == 0)
                {
                    ring.abort(record.index);
                    record.state = 2;
                }
                else
                {
                    ring.commit(record.index);
                    record.state = 1;
                }
            }
            else
            {
                final int limit = arg % 6;
                final int before = recorder.seen.size();
                final int drained = ring.drain(recorder, limit);
                int expected = 0;
                while (expected < limit && !records.isEmpty() && records.peekFirst().state != 0)
                {
                    final ModelRecord record = records.pollFirst();
                    head += record.slots;
                    if (record.state == 1)
                    {
                        final long[] seen = recorder.seen.get(before + expected);
                        assertEquals(record.id << 16, seen[0]);
                        assertEquals(record.slots, seen[1]);
                        expected++;
                    }
                }
                assertEquals(expected, drained);
                assertEquals(before + expected, recorder.seen.size());
            }
            assertEquals(tail - head, ring.size());
            assertTrue(ring.size() <= CAPACITY);
        }
    }
}
