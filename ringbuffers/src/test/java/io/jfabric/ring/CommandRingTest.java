/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CommandRingTest
{
    private static final int CAPACITY = 64;

    static CommandRing newRing(final boolean manyToOne, final int capacity)
    {
        final AtomicBuffer buffer = new UnsafeBuffer(
            BufferUtil.allocateDirectAligned(CommandRingDescriptor.requiredLength(capacity), 64));
        return manyToOne ? new ManyToOneCommandRing(buffer) : new OneToOneCommandRing(buffer);
    }

    /**
     * Records what a handler saw: (first body long, slots, body offset) per command, and checks every body long.
     */
    static final class Recorder implements CommandHandler
    {
        final List<long[]> seen = new ArrayList<>();

        public void onCommand(final AtomicBuffer buffer, final int offset, final int slots)
        {
            final long value = buffer.getLong(offset);
            final int bodyLength = CommandRingDescriptor.bodyLength(slots);
            for (int i = 0; i + 8 <= bodyLength; i += 8)
            {
                assertEquals(value + i, buffer.getLong(offset + i), "torn or non-contiguous body at " + i);
            }
            seen.add(new long[]{ value, slots, offset });
        }
    }

    static int post(final CommandRing ring, final int slots, final long value)
    {
        final int index = ring.tryClaim(slots);
        if (index > 0)
        {
            final int bodyLength = CommandRingDescriptor.bodyLength(slots);
            for (int i = 0; i + 8 <= bodyLength; i += 8)
            {
                ring.buffer().putLong(index + i, value + i);
            }
            ring.commit(index);
        }
        return index;
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldDrainNothingFromEmptyRing(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        final Recorder recorder = new Recorder();

        assertEquals(0, ring.drain(recorder, 100));
        assertEquals(0, recorder.seen.size());
        assertEquals(0, ring.size());
        assertEquals(CAPACITY, ring.capacity());
        assertEquals(CAPACITY / 8, ring.maxCommandSlots());
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldDeliverCommandsInOrderAcrossManyWraps(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        final Recorder recorder = new Recorder();
        long expected = 0;
        for (int round = 0; round < 50; round++)
        {
            for (int i = 0; i < 10; i++)
            {
                assertTrue(post(ring, 1, (round * 10L + i) << 16) > 0);
            }
            assertEquals(10, ring.drain(recorder, 100));
        }
        assertEquals(500, recorder.seen.size());
        for (final long[] command : recorder.seen)
        {
            assertEquals(expected << 16, command[0]);
            assertEquals(1, command[1]);
            expected++;
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldPadAtWrapSoMultiSlotCommandIsContiguous(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        final Recorder recorder = new Recorder();
        for (int i = 0; i < 61; i++)
        {
            assertTrue(post(ring, 1, i << 16) > 0);
        }
        assertEquals(61, ring.drain(recorder, 100));

        // 3 slots remain before the end; a 5-slot command pads them and starts at slot 0.
        final int index = post(ring, 5, 1000L << 16);
        assertEquals(RingDescriptor.HEADER_LENGTH + CommandRingDescriptor.RECORD_HEADER_LENGTH, index);
        assertEquals(8, ring.size());
        recorder.seen.clear();
        assertEquals(1, ring.drain(recorder, 100));
        assertEquals(1000L << 16, recorder.seen.get(0)[0]);
        assertEquals(5, recorder.seen.get(0)[1]);
        assertEquals(0, ring.size());
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldKeepMultiSlotCommandsIntactWithVaryingSizesOverManyLaps(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        final Recorder recorder = new Recorder();
        final int commands = 2000;
        for (int i = 0; i < commands; i++)
        {
            final int slots = 1 + (i * 7) % ring.maxCommandSlots();
            while (post(ring, slots, (long) i << 16) < 0)
            {
                assertTrue(ring.drain(recorder, 3) > 0, "a refused claim must leave something to drain");
            }
        }
        while (ring.drain(recorder, 5) > 0)
        {
            assertTrue(recorder.seen.size() <= commands);
        }
        assertEquals(commands, recorder.seen.size());
        for (int i = 0; i < commands; i++)
        {
            assertEquals((long) i << 16, recorder.seen.get(i)[0]);
            assertEquals(1 + (i * 7) % ring.maxCommandSlots(), recorder.seen.get(i)[1]);
        }
        assertEquals(0, ring.size());
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldRefuseClaimWithStatusWhenFullAndAcceptAfterDrain(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        final Recorder recorder = new Recorder();
        for (int i = 0; i < CAPACITY; i++)
        {
            assertTrue(post(ring, 1, i << 16) > 0);
        }
        assertEquals(CAPACITY, ring.size());
        assertEquals(RingStatus.INSUFFICIENT_CAPACITY, ring.tryClaim(1));
        assertEquals(RingStatus.INSUFFICIENT_CAPACITY, ring.tryClaim(ring.maxCommandSlots()));

        assertEquals(1, ring.drain(recorder, 1));
        assertTrue(post(ring, 1, 99L << 16) > 0);
        assertEquals(CAPACITY, ring.drain(recorder, 1000));
        assertEquals(99L << 16, recorder.seen.get(CAPACITY)[0]);
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldRefuseWrapClaimWhenPaddingPlusCommandDoesNotFit(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        final Recorder recorder = new Recorder();
        for (int i = 0; i < 60; i++)
        {
            assertTrue(post(ring, 1, i << 16) > 0);
        }
        assertEquals(2, ring.drain(recorder, 2));
        // 4 slots to the end plus 8 at the start need 12; only 6 are free.
        assertEquals(RingStatus.INSUFFICIENT_CAPACITY, ring.tryClaim(8));
        assertEquals(60 - 2, ring.size());
        assertEquals(58, ring.drain(recorder, 100));
        assertTrue(post(ring, 8, 7L << 16) > 0);
        assertEquals(1, ring.drain(recorder, 100));
        assertEquals(8, recorder.seen.get(60)[1]);
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldSkipAbortedCommandAndDeliverTheNext(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        final Recorder recorder = new Recorder();
        final int aborted = ring.tryClaim(3);
        for (int i = 0; i < CommandRingDescriptor.bodyLength(3); i += 8)
        {
            ring.buffer().putLong(aborted + i, -1L);
        }
        ring.abort(aborted);
        assertTrue(post(ring, 2, 5L << 16) > 0);

        assertEquals(1, ring.drain(recorder, 10));
        assertEquals(5L << 16, recorder.seen.get(0)[0]);
        assertEquals(0, ring.size());

        // the aborted body wrote over later slots' header words: they must be clean on the next lap.
        for (int i = 0; i < 200; i++)
        {
            assertTrue(post(ring, 1, (10L + i) << 16) > 0);
            assertEquals(1, ring.drain(recorder, 10));
        }
        assertEquals(201, recorder.seen.size());
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldNotDeliverClaimedCommandBeforeCommitAndKeepLaterOnesBehindIt(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        final Recorder recorder = new Recorder();
        final int first = ring.tryClaim(1);
        assertTrue(post(ring, 1, 2L << 16) > 0);

        assertEquals(0, ring.drain(recorder, 10));
        ring.buffer().putLong(first, 1L << 16);
        for (int i = 8; i < CommandRingDescriptor.SINGLE_SLOT_BODY_LENGTH; i += 8)
        {
            ring.buffer().putLong(first + i, (1L << 16) + i);
        }
        ring.commit(first);

        assertEquals(2, ring.drain(recorder, 10));
        assertEquals(1L << 16, recorder.seen.get(0)[0]);
        assertEquals(2L << 16, recorder.seen.get(1)[0]);
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldAcceptMaxSizeCommandAndRefuseLargerWithBothSizesInMessage(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        final Recorder recorder = new Recorder();
        final int max = ring.maxCommandSlots();
        assertTrue(post(ring, max, 3L << 16) > 0);
        assertEquals(1, ring.drain(recorder, 10));
        assertEquals(max, recorder.seen.get(0)[1]);

        final IllegalArgumentException tooLarge =
            assertThrows(IllegalArgumentException.class, () -> ring.tryClaim(max + 1));
        assertTrue(tooLarge.getMessage().contains((max + 1) + " slots"), tooLarge.getMessage());
        assertTrue(tooLarge.getMessage().contains(max + " slots"), tooLarge.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ring.tryClaim(0));

        final int bodyTooLarge = CommandRingDescriptor.bodyLength(max) + 1;
        final IllegalArgumentException control =
            assertThrows(IllegalArgumentException.class, () -> ring.checkCommandLength(bodyTooLarge));
        assertTrue(control.getMessage().contains(bodyTooLarge + " body bytes"), control.getMessage());
        assertTrue(control.getMessage().contains(CommandRingDescriptor.bodyLength(max) + " body bytes"));
        assertEquals(max, ring.checkCommandLength(bodyTooLarge - 1));
        assertEquals(1, ring.checkCommandLength(CommandRingDescriptor.SINGLE_SLOT_BODY_LENGTH));
        assertEquals(2, ring.checkCommandLength(CommandRingDescriptor.SINGLE_SLOT_BODY_LENGTH + 1));
        assertEquals(0, ring.size());
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldRefuseCommitOfIndexThatIsNotAClaimWithoutCorruptingTheRing(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        final Recorder recorder = new Recorder();
        final int index = ring.tryClaim(1);
        assertThrows(IllegalArgumentException.class, () -> ring.commit(index + 4));
        assertThrows(IllegalArgumentException.class, () -> ring.commit(3));
        assertThrows(IllegalArgumentException.class, () -> ring.abort(index + 64));
        ring.buffer().putLong(index, 1L << 16);
        for (int i = 8; i < CommandRingDescriptor.SINGLE_SLOT_BODY_LENGTH; i += 8)
        {
            ring.buffer().putLong(index + i, (1L << 16) + i);
        }
        ring.commit(index);
        assertThrows(IllegalArgumentException.class, () -> ring.commit(index));
        assertEquals(1, ring.drain(recorder, 10));
        assertEquals(1L << 16, recorder.seen.get(0)[0]);
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldRespectDrainLimit(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        final Recorder recorder = new Recorder();
        for (int i = 0; i < 20; i++)
        {
            post(ring, 1, i << 16);
        }
        assertEquals(7, ring.drain(recorder, 7));
        assertEquals(13, ring.size());
        assertEquals(0, ring.drain(recorder, 0));
        assertEquals(13, ring.drain(recorder, 100));
        assertEquals(7L << 16, recorder.seen.get(7)[0]);
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldCountThrowingHandlerCommandAsConsumed(final boolean manyToOne)
    {
        final CommandRing ring = newRing(manyToOne, CAPACITY);
        post(ring, 1, 1L << 16);
        post(ring, 1, 2L << 16);
        assertThrows(IllegalStateException.class, () -> ring.drain(
            (buffer, offset, slots) ->
            {
                throw new IllegalStateException("handler failure");
            }, 1));
        final Recorder recorder = new Recorder();
        assertEquals(1, ring.drain(recorder, 10));
        assertEquals(2L << 16, recorder.seen.get(0)[0]);
    }

    @ParameterizedTest
    @ValueSource(booleans = { true, false })
    void shouldRefuseBufferOfWrongLengthOrKind(final boolean manyToOne)
    {
        final UnsafeBuffer odd = new UnsafeBuffer(BufferUtil.allocateDirectAligned(512 + 64 * 10, 64));
        final IllegalArgumentException length = assertThrows(IllegalArgumentException.class,
            () -> newRingOver(manyToOne, odd));
        assertTrue(length.getMessage().contains("1152 bytes"), length.getMessage());

        final UnsafeBuffer completion = new UnsafeBuffer(
            BufferUtil.allocateDirectAligned(CompletionRingDescriptor.requiredLength(64), 64));
        new OneToOneCompletionRing(completion);
        final IllegalStateException kind = assertThrows(IllegalStateException.class,
            () -> newRingOver(manyToOne, completion));
        assertTrue(kind.getMessage().contains("COMPLETION"), kind.getMessage());
    }

    private static CommandRing newRingOver(final boolean manyToOne, final AtomicBuffer buffer)
    {
        return manyToOne ? new ManyToOneCommandRing(buffer) : new OneToOneCommandRing(buffer);
    }
}
