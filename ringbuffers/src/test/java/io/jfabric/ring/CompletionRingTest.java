/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The completion ring on one thread: entries come back whole and in order across the wrap, a full ring refuses
 * without overwriting, reservations bound what posts may have outstanding and reads give them back, the kept
 * headroom, the error ring with its err_data, and the read guard.
 */
class CompletionRingTest
{
    /**
     * Records what it is given.
     */
    private static final class Recorder implements CompletionRing.CompletionSink
    {
        final List<long[]> entries = new ArrayList<>();
        final List<long[]> errors = new ArrayList<>();
        final List<byte[]> errData = new ArrayList<>();

        @Override
        public void onCompletion(
            final int index,
            final long context,
            final long flags,
            final long len,
            final long buf,
            final long data,
            final long tag,
            final long src)
        {
            entries.add(new long[]{index, context, flags, len, buf, data, tag, src});
        }

        @Override
        public void onError(
            final long context,
            final long flags,
            final long len,
            final long buf,
            final long data,
            final long tag,
            final long olen,
            final int err,
            final int provErrno,
            final long src)
        {
            errors.add(new long[]{context, flags, len, buf, data, tag, olen, err, provErrno, src});
        }

        @Override
        public void onErrorData(final byte[] bytes)
        {
            errData.add(null == bytes ? null : bytes.clone());
        }
    }

    private static void write(final CompletionRing ring, final long n)
    {
        assertTrue(ring.write(n, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6), "entry " + n);
    }

    @Test
    void shouldHandBackEveryFieldInOrderAcrossTheWrap()
    {
        final CompletionRing ring = new CompletionRing(4);
        final Recorder recorder = new Recorder();
        long next = 0;
        for (int lap = 0; lap < 5; lap++)
        {
            for (int i = 0; i < 5; i++)
            {
                write(ring, 100 * lap + i);
            }
            assertEquals(5, ring.available());
            assertTrue(ring.tryLockRead());
            assertEquals(3, ring.readInto(recorder, 3));
            assertEquals(2, ring.readInto(recorder, 16));
            assertEquals(0, ring.readInto(recorder, 16));
            ring.unlockRead();
            for (int i = 0; i < 5; i++)
            {
                final long n = 100 * lap + i;
                final long[] e = recorder.entries.get((int) next++);
                assertArrayEquals(new long[]{i < 3 ? i : i - 3, n, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6}, e);
            }
        }
        assertEquals(0, ring.available());
    }

    @Test
    void shouldRefuseAWriteWhenFullAndKeepWhatItHolds()
    {
        final CompletionRing ring = new CompletionRing(3);
        int written = 0;
        while (ring.hasSpace())
        {
            write(ring, written++);
        }
        assertEquals(8, written, "twice the size, rounded to a power of two");
        assertFalse(ring.write(99, 0, 0, 0, 0, 0, 0));
        final Recorder recorder = new Recorder();
        assertEquals(8, ring.readInto(recorder, 100));
        assertEquals(7, recorder.entries.get(7)[1], "the refused write overwrote nothing");
        assertTrue(ring.hasSpace());
    }

    @Test
    void shouldBoundReservationsBySizeAndGiveThemBackOnRead()
    {
        final CompletionRing ring = new CompletionRing(2);
        assertEquals(2, ring.size());
        assertTrue(ring.reserve());
        assertTrue(ring.reserve());
        assertFalse(ring.reserve(), "EAGAIN once size completions are outstanding");
        write(ring, 1);
        assertFalse(ring.reserve(), "a written, unread entry still counts");
        assertEquals(1, ring.readInto(new Recorder(), 4));
        assertTrue(ring.reserve(), "reading gave one back");
        ring.release(10);
        assertTrue(ring.reserve());
        assertTrue(ring.reserve(), "release clamps at zero");
        assertFalse(ring.reserve());
    }

    @Test
    void shouldKeepHeadroomBehindHasSpace()
    {
        final CompletionRing ring = new CompletionRing(2);
        ring.keepHeadroom(1);
        ring.keepHeadroom(0);
        int written = 0;
        while (ring.hasSpace())
        {
            write(ring, written++);
        }
        assertEquals(3, written, "one of four kept free; the headroom only grows");
        assertTrue(ring.write(3, 0, 0, 0, 0, 0, 0), "the kept entry is there for the second write");
        assertFalse(ring.write(4, 0, 0, 0, 0, 0, 0));
    }

    @Test
    void shouldReadErrorsApartWithTheirErrData()
    {
        final CompletionRing ring = new CompletionRing(2);
        write(ring, 1);
        assertFalse(ring.hasError());
        assertTrue(ring.writeError(10, 11, 12, 13, 14, 15, 16, 17, 18, 19));
        final byte[] address = {1, 2, 3};
        assertTrue(ring.writeError(20, 21, 22, 23, 24, 25, 26, 27, 28, 29, address));
        assertTrue(ring.hasError());
        assertTrue(ring.hasErrorSpace());
        final Recorder recorder = new Recorder();
        assertEquals(1, ring.readErrorInto(recorder));
        assertEquals(1, ring.readErrorInto(recorder));
        assertEquals(0, ring.readErrorInto(recorder));
        assertFalse(ring.hasError());
        assertArrayEquals(new long[]{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, recorder.errors.get(0));
        assertArrayEquals(new long[]{20, 21, 22, 23, 24, 25, 26, 27, 28, 29}, recorder.errors.get(1));
        assertNull(recorder.errData.get(0));
        assertArrayEquals(address, recorder.errData.get(1));
        assertEquals(1, ring.available(), "the success entry waits apart from the errors");
        int errors = 0;
        while (ring.hasErrorSpace())
        {
            assertTrue(ring.writeError(errors, 0, 0, 0, 0, 0, 0, 5, 0, 0));
            errors++;
        }
        assertEquals(4, errors);
        assertFalse(ring.writeError(99, 0, 0, 0, 0, 0, 0, 5, 0, 0));
    }

    @Test
    void shouldLetOneReaderHoldTheGuard()
    {
        final CompletionRing ring = new CompletionRing(2);
        assertTrue(ring.tryLockRead());
        assertFalse(ring.tryLockRead());
        ring.unlockRead();
        assertTrue(ring.tryLockRead());
        ring.unlockRead();
    }
}
