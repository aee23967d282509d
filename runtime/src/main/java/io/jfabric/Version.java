package io.jfabric;

/**
 * An OFI API version as {@code FI_VERSION(major, minor)}: the 32-bit value holds the major number in
 * the upper 16 bits and the minor number in the lower 16 bits. Ordered by major, then minor.
 * <p>
 * Immutable and thread-safe.
 *
 * @param major major version, 0..65535.
 * @param minor minor version, 0..65535.
 */
public record Version(int major, int minor) implements Comparable<Version>
{
    /** The OFI API version this library implements (the libfabric API generation it follows). */
    public static final Version CURRENT = new Version(1, 22);

    /**
     * Validates the range of both parts.
     *
     * @param major major version, 0..65535.
     * @param minor minor version, 0..65535.
     */
    public Version
    {
        if (major < 0 || major > 0xFFFF || minor < 0 || minor > 0xFFFF)
        {
            throw new FabricException(Errno.EINVAL, "version " + major + "." + minor + " out of range 0..65535");
        }
    }

    /**
     * Builds a version, as {@code FI_VERSION(major, minor)}.
     *
     * @param major major version.
     * @param minor minor version.
     * @return the version.
     */
    public static Version of(final int major, final int minor)
    {
        return new Version(major, minor);
    }

    /**
     * Decodes the packed 32-bit form.
     *
     * @param packed {@code (major << 16) | minor}.
     * @return the version.
     */
    public static Version fromPacked(final int packed)
    {
        return new Version(packed >>> 16, packed & 0xFFFF);
    }

    /**
     * Parses {@code "major.minor"}.
     *
     * @param text the version text.
     * @return the version.
     * @throws FabricException with EINVAL naming the text when it is not {@code major.minor}.
     */
    public static Version parse(final String text)
    {
        final int dot = text.indexOf('.');
        try
        {
            if (dot > 0)
            {
                return new Version(Integer.parseInt(text.substring(0, dot)), Integer.parseInt(text.substring(dot + 1)));
            }
        }
        catch (final NumberFormatException ignore)
        {
            // fall through to the error below
        }
        throw new FabricException(Errno.EINVAL, "version '" + text + "' is not of the form major.minor");
    }

    /**
     * The packed 32-bit form, {@code FI_VERSION(major, minor)}.
     *
     * @return {@code (major << 16) | minor}.
     */
    public int packed()
    {
        return (major << 16) | minor;
    }

    /**
     * Whether this version is at least the given one, as {@code FI_VERSION_GE}.
     *
     * @param other the version to compare with.
     * @return true when this version is the same or newer.
     */
    public boolean atLeast(final Version other)
    {
        return compareTo(other) >= 0;
    }

    @Override
    public int compareTo(final Version other)
    {
        return Integer.compare(packed(), other.packed());
    }

    @Override
    public String toString()
    {
        return major + "." + minor;
    }
}
