package io.jfabric;

import io.jfabric.spi.OpsExtension;
import io.jfabric.spi.OpsType;

/**
 * A provider extension opened with {@code fi_open_ops} on a fabric, domain or endpoint
 * ({@link Fabric#openOps}, {@link Domain#openOps}, {@link Endpoint#openOps}): numbered options with typed values,
 * read with {@code get*} and written with {@code set} ({@code get_val}/{@code set_val}).
 * <p>
 * The runtime checks what every provider shares: an option the extension does not have, a value of another type
 * or outside the type's range ({@link OpsType}) fail with {@code EINVAL} before the provider sees them; the
 * provider checks its own ranges and timing rules and documents its errnos. Which extensions and options exist is
 * the provider's (its documentation lists them); the runtime names none.
 * <p>
 * Threading: control path, thread-safe as the provider's extension is.
 */
public final class OpenOps
{
    private final OpsExtension extension;

    OpenOps(final OpsExtension extension)
    {
        this.extension = extension;
    }

    /**
     * Open an extension from a provider hook, or fail as {@code fi_open_ops} does for an unknown name.
     */
    static OpenOps of(final OpsExtension extension, final String name, final String where)
    {
        if (null == name)
        {
            throw new FabricException(Errno.EINVAL, "fi_open_ops needs a name");
        }
        if (null == extension)
        {
            throw new FabricException(Errno.ENOSYS, where + " has no extension '" + name + "'");
        }
        return new OpenOps(extension);
    }

    /**
     * @return the extension's name.
     */
    public String name()
    {
        return extension.name();
    }

    /**
     * The type of an option.
     *
     * @param option the option number.
     * @return its type.
     * @throws FabricException EINVAL for an option the extension does not have.
     */
    public OpsType type(final int option)
    {
        final OpsType type = extension.type(option);
        if (null == type)
        {
            throw new FabricException(Errno.EINVAL, extension.name() + " has no option " + option);
        }
        return type;
    }

    /**
     * Write a numeric option ({@link OpsType#INT32}, {@link OpsType#UINT32}, {@link OpsType#INT64}, or
     * {@link OpsType#BOOLEAN} as 0/1).
     *
     * @param option the option number.
     * @param value  the value.
     * @return this.
     * @throws FabricException EINVAL for an unknown option, a string option or a value out of the type's range;
     *                         the provider's errno for its own rules.
     */
    public OpenOps set(final int option, final long value)
    {
        final OpsType type = type(option);
        if (!type.holds(value))
        {
            throw new FabricException(Errno.EINVAL, extension.name() + " option " + option + " is " + type +
                ": " + value + " does not fit");
        }
        extension.set(option, value);
        return this;
    }

    /**
     * Write a boolean option.
     *
     * @param option the option number.
     * @param value  the value.
     * @return this.
     * @throws FabricException EINVAL for an unknown or non-boolean option; the provider's errno.
     */
    public OpenOps set(final int option, final boolean value)
    {
        expect(option, OpsType.BOOLEAN);
        extension.set(option, value ? 1 : 0);
        return this;
    }

    /**
     * Write a string option.
     *
     * @param option the option number.
     * @param value  the value, not null.
     * @return this.
     * @throws FabricException EINVAL for an unknown or non-string option or a null value; the provider's errno.
     */
    public OpenOps set(final int option, final String value)
    {
        expect(option, OpsType.STRING);
        if (null == value)
        {
            throw new FabricException(Errno.EINVAL, extension.name() + " option " + option + ": null string");
        }
        extension.setString(option, value);
        return this;
    }

    /**
     * Read a numeric or boolean option.
     *
     * @param option the option number.
     * @return the value (0 or 1 for a boolean).
     * @throws FabricException EINVAL for an unknown or string option; the provider's errno.
     */
    public long get(final int option)
    {
        if (!type(option).numeric())
        {
            throw new FabricException(Errno.EINVAL, extension.name() + " option " + option + " is a string");
        }
        return extension.get(option);
    }

    /**
     * Read a boolean option.
     *
     * @param option the option number.
     * @return the value.
     * @throws FabricException EINVAL for an unknown or non-boolean option; the provider's errno.
     */
    public boolean getBoolean(final int option)
    {
        expect(option, OpsType.BOOLEAN);
        return 0 != extension.get(option);
    }

    /**
     * Read a string option.
     *
     * @param option the option number.
     * @return the value.
     * @throws FabricException EINVAL for an unknown or non-string option; the provider's errno.
     */
    public String getString(final int option)
    {
        expect(option, OpsType.STRING);
        return extension.getString(option);
    }

    /**
     * The provider's own interface of this extension, for entries that are not numbered options ({@code fi_open_ops}
     * function pointers such as gni's {@code flush_cache} or its per-key auth-key calls): the provider documents
     * which type its extension is.
     *
     * @param type the provider's extension type.
     * @param <T>  that type.
     * @return the extension as {@code type}.
     * @throws FabricException EOPNOTSUPP when this extension is not of that type.
     */
    public <T> T as(final Class<T> type)
    {
        if (null == type || !type.isInstance(extension))
        {
            throw new FabricException(Errno.EOPNOTSUPP, extension.name() + " is not a " +
                (null == type ? "null type" : type.getName()));
        }
        return type.cast(extension);
    }

    private void expect(final int option, final OpsType expected)
    {
        final OpsType type = type(option);
        if (expected != type)
        {
            throw new FabricException(Errno.EINVAL, extension.name() + " option " + option + " is " + type + ", not " +
                expected);
        }
    }
}
