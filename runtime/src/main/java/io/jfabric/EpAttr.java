package io.jfabric;

import java.util.Arrays;
import java.util.Objects;

/**
 * Endpoint attributes, as {@code struct fi_ep_attr} / {@code kfi_ep_attr}.
 * <p>
 * {@code auth_key_size} is the length of {@link #authKey()}.
 * <p>
 * Immutable and thread-safe; build with {@link #builder()} or {@link #toBuilder()}. Control path only.
 *
 * @param type endpoint type.
 * @param protocol wire protocol ({@link Protocol} value).
 * @param protocolVersion protocol version.
 * @param maxMsgSize largest message in bytes.
 * @param msgPrefixSize prefix bytes needed with FI_MSG_PREFIX.
 * @param maxOrderRawSize largest read-after-write ordered size in bytes.
 * @param maxOrderWarSize largest write-after-read ordered size in bytes.
 * @param maxOrderWawSize largest write-after-write ordered size in bytes.
 * @param memTagFormat tag format: the tag bits the provider supports.
 * @param txCtxCnt transmit contexts per endpoint.
 * @param rxCtxCnt receive contexts per endpoint.
 * @param authKey endpoint authorisation key.
 */
public record EpAttr(
    EndpointType type,
    int protocol,
    int protocolVersion,
    long maxMsgSize,
    long msgPrefixSize,
    long maxOrderRawSize,
    long maxOrderWarSize,
    long maxOrderWawSize,
    long memTagFormat,
    long txCtxCnt,
    long rxCtxCnt,
    byte[] authKey)
{
    /** Every field zero, empty or unspecified: as {@code fi_allocinfo} leaves it; a pure wildcard in hints. */
    public static final EpAttr ZERO = builder().build();

    /**
     * {@code FI_SHARED_CONTEXT} ({@code SIZE_MAX}): as {@link #txCtxCnt()} or {@link #rxCtxCnt()} of a hint, the
     * endpoint will use a shared transmit or receive context; only providers that can share contexts (a non-zero
     * {@code max_ep_stx_ctx} / {@code max_ep_srx_ctx}) match it.
     */
    public static final long SHARED_CONTEXT = -1L;

    /**
     * Copies the arrays so that the value stays immutable.
     *
     * @param type            see {@link #type()}.
     * @param protocol        see {@link #protocol()}.
     * @param protocolVersion see {@link #protocolVersion()}.
     * @param maxMsgSize      see {@link #maxMsgSize()}.
     * @param msgPrefixSize   see {@link #msgPrefixSize()}.
     * @param maxOrderRawSize see {@link #maxOrderRawSize()}.
     * @param maxOrderWarSize see {@link #maxOrderWarSize()}.
     * @param maxOrderWawSize see {@link #maxOrderWawSize()}.
     * @param memTagFormat    see {@link #memTagFormat()}.
     * @param txCtxCnt        see {@link #txCtxCnt()}.
     * @param rxCtxCnt        see {@link #rxCtxCnt()}.
     * @param authKey         see {@link #authKey()}.
     */
    public EpAttr
    {
        authKey = authKey == null ? null : authKey.clone();
    }

    /**
     * The endpoint authorisation key (a copy).
     *
     * @return a copy of the bytes, or null when absent.
     */
    @Override
    public byte[] authKey()
    {
        return authKey == null ? null : authKey.clone();
    }

    /**
     * Value equality, comparing arrays by content.
     *
     * @param o the other object.
     * @return true when every field is equal.
     */
    @Override
    public boolean equals(final Object o)
    {
        if (this == o)
        {
            return true;
        }
        if (!(o instanceof EpAttr))
        {
            return false;
        }
        final EpAttr that = (EpAttr) o;
        return Objects.equals(type, that.type) &&
            protocol == that.protocol &&
            protocolVersion == that.protocolVersion &&
            maxMsgSize == that.maxMsgSize &&
            msgPrefixSize == that.msgPrefixSize &&
            maxOrderRawSize == that.maxOrderRawSize &&
            maxOrderWarSize == that.maxOrderWarSize &&
            maxOrderWawSize == that.maxOrderWawSize &&
            memTagFormat == that.memTagFormat &&
            txCtxCnt == that.txCtxCnt &&
            rxCtxCnt == that.rxCtxCnt &&
            Arrays.equals(authKey, that.authKey);
    }

    /**
     * Hash over every field, arrays by content.
     *
     * @return the hash.
     */
    @Override
    public int hashCode()
    {
        int h = 1;
        h = 31 * h + Objects.hashCode(type);
        h = 31 * h + protocol;
        h = 31 * h + protocolVersion;
        h = 31 * h + Long.hashCode(maxMsgSize);
        h = 31 * h + Long.hashCode(msgPrefixSize);
        h = 31 * h + Long.hashCode(maxOrderRawSize);
        h = 31 * h + Long.hashCode(maxOrderWarSize);
        h = 31 * h + Long.hashCode(maxOrderWawSize);
        h = 31 * h + Long.hashCode(memTagFormat);
        h = 31 * h + Long.hashCode(txCtxCnt);
        h = 31 * h + Long.hashCode(rxCtxCnt);
        h = 31 * h + Arrays.hashCode(authKey);
        return h;
    }

    /**
     * A short form for debugging; {@link InfoFormat} prints the {@code fi_tostr} form.
     *
     * @return the text.
     */
    @Override
    public String toString()
    {
        return "EpAttr[" + "type=" + type + ", " +
            "protocol=" + protocol + ", " +
            "protocolVersion=" + protocolVersion + ", " +
            "maxMsgSize=" + maxMsgSize + ", " +
            "msgPrefixSize=" + msgPrefixSize + ", " +
            "maxOrderRawSize=" + maxOrderRawSize + ", " +
            "maxOrderWarSize=" + maxOrderWarSize + ", " +
            "maxOrderWawSize=" + maxOrderWawSize + ", " +
            "memTagFormat=" + memTagFormat + ", " +
            "txCtxCnt=" + txCtxCnt + ", " +
            "rxCtxCnt=" + rxCtxCnt + ", " +
            "authKey=" + Arrays.toString(authKey) + "]";
    }


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
            .type(type)
            .protocol(protocol)
            .protocolVersion(protocolVersion)
            .maxMsgSize(maxMsgSize)
            .msgPrefixSize(msgPrefixSize)
            .maxOrderRawSize(maxOrderRawSize)
            .maxOrderWarSize(maxOrderWarSize)
            .maxOrderWawSize(maxOrderWawSize)
            .memTagFormat(memTagFormat)
            .txCtxCnt(txCtxCnt)
            .rxCtxCnt(rxCtxCnt)
            .authKey(authKey);
    }

    /**
     * Fluent builder of {@link EpAttr}. Not thread-safe.
     */
    public static final class Builder
    {
        private EndpointType type = EndpointType.UNSPEC;
        private int protocol;
        private int protocolVersion;
        private long maxMsgSize;
        private long msgPrefixSize;
        private long maxOrderRawSize;
        private long maxOrderWarSize;
        private long maxOrderWawSize;
        private long memTagFormat;
        private long txCtxCnt;
        private long rxCtxCnt;
        private byte[] authKey;

        private Builder()
        {
        }

        /**
         * Sets the endpoint type.
         *
         * @param type the value.
         * @return this builder.
         */
        public Builder type(final EndpointType type)
        {
            this.type = type;
            return this;
        }

        /**
         * Sets the wire protocol ({@link Protocol} value).
         *
         * @param protocol the value.
         * @return this builder.
         */
        public Builder protocol(final int protocol)
        {
            this.protocol = protocol;
            return this;
        }

        /**
         * Sets the protocol version.
         *
         * @param protocolVersion the value.
         * @return this builder.
         */
        public Builder protocolVersion(final int protocolVersion)
        {
            this.protocolVersion = protocolVersion;
            return this;
        }

        /**
         * Sets the largest message in bytes.
         *
         * @param maxMsgSize the value.
         * @return this builder.
         */
        public Builder maxMsgSize(final long maxMsgSize)
        {
            this.maxMsgSize = maxMsgSize;
            return this;
        }

        /**
         * Sets the prefix bytes needed with FI_MSG_PREFIX.
         *
         * @param msgPrefixSize the value.
         * @return this builder.
         */
        public Builder msgPrefixSize(final long msgPrefixSize)
        {
            this.msgPrefixSize = msgPrefixSize;
            return this;
        }

        /**
         * Sets the largest read-after-write ordered size in bytes.
         *
         * @param maxOrderRawSize the value.
         * @return this builder.
         */
        public Builder maxOrderRawSize(final long maxOrderRawSize)
        {
            this.maxOrderRawSize = maxOrderRawSize;
            return this;
        }

        /**
         * Sets the largest write-after-read ordered size in bytes.
         *
         * @param maxOrderWarSize the value.
         * @return this builder.
         */
        public Builder maxOrderWarSize(final long maxOrderWarSize)
        {
            this.maxOrderWarSize = maxOrderWarSize;
            return this;
        }

        /**
         * Sets the largest write-after-write ordered size in bytes.
         *
         * @param maxOrderWawSize the value.
         * @return this builder.
         */
        public Builder maxOrderWawSize(final long maxOrderWawSize)
        {
            this.maxOrderWawSize = maxOrderWawSize;
            return this;
        }

        /**
         * Sets the tag format: the tag bits the provider supports.
         *
         * @param memTagFormat the value.
         * @return this builder.
         */
        public Builder memTagFormat(final long memTagFormat)
        {
            this.memTagFormat = memTagFormat;
            return this;
        }

        /**
         * Sets the transmit contexts per endpoint.
         *
         * @param txCtxCnt the value.
         * @return this builder.
         */
        public Builder txCtxCnt(final long txCtxCnt)
        {
            this.txCtxCnt = txCtxCnt;
            return this;
        }

        /**
         * Sets the receive contexts per endpoint.
         *
         * @param rxCtxCnt the value.
         * @return this builder.
         */
        public Builder rxCtxCnt(final long rxCtxCnt)
        {
            this.rxCtxCnt = rxCtxCnt;
            return this;
        }

        /**
         * Sets the endpoint authorisation key.
         *
         * @param authKey the value.
         * @return this builder.
         */
        public Builder authKey(final byte[] authKey)
        {
            this.authKey = authKey == null ? null : authKey.clone();
            return this;
        }

        /**
         * Builds the immutable value.
         *
         * @return the value.
         */
        public EpAttr build()
        {
            return new EpAttr(type, protocol, protocolVersion, maxMsgSize, msgPrefixSize, maxOrderRawSize,
                maxOrderWarSize, maxOrderWawSize, memTagFormat, txCtxCnt, rxCtxCnt, authKey);
        }
    }
}
