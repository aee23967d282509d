package io.jfabric;

/**
 * The attributes of an address vector ({@code struct fi_av_attr}, for {@code fi_av_open} through
 * {@link Domain#addressVector(AvAttr)}): the type, the expected number of addresses and {@code rx_ctx_bits}, the
 * bits of an {@code fi_addr_t} that name a receive context of a peer's scalable endpoint (see
 * {@link AddressVector#rxAddr(long, int, int)}). Immutable; built with {@link #builder()}.
 * <p>
 * Threading: immutable, thread-safe.
 */
public final class AvAttr
{
    /** The most {@code rx_ctx_bits} an address vector takes (receive context indices up to 65535). */
    public static final int MAX_RX_CTX_BITS = 16;

    private final AvType type;
    private final int count;
    private final int rxCtxBits;

    private AvAttr(final Builder b)
    {
        this.type = b.type;
        this.count = b.count;
        this.rxCtxBits = b.rxCtxBits;
    }

    /**
     * @return a builder: type UNSPEC, count 0 (a small default), no receive-context bits.
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * @return the type ({@code type}); UNSPEC takes the domain's.
     */
    public AvType type()
    {
        return type;
    }

    /**
     * @return the expected number of addresses ({@code count}), a sizing hint.
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
     * Builds an {@link AvAttr}. Not thread-safe.
     */
    public static final class Builder
    {
        private AvType type = AvType.UNSPEC;
        private int count;
        private int rxCtxBits;

        private Builder()
        {
        }

        /**
         * @param value the type.
         * @return this.
         */
        public Builder type(final AvType value)
        {
            this.type = null == value ? AvType.UNSPEC : value;
            return this;
        }

        /**
         * @param value expected addresses (a sizing hint, at least 0).
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
         * @return the attributes.
         */
        public AvAttr build()
        {
            return new AvAttr(this);
        }
    }
}
