package io.jfabric;

/**
 * Threading models ({@code enum fi_threading}); a lower non-zero ordinal is a stronger guarantee.
 * <p>
 * Parsed from the libfabric name ({@code FI_THREAD_SAFE}), the kfabric name ({@code KFI_THREAD_SAFE}) or
 * the short name ({@code safe}), case-insensitive; printed as the libfabric name.
 * The ordinal is the libfabric enum value. Immutable and thread-safe.
 */
public enum Threading
{
    /** {@code FI_THREAD_UNSPEC}: any (wildcard in hints). */
    UNSPEC("FI_THREAD_UNSPEC"),
    /** {@code FI_THREAD_SAFE}: every object may be used by any thread at once. */
    SAFE("FI_THREAD_SAFE"),
    /** {@code FI_THREAD_FID}: each object is used by one thread at a time. */
    FID("FI_THREAD_FID"),
    /** {@code FI_THREAD_DOMAIN}: the whole domain is used by one thread at a time. */
    DOMAIN("FI_THREAD_DOMAIN"),
    /** {@code FI_THREAD_COMPLETION}: objects sharing a completion context are used by one thread at a time. */
    COMPLETION("FI_THREAD_COMPLETION"),
    /** {@code FI_THREAD_ENDPOINT}: each endpoint is used by one thread at a time. */
    ENDPOINT("FI_THREAD_ENDPOINT");

    private static final NameTable NAMES = new NameTable("threading level");

    static
    {
        for (final Threading v : values())
        {
            NAMES.add(v.fiName, v.ordinal(), v.name());
        }
    }

    private final String fiName;

    Threading(final String fiName)
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
    public static Threading parse(final String text)
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
