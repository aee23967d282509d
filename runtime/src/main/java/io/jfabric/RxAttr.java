package io.jfabric;

/**
 * Receive context attributes, as {@code struct fi_rx_attr} / {@code kfi_rx_attr}.
 * <p>
 * Immutable and thread-safe; build with {@link #builder()} or {@link #toBuilder()}. Control path only.
 *
 * @param caps capabilities of the receive context (FI_* bits).
 * @param mode mode bits the receive context requires.
 * @param opFlags default operation flags for receives.
 * @param msgOrder message ordering ({@link MsgOrder} bits).
 * @param compOrder completion ordering ({@link CompOrder} bits).
 * @param totalBufferedRecv buffered receive space in bytes (1.0-era attribute).
 * @param size receive queue depth.
 * @param iovLimit most IO vector entries per receive.
 */
public record RxAttr(
    long caps,
    long mode,
    long opFlags,
    long msgOrder,
    long compOrder,
    long totalBufferedRecv,
    long size,
    long iovLimit)
{
    /** Every field zero, empty or unspecified: as {@code fi_allocinfo} leaves it; a pure wildcard in hints. */
    public static final RxAttr ZERO = builder().build();


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
            .totalBufferedRecv(totalBufferedRecv)
            .size(size)
            .iovLimit(iovLimit);
    }

    /**
     * Fluent builder of {@link RxAttr}. Not thread-safe.
     */
    public static final class Builder
    {
        private long caps;
        private long mode;
        private long opFlags;
        private long msgOrder;
        private long compOrder;
        private long totalBufferedRecv;
        private long size;
        private long iovLimit;

        private Builder()
        {
        }

        /**
         * Sets the capabilities of the receive context (FI_* bits).
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
         * Sets the mode bits the receive context requires.
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
         * Sets the default operation flags for receives.
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
         * Sets the buffered receive space in bytes (1.0-era attribute).
         *
         * @param totalBufferedRecv the value.
         * @return this builder.
         */
        public Builder totalBufferedRecv(final long totalBufferedRecv)
        {
            this.totalBufferedRecv = totalBufferedRecv;
            return this;
        }

        /**
         * Sets the receive queue depth.
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
         * Sets the most IO vector entries per receive.
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
         * Builds the immutable value.
         *
         * @return the value.
         */
        public RxAttr build()
        {
            return new RxAttr(caps, mode, opFlags, msgOrder, compOrder, totalBufferedRecv, size, iovLimit);
        }
    }
}
