package io.jfabric;

/**
 * Transmit context attributes, as {@code struct fi_tx_attr} / {@code kfi_tx_attr}.
 * <p>
 * Immutable and thread-safe; build with {@link #builder()} or {@link #toBuilder()}. Control path only.
 *
 * @param caps capabilities of the transmit context (FI_* bits).
 * @param mode mode bits the transmit context requires.
 * @param opFlags default operation flags for transmits.
 * @param msgOrder message ordering ({@link MsgOrder} bits).
 * @param compOrder completion ordering ({@link CompOrder} bits).
 * @param injectSize largest inject payload in bytes.
 * @param size transmit queue depth.
 * @param iovLimit most IO vector entries per transmit.
 * @param rmaIovLimit most remote IO vector entries per RMA or atomic.
 * @param tclass traffic class.
 */
public record TxAttr(
    long caps,
    long mode,
    long opFlags,
    long msgOrder,
    long compOrder,
    long injectSize,
    long size,
    long iovLimit,
    long rmaIovLimit,
    long tclass)
{
    /** Every field zero, empty or unspecified: as {@code fi_allocinfo} leaves it; a pure wildcard in hints. */
    public static final TxAttr ZERO = builder().build();


    /**
     * A builder with every field zero or unspecified.
     *
     * @return a new builder.
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * A builder holding this value's fields, to derive a changed copy.
     *
     * @return a new builder.
     */
    public Builder toBuilder()
    {
        return new Builder()
            .caps(caps)
            .mode(mode)
            .opFlags(opFlags)
            .msgOrder(msgOrder)
            .compOrder(compOrder)
            .injectSize(injectSize)
            .size(size)
            .iovLimit(iovLimit)
            .rmaIovLimit(rmaIovLimit)
            .tclass(tclass);
    }

    /**
     * Fluent builder of {@link TxAttr}. Not thread-safe.
     */
    public static final class Builder
    {
        private long caps;
        private long mode;
        private long opFlags;
        private long msgOrder;
        private long compOrder;
        private long injectSize;
        private long size;
        private long iovLimit;
        private long rmaIovLimit;
        private long tclass;

        private Builder()
        {
        }

        /**
         * Sets the capabilities of the transmit context (FI_* bits).
         *
         * @param caps the value.
         * @return this builder.
         */
        public Builder caps(final long caps)
        {
            this.caps = caps;
            return this;
        }

        /**
         * Sets the mode bits the transmit context requires.
         *
         * @param mode the value.
         * @return this builder.
         */
        public Builder mode(final long mode)
        {
            this.mode = mode;
            return this;
        }

        /**
         * Sets the default operation flags for transmits.
         *
         * @param opFlags the value.
         * @return this builder.
         */
        public Builder opFlags(final long opFlags)
        {
            this.opFlags = opFlags;
            return this;
        }

        /**
         * Sets the message ordering ({@link MsgOrder} bits).
         *
         * @param msgOrder the value.
         * @return this builder.
         */
        public Builder msgOrder(final long msgOrder)
        {
            this.msgOrder = msgOrder;
            return this;
        }

        /**
         * Sets the completion ordering ({@link CompOrder} bits).
         *
         * @param compOrder the value.
         * @return this builder.
         */
        public Builder compOrder(final long compOrder)
        {
            this.compOrder = compOrder;
            return this;
        }

        /**
         * Sets the largest inject payload in bytes.
         *
         * @param injectSize the value.
         * @return this builder.
         */
        public Builder injectSize(final long injectSize)
        {
            this.injectSize = injectSize;
            return this;
        }

        /**
         * Sets the transmit queue depth.
         *
         * @param size the value.
         * @return this builder.
         */
        public Builder size(final long size)
        {
            this.size = size;
            return this;
        }

        /**
         * Sets the most IO vector entries per transmit.
         *
         * @param iovLimit the value.
         * @return this builder.
         */
        public Builder iovLimit(final long iovLimit)
        {
            this.iovLimit = iovLimit;
            return this;
        }

        /**
         * Sets the most remote IO vector entries per RMA or atomic.
         *
         * @param rmaIovLimit the value.
         * @return this builder.
         */
        public Builder rmaIovLimit(final long rmaIovLimit)
        {
            this.rmaIovLimit = rmaIovLimit;
            return this;
        }

        /**
         * Sets the traffic class.
         *
         * @param tclass the value.
         * @return this builder.
         */
        public Builder tclass(final long tclass)
        {
            this.tclass = tclass;
            return this;
        }

        /**
         * Builds the immutable value.
         *
         * @return the value.
         */
        public TxAttr build()
        {
            return new TxAttr(caps, mode, opFlags, msgOrder, compOrder, injectSize, size, iovLimit, rmaIovLimit,
                tclass);
        }
    }
}
