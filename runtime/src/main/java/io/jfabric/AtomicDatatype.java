package io.jfabric;

/**
 * Atomic datatypes ({@code enum fi_datatype} of {@code fi_atomic.h}) with their size in bytes; the ordinal
 * is the libfabric value ({@code FI_INT128} takes the old {@code FI_DATATYPE_LAST} slot, 14, as in
 * libfabric 1.18 and later).
 * <p>
 * Sizes follow the x86-64 Linux ABI libfabric is built for: {@code long double} occupies 16 bytes and its
 * complex form 32. Java has no {@code long double} and no 128-bit integer, so the runtime executes no op
 * on {@link #LONG_DOUBLE}, {@link #LONG_DOUBLE_COMPLEX}, {@link #INT128} or {@link #UINT128}; the valid
 * queries answer EOPNOTSUPP for them.
 * <p>
 * Parsed from the libfabric name ({@code FI_UINT32}), the kfabric name ({@code KFI_UINT32}) or the short
 * name ({@code uint32}), case-insensitive. Immutable and thread-safe.
 */
public enum AtomicDatatype
{
    /** {@code FI_INT8}: signed 8-bit integer. */
    INT8("FI_INT8", 1),
    /** {@code FI_UINT8}: unsigned 8-bit integer. */
    UINT8("FI_UINT8", 1),
    /** {@code FI_INT16}: signed 16-bit integer. */
    INT16("FI_INT16", 2),
    /** {@code FI_UINT16}: unsigned 16-bit integer. */
    UINT16("FI_UINT16", 2),
    /** {@code FI_INT32}: signed 32-bit integer. */
    INT32("FI_INT32", 4),
    /** {@code FI_UINT32}: unsigned 32-bit integer. */
    UINT32("FI_UINT32", 4),
    /** {@code FI_INT64}: signed 64-bit integer. */
    INT64("FI_INT64", 8),
    /** {@code FI_UINT64}: unsigned 64-bit integer. */
    UINT64("FI_UINT64", 8),
    /** {@code FI_FLOAT}: IEEE 754 binary32. */
    FLOAT("FI_FLOAT", 4),
    /** {@code FI_DOUBLE}: IEEE 754 binary64. */
    DOUBLE("FI_DOUBLE", 8),
    /** {@code FI_FLOAT_COMPLEX}: two binary32, real part first. */
    FLOAT_COMPLEX("FI_FLOAT_COMPLEX", 8),
    /** {@code FI_DOUBLE_COMPLEX}: two binary64, real part first. */
    DOUBLE_COMPLEX("FI_DOUBLE_COMPLEX", 16),
    /** {@code FI_LONG_DOUBLE}: C {@code long double} (no Java representation). */
    LONG_DOUBLE("FI_LONG_DOUBLE", 16),
    /** {@code FI_LONG_DOUBLE_COMPLEX}: complex C {@code long double} (no Java representation). */
    LONG_DOUBLE_COMPLEX("FI_LONG_DOUBLE_COMPLEX", 32),
    /** {@code FI_INT128}: signed 128-bit integer. */
    INT128("FI_INT128", 16),
    /** {@code FI_UINT128}: unsigned 128-bit integer. */
    UINT128("FI_UINT128", 16);

    private static final AtomicDatatype[] VALUES = values();
    private static final NameTable NAMES = new NameTable("atomic datatype");

    static
    {
        for (final AtomicDatatype v : VALUES)
        {
            NAMES.add(v.fiName, v.ordinal(), v.name());
        }
    }

    private final String fiName;
    private final int size;

    AtomicDatatype(final String fiName, final int size)
    {
        this.fiName = fiName;
        this.size = size;
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
     * The libfabric enum value, as carried in a frame.
     *
     * @return the value (the ordinal).
     */
    public int value()
    {
        return ordinal();
    }

    /**
     * The size of one element in bytes ({@code ofi_datatype_size}).
     *
     * @return the element size.
     */
    public int size()
    {
        return size;
    }

    /**
     * Whether this is one of the eight fixed-width integer types up to 64 bits.
     *
     * @return true for {@link #INT8} through {@link #UINT64}.
     */
    public boolean isInteger()
    {
        return ordinal() <= UINT64.ordinal();
    }

    /**
     * Whether this is an unsigned integer type.
     *
     * @return true for the {@code UINT*} types.
     */
    public boolean isUnsigned()
    {
        return this == UINT8 || this == UINT16 || this == UINT32 || this == UINT64 || this == UINT128;
    }

    /**
     * The datatype with a libfabric value, without allocation (for decoding frames on the data path).
     *
     * @param value the libfabric value.
     * @return the datatype, or null when the value names none.
     */
    public static AtomicDatatype fromValue(final int value)
    {
        return value >= 0 && value < VALUES.length ? VALUES[value] : null;
    }

    /**
     * Parses a name: libfabric ({@code FI_UINT32}), kfabric ({@code KFI_UINT32}) or short ({@code uint32}),
     * case-insensitive.
     *
     * @param text the name.
     * @return the datatype.
     * @throws FabricException EINVAL naming the input and listing the valid names when unknown.
     */
    public static AtomicDatatype parse(final String text)
    {
        return VALUES[(int) NAMES.parseOne(text)];
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
