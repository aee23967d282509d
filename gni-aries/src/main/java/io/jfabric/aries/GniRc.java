package io.jfabric.aries;

import io.jfabric.Errno;

/**
 * The uGNI status codes ({@code GNI_RC_*}) every call of the emulated NIC returns, with the provider's mapping onto
 * {@code fi_errno} (GNI.md §1.10, upstream {@code src/gnix_util.c:453-477}). The numeric values are this emulator's
 * (uGNI's own values are not part of any observable contract); the names and meanings are uGNI's.
 * <p>
 * Threading: constants and pure functions, thread-safe.
 */
public final class GniRc
{
    /** The call succeeded. */
    public static final int SUCCESS = 0;
    /** Nothing to do yet: no event, no credit, transactions still outstanding. */
    public static final int NOT_DONE = 1;
    /** A parameter is invalid. */
    public static final int INVALID_PARAM = 2;
    /** A resource is exhausted (CQ entries, the one datagram of an endpoint, a VMDH slot) or a CQ overran. */
    public static final int ERROR_RESOURCE = 3;
    /** A wait ran out of time. */
    public static final int TIMEOUT = 4;
    /** Protection: ptag/cookie mismatch or missing rights. */
    public static final int PERMISSION_ERROR = 5;
    /** A descriptor is malformed. */
    public static final int DESCRIPTOR_ERROR = 6;
    /** Misaligned address or length (GET: 4 bytes; AMO: the operand size). */
    public static final int ALIGNMENT_ERROR = 7;
    /** The object is in the wrong state (attached twice, not bound, not initialised). */
    public static final int INVALID_STATE = 8;
    /** Nothing matches (datagram probe, SMSG tag). */
    public static final int NO_MATCH = 9;
    /** A size is out of range (datagram over 128 bytes). */
    public static final int SIZE_ERROR = 10;
    /** A network transaction failed; details in the CQ entry (recoverable or not). */
    public static final int TRANSACTION_ERROR = 11;
    /** The operation is not supported. */
    public static final int ILLEGAL_OP = 12;
    /** Out of memory. */
    public static final int ERROR_NOMEM = 13;

    private static final String[] NAMES = {
        "GNI_RC_SUCCESS", "GNI_RC_NOT_DONE", "GNI_RC_INVALID_PARAM", "GNI_RC_ERROR_RESOURCE", "GNI_RC_TIMEOUT",
        "GNI_RC_PERMISSION_ERROR", "GNI_RC_DESCRIPTOR_ERROR", "GNI_RC_ALIGNMENT_ERROR", "GNI_RC_INVALID_STATE",
        "GNI_RC_NO_MATCH", "GNI_RC_SIZE_ERROR", "GNI_RC_TRANSACTION_ERROR", "GNI_RC_ILLEGAL_OP",
        "GNI_RC_ERROR_NOMEM"};

    private GniRc()
    {
    }

    /**
     * The uGNI name of a status code.
     *
     * @param rc a status code.
     * @return e.g. {@code "GNI_RC_NOT_DONE"}, or {@code "GNI_RC_<n>"} for an unknown value.
     */
    public static String name(final int rc)
    {
        return rc >= 0 && rc < NAMES.length ? NAMES[rc] : "GNI_RC_" + rc;
    }

    /**
     * The provider's {@code gnixu_to_fi_errno}: the {@code fi_errno} a status code becomes.
     *
     * @param rc a status code.
     * @return the errno ({@link Errno#SUCCESS} for {@link #SUCCESS}, {@link Errno#EOTHER} for unknown values).
     */
    public static Errno toErrno(final int rc)
    {
        switch (rc)
        {
            case SUCCESS:
                return Errno.SUCCESS;
            case NOT_DONE:
                return Errno.EAGAIN;
            case INVALID_PARAM:
            case ALIGNMENT_ERROR:
            case NO_MATCH:
                return Errno.EINVAL;
            case ERROR_RESOURCE:
                return Errno.EBUSY;
            case TIMEOUT:
                return Errno.ETIMEDOUT;
            case PERMISSION_ERROR:
                return Errno.EACCES;
            case INVALID_STATE:
                return Errno.EOPBADSTATE;
            case SIZE_ERROR:
                return Errno.ETOOSMALL;
            case TRANSACTION_ERROR:
                return Errno.ECANCELED;
            case ILLEGAL_OP:
                return Errno.EOPNOTSUPP;
            case ERROR_NOMEM:
                return Errno.ENOMEM;
            default:
                return Errno.EOTHER;
        }
    }
}
