package io.jfabric;

/**
 * Endpoint types ({@code enum fi_ep_type}).
 * <p>
 * Parsed from the libfabric name ({@code FI_EP_MSG}), the kfabric name ({@code KFI_EP_MSG}) or
 * the short name ({@code msg}), case-insensitive; printed as the libfabric name.
 * The ordinal is the libfabric enum value. Immutable and thread-safe.
 */
public enum EndpointType
{
    /** {@code FI_EP_UNSPEC}: any type (wildcard in hints). */
    UNSPEC("FI_EP_UNSPEC"),
    /** {@code FI_EP_MSG}: reliable, connection-oriented. */
    MSG("FI_EP_MSG"),
    /** {@code FI_EP_DGRAM}: unreliable datagrams. */
    DGRAM("FI_EP_DGRAM"),
    /** {@code FI_EP_RDM}: reliable, connectionless datagrams. */
    RDM("FI_EP_RDM"),
    /** {@code FI_EP_SOCK_STREAM}: socket-like byte stream. */
    SOCK_STREAM("FI_EP_SOCK_STREAM"),
    /** {@code FI_EP_SOCK_DGRAM}: socket-like datagrams. */
    SOCK_DGRAM("FI_EP_SOCK_DGRAM");

    private static final NameTable NAMES = new NameTable("endpoint type");

    static
    {
        for (final EndpointType v : values())
        {
            NAMES.add(v.fiName, v.ordinal(), v.name());
        }
    }

    private final String fiName;

    EndpointType(final String fiName)
    {
        this.fiName = fiName;
    }

    /**
     * The libfabric name, as {@code fi_tostr} prints it.
     *
     * @return the {@code FI_}-prefixed name.
     */
    public String fiName()
    {
        return fiName;
    }

    /**
     * The libfabric enum value.
     *
     * @return the value (the ordinal).
     */
    public int value()
    {
        return ordinal();
    }

    /**
     * Parses a name: libfabric ({@code FI_...}), kfabric ({@code KFI_...}) or short, case-insensitive.
     *
     * @param text the name.
     * @return the constant.
     * @throws FabricException EINVAL naming the input and listing the valid names when unknown.
     */
    public static EndpointType parse(final String text)
    {
        return values()[(int) NAMES.parseOne(text)];
    }

    /**
     * Every libfabric name, comma separated (for messages listing valid names).
     *
     * @return the names.
     */
    public static String validNames()
    {
        return NAMES.validNames();
    }
}
