package io.jfabric;

import java.util.List;

/**
 * Message ordering bits ({@code tx_attr.msg_order}, {@code rx_attr.msg_order}), values of {@code rdma/fabric.h}:
 * {@code FI_ORDER_xAy} means operation x after operation y is ordered (R = read, W = write, S = send).
 * <p>
 * Constants only; parsing and printing are stateless and thread-safe. Control path only.
 */
public final class MsgOrder
{
    /** {@code FI_ORDER_NONE}: no ordering. */
    public static final long NONE = 0L;
    /** {@code FI_ORDER_RAR}: read after read. */
    public static final long RAR = 1L;
    /** {@code FI_ORDER_RAW}: read after write. */
    public static final long RAW = 1L << 1;
    /** {@code FI_ORDER_RAS}: read after send. */
    public static final long RAS = 1L << 2;
    /** {@code FI_ORDER_WAR}: write after read. */
    public static final long WAR = 1L << 3;
    /** {@code FI_ORDER_WAW}: write after write. */
    public static final long WAW = 1L << 4;
    /** {@code FI_ORDER_WAS}: write after send. */
    public static final long WAS = 1L << 5;
    /** {@code FI_ORDER_SAR}: send after read. */
    public static final long SAR = 1L << 6;
    /** {@code FI_ORDER_SAW}: send after write. */
    public static final long SAW = 1L << 7;
    /** {@code FI_ORDER_SAS}: send after send. */
    public static final long SAS = 1L << 8;
    /** {@code FI_ORDER_RMA_RAR}: RMA read after RMA read. */
    public static final long RMA_RAR = 1L << 32;
    /** {@code FI_ORDER_RMA_RAW}: RMA read after RMA write. */
    public static final long RMA_RAW = 1L << 33;
    /** {@code FI_ORDER_RMA_WAR}: RMA write after RMA read. */
    public static final long RMA_WAR = 1L << 34;
    /** {@code FI_ORDER_RMA_WAW}: RMA write after RMA write. */
    public static final long RMA_WAW = 1L << 35;
    /** {@code FI_ORDER_ATOMIC_RAR}: atomic read after atomic read. */
    public static final long ATOMIC_RAR = 1L << 36;
    /** {@code FI_ORDER_ATOMIC_RAW}: atomic read after atomic write. */
    public static final long ATOMIC_RAW = 1L << 37;
    /** {@code FI_ORDER_ATOMIC_WAR}: atomic write after atomic read. */
    public static final long ATOMIC_WAR = 1L << 38;
    /** {@code FI_ORDER_ATOMIC_WAW}: atomic write after atomic write. */
    public static final long ATOMIC_WAW = 1L << 39;
    /** {@code FI_ORDER_STRICT}: every ordering among read, write and send. */
    public static final long STRICT = 0x1FFL;


    static final NameTable NAMES = new NameTable("message order")
        .add("FI_ORDER_NONE", NONE)
        .add("FI_ORDER_RAR", RAR)
        .add("FI_ORDER_RAW", RAW)
        .add("FI_ORDER_RAS", RAS)
        .add("FI_ORDER_WAR", WAR)
        .add("FI_ORDER_WAW", WAW)
        .add("FI_ORDER_WAS", WAS)
        .add("FI_ORDER_SAR", SAR)
        .add("FI_ORDER_SAW", SAW)
        .add("FI_ORDER_SAS", SAS)
        .add("FI_ORDER_RMA_RAR", RMA_RAR)
        .add("FI_ORDER_RMA_RAW", RMA_RAW)
        .add("FI_ORDER_RMA_WAR", RMA_WAR)
        .add("FI_ORDER_RMA_WAW", RMA_WAW)
        .add("FI_ORDER_ATOMIC_RAR", ATOMIC_RAR)
        .add("FI_ORDER_ATOMIC_RAW", ATOMIC_RAW)
        .add("FI_ORDER_ATOMIC_WAR", ATOMIC_WAR)
        .add("FI_ORDER_ATOMIC_WAW", ATOMIC_WAW)
        .alias("FI_ORDER_STRICT", STRICT);

    private MsgOrder()
    {
    }

    /**
     * Parses a set of message order names ({@code "FI_X|FI_Y"}, {@code "x,y"}, {@code "KFI_X"}), case-insensitive;
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
