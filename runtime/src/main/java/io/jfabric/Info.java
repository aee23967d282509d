package io.jfabric;

import java.util.Arrays;
import java.util.Objects;

/**
 * One fabric interface description, as {@code struct fi_info} / {@code struct kfi_info}: what
 * {@link Fabric#getInfo} returns (one per usable fabric, domain and endpoint configuration) and what an
 * application passes as hints. The {@code next} pointer of the C list is a {@code java.util.List} here.
 * <p>
 * Sub-attributes are never null: an absent one is the {@code ZERO} attribute, which in hints is a pure
 * wildcard (the same as a NULL pointer in C). {@code src_addrlen} and {@code dest_addrlen} are the lengths
 * of the address arrays.
 * <p>
 * Immutable and thread-safe; build with {@link #builder()} or {@link #toBuilder()}. Control path only.
 *
 * @param caps capabilities (FI_* bits: primary, modifiers, secondary).
 * @param mode mode bits ({@link Mode}): on input those the application supports, on output those it must honour.
 * @param addrFormat format of {@code srcAddr} and {@code destAddr}.
 * @param srcAddr source address in {@code addrFormat}, or null.
 * @param destAddr destination address in {@code addrFormat}, or null.
 * @param handle provider context handle ({@code fid}, e.g. a passive endpoint of a connection request), or null.
 * @param txAttr transmit context attributes, never null.
 * @param rxAttr receive context attributes, never null.
 * @param epAttr endpoint attributes, never null.
 * @param domainAttr domain attributes, never null.
 * @param fabricAttr fabric attributes, never null.
 * @param nic NIC details where the provider drives one, else null.
 */
public record Info(
    long caps,
    long mode,
    AddressFormat addrFormat,
    byte[] srcAddr,
    byte[] destAddr,
    Object handle,
    TxAttr txAttr,
    RxAttr rxAttr,
    EpAttr epAttr,
    DomainAttr domainAttr,
    FabricAttr fabricAttr,
    Nic nic)
{
    /** Every field zero, empty or unspecified: as {@code fi_allocinfo} leaves it; a pure wildcard in hints. */
    public static final Info ZERO = builder().build();

    /**
     * Copies the arrays so that the value stays immutable and turns absent sub-attributes into their zero form.
     *
     * @param caps       see {@link #caps()}.
     * @param mode       see {@link #mode()}.
     * @param addrFormat see {@link #addrFormat()}.
     * @param srcAddr    see {@link #srcAddr()}.
     * @param destAddr   see {@link #destAddr()}.
     * @param handle     see {@link #handle()}.
     * @param txAttr     see {@link #txAttr()}.
     * @param rxAttr     see {@link #rxAttr()}.
     * @param epAttr     see {@link #epAttr()}.
     * @param domainAttr see {@link #domainAttr()}.
     * @param fabricAttr see {@link #fabricAttr()}.
     * @param nic        see {@link #nic()}.
     */
    public Info
    {
        addrFormat = addrFormat == null ? AddressFormat.UNSPEC : addrFormat;
        srcAddr = srcAddr == null ? null : srcAddr.clone();
        destAddr = destAddr == null ? null : destAddr.clone();
        txAttr = txAttr == null ? TxAttr.ZERO : txAttr;
        rxAttr = rxAttr == null ? RxAttr.ZERO : rxAttr;
        epAttr = epAttr == null ? EpAttr.ZERO : epAttr;
        domainAttr = domainAttr == null ? DomainAttr.ZERO : domainAttr;
        fabricAttr = fabricAttr == null ? FabricAttr.ZERO : fabricAttr;
    }

    /**
     * The source address in {@code addrFormat}, or null (a copy).
     *
     * @return a copy of the bytes, or null when absent.
     */
    @Override
    public byte[] srcAddr()
    {
        return srcAddr == null ? null : srcAddr.clone();
    }

    /**
     * The destination address in {@code addrFormat}, or null (a copy).
     *
     * @return a copy of the bytes, or null when absent.
     */
    @Override
    public byte[] destAddr()
    {
        return destAddr == null ? null : destAddr.clone();
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
        if (!(o instanceof Info))
        {
            return false;
        }
        final Info that = (Info) o;
        return caps == that.caps &&
            mode == that.mode &&
            Objects.equals(addrFormat, that.addrFormat) &&
            Arrays.equals(srcAddr, that.srcAddr) &&
            Arrays.equals(destAddr, that.destAddr) &&
            handle == that.handle &&
            Objects.equals(txAttr, that.txAttr) &&
            Objects.equals(rxAttr, that.rxAttr) &&
            Objects.equals(epAttr, that.epAttr) &&
            Objects.equals(domainAttr, that.domainAttr) &&
            Objects.equals(fabricAttr, that.fabricAttr) &&
            Objects.equals(nic, that.nic);
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
        h = 31 * h + Long.hashCode(caps);
        h = 31 * h + Long.hashCode(mode);
        h = 31 * h + Objects.hashCode(addrFormat);
        h = 31 * h + Arrays.hashCode(srcAddr);
        h = 31 * h + Arrays.hashCode(destAddr);
        h = 31 * h + Objects.hashCode(handle);
        h = 31 * h + Objects.hashCode(txAttr);
        h = 31 * h + Objects.hashCode(rxAttr);
        h = 31 * h + Objects.hashCode(epAttr);
        h = 31 * h + Objects.hashCode(domainAttr);
        h = 31 * h + Objects.hashCode(fabricAttr);
        h = 31 * h + Objects.hashCode(nic);
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
        return "Info[" + "caps=" + caps + ", " +
            "mode=" + mode + ", " +
            "addrFormat=" + addrFormat + ", " +
            "srcAddr=" + Arrays.toString(srcAddr) + ", " +
            "destAddr=" + Arrays.toString(destAddr) + ", " +
            "handle=" + handle + ", " +
            "txAttr=" + txAttr + ", " +
            "rxAttr=" + rxAttr + ", " +
            "epAttr=" + epAttr + ", " +
            "domainAttr=" + domainAttr + ", " +
            "fabricAttr=" + fabricAttr + ", " +
            "nic=" + nic + "]";
    }

    /**
     * A zeroed info with every sub-attribute present, as {@code fi_allocinfo}: the natural start for hints.
     *
     * @return the zero info.
     */
    public static Info alloc()
    {
        return ZERO;
    }

    /**
     * A deep copy, as {@code fi_dupinfo}: every sub-attribute and address is duplicated; the {@code handle}
     * reference is carried over as is (libfabric's dupinfo does not duplicate the object it names either).
     *
     * @return an equal info sharing no mutable state with this one.
     */
    public Info copy()
    {
        return toBuilder()
            .txAttr(txAttr.toBuilder().build())
            .rxAttr(rxAttr.toBuilder().build())
            .epAttr(epAttr.toBuilder().build())
            .domainAttr(domainAttr.toBuilder().build())
            .fabricAttr(fabricAttr.toBuilder().build())
            .nic(nic == null ? null : nic.toBuilder().build())
            .build();
    }

    /**
     * The length of the source address, as {@code src_addrlen}.
     *
     * @return the byte length, 0 when absent.
     */
    public int srcAddrlen()
    {
        return srcAddr == null ? 0 : srcAddr.length;
    }

    /**
     * The length of the destination address, as {@code dest_addrlen}.
     *
     * @return the byte length, 0 when absent.
     */
    public int destAddrlen()
    {
        return destAddr == null ? 0 : destAddr.length;
    }

    /**
     * The provider name, {@code fabric_attr.prov_name}.
     *
     * @return the name, or null.
     */
    public String providerName()
    {
        return fabricAttr.provName();
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
            .caps(caps)
            .mode(mode)
            .addrFormat(addrFormat)
            .srcAddr(srcAddr)
            .destAddr(destAddr)
            .handle(handle)
            .txAttr(txAttr)
            .rxAttr(rxAttr)
            .epAttr(epAttr)
            .domainAttr(domainAttr)
            .fabricAttr(fabricAttr)
            .nic(nic);
    }

    /**
     * Fluent builder of {@link Info}. Not thread-safe.
     */
    public static final class Builder
    {
        private long caps;
        private long mode;
        private AddressFormat addrFormat = AddressFormat.UNSPEC;
        private byte[] srcAddr;
        private byte[] destAddr;
        private Object handle;
        private TxAttr txAttr = TxAttr.ZERO;
        private RxAttr rxAttr = RxAttr.ZERO;
        private EpAttr epAttr = EpAttr.ZERO;
        private DomainAttr domainAttr = DomainAttr.ZERO;
        private FabricAttr fabricAttr = FabricAttr.ZERO;
        private Nic nic;

        private Builder()
        {
        }

        /**
         * Sets the capabilities (FI_* bits: primary, modifiers, secondary).
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
         * Sets the mode bits ({@link Mode}): on input those the application supports, on output those it must honour.
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
         * Sets the format of {@code srcAddr} and {@code destAddr}.
         *
         * @param addrFormat the value.
         * @return this builder.
         */
        public Builder addrFormat(final AddressFormat addrFormat)
        {
            this.addrFormat = addrFormat;
            return this;
        }

        /**
         * Sets the source address in {@code addrFormat}, or null.
         *
         * @param srcAddr the value.
         * @return this builder.
         */
        public Builder srcAddr(final byte[] srcAddr)
        {
            this.srcAddr = srcAddr == null ? null : srcAddr.clone();
            return this;
        }

        /**
         * Sets the destination address in {@code addrFormat}, or null.
         *
         * @param destAddr the value.
         * @return this builder.
         */
        public Builder destAddr(final byte[] destAddr)
        {
            this.destAddr = destAddr == null ? null : destAddr.clone();
            return this;
        }

        /**
         * Sets the provider context handle ({@code fid}, e.g. a passive endpoint of a connection request), or null.
         *
         * @param handle the value.
         * @return this builder.
         */
        public Builder handle(final Object handle)
        {
            this.handle = handle;
            return this;
        }

        /**
         * Sets the transmit context attributes, never null.
         *
         * @param txAttr the value.
         * @return this builder.
         */
        public Builder txAttr(final TxAttr txAttr)
        {
            this.txAttr = txAttr;
            return this;
        }

        /**
         * Sets the receive context attributes, never null.
         *
         * @param rxAttr the value.
         * @return this builder.
         */
        public Builder rxAttr(final RxAttr rxAttr)
        {
            this.rxAttr = rxAttr;
            return this;
        }

        /**
         * Sets the endpoint attributes, never null.
         *
         * @param epAttr the value.
         * @return this builder.
         */
        public Builder epAttr(final EpAttr epAttr)
        {
            this.epAttr = epAttr;
            return this;
        }

        /**
         * Sets the domain attributes, never null.
         *
         * @param domainAttr the value.
         * @return this builder.
         */
        public Builder domainAttr(final DomainAttr domainAttr)
        {
            this.domainAttr = domainAttr;
            return this;
        }

        /**
         * Sets the fabric attributes, never null.
         *
         * @param fabricAttr the value.
         * @return this builder.
         */
        public Builder fabricAttr(final FabricAttr fabricAttr)
        {
            this.fabricAttr = fabricAttr;
            return this;
        }

        /**
         * Sets the NIC details where the provider drives one, else null.
         *
         * @param nic the value.
         * @return this builder.
         */
        public Builder nic(final Nic nic)
        {
            this.nic = nic;
            return this;
        }

        /**
         * Builds the immutable value.
         *
         * @return the value.
         */
        public Info build()
        {
            return new Info(caps, mode, addrFormat, srcAddr, destAddr, handle, txAttr, rxAttr, epAttr,
                domainAttr, fabricAttr, nic);
        }
    }
}
