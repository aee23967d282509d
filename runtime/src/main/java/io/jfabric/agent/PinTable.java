package io.jfabric.agent;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Keeps the buffers of an endpoint's operations reachable while the domain agent may still read or write their
 * memory: only addresses cross the command rings, so without a reference here a direct buffer the application
 * drops while it is posted could be freed by the garbage collector and its memory reused (issue 10).
 * <p>
 * A pre-sized slot table: the posting side {@link #pin}s the object that owns a buffer's memory (a
 * {@code ByteBuffer}, or {@link #NO_HOLDER} for memory the collector does not manage) and carries the slot in the
 * command ({@link CommandDescriptor#PIN_OFFSET}); several buffers of one operation are chained through
 * {@link #pin(Object, int)}'s link. The agent {@link #release}s the chain when the operation completes (success,
 * error, cancel, silent completion). An operation that waits for a target's answer carries {@link #cookie} of its
 * slot on the wire instead of its context; the context waits in {@link #context(int)}. A full table answers
 * {@code -EAGAIN} at post. Nothing allocates after construction.
 * <p>
 * Threading: {@link #pin} is lock-free for any number of threads: a slot is taken by a compare-and-set of its
 * holder from null, starting at a rotating hint (one CAS while the table has room; a scan when it is nearly
 * full). An operation's slots are released by one thread (the agent, or the poster whose post failed) with an
 * ordered store of null: no atomic read-modify-write on the agent's side. A slot's context and link are written
 * by the posting thread before it commits the command and read by the agent after it consumed the command (the
 * ring orders them).
 */
public final class PinTable
{
    /** The holder of a pinned slot whose buffers have nothing for the collector to keep (raw memory). */
    public static final Object NO_HOLDER = new Object();
    /** No slot: nothing pinned. */
    public static final int NONE = -1;
    private static final long COOKIE_MARK = Long.MIN_VALUE;
    private static final long LOW = 0xFFFF_FFFFL;

    private final AtomicReferenceArray<Object> holders;
    private final int[] link;
    private final long[] contexts;
    /** Where the next {@link #pin} starts looking; a racy hint, any value in range is correct. */
    private int hint;

    /**
     * Create a table.
     *
     * @param capacity slots (at least 1).
     */
    public PinTable(final int capacity)
    {
        final int n = Math.max(1, capacity);
        this.holders = new AtomicReferenceArray<>(n);
        this.link = new int[n];
        this.contexts = new long[n];
    }

    /**
     * @return the number of slots.
     */
    public int capacity()
    {
        return contexts.length;
    }

    /**
     * Pin {@code holder} in a free slot linked to {@code linkTo}.
     *
     * @param holder the object to keep reachable (not null; {@link #NO_HOLDER} for none).
     * @param linkTo the slot of the operation's other buffers, or {@link #NONE}.
     * @return the slot, or {@link #NONE} when the table is full.
     */
    public int pin(final Object holder, final int linkTo)
    {
        final AtomicReferenceArray<Object> h = holders;
        final int n = contexts.length;
        int i = hint;
        if (i < 0 || i >= n)
        {
            i = 0;
        }
        for (int k = 0; k < n; k++)
        {
            if (null == h.get(i) && h.compareAndSet(i, null, holder))
            {
                link[i] = linkTo;
                hint = i + 1 == n ? 0 : i + 1;
                return i;
            }
            i = i + 1 == n ? 0 : i + 1;
        }
        return NONE;
    }

    /**
     * Store the context of the operation whose first slot this is (posting side, before the command is committed).
     *
     * @param slot    the slot.
     * @param context the operation's context.
     */
    public void context(final int slot, final long context)
    {
        contexts[slot] = context;
    }

    /**
     * @param slot a pinned slot.
     * @return the context stored with it.
     */
    public long context(final int slot)
    {
        return contexts[slot];
    }

    /**
     * Release a slot and every slot linked from it; {@link #NONE} and slots already released (after
     * {@link #releaseAll()}) are ignored. One thread releases a given operation (the agent, or the posting
     * thread when the post fails after pinning).
     *
     * @param slot the operation's first slot.
     */
    public void release(final int slot)
    {
        final AtomicReferenceArray<Object> h = holders;
        int s = slot;
        while (s >= 0 && s < contexts.length)
        {
            // Read the link first: once the slot is free another thread may take it and write its own.
            final int after = link[s];
            if (null != h.get(s))
            {
                h.lazySet(s, null);
            }
            s = after;
        }
    }

    /**
     * The wire cookie of an operation pinned in {@code slot}: the answer brings it back and {@link #finish} turns it
     * into the operation's context.
     *
     * @param slot the operation's first slot.
     * @return the cookie.
     */
    public static long cookie(final int slot)
    {
        return COOKIE_MARK | slot;
    }

    /**
     * The wire cookie of an operation without a pin slot (INJECT: no completion reports its context): never
     * mistaken for a pin cookie when the answer comes back.
     *
     * @param context the operation's context.
     * @return the cookie.
     */
    public static long unpinnedCookie(final long context)
    {
        return context & ~COOKIE_MARK;
    }

    /**
     * An answer completes the operation its cookie names: release its slots and give its context. A cookie that
     * is not a pin cookie (an INJECT operation's) is its own context.
     *
     * @param cookie the answer's cookie.
     * @return the operation's context.
     */
    public long finish(final long cookie)
    {
        if ((cookie & COOKIE_MARK) == 0)
        {
            return cookie;
        }
        final int slot = (int) (cookie & LOW);
        if (slot >= contexts.length)
        {
            return 0;
        }
        final long context = contexts[slot];
        release(slot);
        return context;
    }

    /**
     * Drop every reference (the endpoint closed). No slot is pinned again afterwards.
     */
    public void releaseAll()
    {
        for (int i = 0; i < contexts.length; i++)
        {
            holders.set(i, null);
        }
    }

    /**
     * @return slots pinned now (a scan; for tests and diagnostics).
     */
    public int pinned()
    {
        int n = 0;
        for (int i = 0; i < contexts.length; i++)
        {
            if (null != holders.get(i))
            {
                n++;
            }
        }
        return n;
    }
}
