package io.jfabric;

/**
 * Fabric error numbers, mirroring libfabric's {@code fi_errno.h}: the operating-system values keep
 * their Linux numbers and the fabric-specific ones start at {@code FI_ERRNO_OFFSET} (256).
 * <p>
 * Data-path calls return {@code -errno} (for example {@code -Errno.EAGAIN.value()}); control-path calls
 * throw a {@link FabricException} carrying one of these.
 * <p>
 * Immutable and thread-safe.
 */
public enum Errno
{
    /** Success. */
    SUCCESS(0, "Success"),
    /** Operation not permitted. */
    EPERM(1, "Operation not permitted"),
    /** No such file or directory. */
    ENOENT(2, "No such file or directory"),
    /** Interrupted system call. */
    EINTR(4, "Interrupted system call"),
    /** Input/output error. */
    EIO(5, "Input/output error"),
    /** Argument list too long. */
    E2BIG(7, "Argument list too long"),
    /** Bad file descriptor. */
    EBADF(9, "Bad file descriptor"),
    /** Resource temporarily unavailable. */
    EAGAIN(11, "Resource temporarily unavailable"),
    /** Cannot allocate memory. */
    ENOMEM(12, "Cannot allocate memory"),
    /** Permission denied. */
    EACCES(13, "Permission denied"),
    /** Bad address. */
    EFAULT(14, "Bad address"),
    /** Device or resource busy. */
    EBUSY(16, "Device or resource busy"),
    /** File exists. */
    EEXIST(17, "File exists"),
    /** No such device. */
    ENODEV(19, "No such device"),
    /** Invalid argument. */
    EINVAL(22, "Invalid argument"),
    /** Too many open files. */
    EMFILE(24, "Too many open files"),
    /** No space left on device. */
    ENOSPC(28, "No space left on device"),
    /** Function not implemented. */
    ENOSYS(38, "Function not implemented"),
    /** No message of desired type. */
    ENOMSG(42, "No message of desired type"),
    /** No data available. */
    ENODATA(61, "No data available"),
    /** Value too large for defined data type. */
    EOVERFLOW(75, "Value too large for defined data type"),
    /** Message too long. */
    EMSGSIZE(90, "Message too long"),
    /** Protocol not available. */
    ENOPROTOOPT(92, "Protocol not available"),
    /** Operation not supported. */
    EOPNOTSUPP(95, "Operation not supported"),
    /** Address already in use. */
    EADDRINUSE(98, "Address already in use"),
    /** Cannot assign requested address. */
    EADDRNOTAVAIL(99, "Cannot assign requested address"),
    /** Network is down. */
    ENETDOWN(100, "Network is down"),
    /** Network is unreachable. */
    ENETUNREACH(101, "Network is unreachable"),
    /** Software caused connection abort. */
    ECONNABORTED(103, "Software caused connection abort"),
    /** Connection reset by peer. */
    ECONNRESET(104, "Connection reset by peer"),
    /** No buffer space available. */
    ENOBUFS(105, "No buffer space available"),
    /** Transport endpoint is already connected. */
    EISCONN(106, "Transport endpoint is already connected"),
    /** Transport endpoint is not connected. */
    ENOTCONN(107, "Transport endpoint is not connected"),
    /** Cannot send after transport endpoint shutdown. */
    ESHUTDOWN(108, "Cannot send after transport endpoint shutdown"),
    /** Connection timed out. */
    ETIMEDOUT(110, "Connection timed out"),
    /** Connection refused. */
    ECONNREFUSED(111, "Connection refused"),
    /** Host is down. */
    EHOSTDOWN(112, "Host is down"),
    /** No route to host. */
    EHOSTUNREACH(113, "No route to host"),
    /** Operation already in progress. */
    EALREADY(114, "Operation already in progress"),
    /** Operation now in progress. */
    EINPROGRESS(115, "Operation now in progress"),
    /** Remote I/O error. */
    EREMOTEIO(121, "Remote I/O error"),
    /** Operation canceled. */
    ECANCELED(125, "Operation canceled"),
    /** Required key not available. */
    EKEYREJECTED(129, "Key was rejected by service"),
    /** Unspecified error. */
    EOTHER(256, "Unspecified error"),
    /** Provided buffer is too small. */
    ETOOSMALL(257, "Provided buffer is too small"),
    /** Operation not permitted in current state. */
    EOPBADSTATE(258, "Operation not permitted in current state"),
    /** Error available. */
    EAVAIL(259, "Error available"),
    /** Flags not supported. */
    EBADFLAGS(260, "Flags not supported"),
    /** Missing or unavailable event queue. */
    ENOEQ(261, "Missing or unavailable event queue"),
    /** Invalid resource domain. */
    EDOMAIN(262, "Invalid resource domain"),
    /** Missing or unavailable completion queue. */
    ENOCQ(263, "Missing or unavailable completion queue"),
    /** CRC error. */
    ECRC(264, "CRC error"),
    /** Truncation error. */
    ETRUNC(265, "Truncation error"),
    /** Required key not available. */
    ENOKEY(266, "Required key not available"),
    /** Missing or unavailable address vector. */
    ENOAV(267, "Missing or unavailable address vector"),
    /** Queue has been overrun. */
    EOVERRUN(268, "Queue has been overrun"),
    /** Receiver not ready, no receive buffers available. */
    ENORX(269, "Receiver not ready, no receive buffers available"),
    /** Memory registration limit exceeded. */
    ENOMR(270, "Memory registration limit exceeded");

    /** Offset of the fabric-specific error numbers, as {@code FI_ERRNO_OFFSET}. */
    public static final int FI_ERRNO_OFFSET = 256;

    /** {@code FI_EWOULDBLOCK} is an alias of {@link #EAGAIN}. */
    public static final Errno EWOULDBLOCK = EAGAIN;

    private static final Errno[] BY_VALUE;

    static
    {
        int max = 0;
        for (final Errno e : values())
        {
            max = Math.max(max, e.value);
        }
        BY_VALUE = new Errno[max + 1];
        for (final Errno e : values())
        {
            BY_VALUE[e.value] = e;
        }
    }

    private final int value;
    private final String description;

    Errno(final int value, final String description)
    {
        this.value = value;
        this.description = description;
    }

    /**
     * The positive error number, as libfabric's {@code FI_E*} constant.
     *
     * @return the error number.
     */
    public int value()
    {
        return value;
    }

    /**
     * The negative form returned by data-path calls.
     *
     * @return {@code -value()}.
     */
    public int negated()
    {
        return -value;
    }

    /**
     * The libfabric name of this error, e.g. {@code FI_EAGAIN}.
     *
     * @return the {@code FI_}-prefixed name.
     */
    public String fiName()
    {
        return this == SUCCESS ? "FI_SUCCESS" : "FI_" + name();
    }

    /**
     * The human-readable description, as {@code fi_strerror}.
     *
     * @return the description.
     */
    public String description()
    {
        return description;
    }

    /**
     * Finds the error for a number, positive or negative.
     *
     * @param errno error number; its sign is ignored.
     * @return the matching error, or {@code null} when the number is not a known error.
     */
    public static Errno of(final int errno)
    {
        final int v = Math.abs(errno);
        return v < BY_VALUE.length ? BY_VALUE[v] : null;
    }

    /**
     * The description of an error number as {@code fi_strerror(3)} gives it; unknown numbers are
     * described as such, with the number.
     *
     * @param errno error number; its sign is ignored.
     * @return the description, never {@code null}.
     */
    public static String strerror(final int errno)
    {
        final Errno e = of(errno);
        return e != null ? e.description : "Unknown error " + Math.abs(errno);
    }

    /**
     * Parses an error name as written by libfabric ({@code FI_EAGAIN}), kfabric ({@code KFI_EAGAIN})
     * or bare ({@code EAGAIN}, case-insensitive).
     *
     * @param name the name.
     * @return the error.
     * @throws FabricException with {@link #EINVAL} naming the input when the name is unknown.
     */
    public static Errno parse(final String name)
    {
        String n = name.trim().toUpperCase(java.util.Locale.ROOT);
        if (n.startsWith("KFI_"))
        {
            n = n.substring(4);
        }
        else if (n.startsWith("FI_"))
        {
            n = n.substring(3);
        }
        if ("EWOULDBLOCK".equals(n))
        {
            return EAGAIN;
        }
        try
        {
            return valueOf(n);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new FabricException(EINVAL, "unknown error name '" + name + "'");
        }
    }
}
