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
     * Deregister: later remote accesses with this key complete with {@code EINVAL}; the key may be registered again.
     */
    @Override
    public void close()
    {
        if (closed.compareAndSet(false, true))
        {
            domain.mrCommand(io.jfabric.agent.CommandDescriptor.OP_MR_CLOSE, 0, 0, 0, key, null, 0);
            // The agent has removed the key: no new access reaches the memory, which may go now.
            pinned = null;
            domain.childClosed();
        }
    }
}
