package io.jfabric.provider.aeron;

import org.agrona.concurrent.UnsafeBuffer;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A delay line for the datagrams one media-driver endpoint reads from its socket, as netem's {@code delay D J loss
 * P} would act on the link in front of it: each datagram is held for a delay drawn uniformly from
 * {@code [D - J, D + J]} (so datagrams overtake each other, as with netem's jitter), or dropped with probability P
 * before it is held. At most {@link #CAPACITY} datagrams are held; while the line is full the endpoint leaves the
 * next ones in its socket's buffer (netem's queue limit is 1000 packets by default).
 * <p>
 * {@link #pass} replaces the endpoint's read: it takes the datagram just read (if any) and hands back the earliest
 * held one that is due, or nothing. The driver polls an endpoint once per duty cycle, so a due datagram waits for
 * the next poll (up to the driver's idle park, 1 ms with the provider's backoff).
 * <p>
 * Threading: {@link #pass} on the endpoint's poller thread only (the driver's receiver for data, its sender for
 * status messages and NAKs); the counters are read by any thread.
 */
final class DelayLine
{
    /** Most datagrams held at once. */
    static final int CAPACITY = 4096;
    private static final int INITIAL_SLOT_BYTES = 2048;

    private final long minDelayNs;
    private final long spreadNs;
    private final double loss;
    private final SplittableRandom random;
    private final UnsafeBuffer[] slots = new UnsafeBuffer[CAPACITY];
    private final int[] lengths = new int[CAPACITY];
    private final InetSocketAddress[] sources = new InetSocketAddress[CAPACITY];
    private final long[] dueNs = new long[CAPACITY];
    private final long[] arrival = new long[CAPACITY];
    /** Min-heap of slot indices by due time. */
    private final int[] heap = new int[CAPACITY];
    private final int[] free = new int[CAPACITY];
    private int freeCount = CAPACITY;
    private int size;
    private long arrivals;
    private long latestReleasedArrival = -1;
    private final AtomicLong held = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong overtaken = new AtomicLong();

    /**
     * @param delayMs  mean delay, milliseconds.
     * @param jitterMs half the spread of the uniform delay, milliseconds (at most the delay).
     * @param loss     probability of dropping a datagram, 0 to 1.
     * @param seed     of the random draws.
     */
    DelayLine(final double delayMs, final double jitterMs, final double loss, final long seed)
    {
        if (jitterMs < 0 || jitterMs > delayMs || loss < 0 || loss >= 1)
        {
            throw new IllegalArgumentException("delay " + delayMs + " jitter " + jitterMs + " loss " + loss);
        }
        this.minDelayNs = (long) ((delayMs - jitterMs) * TimeUnit.MILLISECONDS.toNanos(1));
        this.spreadNs = (long) (2 * jitterMs * TimeUnit.MILLISECONDS.toNanos(1)) + 1;
        this.loss = loss;
        this.random = new SplittableRandom(seed);
        for (int i = 0; i < CAPACITY; i++)
        {
            free[i] = i;
        }
    }

    /**
     * @return true when another datagram can be held (else leave it in the socket).
     */
    boolean hasRoom()
    {
        return freeCount > 0;
    }

    /**
     * Take the datagram just read into {@code buffer} (when {@code source} is not null: bytes 0 to its position) and
     * put in its place the earliest held datagram that is due, if any.
     *
     * @param buffer the endpoint's receive buffer.
     * @param source the sender of the datagram just read, or null when none was read.
     * @param nowNs  {@link System#nanoTime()}.
     * @return the sender of the datagram now in {@code buffer} (position = its length), or null when none is due.
     */
    InetSocketAddress pass(final ByteBuffer buffer, final InetSocketAddress source, final long nowNs)
    {
        if (null != source)
        {
            hold(buffer, source, nowNs);
        }
        if (0 == size || dueNs[heap[0]] - nowNs > 0)
        {
            return null;
        }
        final int slot = pop();
        final int length = lengths[slot];
        buffer.clear();
        slots[slot].getBytes(0, buffer, 0, length);
        buffer.position(length);
        final InetSocketAddress from = sources[slot];
        sources[slot] = null;
        free[freeCount++] = slot;
        if (arrival[slot] < latestReleasedArrival)
        {
            overtaken.incrementAndGet();
        }
        else
        {
            latestReleasedArrival = arrival[slot];
        }
        return from;
    }

    private void hold(final ByteBuffer buffer, final InetSocketAddress source, final long nowNs)
    {
        final long seq = arrivals++;
        if (random.nextDouble() < loss)
        {
            dropped.incrementAndGet();
            return;
        }
        final int length = buffer.position();
        final int slot = free[--freeCount];
        if (null == slots[slot] || slots[slot].capacity() < length)
        {
            slots[slot] = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(INITIAL_SLOT_BYTES, length)));
        }
        slots[slot].putBytes(0, buffer, 0, length);
        lengths[slot] = length;
        sources[slot] = source;
        dueNs[slot] = nowNs + minDelayNs + random.nextLong(spreadNs);
        arrival[slot] = seq;
        push(slot);
        held.incrementAndGet();
    }

    private void push(final int slot)
    {
        int i = size++;
        while (i > 0)
        {
            final int parent = (i - 1) >>> 1;
            if (dueNs[heap[parent]] - dueNs[slot] <= 0)
            {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = slot;
    }

    private int pop()
    {
        final int top = heap[0];
        final int last = heap[--size];
        int i = 0;
        while (true)
        {
            final int left = 2 * i + 1;
            if (left >= size)
            {
                break;
            }
            final int right = left + 1;
            final int child = right < size && dueNs[heap[right]] - dueNs[heap[left]] < 0 ? right : left;
            if (dueNs[last] - dueNs[heap[child]] <= 0)
            {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = last;
        return top;
    }

    /**
     * @return datagrams held (delayed) so far.
     */
    long held()
    {
        return held.get();
    }

    /**
     * @return datagrams dropped so far.
     */
    long dropped()
    {
        return dropped.get();
    }

    /**
     * @return datagrams handed on after one that had arrived later (reordered by the jitter).
     */
    long overtaken()
    {
        return overtaken.get();
    }
}
