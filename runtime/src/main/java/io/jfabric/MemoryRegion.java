package io.jfabric;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A registered memory region ({@code fi_mr}): its key (what a peer passes in RMA operations), its descriptor, its
 * address, length and access flags. Every remote access is checked by the target domain's agent against the
 * region's rights and bounds; after {@link #close()} accesses with the key fail with {@code EINVAL}.
 * <p>
 * Threading: accessors are thread-safe (immutable fields); close is a control-path call.
 */
public final class MemoryRegion implements AutoCloseable
{
    private final Domain domain;
    private final long key;
    private final long address;
    private final long length;
    private final long access;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile long context;
    /** Counters bound with fi_mr_bind (guarded by this). */
    private Counter writeCounter;
    private Counter readCounter;
    /** What owns the registered memory (a ByteBuffer or an array of them): reachable until close (issue 10). */
    private volatile Object pinned;

    MemoryRegion(final Domain domain, final long key, final long address, final long length, final long access)
    {
        this.domain = domain;
        this.key = key;
        this.address = address;
        this.length = length;
        this.access = access;
    }

    /**
     * @return the application's context given at registration ({@code fi_mr_regattr}), else 0.
     */
    public long context()
    {
        return context;
    }

    void context(final long value)
    {
        this.context = value;
    }

    /**
     * Keep the owner(s) of the registered memory reachable until {@link #close()}: the agent reaches the memory by
     * address only, and a buffer the application drops would otherwise be freed under remote writes.
     */
    MemoryRegion pin(final Object holders)
    {
        this.pinned = holders;
        return this;
    }

    /**
     * {@code fi_mr_key}.
     *
     * @return the remote key.
     */
    public long key()
    {
        return key;
    }

    /**
     * {@code fi_mr_desc}: the local descriptor (the key; inproc needs no local registration).
     *
     * @return the descriptor.
     */
    public long descriptor()
    {
        return key;
    }

    /**
     * @return the address of the first byte.
     */
    public long address()
    {
        return address;
    }

    /**
     * @return the length in bytes.
     */
    public long length()
    {
        return length;
    }

    /**
     * @return the access flags.
     */
    public long access()
    {
        return access;
    }

    /**
     * {@code fi_mr_bind} to a counter: {@link Flags#REMOTE_WRITE} counts every RMA write and atomic that lands in
     * this region, {@link Flags#REMOTE_READ} every RMA read (and {@code FI_ATOMIC_READ}) served from it, whichever
     * endpoint of the domain is the target (an operation over several ranges of the region counts once). The count
     * moves once the data is in place, before the initiator's completion. Binding again replaces the counter for
     * those flags. The counter cannot be closed while bound ({@code EBUSY}); closing the region unbinds it.
     *
     * @param counter the counter (of this region's domain).
     * @param flags   {@link Flags#REMOTE_WRITE} and/or {@link Flags#REMOTE_READ}.
     * @throws FabricException EINVAL for a null counter or another domain's, EBADFLAGS for other flags,
     *                         EOPBADSTATE once closed.
     */
    public void bind(final Counter counter, final long flags)
    {
        if (null == counter || counter.domain() != domain)
        {
            throw new FabricException(Errno.EINVAL, "counter of another domain, or none");
        }
        if (0 == flags || (flags & ~(Flags.REMOTE_WRITE | Flags.REMOTE_READ)) != 0)
        {
            throw new FabricException(Errno.EBADFLAGS, "memory region counter bind flags 0x" +
                Long.toHexString(flags));
        }
        synchronized (this)
        {
            if (closed.get())
            {
                throw new FabricException(Errno.EOPBADSTATE, "memory region closed");
            }
            domain.mrBind(key, counter.cell(), flags);
            if ((flags & Flags.REMOTE_WRITE) != 0)
            {
                writeCounter = rebound(writeCounter, counter);
            }
            if ((flags & Flags.REMOTE_READ) != 0)
            {
                readCounter = rebound(readCounter, counter);
            }
        }
    }

    private static void unbind(final Counter counter)
    {
        if (null != counter)
        {
            counter.bound(-1);
        }
    }

    private static Counter rebound(final Counter before, final Counter after)
    {
        after.bound(1);
        if (null != before)
        {
            before.bound(-1);
        }
        return after;
    }

    /**
     * {@code fi_mr_bind} to an endpoint ({@code FI_MR_ENDPOINT}). Not offered: regions belong to the domain and
     * serve every endpoint of it; no provider has {@code FI_MR_ENDPOINT} in its {@code mr_mode}.
     *
     * @param endpoint the endpoint.
     * @param flags    0.
     * @throws FabricException EINVAL for a null endpoint or another domain's, EBADFLAGS for non-zero flags, ENOSYS
     *                         otherwise.
     */
    public void bind(final Endpoint endpoint, final long flags)
    {
        if (null == endpoint || endpoint.domain() != domain)
        {
            throw new FabricException(Errno.EINVAL, "endpoint of another domain, or none");
        }
        if (0 != flags)
        {
            throw new FabricException(Errno.EBADFLAGS, "memory region endpoint bind flags 0x" +
                Long.toHexString(flags));
        }
        throw new FabricException(Errno.ENOSYS, "memory regions are not bound to endpoints (FI_MR_ENDPOINT is not " +
            "offered): a region serves every endpoint of its domain");
    }

    /**
     * {@code fi_mr_enable}: a region is enabled when its registration returns (neither {@code FI_MR_RMA_EVENT} nor
     * {@code FI_MR_ENDPOINT} is in any provider's {@code mr_mode}), so this only checks that it is open.
     *
     * @return 0, or {@code -EOPBADSTATE} once closed.
     */
    public int enable()
    {
        return closed.get() ? Errno.EOPBADSTATE.negated() : 0;
    }

    /**
     * {@code fi_mr_refresh}: update the provider's registration of some ranges of this region, for example once the
     * application has mapped their pages anew (fi_mr(3)). Each range is given as a buffer over its bytes (an iovec:
     * {@code addressOffset()} and {@code capacity()}, for example a slice of the registered buffer) and must lie
     * within the region. Providers that keep no registration to update answer {@code -ENOSYS} (inproc, shm, aeron);
     * gni updates the pages of a scalable region in its NIC's vMDH slot (fi_gni(7)). Control path, any thread.
     *
     * @param iov   the ranges; each at least one byte.
     * @param count how many of {@code iov} to take, at least 1.
     * @param flags 0 (no flag is defined).
     * @return 0; {@code -EINVAL} for no range, an empty one or one outside the region; {@code -EBADFLAGS} for flags;
     * {@code -EOPBADSTATE} once closed; {@code -ENOSYS} where the provider offers no refresh; the provider's errno
     * otherwise (the ranges before the failing one were refreshed).
     */
    public int refresh(final org.agrona.DirectBuffer[] iov, final int count, final long flags)
    {
        if (null == iov || count < 1 || count > iov.length)
        {
            return Errno.EINVAL.negated();
        }
        if (0 != flags)
        {
            return Errno.EBADFLAGS.negated();
        }
        if (closed.get())
        {
            return Errno.EOPBADSTATE.negated();
        }
        for (int i = 0; i < count; i++)
        {
            final org.agrona.DirectBuffer range = iov[i];
            if (null == range || range.capacity() < 1 || range.addressOffset() < address ||
                range.addressOffset() - address > length - range.capacity())
            {
                return Errno.EINVAL.negated();
            }
        }
        for (int i = 0; i < count; i++)
        {
            final int rc = domain.mrRefresh(key, iov[i].addressOffset(), iov[i].capacity());
            if (0 != rc)
            {
                return rc;
            }
        }
        return 0;
    }

    /**
     * Deregister: later remote accesses with this key complete with {@code EINVAL}; the key may be registered again.
     */
    @Override
    public void close()
    {
        if (closed.compareAndSet(false, true))
        {
            domain.mrCommand(io.jfabric.agent.CommandDescriptor.OP_MR_CLOSE, 0, 0, 0, key, null, 0);
            synchronized (this)
            {
                // The agent dropped the region's counters with it.
                unbind(writeCounter);
                unbind(readCounter);
                writeCounter = null;
                readCounter = null;
            }
            // The agent has removed the key: no new access reaches the memory, which may go now.
            pinned = null;
            domain.childClosed();
        }
    }
}
