package io.jfabric;

/**
 * Fabric attributes, as {@code struct fi_fabric_attr} / {@code kfi_fabric_attr}.
 * <p>
 * Immutable and thread-safe; build with {@link #builder()} or {@link #toBuilder()}. Control path only.
 *
 * @param fabric open fabric object this info refers to ({@code fid_fabric}), or null.
 * @param name fabric name, or null (wildcard).
 * @param provName provider name, or null (wildcard).
 * @param provVersion provider version.
 * @param apiVersion OFI API version the info was produced for.
 */
public record FabricAttr(
    Object fabric,
    String name,
    String provName,
    Version provVersion,
    Version apiVersion)
{
    /** Every field zero, empty or unspecified: as {@code fi_allocinfo} leaves it; a pure wildcard in hints. */
    public static final FabricAttr ZERO = builder().build();


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
            .fabric(fabric)
            .name(name)
            .provName(provName)
            .provVersion(provVersion)
            .apiVersion(apiVersion);
    }

    /**
     * Fluent builder of {@link FabricAttr}. Not thread-safe.
     */
    public static final class Builder
    {
        private Object fabric;
        private String name;
        private String provName;
        private Version provVersion = new Version(0, 0);
        private Version apiVersion = new Version(0, 0);

        private Builder()
        {
        }

        /**
         * Sets the open fabric object this info refers to ({@code fid_fabric}), or null.
         *
         * @param fabric the value.
         * @return this builder.
         */
        public Builder fabric(final Object fabric)
        {
            this.fabric = fabric;
            return this;
        }

        /**
         * Sets the fabric name, or null (wildcard).
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
         * Sets the provider name, or null (wildcard).
         *
         * @param provName the value.
         * @return this builder.
         */
        public Builder provName(final String provName)
        {
            this.provName = provName;
            return this;
        }

        /**
         * Sets the provider version.
         *
         * @param provVersion the value.
         * @return this builder.
         */
        public Builder provVersion(final Version provVersion)
        {
            this.provVersion = provVersion;
            return this;
        }

        /**
         * Sets the OFI API version the info was produced for.
         *
         * @param apiVersion the value.
         * @return this builder.
         */
        public Builder apiVersion(final Version apiVersion)
        {
            this.apiVersion = apiVersion;
            return this;
        }

        /**
         * Builds the immutable value.
         *
         * @return the value.
         */
        public FabricAttr build()
        {
            return new FabricAttr(fabric, name, provName, provVersion, apiVersion);
        }
    }
}
