package io.jfabric.spi;

import io.jfabric.AvAttr;
import io.jfabric.Errno;
import io.jfabric.FabricException;

/**
 * A provider's own answers for address vectors where its man page departs from fi_av(3)'s general rules (part of
 * {@link ProviderCapabilities}): the calls it does not offer ({@code FI_EVENT} vectors, named vectors,
 * {@code fi_av_insertsvc}/{@code fi_av_insertsym}), the errno of a lookup or remove of an address a {@code FI_AV_MAP}
 * vector does not hold, and the largest {@code rx_ctx_bits}. {@link #DEFAULT} keeps the runtime's rules. Immutable.
 */
public final class AddressVectorRules
{
    /** The runtime's rules: everything offered, EINVAL for an unknown map address, {@link AvAttr#MAX_RX_CTX_BITS}. */
    public static final AddressVectorRules DEFAULT = new AddressVectorRules(null, null, null, Errno.EINVAL,
        AvAttr.MAX_RX_CTX_BITS);

    private final Errno eventRefusal;
    private final Errno namedRefusal;
    private final Errno serviceRefusal;
    private final Errno unknownMapAddress;
    private final int maxRxCtxBits;

    private AddressVectorRules(
        final Errno eventRefusal,
        final Errno namedRefusal,
        final Errno serviceRefusal,
        final Errno unknownMapAddress,
        final int maxRxCtxBits)
    {
        this.eventRefusal = eventRefusal;
        this.namedRefusal = namedRefusal;
        this.serviceRefusal = serviceRefusal;
        this.unknownMapAddress = unknownMapAddress;
        this.maxRxCtxBits = maxRxCtxBits;
    }

    /**
     * @param errno the answer to opening a vector with {@link AvAttr#EVENT} (and to binding an event queue), or
     *              null to offer it.
     * @return a copy with that answer.
     */
    public AddressVectorRules refuseEvent(final Errno errno)
    {
        return new AddressVectorRules(errno, namedRefusal, serviceRefusal, unknownMapAddress, maxRxCtxBits);
    }

    /**
     * @param errno the answer to opening a named vector ({@code attr.name}), or null for the runtime's rule.
     * @return a copy with that answer.
     */
    public AddressVectorRules refuseNamed(final Errno errno)
    {
        return new AddressVectorRules(eventRefusal, errno, serviceRefusal, unknownMapAddress, maxRxCtxBits);
    }

    /**
     * @param errno the answer to {@code fi_av_insertsvc} and {@code fi_av_insertsym}, or null to offer them.
     * @return a copy with that answer.
     */
    public AddressVectorRules refuseServiceInsert(final Errno errno)
    {
        return new AddressVectorRules(eventRefusal, namedRefusal, errno, unknownMapAddress, maxRxCtxBits);
    }

    /**
     * @param errno the errno of a lookup or remove of an address a {@code FI_AV_MAP} vector does not hold.
     * @return a copy with that answer.
     */
    public AddressVectorRules unknownMapAddress(final Errno errno)
    {
        if (null == errno)
        {
            throw new FabricException(Errno.EINVAL, "the unknown map address errno is null");
        }
        return new AddressVectorRules(eventRefusal, namedRefusal, serviceRefusal, errno, maxRxCtxBits);
    }

    /**
     * @param bits the largest {@code rx_ctx_bits} a vector opens with, 0..{@link AvAttr#MAX_RX_CTX_BITS}.
     * @return a copy with that limit.
     */
    public AddressVectorRules maxRxCtxBits(final int bits)
    {
        if (bits < 0 || bits > AvAttr.MAX_RX_CTX_BITS)
        {
            throw new FabricException(Errno.EINVAL, "rx_ctx_bits limit " + bits);
        }
        return new AddressVectorRules(eventRefusal, namedRefusal, serviceRefusal, unknownMapAddress, bits);
    }

    /**
     * @return the answer to {@link AvAttr#EVENT}, or null when offered.
     */
    public Errno eventRefusal()
    {
        return eventRefusal;
    }

    /**
     * @return the answer to a named vector, or null for the runtime's rule.
     */
    public Errno namedRefusal()
    {
        return namedRefusal;
    }

    /**
     * @return the answer to {@code fi_av_insertsvc}/{@code fi_av_insertsym}, or null when offered.
     */
    public Errno serviceRefusal()
    {
        return serviceRefusal;
    }

    /**
     * @return the errno of a lookup or remove of an address a map vector does not hold.
     */
    public Errno unknownMapAddress()
    {
        return unknownMapAddress;
    }

    /**
     * @return the largest {@code rx_ctx_bits}.
     */
    public int maxRxCtxBits()
    {
        return maxRxCtxBits;
    }
}
