package io.jfabric.provider.gni;

import io.jfabric.spi.TransportCounters;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * The NIC's TX descriptors (upstream's TX descriptor pool, GNI.md §1.2, §2.3): {@code GNI_TX_CQ_SIZE} of them, read
 * when the NIC is allocated ({@link GniNicGeometry}), and the NIC's TX CQ has as many entries, so that a transaction
 * never finds the CQ full (the emulated NIC's {@code GNI_RC_ERROR_RESOURCE}, GNI.md §1.2: a post beyond the source
 * CQ's entries). Every FMA, BTE and AMO post and every SMSG send holds one from its post to its TX CQ event (an
 * injected failure: until the TX CQ pass returns it). When none is free:
 * <ul>
 *     <li>an FMA/BTE/AMO post of an RMA or atomic is queued here, in posting order (a post that finds others queued
 *     queues behind them), and posted as descriptors free, by the TX CQ pass; the operation counts it outstanding
 *     meanwhile, so the application sees nothing of it (never {@code EAGAIN}, issue 15);</li>
 *     <li>an SMSG send waits as it does for a credit: its operation stays queued on its VC, a control message in the
 *     VC's control queue, both sent again on the next duty cycle;</li>
 *     <li>a rendezvous pull's GETs wait in the pull's own queue ({@link GniRendezvousReceive}).</li>
 * </ul>
 * A queued post whose operation ended meanwhile (its VC failed) is dropped ({@link #drop}). Counters in the process's
 * counters file: {@code gni TX descriptor waits} (posts that were queued) and {@code gni TX descriptor queue
 * high-water} (the most posts queued at once).
 * <p>
 * Threading: {@link #capacity(int)} on the thread that opens the domain's first endpoint, before the agent uses the
 * pool; the rest on the domain agent's thread.
 */
final class GniTxDescriptors
{
    /**
     * The most descriptors (and TX CQ entries) a NIC gets: a larger {@code GNI_TX_CQ_SIZE} (a u32) is kept and read
     * back but allocates no more than this, which the operation table never fills in practice; beyond it posts queue
     * as below any size.
     */
    static final int MAX = 16384;
    private static final int INITIAL_QUEUE = 64;

    private int capacity = 1;
    private int inUse;
    private int[] queue = new int[INITIAL_QUEUE];
    private int head;
    private int tail;
    private int highWater;
    private long waits;
    private AtomicCounter waitsCounter;
    private AtomicCounter highWaterCounter;

    /**
     * @param option {@code GNI_TX_CQ_SIZE}.
     * @return the descriptors and TX CQ entries it gives, 1 to {@link #MAX}.
     */
    static int entries(final long option)
    {
        return (int) Math.max(1, Math.min(MAX, option));
    }

    /**
     * Size the pool (at NIC allocation).
     *
     * @param descriptors {@link #entries}.
     */
    void capacity(final int descriptors)
    {
        capacity = descriptors;
    }

    /**
     * @return the pool's size.
     */
    int capacity()
    {
        return capacity;
    }

    /**
     * @return descriptors held by posts and SMSG sends whose TX CQ event has not been read.
     */
    int inUse()
    {
        return inUse;
    }

    /**
     * Take a descriptor for a post or an SMSG send.
     *
     * @return false when none is free.
     */
    boolean take()
    {
        if (inUse >= capacity)
        {
            return false;
        }
        inUse++;
        return true;
    }

    /**
     * A TX CQ event was read (or an injected failure returned, or the post was refused): its descriptor is free.
     */
    void give()
    {
        if (inUse > 0)
        {
            inUse--;
        }
    }

    /**
     * @return whether an operation's post may go now: a descriptor is free and no post waits ahead of it.
     */
    boolean mayPost()
    {
        return head == tail && inUse < capacity;
    }

    /**
     * @return whether a queued post can be posted now (one waits and a descriptor is free).
     */
    boolean readyToPost()
    {
        return head != tail && inUse < capacity;
    }

    /**
     * Queue an operation's post behind the others.
     *
     * @param op    the operation (its {@link GniOp#queuedPosts} counts it).
     * @param index the post's index in {@link GniOp#posts}.
     */
    void enqueue(final GniOp op, final int index)
    {
        add((op.id << 8) | index);
        op.queuedPosts++;
        waits++;
        final int queued = tail - head;
        if (queued > highWater)
        {
            highWater = queued;
            if (null != highWaterCounter)
            {
                highWaterCounter.setRelease(queued);
            }
        }
        if (null != waitsCounter)
        {
            waitsCounter.incrementRelease();
        }
    }

    private void add(final int entry)
    {
        if (tail - head == queue.length)
        {
            // Grows while warming up (a larger burst than any before); never shrinks.
            final int[] larger = new int[queue.length * 2];
            for (int i = 0; i < queue.length; i++)
            {
                larger[i] = queue[(head + i) & (queue.length - 1)];
            }
            tail = queue.length;
            head = 0;
            queue = larger;
        }
        queue[tail & (queue.length - 1)] = entry;
        tail++;
    }

    /**
     * @return the oldest queued post: operation id {@code >>> 8}, post index {@code & 0xFF}.
     */
    int peek()
    {
        return queue[head & (queue.length - 1)];
    }

    /**
     * The oldest queued post went (or was dropped).
     *
     * @param op its operation.
     */
    void poll(final GniOp op)
    {
        head++;
        op.queuedPosts--;
    }

    /**
     * Drop the queued posts of an operation that ended before they went (its VC failed).
     *
     * @param op the operation.
     */
    void drop(final GniOp op)
    {
        final int n = tail - head;
        for (int i = 0; i < n; i++)
        {
            final int entry = queue[head & (queue.length - 1)];
            head++;
            if (entry >>> 8 != op.id)
            {
                add(entry);
            }
        }
        op.queuedPosts = 0;
    }

    /**
     * @return posts queued now.
     */
    int queued()
    {
        return tail - head;
    }

    /**
     * @return the most posts queued at once.
     */
    int highWater()
    {
        return highWater;
    }

    /**
     * @return posts that were queued for a descriptor.
     */
    long waits()
    {
        return waits;
    }

    /**
     * Count in the process's counters file.
     *
     * @param counters the domain's transport counters.
     */
    void registerCounters(final TransportCounters counters)
    {
        waitsCounter = counters.newCounter("gni TX descriptor waits");
        highWaterCounter = counters.newCounter("gni TX descriptor queue high-water");
    }
}
