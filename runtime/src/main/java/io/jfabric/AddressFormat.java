package io.jfabric;

/**
 * Address formats ({@code fi_info.addr_format}).
 * <p>
 * Parsed from the libfabric name ({@code FI_SOCKADDR}), the kfabric name ({@code KFI_SOCKADDR}) or
 * the short name ({@code sockaddr}), case-insensitive; printed as the libfabric name.
 * The ordinal is the libfabric enum value. Immutable and thread-safe.
 */
public enum AddressFormat
{
    /** {@code FI_FORMAT_UNSPEC}: provider-specific or any (wildcard in hints). */
    UNSPEC("FI_FORMAT_UNSPEC"),
    /** {@code FI_SOCKADDR}: a {@code struct sockaddr} of any family. */
    SOCKADDR("FI_SOCKADDR"),
    /** {@code FI_SOCKADDR_IN}: IPv4 address and port. */
    SOCKADDR_IN("FI_SOCKADDR_IN"),
    /** {@code FI_SOCKADDR_IN6}: IPv6 address and port. */
    SOCKADDR_IN6("FI_SOCKADDR_IN6"),
    /** {@code FI_SOCKADDR_IB}: InfiniBand socket address. */
    SOCKADDR_IB("FI_SOCKADDR_IB"),
    /** {@code FI_ADDR_PSMX}: PSM endpoint id (deprecated). */
    PSMX("FI_ADDR_PSMX"),
    /** {@code FI_ADDR_GNI}: Cray GNI address. */
    GNI("FI_ADDR_GNI"),
    /** {@code FI_ADDR_BGQ}: Blue Gene/Q address. */
    BGQ("FI_ADDR_BGQ"),
    /** {@code FI_ADDR_MLX}: MXM/UCX address. */
    MLX("FI_ADDR_MLX"),
    /** {@code FI_ADDR_STR}: formatted string, {@code format://node:service/...}. */
    STR("FI_ADDR_STR"),
    /** {@code FI_ADDR_PSMX2}: PSM2 address. */
    PSMX2("FI_ADDR_PSMX2"),
    /** {@code FI_ADDR_IB_UD}: InfiniBand UD address. */
    IB_UD("FI_ADDR_IB_UD"),
    /** {@code FI_ADDR_EFA}: AWS EFA address. */
    EFA("FI_ADDR_EFA"),
    /** {@code FI_ADDR_PSMX3}: PSM3 address. */
    PSMX3("FI_ADDR_PSMX3"),
    /** {@code FI_ADDR_OPX}: Omni-Path Express address. */
    OPX("FI_ADDR_OPX"),
    /** {@code FI_ADDR_CXI}: HPE Slingshot CXI address. */
    CXI("FI_ADDR_CXI"),
    /** {@code FI_ADDR_UCX}: UCX address. */
    UCX("FI_ADDR_UCX");

    private static final NameTable NAMES = new NameTable("address format");

    static
    {
        for (final AddressFormat v : values())
        {
            NAMES.add(v.fiName, v.ordinal(), v.name());
        }
    }

    private final String fiName;

    AddressFormat(final String fiName)
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
    public static AddressFormat parse(final String text)
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
