package io.jfabric.agent;

import io.jfabric.Flags;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * Part of the domain agent: the counters bound to memory regions ({@code fi_mr_bind} with {@code FI_REMOTE_WRITE} /
 * {@code FI_REMOTE_READ}), keyed by region key, and their increments. The RMA and atomic targets call
 * {@link #count} / {@link #countList} / {@link #countKeys} where they count the target endpoint's
 * {@code FI_REMOTE_*} counter: once the data of a write or atomic is in place, once a read is checked. An
 * operation over several ranges of one region counts once for it. While no region has a counter the calls return
 * at the first test (no lookup).
 * <p>
 * Threading: single-threaded, owned by its domain agent's duty cycle ({@link DomainAgent}); the counter a bind
 * names is handed over in {@link #staged} (written by the binding thread before its control command, which
 * publishes it). Package-private; allocation happens only when a counter is bound (control path).
 */
final class RegionCounters
{
    private final Long2ObjectHashMap<CounterCell[]> counters = new Long2ObjectHashMap<>();
    private final long[] seen = new long[DomainAgent.MAX_IOV];
    /** The counter of the bind command in flight (one at a time: the domain serialises MR commands). */
    volatile CounterCell staged;

    /**
     * Bind {@link #staged} to a region (control command {@code OP_MR_BIND}).
     *
     * @param key   the region's key (the caller checked that it is registered).
     * @param flags {@link Flags#REMOTE_WRITE} and/or {@link Flags#REMOTE_READ}.
     */
    void bind(final long key, final long flags)
    {
        CounterCell[] cells = counters.get(key);
        if (null == cells)
        {
            cells = new CounterCell[2];
            counters.put(key, cells);
        }
        final CounterCell cell = staged;
        if ((flags & Flags.REMOTE_WRITE) != 0)
        {
            cells[0] = cell;
        }
        if ((flags & Flags.REMOTE_READ) != 0)
        {
            cells[1] = cell;
        }
    }

    /**
     * A region is closed: its counters go.
     *
     * @param key the region's key.
     */
    void onRegionClosed(final long key)
    {
        counters.remove(key);
    }

    /**
     * One access to one region.
     *
     * @param key    the region's key.
     * @param access {@link Flags#REMOTE_WRITE} or {@link Flags#REMOTE_READ}.
     */
    void count(final long key, final long access)
    {
        if (counters.isEmpty())
        {
            return;
        }
        final CounterCell[] cells = counters.get(key);
        if (null != cells)
        {
            final CounterCell cell = cells[Flags.REMOTE_WRITE == access ? 0 : 1];
            if (null != cell)
            {
                cell.add(1);
            }
        }
    }

    /**
     * One access to the regions of a frame's remote list (each region once).
     *
     * @param buffer the frame.
     * @param at     the list's offset.
     * @param access {@link Flags#REMOTE_WRITE} or {@link Flags#REMOTE_READ}.
     */
    void countList(final DirectBuffer buffer, final int at, final long access)
    {
        if (counters.isEmpty())
        {
            return;
        }
        final int n = (int) Math.min(DomainAgent.MAX_IOV, FrameLists.rawCount(buffer, at));
        for (int k = 0; k < n; k++)
        {
            seen[k] = FrameLists.remoteKey(buffer, at, k);
        }
        countKeys(seen, 0, n, access);
    }

    /**
     * One access to the regions of a key list (each region once).
     *
     * @param keys   the keys.
     * @param from   the first.
     * @param n      how many.
     * @param access {@link Flags#REMOTE_WRITE} or {@link Flags#REMOTE_READ}.
     */
    void countKeys(final long[] keys, final int from, final int n, final long access)
    {
        if (counters.isEmpty())
        {
            return;
        }
        for (int k = 0; k < n; k++)
        {
            boolean repeated = false;
            for (int j = 0; j < k && !repeated; j++)
            {
                repeated = keys[from + j] == keys[from + k];
            }
            if (!repeated)
            {
                count(keys[from + k], access);
            }
        }
    }
}
