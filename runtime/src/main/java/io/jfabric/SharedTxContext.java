package io.jfabric;

import io.jfabric.agent.PinTable;

/**
 * A shared transmit context ({@code fi_stx_context}, {@link Domain#stxContext(TxAttr)}): one transmit queue that
 * several endpoints post into ({@link Endpoint#bind(SharedTxContext, long)} before their enable).
 * <p>
 * The queue is the context's: {@code tx_attr.size} entries in all (the context's attributes, the domain's where
 * none are given), each transmit of any bound endpoint holding one from its post until it completes; a post that
 * finds them all taken answers {@code -EAGAIN}, and {@link Endpoint#txSizeLeft()} of every bound endpoint counts the
 * shared queue (each endpoint's own bounds, its transmit CQ's unreserved slots, still apply). What an endpoint's
 * own {@code tx_attr} says about sizes is replaced by the context's. Not counted: copied injects (they complete at
 * post and hold no entry).
 * <p>
 * Restrictions (fi_endpoint(3) lets a provider restrict sharing): a bound endpoint that posts receives into
 * {@code ByteBuffer}s without a shared receive context also takes entries of the shared queue for them; an endpoint
 * closed while its transmits are in flight leaves their entries taken until the context closes.
 * <p>
 * Threading: control-path methods are thread-safe (a monitor); the queue itself is lock-free.
 */
public final class SharedTxContext implements AutoCloseable
{
    private final Domain domain;
    private final TxAttr attr;
    private final int size;
    private final PinTable queue;
    private int bound;
    private boolean closed;

    SharedTxContext(final Domain domain, final TxAttr attr)
    {
        this.domain = domain;
        this.attr = attr;
        this.size = (int) Math.max(1, Math.min(1 << 16, attr.size() > 0 ? attr.size() : 1024));
        this.queue = new PinTable(size);
    }

    /**
     * @return the attributes the context was opened with (the domain's transmit attributes where none were given).
     */
    public TxAttr attr()
    {
        return attr;
    }

    /**
     * @return the shared queue's entries ({@code tx_attr.size}, 1024 when 0).
     */
    public int size()
    {
        return size;
    }

    /**
     * @return the domain it belongs to.
     */
    public Domain domain()
    {
        return domain;
    }

    /**
     * @return endpoints bound to it and not closed.
     */
    public synchronized int boundEndpoints()
    {
        return bound;
    }

    synchronized PinTable attach()
    {
        if (closed)
        {
            throw new FabricException(Errno.EINVAL, "shared transmit context is closed");
        }
        bound++;
        return queue;
    }

    synchronized void detach()
    {
        bound--;
    }

    /**
     * {@code fi_close}.
     *
     * @throws FabricException EBUSY while an endpoint bound to it is open.
     */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        if (bound > 0)
        {
            throw new FabricException(Errno.EBUSY, "shared transmit context has " + bound + " bound endpoints");
        }
        closed = true;
        queue.releaseAll();
        domain.childClosed();
    }
}
