package io.jfabric;

/**
 * Atomic operations ({@code enum fi_op} of {@code fi_atomic.h}); the ordinal is the libfabric value.
 * <p>
 * The semantics, as {@code fi_atomic(3)} defines them, with {@code *addr} the target element,
 * {@code *operand} the initiator's operand and {@code *compare} the compare operand:
 * <ul>
 *     <li>{@link #MIN}: {@code if (*operand < *addr) *addr = *operand}</li>
 *     <li>{@link #MAX}: {@code if (*operand > *addr) *addr = *operand}</li>
 *     <li>{@link #SUM}: {@code *addr = *addr + *operand}; {@link #PROD}: {@code *addr = *addr * *operand}</li>
 *     <li>{@link #LOR}, {@link #LAND}, {@link #LXOR}: logical or, and, exclusive or (result 1 or 0)</li>
 *     <li>{@link #BOR}, {@link #BAND}, {@link #BXOR}: bitwise or, and, exclusive or</li>
 *     <li>{@link #ATOMIC_READ}: fetch only, {@code *addr} unchanged;
 *         {@link #ATOMIC_WRITE}: {@code *addr = *operand}</li>
 *     <li>{@link #CSWAP}: {@code if (*compare == *addr) *addr = *operand}; {@link #CSWAP_NE} with {@code !=},
 *         {@link #CSWAP_LE} with {@code *compare <= *addr}, {@link #CSWAP_LT} with {@code <},
 *         {@link #CSWAP_GE} with {@code >=}, {@link #CSWAP_GT} with {@code >}</li>
 *     <li>{@link #MSWAP}: {@code *addr = (*operand & *compare) | (*addr & ~*compare)}</li>
 * </ul>
 * Parsed from the libfabric name ({@code FI_SUM}), the kfabric name ({@code KFI_SUM}) or the short name
 * ({@code sum}), case-insensitive. Immutable and thread-safe.
 */
public enum AtomicOp
{
    /** {@code FI_MIN}: minimum. */
    MIN("FI_MIN"),
    /** {@code FI_MAX}: maximum. */
    MAX("FI_MAX"),
    /** {@code FI_SUM}: sum. */
    SUM("FI_SUM"),
    /** {@code FI_PROD}: product. */
    PROD("FI_PROD"),
    /** {@code FI_LOR}: logical or. */
    LOR("FI_LOR"),
    /** {@code FI_LAND}: logical and. */
    LAND("FI_LAND"),
    /** {@code FI_BOR}: bitwise or. */
    BOR("FI_BOR"),
    /** {@code FI_BAND}: bitwise and. */
    BAND("FI_BAND"),
    /** {@code FI_LXOR}: logical exclusive or. */
    LXOR("FI_LXOR"),
    /** {@code FI_BXOR}: bitwise exclusive or. */
    BXOR("FI_BXOR"),
    /** {@code FI_ATOMIC_READ}: read the target (fetching forms only). */
    ATOMIC_READ("FI_ATOMIC_READ"),
    /** {@code FI_ATOMIC_WRITE}: write the operand (a swap in the fetching forms). */
    ATOMIC_WRITE("FI_ATOMIC_WRITE"),
    /** {@code FI_CSWAP}: swap when the compare operand equals the target. */
    CSWAP("FI_CSWAP"),
    /** {@code FI_CSWAP_NE}: swap when the compare operand differs from the target. */
    CSWAP_NE("FI_CSWAP_NE"),
    /** {@code FI_CSWAP_LE}: swap when the compare operand is less than or equal to the target. */
    CSWAP_LE("FI_CSWAP_LE"),
    /** {@code FI_CSWAP_LT}: swap when the compare operand is less than the target. */
    CSWAP_LT("FI_CSWAP_LT"),
    /** {@code FI_CSWAP_GE}: swap when the compare operand is greater than or equal to the target. */
    CSWAP_GE("FI_CSWAP_GE"),
    /** {@code FI_CSWAP_GT}: swap when the compare operand is greater than the target. */
    CSWAP_GT("FI_CSWAP_GT"),
    /** {@code FI_MSWAP}: masked swap, the compare operand is the mask. */
    MSWAP("FI_MSWAP");

    private static final AtomicOp[] VALUES = values();
    private static final NameTable NAMES = new NameTable("atomic op");

    static
    {
        for (final AtomicOp v : VALUES)
        {
            NAMES.add(v.fiName, v.ordinal(), v.name());
        }
    }

    private final String fiName;

    AtomicOp(final String fiName)
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
     * The libfabric enum value, as carried in a frame.
     *
     * @return the value (the ordinal).
     */
    public int value()
    {
        return ordinal();
    }

    /**
     * Whether this op belongs to the compare family ({@code fi_compare_atomic}: CSWAP* and MSWAP).
     *
     * @return true for {@link #CSWAP} through {@link #MSWAP}.
     */
    public boolean isCompare()
    {
        return ordinal() >= CSWAP.ordinal();
    }

    /**
     * The op with a libfabric value, without allocation (for decoding frames on the data path).
     *
     * @param value the libfabric value.
     * @return the op, or null when the value names none.
     */
    public static AtomicOp fromValue(final int value)
    {
        return value >= 0 && value < VALUES.length ? VALUES[value] : null;
    }

    /**
     * Parses a name: libfabric ({@code FI_SUM}), kfabric ({@code KFI_SUM}) or short ({@code sum}),
     * case-insensitive.
     *
     * @param text the name.
     * @return the op.
     * @throws FabricException EINVAL naming the input and listing the valid names when unknown.
     */
    public static AtomicOp parse(final String text)
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
