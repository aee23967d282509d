package io.jfabric;

import java.util.List;

/**
 * Operational mode bits ({@code fi_info.mode}, {@code tx_attr.mode}, {@code rx_attr.mode}, {@code domain_attr.mode}):
 * requirements a provider places on the application. Values of libfabric's {@code rdma/fabric.h}; the 1.0-era
 * {@link #PROV_MR_ATTR}, whose historic bit is now {@link #ASYNC_IOV}'s, takes the free bit 50.
 * <p>
 * Constants only; parsing and printing are stateless and thread-safe. Control path only.
 */
public final class Mode
{
    /** {@code FI_CONTEXT}: operation contexts are provider-owned {@code fi_context} storage. */
    public static final long CONTEXT = 1L << 59;
    /** {@code FI_MSG_PREFIX}: the application leaves prefix space in front of message buffers. */
    public static final long MSG_PREFIX = 1L << 58;
    /** {@code FI_ASYNC_IOV}: IO vectors must stay valid until the operation completes. */
    public static final long ASYNC_IOV = 1L << 57;
    /** {@code FI_RX_CQ_DATA}: receiving remote CQ data consumes a receive buffer. */
    public static final long RX_CQ_DATA = 1L << 56;
    /** {@code FI_LOCAL_MR}: local buffers must be registered. */
    public static final long LOCAL_MR = 1L << 55;
    /** {@code FI_NOTIFY_FLAGS_ONLY}: completions may carry only the flags (with selective completion). */
    public static final long NOTIFY_FLAGS_ONLY = 1L << 54;
    /** {@code FI_RESTRICTED_COMP}: CQs and counters may be bound to one endpoint class only. */
    public static final long RESTRICTED_COMP = 1L << 53;
    /** {@code FI_CONTEXT2}: operation contexts are two {@code fi_context}s. */
    public static final long CONTEXT2 = 1L << 52;
    /** {@code FI_BUFFERED_RECV}: the provider owns receive buffers (buffered receive). */
    public static final long BUFFERED_RECV = 1L << 51;
    /** {@code FI_PROV_MR_ATTR}: (1.0 era) the provider assigns MR attributes such as keys. */
    public static final long PROV_MR_ATTR = 1L << 50;


    static final NameTable NAMES = new NameTable("mode")
        .add("FI_CONTEXT", CONTEXT)
        .add("FI_MSG_PREFIX", MSG_PREFIX)
        .add("FI_ASYNC_IOV", ASYNC_IOV)
        .add("FI_RX_CQ_DATA", RX_CQ_DATA)
        .add("FI_LOCAL_MR", LOCAL_MR)
        .add("FI_NOTIFY_FLAGS_ONLY", NOTIFY_FLAGS_ONLY)
        .add("FI_RESTRICTED_COMP", RESTRICTED_COMP)
        .add("FI_CONTEXT2", CONTEXT2)
        .add("FI_BUFFERED_RECV", BUFFERED_RECV)
        .add("FI_PROV_MR_ATTR", PROV_MR_ATTR);

    private Mode()
    {
    }

    /**
     * Parses a set of mode names ({@code "FI_X|FI_Y"}, {@code "x,y"}, {@code "KFI_X"}), case-insensitive;
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
