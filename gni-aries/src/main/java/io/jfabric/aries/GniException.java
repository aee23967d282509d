package io.jfabric.aries;

/**
 * A control-path call of the emulated NIC (create, attach) that failed, carrying its uGNI status code. Data-path
 * and state calls return the code instead of throwing.
 */
public final class GniException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** The uGNI status code ({@link GniRc}) of the failed call. */
    private final int rc;

    /**
     * @param rc      the {@link GniRc} status code.
     * @param message what failed.
     */
    public GniException(final int rc, final String message)
    {
        super(GniRc.name(rc) + ": " + message);
        this.rc = rc;
    }

    /**
     * @return the {@link GniRc} status code.
     */
    public int rc()
    {
        return rc;
    }
}
