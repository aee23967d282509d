package io.jfabric;

import java.util.List;

/**
 * Memory registration mode bits ({@code domain_attr.mr_mode}), values of {@code rdma/fabric.h}. {@link #BASIC} and
 * {@link #SCALABLE} are the pre-1.5 enum values and may not be combined with each other.
 * <p>
 * Constants only; parsing and printing are stateless and thread-safe. Control path only.
 */
public final class MrMode
{
    /** {@code FI_MR_UNSPEC}: unspecified (0). */
    public static final long UNSPEC = 0L;
    /** {@code FI_MR_BASIC}: pre-1.5 basic mode: virtual addresses, allocated memory, provider keys. */
    public static final long BASIC = 1L;
    /** {@code FI_MR_SCALABLE}: pre-1.5 scalable mode: offsets and application keys. */
    public static final long SCALABLE = 1L << 1;
    /** {@code FI_MR_LOCAL}: local buffers must be registered. */
    public static final long LOCAL = 1L << 2;
    /** {@code FI_MR_RAW}: keys are raw, larger than 64 bits. */
    public static final long RAW = 1L << 3;
    /** {@code FI_MR_VIRT_ADDR}: remote addresses are virtual addresses, not offsets. */
    public static final long VIRT_ADDR = 1L << 4;
    /** {@code FI_MR_ALLOCATED}: only allocated memory may be registered. */
    public static final long ALLOCATED = 1L << 5;
    /** {@code FI_MR_PROV_KEY}: the provider chooses the keys. */
    public static final long PROV_KEY = 1L << 6;
    /** {@code FI_MR_MMU_NOTIFY}: the application notifies the provider of page changes. */
    public static final long MMU_NOTIFY = 1L << 7;
    /** {@code FI_MR_RMA_EVENT}: regions must be enabled before RMA events are reported. */
    public static final long RMA_EVENT = 1L << 8;
    /** {@code FI_MR_ENDPOINT}: regions are bound to an endpoint. */
    public static final long ENDPOINT = 1L << 9;
    /** {@code FI_MR_HMEM}: device memory must be registered. */
    public static final long HMEM = 1L << 10;
    /** {@code FI_MR_COLLECTIVE}: collective operations need registered memory. */
    public static final long COLLECTIVE = 1L << 11;

    /** The bits {@link #BASIC} stands for in the 1.5+ bit form. */
    public static final long BASIC_MAP = VIRT_ADDR | ALLOCATED | PROV_KEY;

    static final NameTable NAMES = new NameTable("mr_mode")
        .add("FI_MR_UNSPEC", UNSPEC)
        .add("FI_MR_BASIC", BASIC)
        .add("FI_MR_SCALABLE", SCALABLE)
        .add("FI_MR_LOCAL", LOCAL)
        .add("FI_MR_RAW", RAW)
        .add("FI_MR_VIRT_ADDR", VIRT_ADDR)
        .add("FI_MR_ALLOCATED", ALLOCATED)
        .add("FI_MR_PROV_KEY", PROV_KEY)
        .add("FI_MR_MMU_NOTIFY", MMU_NOTIFY)
        .add("FI_MR_RMA_EVENT", RMA_EVENT)
        .add("FI_MR_ENDPOINT", ENDPOINT)
        .add("FI_MR_HMEM", HMEM)
        .add("FI_MR_COLLECTIVE", COLLECTIVE);

    private MrMode()
    {
    }

    /**
     * Parses a set of mr_mode names ({@code "FI_X|FI_Y"}, {@code "x,y"}, {@code "KFI_X"}), case-insensitive;
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
