package io.jfabric;

/**
 * Network interface details, as {@code struct fid_nic} with its device, bus and link attributes;
 * present only where a provider drives a (real or emulated) NIC.
 * <p>
 * Immutable and thread-safe; build with {@link #builder()} or {@link #toBuilder()}. Control path only.
 *
 * @param deviceName device name.
 * @param deviceId device id.
 * @param deviceVersion device version.
 * @param vendorId vendor id.
 * @param driver driver name.
 * @param firmware firmware version.
 * @param busType bus type ({@code FI_BUS_PCI}, {@code FI_BUS_UNKNOWN}).
 * @param busAddress bus address, e.g. a PCI {@code domain:bus:device.function}.
 * @param linkAddress link-level address.
 * @param mtu link MTU in bytes.
 * @param speed link speed in bits per second.
 * @param linkState link state ({@code FI_LINK_UP}, {@code FI_LINK_DOWN}, {@code FI_LINK_UNKNOWN}).
 * @param networkType network type.
 */
public record Nic(
    String deviceName,
    String deviceId,
    String deviceVersion,
    String vendorId,
    String driver,
    String firmware,
    String busType,
    String busAddress,
    String linkAddress,
    long mtu,
    long speed,
    String linkState,
    String networkType)
{
    /** Every field zero, empty or unspecified: as {@code fi_allocinfo} leaves it; a pure wildcard in hints. */
    public static final Nic ZERO = builder().build();


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
            .deviceName(deviceName)
            .deviceId(deviceId)
            .deviceVersion(deviceVersion)
            .vendorId(vendorId)
            .driver(driver)
            .firmware(firmware)
            .busType(busType)
            .busAddress(busAddress)
            .linkAddress(linkAddress)
            .mtu(mtu)
            .speed(speed)
            .linkState(linkState)
            .networkType(networkType);
    }

    /**
     * Fluent builder of {@link Nic}. Not thread-safe.
     */
    public static final class Builder
    {
        private String deviceName;
        private String deviceId;
        private String deviceVersion;
        private String vendorId;
        private String driver;
        private String firmware;
        private String busType;
        private String busAddress;
        private String linkAddress;
        private long mtu;
        private long speed;
        private String linkState;
        private String networkType;

        private Builder()
        {
        }

        /**
         * Sets the device name.
         *
         * @param deviceName the value.
         * @return this builder.
         */
        public Builder deviceName(final String deviceName)
        {
            this.deviceName = deviceName;
            return this;
        }

        /**
         * Sets the device id.
         *
         * @param deviceId the value.
         * @return this builder.
         */
        public Builder deviceId(final String deviceId)
        {
            this.deviceId = deviceId;
            return this;
        }

        /**
         * Sets the device version.
         *
         * @param deviceVersion the value.
         * @return this builder.
         */
        public Builder deviceVersion(final String deviceVersion)
        {
            this.deviceVersion = deviceVersion;
            return this;
        }

        /**
         * Sets the vendor id.
         *
         * @param vendorId the value.
         * @return this builder.
         */
        public Builder vendorId(final String vendorId)
        {
            this.vendorId = vendorId;
            return this;
        }

        /**
         * Sets the driver name.
         *
         * @param driver the value.
         * @return this builder.
         */
        public Builder driver(final String driver)
        {
            this.driver = driver;
            return this;
        }

        /**
         * Sets the firmware version.
         *
         * @param firmware the value.
         * @return this builder.
         */
        public Builder firmware(final String firmware)
        {
            this.firmware = firmware;
            return this;
        }

        /**
         * Sets the bus type ({@code FI_BUS_PCI}, {@code FI_BUS_UNKNOWN}).
         *
         * @param busType the value.
         * @return this builder.
         */
        public Builder busType(final String busType)
        {
            this.busType = busType;
            return this;
        }

        /**
         * Sets the bus address, e.g. a PCI {@code domain:bus:device.function}.
         *
         * @param busAddress the value.
         * @return this builder.
         */
        public Builder busAddress(final String busAddress)
        {
            this.busAddress = busAddress;
            return this;
        }

        /**
         * Sets the link-level address.
         *
         * @param linkAddress the value.
         * @return this builder.
         */
        public Builder linkAddress(final String linkAddress)
        {
            this.linkAddress = linkAddress;
            return this;
        }

        /**
         * Sets the link MTU in bytes.
         *
         * @param mtu the value.
         * @return this builder.
         */
        public Builder mtu(final long mtu)
        {
            this.mtu = mtu;
            return this;
        }

        /**
         * Sets the link speed in bits per second.
         *
         * @param speed the value.
         * @return this builder.
         */
        public Builder speed(final long speed)
        {
            this.speed = speed;
            return this;
        }

        /**
         * Sets the link state ({@code FI_LINK_UP}, {@code FI_LINK_DOWN}, {@code FI_LINK_UNKNOWN}).
         *
         * @param linkState the value.
         * @return this builder.
         */
        public Builder linkState(final String linkState)
        {
            this.linkState = linkState;
            return this;
        }

        /**
         * Sets the network type.
         *
         * @param networkType the value.
         * @return this builder.
         */
        public Builder networkType(final String networkType)
        {
            this.networkType = networkType;
            return this;
        }

        /**
         * Builds the immutable value.
         *
         * @return the value.
         */
        public Nic build()
        {
            return new Nic(deviceName, deviceId, deviceVersion, vendorId, driver, firmware, busType, busAddress,
                linkAddress, mtu, speed, linkState, networkType);
        }
    }
}
