package io.jfabric.spi;

import io.jfabric.Errno;
import io.jfabric.FabricException;

/**
 * One named provider extension ({@code fi_open_ops}) of a fabric, a domain or an endpoint: numbered options with
 * typed values that the application reads and writes through {@code io.jfabric.OpenOps}
 * ({@code Fabric.openOps(name)}, {@code Domain.openOps(name)}, {@code Endpoint.openOps(name)}).
 * <p>
 * The runtime checks what it can before calling in: an option for which {@link #type} answers null is refused with
 * {@code EINVAL}, a value of the wrong type or outside its type's range is refused with {@code EINVAL}. The
 * provider checks the rest (its own ranges, "too late" rules such as a setting that cannot change after the first
 * registration) and throws {@link FabricException} with the errno it documents.
 * <p>
 * Threading: control path; the runtime may call from any application thread, so an implementation is
 * thread-safe. The data path never calls it; a provider that reads a value on its data path publishes it the way
 * its agent reads it (a volatile field, or a control command).
 */
public interface OpsExtension
{
    /**
     * The extension's name, as {@code fi_open_ops} names it (for example {@code "domain ops 1"}).
     *
     * @return the name.
     */
    String name();

    /**
     * The type of an option.
     *
     * @param option the option number.
     * @return its type, or null when this extension has no such option.
     */
    OpsType type(int option);

    /**
     * Read a numeric or boolean option ({@code get_val}).
     *
     * @param option an option whose {@link #type} is numeric.
     * @return the value (0 or 1 for a boolean).
     * @throws FabricException with the provider's errno.
     */
    long get(int option);

    /**
     * Write a numeric or boolean option ({@code set_val}); the value is within the option type's range.
     *
     * @param option an option whose {@link #type} is numeric.
     * @param value  the value (0 or 1 for a boolean).
     * @throws FabricException with the provider's errno (for example {@code EINVAL} out of its own range).
     */
    void set(int option, long value);

    /**
     * Read a string option. The default has none.
     *
     * @param option an option whose {@link #type} is {@link OpsType#STRING}.
     * @return the value.
     * @throws FabricException ENOSYS by default.
     */
    default String getString(final int option)
    {
        throw new FabricException(Errno.ENOSYS, name() + " has no string options");
    }

    /**
     * Write a string option. The default has none.
     *
     * @param option an option whose {@link #type} is {@link OpsType#STRING}.
     * @param value  the value, not null.
     * @throws FabricException ENOSYS by default, or the provider's errno.
     */
    default void setString(final int option, final String value)
    {
        throw new FabricException(Errno.ENOSYS, name() + " has no string options");
    }
}
