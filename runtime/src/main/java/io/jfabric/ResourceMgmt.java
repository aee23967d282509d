package io.jfabric;

/**
 * Resource management ({@code enum fi_resource_mgmt}).
 * <p>
 * Parsed from the libfabric name ({@code FI_RM_DISABLED}), the kfabric name ({@code KFI_RM_DISABLED}) or
 * the short name ({@code disabled}), case-insensitive; printed as the libfabric name.
 * The ordinal is the libfabric enum value. Immutable and thread-safe.
 */
public enum ResourceMgmt
{
    /** {@code FI_RM_UNSPEC}: any (wildcard in hints). */
    UNSPEC("FI_RM_UNSPEC"),
    /** {@code FI_RM_DISABLED}: the application guarantees that no queue overruns. */
    DISABLED("FI_RM_DISABLED"),
    /** {@code FI_RM_ENABLED}: the provider protects queues: posts return EAGAIN instead of overrunning. */
    ENABLED("FI_RM_ENABLED");

    private static final NameTable NAMES = new NameTable("resource management");

    static
    {
        for (final ResourceMgmt v : values())
        {
            NAMES.add(v.fiName, v.ordinal(), v.name());
        }
    }

    private final String fiName;

    ResourceMgmt(final String fiName)
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
    public static ResourceMgmt parse(final String text)
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
