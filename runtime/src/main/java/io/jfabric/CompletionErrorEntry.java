package io.jfabric;

/**
 * One error completion ({@code fi_cq_err_entry}) as {@link CompletionQueue#readErr} returns it.
 * <p>
 * err_data ({@code err_data}, {@code err_data_size}): provider or runtime bytes that explain the error; with
 * {@code FI_SOURCE_ERR} the source address of a message from a peer not in the address vector (insert it with
 * {@link AddressVector#insert(byte[])}). As fi_cq(3) from API 1.5: a buffer given with {@link #errData(byte[])}
 * receives up to its length and {@link #errDataSize()} says how much was copied; without one the entry keeps its own
 * buffer (grown on demand, so the first larger err_data allocates) and returns it from {@link #errData()}.
 * <p>
 * Mutable and reusable; not thread-safe: one reader owns it.
 */
public final class CompletionErrorEntry
{
    private static final byte[] NONE = new byte[0];

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
    private byte[] errData = NONE;
    private boolean userErrData;
    private int errDataSize;

    /**
     * Give the buffer err_data is copied into ({@code err_data} with {@code err_data_size} = its length): later reads
     * copy at most {@code buffer.length} bytes into it.
     *
     * @param buffer the buffer; null goes back to the entry's own.
     * @return this.
     */
    public CompletionErrorEntry errData(final byte[] buffer)
    {
        userErrData = null != buffer;
        errData = null == buffer ? NONE : buffer;
        errDataSize = 0;
        return this;
    }

    /**
     * The err_data of the last entry read: the first {@link #errDataSize()} bytes of the returned array (the buffer
     * given to {@link #errData(byte[])}, or the entry's own). Valid until the next read into this entry.
     *
     * @return the buffer.
     */
    public byte[] errData()
    {
        return errData;
    }

    /**
     * @return bytes of err_data in {@link #errData()}; 0 when the entry carries none.
     */
    public int errDataSize()
    {
        return errDataSize;
    }

    /**
     * Copy one entry's err_data in (the reader, under the CQ's read guard).
     */
    void copyErrData(final byte[] bytes)
    {
        if (null == bytes)
        {
            errDataSize = 0;
            return;
        }
        if (!userErrData && errData.length < bytes.length)
        {
            errData = new byte[bytes.length];
        }
        errDataSize = Math.min(bytes.length, errData.length);
        System.arraycopy(bytes, 0, errData, 0, errDataSize);
    }

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
