package io.jfabric;

import java.util.Arrays;
import java.util.Objects;

/**
 * Domain attributes, as {@code struct fi_domain_attr} / {@code kfi_domain_attr}.
 * <p>
 * {@code auth_key_size} is the length of {@link #authKey()}.
 * <p>
 * Immutable and thread-safe; build with {@link #builder()} or {@link #toBuilder()}. Control path only.
 *
 * @param domain open domain object this info refers to ({@code fid_domain}), or null.
 * @param name domain name, or null (wildcard).
 * @param threading threading model.
 * @param controlProgress control progress model.
 * @param dataProgress data progress model.
 * @param resourceMgmt resource management.
 * @param avType address vector type.
 * @param mrMode memory registration mode ({@link MrMode} bits).
 * @param mrKeySize MR key size in bytes.
 * @param cqDataSize remote CQ data size in bytes.
 * @param cqCnt most completion queues.
 * @param epCnt most endpoints.
 * @param txCtxCnt most transmit contexts.
 * @param rxCtxCnt most receive contexts.
 * @param maxEpTxCtx most transmit contexts per endpoint.
 * @param maxEpRxCtx most receive contexts per endpoint.
 * @param maxEpStxCtx most shared transmit contexts per endpoint.
 * @param maxEpSrxCtx most shared receive contexts per endpoint.
 * @param cntrCnt most counters.
 * @param mrIovLimit most IO vector entries per registration.
 * @param caps domain capabilities (FI_LOCAL_COMM, FI_REMOTE_COMM, FI_SHARED_AV ...).
 * @param mode domain mode bits.
 * @param authKey domain authorisation key.
 * @param maxErrData largest provider error data in bytes.
 * @param mrCnt most memory regions.
 * @param tclass traffic class.
 * @param maxEpAuthKey most authorisation keys per endpoint.
 */
public record DomainAttr(
    Object domain,
    String name,
    Threading threading,
    Progress controlProgress,
    Progress dataProgress,
    ResourceMgmt resourceMgmt,
    AvType avType,
    long mrMode,
    long mrKeySize,
    long cqDataSize,
    long cqCnt,
    long epCnt,
    long txCtxCnt,
    long rxCtxCnt,
    long maxEpTxCtx,
    long maxEpRxCtx,
    long maxEpStxCtx,
    long maxEpSrxCtx,
    long cntrCnt,
    long mrIovLimit,
    long caps,
    long mode,
    byte[] authKey,
    long maxErrData,
    long mrCnt,
    long tclass,
    long maxEpAuthKey)
{
    /** Every field zero, empty or unspecified: as {@code fi_allocinfo} leaves it; a pure wildcard in hints. */
    public static final DomainAttr ZERO = builder().build();

    /**
     * Copies the arrays so that the value stays immutable.
     *
     * @param domain          see {@link #domain()}.
     * @param name            see {@link #name()}.
     * @param threading       see {@link #threading()}.
     * @param controlProgress see {@link #controlProgress()}.
     * @param dataProgress    see {@link #dataProgress()}.
     * @param resourceMgmt    see {@link #resourceMgmt()}.
     * @param avType          see {@link #avType()}.
     * @param mrMode          see {@link #mrMode()}.
     * @param mrKeySize       see {@link #mrKeySize()}.
     * @param cqDataSize      see {@link #cqDataSize()}.
     * @param cqCnt           see {@link #cqCnt()}.
     * @param epCnt           see {@link #epCnt()}.
     * @param txCtxCnt        see {@link #txCtxCnt()}.
     * @param rxCtxCnt        see {@link #rxCtxCnt()}.
     * @param maxEpTxCtx      see {@link #maxEpTxCtx()}.
     * @param maxEpRxCtx      see {@link #maxEpRxCtx()}.
     * @param maxEpStxCtx     see {@link #maxEpStxCtx()}.
     * @param maxEpSrxCtx     see {@link #maxEpSrxCtx()}.
     * @param cntrCnt         see {@link #cntrCnt()}.
     * @param mrIovLimit      see {@link #mrIovLimit()}.
     * @param caps            see {@link #caps()}.
     * @param mode            see {@link #mode()}.
     * @param authKey         see {@link #authKey()}.
     * @param maxErrData      see {@link #maxErrData()}.
     * @param mrCnt           see {@link #mrCnt()}.
     * @param tclass          see {@link #tclass()}.
     * @param maxEpAuthKey    see {@link #maxEpAuthKey()}.
     */
    public DomainAttr
    {
        authKey = authKey == null ? null : authKey.clone();
    }

    /**
     * The domain authorisation key (a copy).
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
        if (!(o instanceof DomainAttr))
        {
            return false;
        }
        final DomainAttr that = (DomainAttr) o;
        return Objects.equals(domain, that.domain) &&
            Objects.equals(name, that.name) &&
            Objects.equals(threading, that.threading) &&
            Objects.equals(controlProgress, that.controlProgress) &&
            Objects.equals(dataProgress, that.dataProgress) &&
            Objects.equals(resourceMgmt, that.resourceMgmt) &&
            Objects.equals(avType, that.avType) &&
            mrMode == that.mrMode &&
            mrKeySize == that.mrKeySize &&
            cqDataSize == that.cqDataSize &&
            cqCnt == that.cqCnt &&
            epCnt == that.epCnt &&
            txCtxCnt == that.txCtxCnt &&
            rxCtxCnt == that.rxCtxCnt &&
            maxEpTxCtx == that.maxEpTxCtx &&
            maxEpRxCtx == that.maxEpRxCtx &&
            maxEpStxCtx == that.maxEpStxCtx &&
            maxEpSrxCtx == that.maxEpSrxCtx &&
            cntrCnt == that.cntrCnt &&
            mrIovLimit == that.mrIovLimit &&
            caps == that.caps &&
            mode == that.mode &&
            Arrays.equals(authKey, that.authKey) &&
            maxErrData == that.maxErrData &&
            mrCnt == that.mrCnt &&
            tclass == that.tclass &&
            maxEpAuthKey == that.maxEpAuthKey;
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
        h = 31 * h + Objects.hashCode(domain);
        h = 31 * h + Objects.hashCode(name);
        h = 31 * h + Objects.hashCode(threading);
        h = 31 * h + Objects.hashCode(controlProgress);
        h = 31 * h + Objects.hashCode(dataProgress);
        h = 31 * h + Objects.hashCode(resourceMgmt);
        h = 31 * h + Objects.hashCode(avType);
        h = 31 * h + Long.hashCode(mrMode);
        h = 31 * h + Long.hashCode(mrKeySize);
        h = 31 * h + Long.hashCode(cqDataSize);
        h = 31 * h + Long.hashCode(cqCnt);
        h = 31 * h + Long.hashCode(epCnt);
        h = 31 * h + Long.hashCode(txCtxCnt);
        h = 31 * h + Long.hashCode(rxCtxCnt);
        h = 31 * h + Long.hashCode(maxEpTxCtx);
        h = 31 * h + Long.hashCode(maxEpRxCtx);
        h = 31 * h + Long.hashCode(maxEpStxCtx);
        h = 31 * h + Long.hashCode(maxEpSrxCtx);
        h = 31 * h + Long.hashCode(cntrCnt);
        h = 31 * h + Long.hashCode(mrIovLimit);
        h = 31 * h + Long.hashCode(caps);
        h = 31 * h + Long.hashCode(mode);
        h = 31 * h + Arrays.hashCode(authKey);
        h = 31 * h + Long.hashCode(maxErrData);
        h = 31 * h + Long.hashCode(mrCnt);
        h = 31 * h + Long.hashCode(tclass);
        h = 31 * h + Long.hashCode(maxEpAuthKey);
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
        return "DomainAttr[" + "domain=" + domain + ", " +
            "name=" + name + ", " +
            "threading=" + threading + ", " +
            "controlProgress=" + controlProgress + ", " +
            "dataProgress=" + dataProgress + ", " +
            "resourceMgmt=" + resourceMgmt + ", " +
            "avType=" + avType + ", " +
            "mrMode=" + mrMode + ", " +
            "mrKeySize=" + mrKeySize + ", " +
            "cqDataSize=" + cqDataSize + ", " +
            "cqCnt=" + cqCnt + ", " +
            "epCnt=" + epCnt + ", " +
            "txCtxCnt=" + txCtxCnt + ", " +
            "rxCtxCnt=" + rxCtxCnt + ", " +
            "maxEpTxCtx=" + maxEpTxCtx + ", " +
            "maxEpRxCtx=" + maxEpRxCtx + ", " +
            "maxEpStxCtx=" + maxEpStxCtx + ", " +
            "maxEpSrxCtx=" + maxEpSrxCtx + ", " +
            "cntrCnt=" + cntrCnt + ", " +
            "mrIovLimit=" + mrIovLimit + ", " +
            "caps=" + caps + ", " +
            "mode=" + mode + ", " +
            "authKey=" + Arrays.toString(authKey) + ", " +
            "maxErrData=" + maxErrData + ", " +
            "mrCnt=" + mrCnt + ", " +
            "tclass=" + tclass + ", " +
            "maxEpAuthKey=" + maxEpAuthKey + "]";
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
            .domain(domain)
            .name(name)
            .threading(threading)
            .controlProgress(controlProgress)
            .dataProgress(dataProgress)
            .resourceMgmt(resourceMgmt)
            .avType(avType)
            .mrMode(mrMode)
            .mrKeySize(mrKeySize)
            .cqDataSize(cqDataSize)
            .cqCnt(cqCnt)
            .epCnt(epCnt)
            .txCtxCnt(txCtxCnt)
            .rxCtxCnt(rxCtxCnt)
            .maxEpTxCtx(maxEpTxCtx)
            .maxEpRxCtx(maxEpRxCtx)
            .maxEpStxCtx(maxEpStxCtx)
            .maxEpSrxCtx(maxEpSrxCtx)
            .cntrCnt(cntrCnt)
            .mrIovLimit(mrIovLimit)
            .caps(caps)
            .mode(mode)
            .authKey(authKey)
            .maxErrData(maxErrData)
            .mrCnt(mrCnt)
            .tclass(tclass)
            .maxEpAuthKey(maxEpAuthKey);
    }

    /**
     * Fluent builder of {@link DomainAttr}. Not thread-safe.
     */
    public static final class Builder
    {
        private Object domain;
        private String name;
        private Threading threading = Threading.UNSPEC;
        private Progress controlProgress = Progress.UNSPEC;
        private Progress dataProgress = Progress.UNSPEC;
        private ResourceMgmt resourceMgmt = ResourceMgmt.UNSPEC;
        private AvType avType = AvType.UNSPEC;
        private long mrMode;
        private long mrKeySize;
        private long cqDataSize;
        private long cqCnt;
        private long epCnt;
        private long txCtxCnt;
        private long rxCtxCnt;
        private long maxEpTxCtx;
        private long maxEpRxCtx;
        private long maxEpStxCtx;
        private long maxEpSrxCtx;
        private long cntrCnt;
        private long mrIovLimit;
        private long caps;
        private long mode;
        private byte[] authKey;
        private long maxErrData;
        private long mrCnt;
        private long tclass;
        private long maxEpAuthKey;

        private Builder()
        {
        }

        /**
         * Sets the open domain object this info refers to ({@code fid_domain}), or null.
         *
         * @param domain the value.
         * @return this builder.
         */
        public Builder domain(final Object domain)
        {
            this.domain = domain;
            return this;
        }

        /**
         * Sets the domain name, or null (wildcard).
         *
         * @param name the value.
         * @return this builder.
         */
        public Builder name(final String name)
        {
            this.name = name;
            return this;
        }

        /**
         * Sets the threading model.
         *
         * @param threading the value.
         * @return this builder.
         */
        public Builder threading(final Threading threading)
        {
            this.threading = threading;
            return this;
        }

        /**
         * Sets the control progress model.
         *
         * @param controlProgress the value.
         * @return this builder.
         */
        public Builder controlProgress(final Progress controlProgress)
        {
            this.controlProgress = controlProgress;
            return this;
        }

        /**
         * Sets the data progress model.
         *
         * @param dataProgress the value.
         * @return this builder.
         */
        public Builder dataProgress(final Progress dataProgress)
        {
            this.dataProgress = dataProgress;
            return this;
        }

        /**
         * Sets the resource management.
         *
         * @param resourceMgmt the value.
         * @return this builder.
         */
        public Builder resourceMgmt(final ResourceMgmt resourceMgmt)
        {
            this.resourceMgmt = resourceMgmt;
            return this;
        }

        /**
         * Sets the address vector type.
         *
         * @param avType the value.
         * @return this builder.
         */
        public Builder avType(final AvType avType)
        {
            this.avType = avType;
            return this;
        }

        /**
         * Sets the memory registration mode ({@link MrMode} bits).
         *
         * @param mrMode the value.
         * @return this builder.
         */
        public Builder mrMode(final long mrMode)
        {
            this.mrMode = mrMode;
            return this;
        }

        /**
         * Sets the MR key size in bytes.
         *
         * @param mrKeySize the value.
         * @return this builder.
         */
        public Builder mrKeySize(final long mrKeySize)
        {
            this.mrKeySize = mrKeySize;
            return this;
        }

        /**
         * Sets the remote CQ data size in bytes.
         *
         * @param cqDataSize the value.
         * @return this builder.
         */
        public Builder cqDataSize(final long cqDataSize)
        {
            this.cqDataSize = cqDataSize;
            return this;
        }

        /**
         * Sets the most completion queues.
         *
         * @param cqCnt the value.
         * @return this builder.
         */
        public Builder cqCnt(final long cqCnt)
        {
            this.cqCnt = cqCnt;
            return this;
        }

        /**
         * Sets the most endpoints.
         *
         * @param epCnt the value.
         * @return this builder.
         */
        public Builder epCnt(final long epCnt)
        {
            this.epCnt = epCnt;
            return this;
        }

        /**
         * Sets the most transmit contexts.
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
         * Sets the most receive contexts.
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
         * Sets the most transmit contexts per endpoint.
         *
         * @param maxEpTxCtx the value.
         * @return this builder.
         */
        public Builder maxEpTxCtx(final long maxEpTxCtx)
        {
            this.maxEpTxCtx = maxEpTxCtx;
            return this;
        }

        /**
         * Sets the most receive contexts per endpoint.
         *
         * @param maxEpRxCtx the value.
         * @return this builder.
         */
        public Builder maxEpRxCtx(final long maxEpRxCtx)
        {
            this.maxEpRxCtx = maxEpRxCtx;
            return this;
        }

        /**
         * Sets the most shared transmit contexts per endpoint.
         *
         * @param maxEpStxCtx the value.
         * @return this builder.
         */
        public Builder maxEpStxCtx(final long maxEpStxCtx)
        {
            this.maxEpStxCtx = maxEpStxCtx;
            return this;
        }

        /**
         * Sets the most shared receive contexts per endpoint.
         *
         * @param maxEpSrxCtx the value.
         * @return this builder.
         */
        public Builder maxEpSrxCtx(final long maxEpSrxCtx)
        {
            this.maxEpSrxCtx = maxEpSrxCtx;
            return this;
        }

        /**
         * Sets the most counters.
         *
         * @param cntrCnt the value.
         * @return this builder.
         */
        public Builder cntrCnt(final long cntrCnt)
        {
            this.cntrCnt = cntrCnt;
            return this;
        }

        /**
         * Sets the most IO vector entries per registration.
         *
         * @param mrIovLimit the value.
         * @return this builder.
         */
        public Builder mrIovLimit(final long mrIovLimit)
        {
            this.mrIovLimit = mrIovLimit;
            return this;
        }

        /**
         * Sets the domain capabilities (FI_LOCAL_COMM, FI_REMOTE_COMM, FI_SHARED_AV ...).
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
         * Sets the domain mode bits.
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
         * Sets the domain authorisation key.
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
         * Sets the largest provider error data in bytes.
         *
         * @param maxErrData the value.
         * @return this builder.
         */
        public Builder maxErrData(final long maxErrData)
        {
            this.maxErrData = maxErrData;
            return this;
        }

        /**
         * Sets the most memory regions.
         *
         * @param mrCnt the value.
         * @return this builder.
         */
        public Builder mrCnt(final long mrCnt)
        {
            this.mrCnt = mrCnt;
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
         * Sets the most authorisation keys per endpoint.
         *
         * @param maxEpAuthKey the value.
         * @return this builder.
         */
        public Builder maxEpAuthKey(final long maxEpAuthKey)
        {
            this.maxEpAuthKey = maxEpAuthKey;
            return this;
        }

        /**
         * Builds the immutable value.
         *
         * @return the value.
         */
        public DomainAttr build()
        {
            return new DomainAttr(domain, name, threading, controlProgress, dataProgress, resourceMgmt, avType,
                mrMode, mrKeySize, cqDataSize, cqCnt, epCnt, txCtxCnt, rxCtxCnt, maxEpTxCtx, maxEpRxCtx,
                maxEpStxCtx, maxEpSrxCtx, cntrCnt, mrIovLimit, caps, mode, authKey, maxErrData, mrCnt, tclass,
                maxEpAuthKey);
        }
    }
}
