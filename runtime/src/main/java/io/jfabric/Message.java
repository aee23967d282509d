package io.jfabric;

import org.agrona.DirectBuffer;

/**
 * The argument of {@code sendmsg}, {@code recvmsg}, {@code tsendmsg} and {@code trecvmsg} ({@code struct fi_msg}
 * / {@code fi_msg_tagged}): either one buffer region or an iov of whole buffers, the peer address, the context,
 * the remote CQ data, and for tagged operations the tag and ignore mask.
 * <p>
 * Mutable and reusable (fluent setters return {@code this}); not thread-safe: one thread fills and posts it. The
 * endpoint reads it only during the post call.
 */
public final class Message
{
    DirectBuffer buffer;
    int offset;
    int length;
    DirectBuffer[] iov;
    int iovCount;
    long addr = AddressVector.ADDR_UNSPEC;
    long context;
    long data;
    long tag;
    long ignore;
    long remoteAddress;
    long key;
    long[] rmaAddresses;
    long[] rmaLengths;
    long[] rmaKeys;
    int rmaCount;

    /**
     * One buffer region (clears any iov).
     *
     * @param buffer the buffer (direct memory on the data path; any for INJECT).
     * @param offset start.
     * @param length bytes.
     * @return this.
     */
    public Message buffer(final DirectBuffer buffer, final int offset, final int length)
    {
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        this.iov = null;
        this.iovCount = 0;
        return this;
    }

    /**
     * An iov of whole buffers ({@code kvec}; a list of page-sized buffers covers {@code bvec}).
     *
     * @param iov   the buffers.
     * @param count how many of them.
     * @return this.
     */
    public Message iov(final DirectBuffer[] iov, final int count)
    {
        this.iov = iov;
        this.iovCount = count;
        this.buffer = null;
        return this;
    }

    /**
     * @param addr destination (sends) or source filter (receives, {@link AddressVector#ADDR_UNSPEC} for any).
     * @return this.
     */
    public Message addr(final long addr)
    {
        this.addr = addr;
        return this;
    }

    /**
     * @param context the operation context.
     * @return this.
     */
    public Message context(final long context)
    {
        this.context = context;
        return this;
    }

    /**
     * @param data remote CQ data (sent with {@link Flags#REMOTE_CQ_DATA}).
     * @return this.
     */
    public Message data(final long data)
    {
        this.data = data;
        return this;
    }

    /**
     * @param tag the tag (tagged operations).
     * @return this.
     */
    public Message tag(final long tag)
    {
        this.tag = tag;
        return this;
    }

    /**
     * @param ignore the ignore mask (tagged receives).
     * @return this.
     */
    public Message ignore(final long ignore)
    {
        this.ignore = ignore;
        return this;
    }

    /**
     * The remote side of an RMA operation ({@code fi_rma_iov} with one entry).
     *
     * @param remoteAddress the target address: an offset into the region (the inproc MR mode has no
     *                      {@code FI_MR_VIRT_ADDR}).
     * @param key           the target region's key.
     * @return this.
     */
    public Message rma(final long remoteAddress, final long key)
    {
        this.remoteAddress = remoteAddress;
        this.key = key;
        this.rmaAddresses = null;
        this.rmaLengths = null;
        this.rmaKeys = null;
        this.rmaCount = 0;
        return this;
    }

    /**
     * The remote side of an RMA or atomic operation as several ranges ({@code fi_rma_iov} /
     * {@code fi_rma_ioc} with {@code count} entries, at most the endpoint's {@code rma_iov_limit}): the local data
     * is written to (or read from) the ranges in order, so their lengths must add up to the local total. The
     * arrays are read only during the post call. Lengths are in bytes (for atomics, whole elements).
     *
     * @param remoteAddresses the target addresses (offsets into the regions, as for {@link #rma}).
     * @param lengths         the bytes of each range.
     * @param keys            the regions' keys.
     * @param count           how many entries to use.
     * @return this.
     */
    public Message rmaIov(final long[] remoteAddresses, final long[] lengths, final long[] keys, final int count)
    {
        this.rmaAddresses = remoteAddresses;
        this.rmaLengths = lengths;
        this.rmaKeys = keys;
        this.rmaCount = count;
        if (count > 0 && null != remoteAddresses && null != keys && remoteAddresses.length > 0 && keys.length > 0)
        {
            this.remoteAddress = remoteAddresses[0];
            this.key = keys[0];
        }
        return this;
    }
}
