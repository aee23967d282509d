package io.jfabric.spi;

/**
 * The type of one option of an {@link OpsExtension}, as the {@code set_val}/{@code get_val} pairs of
 * {@code fi_open_ops} extensions type their values (a {@code uint32_t *}, an {@code int32_t *}, a
 * {@code bool *} or a {@code char *}). The runtime checks a value against its option's type and range before the
 * provider sees it.
 */
public enum OpsType
{
    /** A signed 32-bit value. */
    INT32(Integer.MIN_VALUE, Integer.MAX_VALUE),
    /** An unsigned 32-bit value, 0 to 2<sup>32</sup> - 1. */
    UINT32(0, 0xFFFF_FFFFL),
    /** A signed 64-bit value. */
    INT64(Long.MIN_VALUE, Long.MAX_VALUE),
    /** A boolean, carried as 0 or 1. */
    BOOLEAN(0, 1),
    /** A string. */
    STRING(0, 0);

    private final long min;
    private final long max;

    OpsType(final long min, final long max)
    {
        this.min = min;
        this.max = max;
    }

    /**
     * Whether this type holds a number (every type but {@link #STRING}).
     *
     * @return true for the numeric types and {@link #BOOLEAN}.
     */
    public boolean numeric()
    {
        return STRING != this;
    }

    /**
     * Whether a number is within this type's range.
     *
     * @param value the value.
     * @return true when a numeric type holds it; false for {@link #STRING}.
     */
    public boolean holds(final long value)
    {
        return numeric() && value >= min && value <= max;
    }
}
