package io.jfabric;

/**
 * Address vector types ({@code enum fi_av_type}).
 * <p>
 * Parsed from the libfabric name ({@code FI_AV_MAP}), the kfabric name ({@code KFI_AV_MAP}) or
 * the short name ({@code map}), case-insensitive; printed as the libfabric name.
 * The ordinal is the libfabric enum value. Immutable and thread-safe.
 */
public enum AvType
{
    /** {@code FI_AV_UNSPEC}: any (wildcard in hints). */
    UNSPEC("FI_AV_UNSPEC"),
    /** {@code FI_AV_MAP}: handles are provider-chosen values. */
    MAP("FI_AV_MAP"),
    /** {@code FI_AV_TABLE}: handles are consecutive indices. */
    TABLE("FI_AV_TABLE");

    private static final NameTable NAMES = new NameTable("AV type");

    static
    {
        for (final AvType v : values())
        {
            NAMES.add(v.fiName, v.ordinal(), v.name());
        }
    }

    private final String fiName;

    AvType(final String fiName)
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
    public static AvType parse(final String text)
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
