package io.jfabric;

import io.jfabric.spi.Operation;

/**
 * A scalable endpoint ({@code fi_scalable_ep}): one address with several transmit and receive contexts, each an
 * {@link Endpoint} of its own that posts without sharing anything with the others (its own CQs and counters, its
 * own share of the domain's command rings), for a thread per context.
 * <p>
 * Layout: opening one reserves {@code rx_ctx_cnt + tx_ctx_cnt} consecutive endpoint indices of the domain; receive
 * context {@code i} is endpoint {@code base + i}, transmit context {@code j} endpoint {@code base + rx_ctx_cnt + j}.
 * {@link #name()} is receive context 0's address. A peer that inserts it into an address vector opened with
 * {@code rx_ctx_bits} ({@link AvAttr}) reaches receive context {@code i} at
 * {@link AddressVector#rxAddr(long, int, int)} (the transport turns the key into the next endpoints' keys,
 * {@code DomainTransport.contextKey}): with {@code FI_NAMED_RX_CTX} a message goes to exactly that context. A handle
 * without a context index reaches receive context 0 ("any context may receive" chosen as the first).
 * <p>
 * Binding: the address vector is bound here ({@code fi_scalable_ep_bind}); CQs and counters bound here are the
 * defaults of contexts that bind none of their own for their direction (taken when the context is enabled). A
 * transmit context refuses receives and a receive context transmits with {@code -ENOSYS}; {@code fi_tx_size_left}
 * / {@code fi_rx_size_left} ({@link Endpoint#txSizeLeft()}, {@link Endpoint#rxSizeLeft()}) answer per context.
 * <p>
 * Limits: at most {@code domain_attr.max_ep_tx_ctx} transmit and {@code max_ep_rx_ctx} receive contexts (the
 * provider's info says how many); a context's completions name the context's own operations. Not offered: a
 * source address ({@code FI_SOURCE}) of a message sent by a transmit context is that context's own address, not the
 * scalable endpoint's name (the peer's AV knows only the name, so it reports {@code FI_ADDR_NOTAVAIL}).
 * <p>
 * Threading: control-path methods are thread-safe (a monitor); the contexts' data paths are those of
 * {@link Endpoint}.
 */
public final class ScalableEndpoint implements AutoCloseable
{
    /** The receive operations: a transmit context refuses them. */
    static final long RECEIVES = receives();
    /** The transmit operations (everything else): a receive context refuses them. */
    static final long TRANSMITS = transmits();

    private final Domain domain;
    private final Info info;
    private final int base;
    private final Endpoint[] tx;
    private final Endpoint[] rx;
    private final EndpointBindings bindings;
    private int openContexts;
    private boolean enabled;
    private boolean closed;

    private ScalableEndpoint(final Domain domain, final Info info, final int base, final int txCount,
        final int rxCount)
    {
        this.domain = domain;
        this.info = info;
        this.base = base;
        this.tx = new Endpoint[txCount];
        this.rx = new Endpoint[rxCount];
        this.bindings = new EndpointBindings(domain);
    }

    static ScalableEndpoint open(final Domain domain, final Info info)
    {
        final EndpointType type = info.epAttr().type();
        if (EndpointType.RDM != type && EndpointType.UNSPEC != type && EndpointType.DGRAM != type)
        {
            throw new FabricException(Errno.EOPNOTSUPP, "fi_scalable_ep: endpoint type " + type.fiName() +
                " (RDM and DGRAM only)");
        }
        ProviderRules.checkAuthKey(domain.capabilities(), info.epAttr().authKey(), "ep_attr.auth_key");
        final DomainAttr limits = domain.info().domainAttr();
        final int txCount = count("tx_ctx_cnt", info.epAttr().txCtxCnt(), limits.maxEpTxCtx(), "max_ep_tx_ctx");
        final int rxCount = count("rx_ctx_cnt", info.epAttr().rxCtxCnt(), limits.maxEpRxCtx(), "max_ep_rx_ctx");
        final int first = domain.reserveEndpoints(txCount + rxCount);
        return new ScalableEndpoint(domain, info, first, txCount, rxCount);
    }

    private static int count(final String what, final long wanted, final long max, final String maxName)
    {
        if (EpAttr.SHARED_CONTEXT == wanted)
        {
            throw new FabricException(Errno.EINVAL, "fi_scalable_ep: " + what +
                " FI_SHARED_CONTEXT (a scalable endpoint's contexts are its own)");
        }
        final long n = 0 == wanted ? 1 : wanted;
        if (n < 0 || n > max)
        {
            throw new FabricException(Errno.EINVAL, "fi_scalable_ep: " + what + " " + Long.toUnsignedString(n) +
                " above the domain's " + maxName + " " + max);
        }
        return (int) n;
    }

    /**
     * @return the info it was opened with.
     */
    public Info info()
    {
        return info;
    }

    /**
     * @return the number of transmit contexts ({@code ep_attr.tx_ctx_cnt}, 1 when the info said 0).
     */
    public int txContextCount()
    {
        return tx.length;
    }

    /**
     * @return the number of receive contexts ({@code ep_attr.rx_ctx_cnt}, 1 when the info said 0).
     */
    public int rxContextCount()
    {
        return rx.length;
    }

    /**
     * {@code fi_getname}: the scalable endpoint's address (receive context 0's), to insert into peers' AVs.
     *
     * @return the address bytes.
     */
    public byte[] name()
    {
        return domain.transport().endpointAddress(base);
    }

    /**
     * {@code fi_scalable_ep_bind} to an address vector: the contexts address peers through it.
     *
     * @param addressVector the AV (same domain).
     * @param flags         0.
     * @return this.
     * @throws FabricException EBADFLAGS for non-zero flags; EINVAL for another domain's AV or a second one;
     *                         EOPBADSTATE after enable or close.
     */
    public synchronized ScalableEndpoint bind(final AddressVector addressVector, final long flags)
    {
        checkBindable();
        bindings.bind(addressVector, flags);
        return this;
    }

    /**
     * Bind a completion queue as the default of the contexts that bind none for that direction.
     *
     * @param cq    the queue (same domain).
     * @param flags {@link Flags#TRANSMIT} and/or {@link Flags#RECV}, optionally
     *              {@link Flags#SELECTIVE_COMPLETION}.
     * @return this.
     * @throws FabricException as {@link Endpoint#bind(CompletionQueue, long)}.
     */
    public synchronized ScalableEndpoint bind(final CompletionQueue cq, final long flags)
    {
        checkBindable();
        bindings.bind(cq, flags);
        return this;
    }

    /**
     * Bind a counter as the default of the contexts that bind none for those events.
     *
     * @param counter the counter (same domain).
     * @param flags   a non-empty subset of SEND, RECV, READ, WRITE, REMOTE_READ, REMOTE_WRITE.
     * @return this.
     * @throws FabricException as {@link Endpoint#bind(Counter, long)}.
     */
    public synchronized ScalableEndpoint bind(final Counter counter, final long flags)
    {
        checkBindable();
        bindings.bind(counter, flags);
        return this;
    }

    /**
     * {@code fi_enable} of the scalable endpoint: its bindings are final from now on. Contexts are enabled on their
     * own, before or after.
     *
     * @return this.
     * @throws FabricException ENOAV without an address vector; EOPBADSTATE when closed or already enabled.
     */
    public synchronized ScalableEndpoint enable()
    {
        checkBindable();
        if (null == bindings.av())
        {
            throw new FabricException(Errno.ENOAV, "a scalable endpoint needs an address vector before enable");
        }
        enabled = true;
        return this;
    }

    /**
     * {@code fi_tx_context}: open transmit context {@code index}. It refuses receives ({@code -ENOSYS}).
     *
     * @param index the context, 0..{@link #txContextCount()} - 1.
     * @param attr  its attributes, or null for the scalable endpoint's {@code tx_attr}; caps 0 take those.
     * @return the context, not yet enabled.
     * @throws FabricException EINVAL for an index out of range, one already open, caps beyond the scalable
     *                         endpoint's or a closed scalable endpoint.
     */
    public synchronized Endpoint txContext(final int index, final TxAttr attr)
    {
        checkIndex("fi_tx_context", index, tx);
        final TxAttr own = info.txAttr();
        TxAttr a = null == attr ? own : attr;
        if (0 == a.caps())
        {
            a = a.toBuilder().caps(own.caps()).build();
        }
        checkCaps("fi_tx_context", a.caps(), own.caps() | info.caps());
        final Endpoint ep = domain.contextEndpoint(info.toBuilder().txAttr(a).build(), base + rx.length + index,
            RECEIVES, this);
        tx[index] = ep;
        openContexts++;
        return ep;
    }

    /**
     * {@code fi_rx_context}: open receive context {@code index}. It refuses transmits ({@code -ENOSYS}).
     *
     * @param index the context, 0..{@link #rxContextCount()} - 1.
     * @param attr  its attributes, or null for the scalable endpoint's {@code rx_attr}; caps 0 take those.
     * @return the context, not yet enabled.
     * @throws FabricException EINVAL for an index out of range, one already open, caps beyond the scalable
     *                         endpoint's or a closed scalable endpoint.
     */
    public synchronized Endpoint rxContext(final int index, final RxAttr attr)
    {
        checkIndex("fi_rx_context", index, rx);
        final RxAttr own = info.rxAttr();
        RxAttr a = null == attr ? own : attr;
        if (0 == a.caps())
        {
            a = a.toBuilder().caps(own.caps()).build();
        }
        checkCaps("fi_rx_context", a.caps(), own.caps() | info.caps());
        final Endpoint ep = domain.contextEndpoint(info.toBuilder().rxAttr(a).build(), base + index, TRANSMITS,
            this);
        rx[index] = ep;
        openContexts++;
        return ep;
    }

    /**
     * Close the scalable endpoint.
     *
     * @throws FabricException EBUSY while a context is open (fi_endpoint(3): contexts close first).
     */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        if (openContexts > 0)
        {
            throw new FabricException(Errno.EBUSY, "scalable endpoint has " + openContexts + " open context(s)");
        }
        closed = true;
        bindings.unbindAll();
        domain.childClosed();
    }

    /**
     * A context's enable: hand it this endpoint's bindings for what it has not bound (see
     * {@link EndpointBindings#inherit}).
     *
     * @param context     the context's bindings.
     * @param roleRefused what the context refuses ({@link #RECEIVES} for a transmit context).
     */
    synchronized void lend(final EndpointBindings context, final long roleRefused)
    {
        final boolean transmit = roleRefused == RECEIVES;
        context.inherit(bindings, transmit, !transmit);
    }

    /**
     * A context closed: its index may be opened again, and this may close once none is left.
     *
     * @param context the context.
     */
    synchronized void contextClosed(final Endpoint context)
    {
        for (int i = 0; i < tx.length; i++)
        {
            if (tx[i] == context)
            {
                tx[i] = null;
                openContexts--;
            }
        }
        for (int i = 0; i < rx.length; i++)
        {
            if (rx[i] == context)
            {
                rx[i] = null;
                openContexts--;
            }
        }
    }

    private void checkBindable()
    {
        if (closed || enabled)
        {
            throw new FabricException(Errno.EOPBADSTATE, closed ? "scalable endpoint is closed" :
                "scalable endpoint is enabled: bind before enable");
        }
    }

    private void checkIndex(final String call, final int index, final Endpoint[] contexts)
    {
        if (closed)
        {
            throw new FabricException(Errno.EINVAL, call + ": scalable endpoint is closed");
        }
        if (index < 0 || index >= contexts.length)
        {
            throw new FabricException(Errno.EINVAL, call + ": index " + index + " outside 0.." +
                (contexts.length - 1));
        }
        if (null != contexts[index])
        {
            throw new FabricException(Errno.EINVAL, call + ": context " + index + " is already open");
        }
    }

    private static void checkCaps(final String call, final long caps, final long allowed)
    {
        if ((caps & ~allowed) != 0)
        {
            throw new FabricException(Errno.EINVAL, call + ": caps " + Flags.print(caps & ~allowed) +
                " beyond the scalable endpoint's");
        }
    }

    private static long receives()
    {
        return Operation.RECV.bit() | Operation.RECVV.bit() | Operation.RECVMSG.bit() | Operation.TRECV.bit() |
            Operation.TRECVV.bit() | Operation.TRECVMSG.bit() | Operation.TSEARCH.bit();
    }

    private static long transmits()
    {
        long all = 0;
        for (final Operation op : Operation.values())
        {
            all |= op.bit();
        }
        return all & ~receives();
    }
}
