package io.jfabric;

import java.util.List;

/**
 * Completion ordering bits ({@code tx_attr.comp_order}, {@code rx_attr.comp_order}), values of {@code rdma/fabric.h}.
 * <p>
 * Constants only; parsing and printing are stateless and thread-safe. Control path only.
 */
public final class CompOrder
{
    /** {@code FI_ORDER_NONE}: completions in any order. */
    public static final long NONE = 0L;
    /** {@code FI_ORDER_STRICT}: completions in the order the operations were posted. */
    public static final long STRICT = 0x1FFL;
    /** {@code FI_ORDER_DATA}: data is placed in the order the operations were posted. */
    public static final long DATA = 1L << 16;


    static final NameTable NAMES = new NameTable("completion order")
        .add("FI_ORDER_NONE", NONE)
        .add("FI_ORDER_STRICT", STRICT)
        .add("FI_ORDER_DATA", DATA);

    private CompOrder()
    {
    }

    /**
     * Parses a set of completion order names ({@code "FI_X|FI_Y"}, {@code "x,y"}, {@code "KFI_X"}), case-insensitive;
     * a number is taken as raw bits.
     *
     * @param text the names; null or empty gives 0.
     * @return the bits.
     * @throws FabricException EINVAL naming the unknown name and listing the valid ones.
     */
    public static long parse(final String text)
    {
        return NAMES.parseBits(text);
    }

    /**
     * Prints a bit set as {@code fi_tostr} does ({@code "FI_X | FI_Y"}, empty for 0).
     *
     * @param bits the bits.
     * @return the printed form; unnamed bits appear as one hexadecimal value.
     */
    public static String print(final long bits)
    {
        return NAMES.printBits(bits);
    }

    /**
     * The canonical names of the set bits.
     *
     * @param bits the bits.
     * @return the names in table order.
     */
    public static List<String> names(final long bits)
    {
        return NAMES.namesOf(bits);
    }

    /**
     * Every canonical name, comma separated (for messages listing valid names).
     *
     * @return the names.
     */
    public static String validNames()
    {
        return NAMES.validNames();
    }
}
