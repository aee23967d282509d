package io.jfabric;

/**
 * One error completion ({@code fi_cq_err_entry}) as {@link CompletionQueue#readErr} returns it.
 * <p>
 * Mutable and reusable; not thread-safe: one reader owns it.
 */
public final class CompletionErrorEntry
{
    long context;
    long flags;
    long len;
    long buf;
    long data;
    long tag;
    long olen;
    int err;
    int provErrno;
    long src;

    /**
     * @return the operation context.
     */
    public long context()
    {
        return context;
    }

    /**
     * @return the completion flags.
     */
    public long flags()
    {
        return flags;
    }

    /**
     * @return the length delivered.
     */
    public long len()
    {
        return len;
    }

    /**
     * @return the buffer address.
     */
    public long buf()
    {
        return buf;
    }

    /**
     * @return the remote CQ data.
     */
    public long data()
    {
        return data;
    }

    /**
     * @return the tag.
     */
    public long tag()
    {
        return tag;
    }

    /**
     * @return the overflow length (ETRUNC: bytes that did not fit).
     */
    public long olen()
    {
        return olen;
    }

    /**
     * @return the positive errno value ({@link Errno#value()}).
     */
    public int err()
    {
        return err;
    }

    /**
     * @return the error as an {@link Errno}, or null when unknown.
     */
    public Errno errno()
    {
        return Errno.of(err);
    }

    /**
     * @return the provider-specific errno (0 here).
     */
    public int provErrno()
    {
        return provErrno;
    }

    /**
     * @return the source fi_addr, or {@link AddressVector#ADDR_NOTAVAIL}.
     */
    public long src()
    {
        return src;
    }
}
