/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.concurrent.AtomicBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Threaded smoke tests on real threads (jcstress covers the interleavings); producers and readers yield when the ring
 * is full or empty so that two cores never livelock, and a JUnit timeout is the watchdog.
 */
class RingConcurrencyTest
{
    private static final int PRODUCERS = 3;
    private static final int PER_PRODUCER = 20_000;

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldDeliverEveryCommandOnceAndInProducerOrderFromManyProducers() throws InterruptedException
    {
        final CommandRing ring = CommandRingTest.newRing(true, 256);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread[] producers = new Thread[PRODUCERS];
        for (int p = 0; p < PRODUCERS; p++)
        {
            final int producer = p;
            producers[p] = new Thread(() ->
            {
                for (int seq = 0; seq < PER_PRODUCER; seq++)
                {
                    final int slots = 1 + (seq % 3);
                    int index;
                    while ((index = ring.tryClaim(slots)) < 0)
                    {
                        Thread.yield();
                    }
                    final AtomicBuffer buffer = ring.buffer();
                    final int bodyLength = CommandRingDescriptor.bodyLength(slots);
                    for (int i = 0; i < bodyLength; i += 8)
                    {
                        buffer.putLong(index + i, ((long) producer << 48) | ((long) seq << 8) | (i >> 3));
                    }
                    ring.commit(index);
                }
            }, "producer-" + p);
            producers[p].setUncaughtExceptionHandler((t, ex) -> failure.set(ex));
            producers[p].start();
        }

        final int[] next = new int[PRODUCERS];
        final long[] errors = new long[1];
        final CommandHandler handler = (buffer, offset, slots) ->
        {
            final long first = buffer.getLong(offset);
            final int producer = (int) (first >>> 48);
            final int seq = (int) ((first >>> 8) & 0xFF_FFFF_FFFFL);
            if (seq != next[producer] || slots != 1 + (seq % 3))
            {
                errors[0]++;
            }
            for (int i = 0; i < CommandRingDescriptor.bodyLength(slots); i += 8)
            {
                if (buffer.getLong(offset + i) != (((long) producer << 48) | ((long) seq << 8) | (i >> 3)))
                {
                    errors[0]++;
                }
            }
            next[producer] = seq + 1;
        };

        long received = 0;
        while (received < (long) PRODUCERS * PER_PRODUCER && null == failure.get())
        {
            final int drained = ring.drain(handler, 64);
            if (0 == drained)
            {
                Thread.yield();
            }
            received += drained;
        }
        for (final Thread producer : producers)
        {
            producer.join();
        }

        assertNull(failure.get());
        assertEquals(0, errors[0]);
        assertArrayEquals(new int[]{ PER_PRODUCER, PER_PRODUCER, PER_PRODUCER }, next);
        assertEquals(0, ring.drain(handler, 64));
        assertEquals(0, ring.size());
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldDeliverEachCompletionToExactlyOneOfSeveralReaders() throws InterruptedException
    {
        final int readers = 3;
        final int entries = 60_000;
        final CompletionRing ring = CompletionRingTest.newRing(true, 64);
        final byte[] seen = new byte[entries];
        final AtomicLong total = new AtomicLong();
        final AtomicLong torn = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread[] threads = new Thread[readers];
        for (int r = 0; r < readers; r++)
        {
            threads[r] = new Thread(() ->
            {
                final CompletionFlyweight flyweight = new CompletionFlyweight();
                final CompletionHandler handler = (buffer, offset) ->
                {
                    flyweight.wrap(buffer, offset);
                    final long n = flyweight.context();
                    final boolean error = n % 100 == 99;
                    if (flyweight.tag() != n * 3 || flyweight.isError() != error ||
                        flyweight.overflowLength() != (error ? n + 7 : 0))
                    {
                        torn.incrementAndGet();
                    }
                    synchronized (seen)
                    {
                        seen[(int) n]++;
                    }
                    total.incrementAndGet();
                };
                while (total.get() < entries)
                {
                    int read = ring.read(handler, 8);
                    if (RingStatus.ERROR_AVAILABLE == read)
                    {
                        read = ring.readError(handler);
                    }
                    if (read <= 0)
                    {
                        Thread.yield();
                    }
                }
            }, "reader-" + r);
            threads[r].setUncaughtExceptionHandler((t, ex) -> failure.set(ex));
            threads[r].start();
        }

        for (int n = 0; n < entries; n++)
        {
            final boolean error = n % 100 == 99;
            while ((error ? ring.writeError(n, 0, 0, 0, 0, n * 3L, 265, 1, n + 7) :
                ring.write(n, 0, 0, 0, 0, n * 3L)) < 0)
            {
                Thread.yield();
            }
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }

        assertNull(failure.get());
        assertEquals(entries, total.get());
        for (int n = 0; n < entries; n++)
        {
            assertEquals(1, seen[n], "entry " + n + " delivered " + seen[n] + " times");
        }
        assertEquals(0, torn.get(), "entries read with fields from different writes");
    }
}
