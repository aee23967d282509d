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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CompletionRingTest
{
    private static final int CAPACITY = 16;

    static CompletionRing newRing(final boolean shared, final int capacity)
    {
        final int length = shared ?
            CompletionRingDescriptor.sharedRequiredLength(capacity) : CompletionRingDescriptor.requiredLength(capacity);
        final AtomicBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(length, 64));
        return shared ? new SharedCompletionRing(buffer) : new OneToOneCompletionRing(buffer);
    }

    /**
     * Copies every entry it sees into a long[9] record.
     */
    static final class Recorder implements CompletionHandler
    {
        final CompletionFlyweight flyweight = new CompletionFlyweight();
        final List<long[]> seen = new ArrayList<>();

        public void onCompletion(final AtomicBuffer buffer, final int offset)
        {
            flyweight.wrap(buffer, offset);
            seen.add(new long[]{
                flyweight.context(), flyweight.flags(), flyweight.length(), flyweight.bufferAddress(),
                flyweight.data(), flyweight.tag(), flyweight.errno(), flyweight.providerErrno(),
                flyweight.overflowLength() });
        }
    }

    static int writeNumbered(final CompletionRing ring, final long n)
    {
        return ring.write(n, n + 1, n + 2, n + 3, n + 4, n + 5);
    }

    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void shouldReadNothingFromEmptyRing(final boolean shared)
    {
        final CompletionRing ring = newRing(shared, CAPACITY);
        final Recorder recorder = new Recorder();
        assertEquals(0, ring.read(recorder, 10));
        assertEquals(0, ring.readError(recorder));
        assertEquals(0, recorder.seen.size());
        assertEquals(CAPACITY, ring.capacity());
    }

    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void shouldReturnEveryFieldOfEveryEntryInOrderAcrossWraps(final boolean shared)
    {
        final CompletionRing ring = newRing(shared, CAPACITY);
        final Recorder recorder = new Recorder();
        long written = 0;
        for (int round = 0; round < 40; round++)
        {
            for (int i = 0; i < 11; i++)
            {
                assertEquals(0, writeNumbered(ring, written * 10));
                written++;
            }
            assertEquals(11, ring.size());
            assertEquals(11, ring.read(recorder, 100));
        }
        assertEquals(written, recorder.seen.size());
        for (int i = 0; i < written; i++)
        {
            final long[] entry = recorder.seen.get(i);
            for (int field = 0; field < 6; field++)
            {
                assertEquals(i * 10L + field, entry[field]);
            }
            assertEquals(0, entry[6]);
            assertEquals(0, entry[7]);
            assertEquals(0, entry[8]);
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void shouldRefuseWriteWhenFullWithoutOverwritingAndAcceptAfterRead(final boolean shared)
    {
        final CompletionRing ring = newRing(shared, CAPACITY);
        final Recorder recorder = new Recorder();
        for (int i = 0; i < CAPACITY; i++)
        {
            assertEquals(0, writeNumbered(ring, i * 10L));
        }
        assertEquals(RingStatus.INSUFFICIENT_CAPACITY, writeNumbered(ring, 999));
        assertEquals(RingStatus.INSUFFICIENT_CAPACITY, ring.writeError(1, 2, 3, 4, 5, 6, 7, 8, 9));
        assertEquals(CAPACITY, ring.size());

        assertEquals(1, ring.read(recorder, 1));
        assertEquals(0, writeNumbered(ring, 1000));
        assertEquals(CAPACITY, ring.read(recorder, 100));
        assertEquals(0L, recorder.seen.get(0)[0]);
        assertEquals(10L * (CAPACITY - 1), recorder.seen.get(CAPACITY - 1)[0]);
        assertEquals(1000L, recorder.seen.get(CAPACITY)[0]);
    }

    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void shouldStopBeforeErrorEntryAndDeliverItThroughReadError(final boolean shared)
    {
        final CompletionRing ring = newRing(shared, CAPACITY);
        final Recorder recorder = new Recorder();
        writeNumbered(ring, 0);
        writeNumbered(ring, 10);
        assertEquals(0, ring.writeError(20, 21, 22, 23, 24, 25, 265, 7, 4096));
        writeNumbered(ring, 30);

        assertEquals(0, ring.readError(recorder));
        assertEquals(2, ring.read(recorder, 10));
        assertEquals(RingStatus.ERROR_AVAILABLE, ring.read(recorder, 10));
        assertEquals(2, recorder.seen.size());

        assertEquals(1, ring.readError(recorder));
        final long[] error = recorder.seen.get(2);
        assertEquals(20, error[0]);
        assertEquals(25, error[5]);
        assertEquals(265, error[6]);
        assertEquals(7, error[7]);
        assertEquals(4096, error[8]);

        assertEquals(0, ring.readError(recorder));
        assertEquals(1, ring.read(recorder, 10));
        assertEquals(30, recorder.seen.get(3)[0]);
        assertEquals(0, ring.read(recorder, 10));
    }

    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void shouldDecodeErrorFlagWithFlyweight(final boolean shared)
    {
        final CompletionRing ring = newRing(shared, CAPACITY);
        final CompletionFlyweight flyweight = new CompletionFlyweight();
        final boolean[] isError = new boolean[2];
        ring.write(1, 2, 3, 4, 5, 6);
        ring.writeError(1, 2, 3, 4, 5, 6, 11, 0, 0);
        ring.read((buffer, offset) -> isError[0] = flyweight.wrap(buffer, offset).isError(), 1);
        ring.readError((buffer, offset) -> isError[1] = flyweight.wrap(buffer, offset).isError());
        assertFalse(isError[0]);
        assertTrue(isError[1]);
    }

    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void shouldRefuseErrorEntryWithoutPositiveErrno(final boolean shared)
    {
        final CompletionRing ring = newRing(shared, CAPACITY);
        assertThrows(IllegalArgumentException.class, () -> ring.writeError(1, 2, 3, 4, 5, 6, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> ring.writeError(1, 2, 3, 4, 5, 6, -11, 0, 0));
        assertEquals(0, ring.size());
        assertEquals(0, ring.read(new Recorder(), 10));
    }

    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void shouldRespectReadLimitAndCountThrowingHandlerEntryAsRead(final boolean shared)
    {
        final CompletionRing ring = newRing(shared, CAPACITY);
        final Recorder recorder = new Recorder();
        for (int i = 0; i < 6; i++)
        {
            writeNumbered(ring, i * 10L);
        }
        assertEquals(2, ring.read(recorder, 2));
        assertEquals(0, ring.read(recorder, 0));
        assertThrows(IllegalStateException.class, () -> ring.read(
            (buffer, offset) ->
            {
                throw new IllegalStateException("handler failure");
            }, 5));
        assertEquals(3, ring.read(recorder, 10));
        assertEquals(30L, recorder.seen.get(2)[0]);
    }

    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void shouldRefuseBufferWhoseLengthFitsNoCapacity(final boolean shared)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(512 + 64 * 12, 64));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> newRingOver(shared, buffer));
        assertTrue(ex.getMessage().contains("1280 bytes"), ex.getMessage());
    }

    private static CompletionRing newRingOver(final boolean shared, final AtomicBuffer buffer)
    {
        return shared ? new SharedCompletionRing(buffer) : new OneToOneCompletionRing(buffer);
    }
}
