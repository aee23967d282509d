package io.jfabric;

/**
 * The attributes of an address vector ({@code struct fi_av_attr}, for {@code fi_av_open} through
 * {@link Domain#addressVector(AvAttr)}): its type, the expected number of addresses, {@code rx_ctx_bits} (the bits of
 * an {@code fi_addr_t} that name a receive context of a peer's scalable endpoint, see
 * {@link AddressVector#rxAddr(long, int, int)}), the name under which it is shared, and the flags {@link #EVENT}
 * (asynchronous inserts reported through the event queue bound with {@link AddressVector#bind(EventQueue, long)}),
 * {@link #READ} (open an existing named vector read-only) and {@link #SYMMETRIC} (every process inserts the same
 * addresses in the same order: a hint jfabric accepts and does not need). Immutable; built with {@link #builder()}.
 * <p>
 * A named vector ({@code name} set) needs {@code FI_SHARED_AV} among the domain's caps and the {@link AvType#TABLE}
 * type, so that an index names the same peer in every process: the first open without {@link #READ} creates it and
 * is the only one that inserts; opens with {@link #READ} see the addresses it inserted (see RUNTIME.md, "Address
 * vector events and shared address vectors").
 * <p>
 * Threading: immutable, thread-safe.
 */
public final class AvAttr
{
    /** The most {@code rx_ctx_bits} an address vector takes (receive context indices up to 65535). */
    public static final int MAX_RX_CTX_BITS = 16;
    /** {@code FI_EVENT}: inserts complete through the bound event queue ({@code FI_AV_COMPLETE}). */
    public static final long EVENT = Flags.EVENT;
    /** {@code FI_READ}: open an existing named address vector read-only. */
    public static final long READ = Flags.READ;
    /** {@code FI_SYMMETRIC}: every process inserts the same addresses in the same order. */
    public static final long SYMMETRIC = 1L << 59;
    /** Every flag an address vector takes. */
    public static final long FLAGS = EVENT | READ | SYMMETRIC;

    private final AvType type;
    private final int count;
    private final int rxCtxBits;
    private final String name;
    private final long flags;

    private AvAttr(final Builder b)
    {
        this.type = b.type;
        this.count = b.count;
        this.rxCtxBits = b.rxCtxBits;
        this.name = b.name;
        this.flags = b.flags;
    }

    /**
     * @return a builder: UNSPEC type, no count hint, no receive-context bits, no name, no flags.
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * @return the type.
     */
    public AvType type()
    {
        return type;
    }

    /**
     * @return the expected number of addresses ({@code count}), a sizing hint; for a named vector also its capacity.
     */
    public int count()
    {
        return count;
    }

    /**
     * @return {@code rx_ctx_bits}: the high bits of a handle that carry a receive context index.
     */
    public int rxCtxBits()
    {
        return rxCtxBits;
    }

    /**
     * @return the shared name ({@code name}), or null.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return the flags ({@code flags}): {@link #EVENT}, {@link #READ}, {@link #SYMMETRIC}.
     */
    public long flags()
    {
        return flags;
    }

    /**
     * Builds {@link AvAttr}.
     */
    public static final class Builder
    {
        private AvType type = AvType.UNSPEC;
        private int count;
        private int rxCtxBits;
        private String name;
        private long flags;

        private Builder()
        {
        }

        /**
         * @param value the type (null: UNSPEC).
         * @return this.
         */
        public Builder type(final AvType value)
        {
            this.type = null == value ? AvType.UNSPEC : value;
            return this;
        }

        /**
         * @param value expected addresses (0: the default; checked when the vector opens).
         * @return this.
         */
        public Builder count(final int value)
        {
            this.count = value;
            return this;
        }

        /**
         * @param value {@code rx_ctx_bits}, 0..{@link #MAX_RX_CTX_BITS} (checked when the vector opens).
         * @return this.
         */
        public Builder rxCtxBits(final int value)
        {
            this.rxCtxBits = value;
            return this;
        }

        /**
         * @param value the shared name, or null.
         * @return this.
         */
        public Builder name(final String value)
        {
            this.name = value;
            return this;
        }

        /**
         * @param value {@link #EVENT}, {@link #READ}, {@link #SYMMETRIC}.
         * @return this.
         */
        public Builder flags(final long value)
        {
            this.flags = value;
            return this;
        }

        /**
         * @return the attributes.
         */
        public AvAttr build()
        {
            return new AvAttr(this);
        }
    }
}
