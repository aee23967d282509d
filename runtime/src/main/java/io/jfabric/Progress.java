package io.jfabric;

/**
 * Progress models ({@code enum fi_progress}).
 * <p>
 * Parsed from the libfabric name ({@code FI_PROGRESS_AUTO}), the kfabric name ({@code KFI_PROGRESS_AUTO}) or
 * the short name ({@code auto}), case-insensitive; printed as the libfabric name.
 * The ordinal is the libfabric enum value. Immutable and thread-safe.
 */
public enum Progress
{
    /** {@code FI_PROGRESS_UNSPEC}: any (wildcard in hints). */
    UNSPEC("FI_PROGRESS_UNSPEC"),
    /** {@code FI_PROGRESS_AUTO}: the provider progresses operations on its own. */
    AUTO("FI_PROGRESS_AUTO"),
    /** {@code FI_PROGRESS_MANUAL}: the application drives progress by reading CQs and counters. */
    MANUAL("FI_PROGRESS_MANUAL");

    private static final NameTable NAMES = new NameTable("progress model");

    static
    {
        for (final Progress v : values())
        {
            NAMES.add(v.fiName, v.ordinal(), v.name());
        }
    }

    private final String fiName;

    Progress(final String fiName)
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
    public static Progress parse(final String text)
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
