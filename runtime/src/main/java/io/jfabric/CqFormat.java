package io.jfabric;

/**
 * Completion queue entry formats ({@code enum fi_cq_format}).
 * <p>
 * Parsed from the libfabric name ({@code FI_CQ_FORMAT_CONTEXT}), the kfabric name ({@code KFI_CQ_FORMAT_CONTEXT}) or
 * the short name ({@code context}), case-insensitive; printed as the libfabric name.
 * The ordinal is the libfabric enum value. Immutable and thread-safe.
 */
public enum CqFormat
{
    /** {@code FI_CQ_FORMAT_UNSPEC}: provider default. */
    UNSPEC("FI_CQ_FORMAT_UNSPEC"),
    /** {@code FI_CQ_FORMAT_CONTEXT}: operation context only. */
    CONTEXT("FI_CQ_FORMAT_CONTEXT"),
    /** {@code FI_CQ_FORMAT_MSG}: context, flags and length. */
    MSG("FI_CQ_FORMAT_MSG"),
    /** {@code FI_CQ_FORMAT_DATA}: context, flags, length, buffer and remote CQ data. */
    DATA("FI_CQ_FORMAT_DATA"),
    /** {@code FI_CQ_FORMAT_TAGGED}: the data format plus the tag. */
    TAGGED("FI_CQ_FORMAT_TAGGED");

    private static final NameTable NAMES = new NameTable("CQ format");

    static
    {
        for (final CqFormat v : values())
        {
            NAMES.add(v.fiName, v.ordinal(), v.name());
        }
    }

    private final String fiName;

    CqFormat(final String fiName)
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
    public static CqFormat parse(final String text)
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
