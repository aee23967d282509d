package io.jfabric;

/**
 * Thrown by control-path calls (getInfo, open, bind, register, insert) when they fail. It carries the
 * fabric {@link Errno} and a message that names the offending input.
 * <p>
 * Data-path calls never throw; they return {@code -errno}.
 */
public class FabricException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** The error number this failure reports. */
    private final Errno errno;

    /**
     * A failure with an error number and a message naming what was wrong.
     *
     * @param errno   the fabric error.
     * @param message what failed and which input caused it.
     */
    public FabricException(final Errno errno, final String message)
    {
        super(errno.fiName() + ": " + message);
        this.errno = errno;
    }

    /**
     * A failure with an error number, a message and the underlying cause.
     *
     * @param errno   the fabric error.
     * @param message what failed and which input caused it.
     * @param cause   the underlying exception.
     */
    public FabricException(final Errno errno, final String message, final Throwable cause)
    {
        super(errno.fiName() + ": " + message, cause);
        this.errno = errno;
    }

    /**
     * The fabric error.
     *
     * @return the error number.
     */
    public Errno errno()
    {
        return errno;
    }
}
