package io.jfabric.aries;

/**
 * A hardware completion queue ({@code gni_cq_handle_t}) of fixed capacity. A CQ that receives local events (the
 * source CQ of endpoints) never overruns: every transaction reserves its entry when posted and a post that finds
 * the CQ's entries all reserved fails with {@code GNI_RC_ERROR_RESOURCE} (GNI.md §1.2). A CQ that receives remote
 * events (SMSG deposits, CQ writes) can overrun: the event that does not fit is dropped and the CQ remembers it;
 * the next {@link #getEvent} answers {@code GNI_RC_ERROR_RESOURCE} once, clears the flag and then delivers the
 * events that did fit, and those that arrive later, as usual (GNI.md §1.9). Nothing behind the lost notification
 * is lost: the messages stay in their mailboxes, found by draining them.
 * <p>
 * Threading: not thread-safe; the NIC engine and the API calls touch it under the node's lock.
 */
public final class GniCq
{
    private final AriesNode node;
    private final GniNic nic;
    private final long[] events;
    private final int mask;
    private final PostDescriptor[] descriptors;
    private int capacity;
    private long head;
    // Volatile so that getEvent's empty check may read it without the node's lock (the engine writes it under the
    // lock, after the entry): an event published concurrently is simply seen by the next call, as on hardware.
    private volatile long tail;
    private int inFlight;
    private volatile boolean overrun;
    private long lastEvent;
    private PostDescriptor lastDescriptor;

    GniCq(final AriesNode node, final GniNic nic, final int entries)
    {
        this.node = node;
        this.nic = nic;
        // Slots: the next power of two (at least the capacity), indexed by mask instead of a 64-bit division.
        final int slots = Integer.highestOneBit(Math.max(1, entries - 1)) << 1;
        this.events = new long[slots];
        this.descriptors = new PostDescriptor[slots];
        this.mask = slots - 1;
        this.capacity = entries;
    }

    /**
     * @return the NIC this CQ belongs to.
     */
    public GniNic nic()
    {
        return nic;
    }

    /**
     * @return the entries the CQ holds (a fault may have shrunk it).
     */
    public int capacity()
    {
        return capacity;
    }

    /**
     * @return events waiting to be read.
     */
    public int size()
    {
        node.lock();
        try
        {
            return (int) (tail - head);
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * {@code GNI_CqGetEvent}: take the oldest event.
     *
     * @return {@link GniRc#SUCCESS} (the event is in {@link #event()}), {@link GniRc#TRANSACTION_ERROR} (an error
     * event, in {@link #event()}), {@link GniRc#NOT_DONE} (empty) or {@link GniRc#ERROR_RESOURCE} (the CQ overran
     * since the last call: reported once, then cleared).
     */
    public int getEvent()
    {
        if (tail == head && !overrun)
        {
            // Empty: no lock taken (head only moves here, under the lock; a stale head can only be behind tail).
            return GniRc.NOT_DONE;
        }
        node.lock();
        try
        {
            if (overrun)
            {
                overrun = false;
                return GniRc.ERROR_RESOURCE;
            }
            if (tail == head)
            {
                return GniRc.NOT_DONE;
            }
            final int index = (int) (head++ & mask);
            lastEvent = events[index];
            lastDescriptor = descriptors[index];
            descriptors[index] = null;
            return GniCqEntry.error(lastEvent) ? GniRc.TRANSACTION_ERROR : GniRc.SUCCESS;
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * {@code GNI_CqTestEvent}: is an event (or an overrun) waiting?
     *
     * @return {@link GniRc#SUCCESS}, {@link GniRc#NOT_DONE} or {@link GniRc#ERROR_RESOURCE} (overrun; not cleared).
     */
    public int testEvent()
    {
        node.lock();
        try
        {
            return overrun ? GniRc.ERROR_RESOURCE : tail == head ? GniRc.NOT_DONE : GniRc.SUCCESS;
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * @return the event the last successful {@link #getEvent} took (see {@link GniCqEntry}).
     */
    public long event()
    {
        return lastEvent;
    }

    /**
     * {@code GNI_GetCompleted}: the descriptor a POST event completes, with its {@link PostDescriptor#status} set.
     *
     * @param event the event just taken by {@link #getEvent}.
     * @return the descriptor (a chain: its head), or null when the event is not the last one taken or not a POST
     * completion of a local transaction.
     */
    public PostDescriptor getCompleted(final long event)
    {
        if (event != lastEvent || null == lastDescriptor)
        {
            return null;
        }
        final PostDescriptor descriptor = lastDescriptor;
        descriptor.status = GniCqEntry.error(event) ? GniRc.TRANSACTION_ERROR : GniRc.SUCCESS;
        return descriptor;
    }

    /**
     * Reserve an entry for a local transaction's event.
     *
     * @return false when every entry is taken (events waiting or transactions in flight).
     */
    boolean reserve()
    {
        if ((tail - head) + inFlight >= capacity)
        {
            return false;
        }
        inFlight++;
        return true;
    }

    void unreserve()
    {
        inFlight--;
    }

    /**
     * Publish a local event into the entry reserved at post time: never overruns.
     */
    void pushReserved(final long event, final PostDescriptor descriptor)
    {
        inFlight--;
        final long t = tail;
        final int index = (int) (t & mask);
        events[index] = event;
        descriptors[index] = descriptor;
        tail = t + 1;
    }

    /**
     * Publish a remote event; a full CQ drops it and is flagged overrun.
     *
     * @return true when stored.
     */
    boolean push(final long event)
    {
        if ((tail - head) + inFlight >= capacity)
        {
            overrun = true;
            node.stats.cqOverruns++;
            return false;
        }
        final long t = tail;
        final int index = (int) (t & mask);
        events[index] = event;
        descriptors[index] = null;
        tail = t + 1;
        return true;
    }

    void shrink(final int entries)
    {
        capacity = Math.max(1, Math.min(capacity, entries));
    }
}
