package io.jfabric;

/**
 * Completion queue wait conditions ({@code enum fi_cq_wait_cond}).
 * <p>
 * Parsed from the libfabric name ({@code FI_CQ_COND_THRESHOLD}), the kfabric name ({@code KFI_CQ_COND_THRESHOLD}) or
 * the short name ({@code threshold}), case-insensitive; printed as the libfabric name.
 * The ordinal is the libfabric enum value. Immutable and thread-safe.
 */
public enum CqWaitCond
{
    /** {@code FI_CQ_COND_NONE}: wake on any completion. */
    NONE("FI_CQ_COND_NONE"),
    /** {@code FI_CQ_COND_THRESHOLD}: wake once a threshold of completions is reached. */
    THRESHOLD("FI_CQ_COND_THRESHOLD");

    private static final NameTable NAMES = new NameTable("CQ wait condition");

    static
    {
        for (final CqWaitCond v : values())
        {
            NAMES.add(v.fiName, v.ordinal(), v.name());
        }
    }

    private final String fiName;

    CqWaitCond(final String fiName)
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
    public static CqWaitCond parse(final String text)
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
