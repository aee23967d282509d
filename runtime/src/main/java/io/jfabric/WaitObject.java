package io.jfabric;

/**
 * Wait objects ({@code enum fi_wait_obj}).
 * <p>
 * Parsed from the libfabric name ({@code FI_WAIT_UNSPEC}), the kfabric name ({@code KFI_WAIT_UNSPEC}) or
 * the short name ({@code unspec}), case-insensitive; printed as the libfabric name.
 * The ordinal is the libfabric enum value. Immutable and thread-safe.
 */
public enum WaitObject
{
    /** {@code FI_WAIT_NONE}: no waiting: polling only. */
    NONE("FI_WAIT_NONE"),
    /** {@code FI_WAIT_UNSPEC}: provider's choice. */
    UNSPEC("FI_WAIT_UNSPEC"),
    /** {@code FI_WAIT_SET}: a wait set. */
    SET("FI_WAIT_SET"),
    /** {@code FI_WAIT_FD}: a file descriptor. */
    FD("FI_WAIT_FD"),
    /** {@code FI_WAIT_MUTEX_COND}: a mutex and condition variable. */
    MUTEX_COND("FI_WAIT_MUTEX_COND"),
    /** {@code FI_WAIT_YIELD}: yield while waiting. */
    YIELD("FI_WAIT_YIELD"),
    /** {@code FI_WAIT_POLLFD}: a set of poll file descriptors. */
    POLLFD("FI_WAIT_POLLFD");

    private static final NameTable NAMES = new NameTable("wait object");

    static
    {
        for (final WaitObject v : values())
        {
            NAMES.add(v.fiName, v.ordinal(), v.name());
        }
    }

    private final String fiName;

    WaitObject(final String fiName)
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
    public static WaitObject parse(final String text)
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
