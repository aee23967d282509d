package io.jfabric.provider.gni;

import io.jfabric.Errno;
import io.jfabric.aries.GniNic;
import io.jfabric.aries.GniRc;
import io.jfabric.aries.MemHandle;

/**
 * The domain's memory-registration cache (GNI.md §2.7) over its NIC's registrations: the registrations a target makes
 * for the remote accesses it serves (an MR query's answer names one) go through it.
 * <ul>
 *   <li>{@code internal} (default): an access whose pages lie inside a registration of the same kind (read-only or
 *   read-write) reuses it; released registrations with lazy deregistration ({@code GNI_MR_CACHE_LAZY_DEREG}, on by
 *   default) stay registered as <em>stale</em> entries, reused when an access falls inside them, deregistered oldest
 *   first when there are more than {@code GNI_MR_HARD_STALE_REG_LIMIT}, when in-use and stale entries together pass
 *   {@code GNI_MR_SOFT_REG_LIMIT}, or by {@code flush_cache}; with {@code GNI_MR_HARD_REG_LIMIT} &gt; 0 a new
 *   registration while that many are in use fails {@code ENOSPC}, and one that would reach it with stale entries
 *   evicts the oldest first; {@code 0 < hard < soft} fails the first use with {@code EINVAL}.</li>
 *   <li>{@code udreg}: the same reuse in an LRU of {@code GNI_MR_UDREG_REG_LIMIT} entries (in use and stale);
 *   {@code flush_cache} does nothing (upstream's udreg has no flush).</li>
 *   <li>{@code none}: every access registers and its end deregisters.</li>
 * </ul>
 * The type and the settings are read when the cache is first used (its first acquisition); the type cannot change
 * afterwards.
 * <p>
 * Threading: {@link #acquire}, {@link #release}, {@link #doWork} and {@link #close} on the domain agent's thread
 * (no allocation); {@link #type(Type)} and {@link #requestFlush()} from any thread; the statistics are volatile reads.
 */
final class GniMrCache
{
    /** Cache types ({@code GNI_MR_CACHE}). */
    enum Type
    {
        /** The provider's own cache. */
        INTERNAL("internal"),
        /** The emulated udreg library's LRU. */
        UDREG("udreg"),
        /** No cache. */
        NONE("none");

        private final String text;

        Type(final String text)
        {
            this.text = text;
        }

        static Type parse(final String name)
        {
            for (final Type t : values())
            {
                if (t.text.equals(name))
                {
                    return t;
                }
            }
            return null;
        }
    }

    /** Entries the cache holds at most (registrations in use and stale). */
    static final int CAPACITY = 1024;

    private static final int FREE = 0;
    private static final int IN_USE = 1;
    private static final int STALE = 2;
    private static final long PAGE = MemHandle.PAGE_SIZE;

    private final GniNic nic;
    private final GniDomainOps ops;
    private final MemHandle[] handles = new MemHandle[CAPACITY];
    private final long[] start = new long[CAPACITY];
    private final long[] end = new long[CAPACITY];
    private final int[] flags = new int[CAPACITY];
    private final int[] refs = new int[CAPACITY];
    private final int[] state = new int[CAPACITY];
    private final long[] lastUse = new long[CAPACITY];
    private final boolean[] revoked = new boolean[CAPACITY];
    private volatile Type type;
    private volatile boolean started;
    private volatile long flushRequests;
    private long flushesDone;
    private long clock;
    private boolean lazy;
    private long soft;
    private long hard;
    private long staleLimit;
    private int startError;
    private volatile long inUse;
    private volatile long stale;
    private volatile long hits;
    private volatile long misses;
    private volatile long deregistrations;
    private volatile long flushes;

    GniMrCache(final GniNic nic, final GniDomainOps ops, final Type initial)
    {
        this.nic = nic;
        this.ops = ops;
        this.type = initial;
        for (int i = 0; i < CAPACITY; i++)
        {
            handles[i] = new MemHandle();
        }
    }

    synchronized boolean type(final Type wanted)
    {
        if (started)
        {
            return false;
        }
        type = wanted;
        return true;
    }

    String typeName()
    {
        return type.text;
    }

    boolean started()
    {
        return started;
    }

    void requestFlush()
    {
        synchronized (this)
        {
            flushRequests++;
        }
    }

    MemHandle handle(final int index)
    {
        return handles[index];
    }

    private synchronized void start()
    {
        started = true;
        lazy = 0 != ops.value(GniOps.GNI_MR_CACHE_LAZY_DEREG);
        soft = ops.value(GniOps.GNI_MR_SOFT_REG_LIMIT);
        hard = ops.value(GniOps.GNI_MR_HARD_REG_LIMIT);
        staleLimit = ops.value(GniOps.GNI_MR_HARD_STALE_REG_LIMIT);
        if (Type.UDREG == type)
        {
            // udreg: one LRU of GNI_MR_UDREG_REG_LIMIT entries.
            soft = ops.value(GniOps.GNI_MR_UDREG_REG_LIMIT);
            hard = -1;
            staleLimit = soft;
        }
        startError = hard > 0 && hard < soft ? Errno.EINVAL.value() : 0;
    }

    /**
     * A registration of {@code [address, address + length)} for one remote access.
     *
     * @param address start.
     * @param length  bytes, at least 1.
     * @param access  {@link GniNic#MEM_READ_ONLY} or {@link GniNic#MEM_READWRITE}.
     * @return the entry's index, {@code -EAGAIN} when every entry is in use (try again later), {@code -ENOSPC} at
     * the hard limit, {@code -EINVAL} for limits the cache refused when it started, {@code -ENOMEM} when the NIC
     * refused the registration.
     */
    int acquire(final long address, final long length, final int access)
    {
        if (!started)
        {
            start();
        }
        if (0 != startError)
        {
            return -startError;
        }
        final long first = address & ~(PAGE - 1);
        final long last = (address + length + PAGE - 1) & ~(PAGE - 1);
        final Type t = type;
        if (Type.NONE != t)
        {
            for (int i = 0; i < CAPACITY; i++)
            {
                if (FREE != state[i] && !revoked[i] && flags[i] == access && start[i] <= first && end[i] >= last)
                {
                    if (STALE == state[i])
                    {
                        state[i] = IN_USE;
                        stale--;
                        inUse++;
                    }
                    refs[i]++;
                    lastUse[i] = ++clock;
                    hits++;
                    return i;
                }
            }
        }
        if (hard > 0 && inUse >= hard)
        {
            return -Errno.ENOSPC.value();
        }
        if (hard > 0 && inUse + stale >= hard && stale > 0)
        {
            evictOldestStale();
        }
        if (Type.UDREG == t && inUse + stale >= soft && stale > 0)
        {
            evictOldestStale();
        }
        int slot = freeSlot();
        if (slot < 0 && stale > 0)
        {
            evictOldestStale();
            slot = freeSlot();
        }
        if (slot < 0)
        {
            return -Errno.EAGAIN.value();
        }
        if (GniRc.SUCCESS != nic.memRegister(first, last - first, null, access, 0, handles[slot]))
        {
            return -Errno.ENOMEM.value();
        }
        start[slot] = first;
        end[slot] = last;
        flags[slot] = access;
        refs[slot] = 1;
        state[slot] = IN_USE;
        lastUse[slot] = ++clock;
        inUse++;
        misses++;
        return slot;
    }

    /**
     * The end of an access that {@link #acquire} served.
     *
     * @param index the entry.
     * @return true when the index named an entry in use.
     */
    boolean release(final int index)
    {
        if (index < 0 || index >= CAPACITY || IN_USE != state[index] || refs[index] < 1)
        {
            return false;
        }
        if (--refs[index] > 0)
        {
            return true;
        }
        inUse--;
        if (revoked[index])
        {
            revoked[index] = false;
            state[index] = FREE;
            return true;
        }
        if (Type.NONE == type || !lazy)
        {
            deregister(index);
            return true;
        }
        state[index] = STALE;
        stale++;
        while (stale > 0 && (stale > staleLimit || inUse + stale > soft))
        {
            evictOldestStale();
        }
        return true;
    }

    /**
     * Carry out the {@code flush_cache} calls made since the last duty cycle.
     *
     * @return work done.
     */
    int doWork()
    {
        final long requests = flushRequests;
        if (requests == flushesDone)
        {
            return 0;
        }
        flushesDone = requests;
        if (Type.INTERNAL == type)
        {
            for (int i = 0; i < CAPACITY; i++)
            {
                if (STALE == state[i])
                {
                    stale--;
                    deregister(i);
                }
            }
        }
        flushes++;
        return 1;
    }

    void close()
    {
        for (int i = 0; i < CAPACITY; i++)
        {
            if (FREE != state[i])
            {
                if (!revoked[i])
                {
                    // A revoked entry was deregistered when its region closed: not a second time.
                    nic.memDeregister(handles[i]);
                }
                revoked[i] = false;
                state[i] = FREE;
            }
        }
        inUse = 0;
        stale = 0;
    }

    private int freeSlot()
    {
        for (int i = 0; i < CAPACITY; i++)
        {
            if (FREE == state[i])
            {
                return i;
            }
        }
        return -1;
    }

    private void evictOldestStale()
    {
        int oldest = -1;
        for (int i = 0; i < CAPACITY; i++)
        {
            if (STALE == state[i] && (oldest < 0 || lastUse[i] < lastUse[oldest]))
            {
                oldest = i;
            }
        }
        if (oldest >= 0)
        {
            stale--;
            deregister(oldest);
        }
    }

    /**
     * Deregister an entry in use now, for a memory region that closed while the access it serves is in flight
     * (the NIC refuses that access's frames from here on); the entry is freed by the access's {@link #release}.
     * Refused for an entry other accesses share (reuse of one registration by several accesses).
     *
     * @param index the entry.
     * @return true when the entry was revoked.
     */
    boolean revoke(final int index)
    {
        if (index < 0 || index >= CAPACITY || IN_USE != state[index] || 1 != refs[index] || revoked[index])
        {
            return false;
        }
        nic.memDeregister(handles[index]);
        revoked[index] = true;
        deregistrations++;
        return true;
    }

    private void deregister(final int index)
    {
        nic.memDeregister(handles[index]);
        state[index] = FREE;
        refs[index] = 0;
        deregistrations++;
    }

    long inUse()
    {
        return inUse;
    }

    long stale()
    {
        return stale;
    }

    long hits()
    {
        return hits;
    }

    long misses()
    {
        return misses;
    }

    long deregistrations()
    {
        return deregistrations;
    }

    long flushes()
    {
        return flushes;
    }

    long nicRegistrations()
    {
        return inUse + stale;
    }
}
