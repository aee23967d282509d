package io.jfabric;

import io.jfabric.agent.PinTable;

/**
 * An endpoint's part in shared contexts ({@code fi_stx_context}, {@code fi_srx_context}): the shared receive context
 * and the shared transmit context it is bound to, or, when the endpoint is itself a shared receive context, how many
 * endpoints are bound to it.
 * <p>
 * A shared receive context is an {@link Endpoint} that only receives (its transmit calls answer {@code -ENOSYS}) at
 * an endpoint index of its own; it takes the address vector, receive CQ and receive counters of the first bound
 * endpoint that is enabled (then it is enabled itself) and every later one must have bound the same receive CQ.
 * <p>
 * Threading: guarded by the owning endpoint's monitor (bind, enable and close are synchronized there).
 */
final class SharedContexts
{
    private boolean receiveContext;
    private int sharers;
    private Endpoint srx;
    private SharedTxContext stx;

    /**
     * Open a shared receive context in {@code domain}: an endpoint index of its own, the domain's info with
     * {@code attr} as its receive attributes.
     *
     * @param domain the domain.
     * @param attr   the receive attributes; null for the domain's.
     * @return the context, an endpoint that only receives.
     */
    static Endpoint openReceive(final Domain domain, final RxAttr attr)
    {
        final Info info = domain.info();
        checkOffered(info, true);
        final RxAttr a = null == attr ? info.rxAttr() : attr;
        if (a.size() < 0)
        {
            throw new FabricException(Errno.EINVAL, "rx_attr.size " + a.size());
        }
        final int index = domain.reserveEndpoints(1);
        final Endpoint srx = domain.contextEndpoint(info.toBuilder().rxAttr(a).build(), index,
            ScalableEndpoint.TRANSMITS, null);
        srx.sharedContexts().receiveContext = true;
        return srx;
    }

    /**
     * A provider that advertises no shared contexts of a kind ({@code max_ep_srx_ctx} or {@code max_ep_stx_ctx} 0)
     * opens none.
     *
     * @param info    the domain's info.
     * @param receive true for {@code fi_srx_context}, false for {@code fi_stx_context}.
     * @throws FabricException ENOSYS when the provider offers none of that kind.
     */
    static void checkOffered(final Info info, final boolean receive)
    {
        if (0 == (receive ? info.domainAttr().maxEpSrxCtx() : info.domainAttr().maxEpStxCtx()))
        {
            throw new FabricException(Errno.ENOSYS, (receive ? "fi_srx_context: " : "fi_stx_context: ") +
                info.fabricAttr().provName() + " offers no shared " + (receive ? "receive" : "transmit") +
                " contexts (" + (receive ? "max_ep_srx_ctx" : "max_ep_stx_ctx") + " 0)");
        }
    }

    /**
     * @return true when the endpoint is a shared receive context.
     */
    boolean receiveContext()
    {
        return receiveContext;
    }

    /**
     * @return the shared receive context the endpoint is bound to, or null.
     */
    Endpoint srx()
    {
        return srx;
    }

    /**
     * Bind {@code endpoint} to the shared receive context {@code context}.
     *
     * @throws FabricException EBADFLAGS for non-zero flags; EINVAL for an endpoint that is not a shared receive
     *                         context, of another domain, closed, or a second one.
     */
    void bindReceive(final Endpoint endpoint, final Endpoint context, final long flags, final Domain domain)
    {
        if (0 != flags)
        {
            throw new FabricException(Errno.EBADFLAGS, "srx bind flags 0x" + Long.toHexString(flags));
        }
        if (null == context || context == endpoint || !context.sharedContexts().receiveContext ||
            receiveContext)
        {
            throw new FabricException(Errno.EINVAL, "not a shared receive context (Domain.srxContext)");
        }
        if (context.domain() != domain)
        {
            throw new FabricException(Errno.EINVAL, "shared receive context of another domain");
        }
        if (null != srx)
        {
            throw new FabricException(Errno.EINVAL, "a shared receive context is already bound");
        }
        context.sharers(1);
        srx = context;
    }

    /**
     * Bind the shared transmit context {@code context}.
     *
     * @return its queue's table.
     * @throws FabricException EBADFLAGS for non-zero flags; EINVAL for another domain's context, a closed one or a
     *                         second one, and on a shared receive context.
     */
    PinTable bindTransmit(final SharedTxContext context, final long flags, final Domain domain)
    {
        if (0 != flags)
        {
            throw new FabricException(Errno.EBADFLAGS, "stx bind flags 0x" + Long.toHexString(flags));
        }
        if (null == context || context.domain() != domain || receiveContext)
        {
            throw new FabricException(Errno.EINVAL, "shared transmit context of another domain, or none");
        }
        if (null != stx)
        {
            throw new FabricException(Errno.EINVAL, "a shared transmit context is already bound");
        }
        final PinTable queue = context.attach();
        stx = context;
        return queue;
    }

    /**
     * A shared receive context: one more endpoint bound to it (+1), or one bound to it closed (-1); the owner's
     * monitor held.
     *
     * @param change +1 or -1.
     */
    void sharers(final int change)
    {
        sharers += change;
    }

    /**
     * Close check (the owner's monitor held).
     *
     * @throws FabricException EBUSY for a shared receive context with bound endpoints still open.
     */
    void checkClosable()
    {
        if (sharers > 0)
        {
            throw new FabricException(Errno.EBUSY, "shared receive context has " + sharers + " bound endpoints");
        }
    }

    /**
     * The owner closed: the contexts it is bound to count it no more.
     */
    void unbind()
    {
        if (null != srx)
        {
            srx.sharers(-1);
        }
        if (null != stx)
        {
            stx.detach();
        }
    }
}
