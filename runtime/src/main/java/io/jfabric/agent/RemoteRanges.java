package io.jfabric.agent;

import io.jfabric.Errno;
import org.agrona.DirectBuffer;

/**
 * Part of the domain agent: checks the remote ranges a request names against the memory registry before any byte
 * of the operation is touched, and keeps the raw target segments of the last check in {@link #address} and
 * {@link #length} for the copy that follows.
 * <p>
 * Threading: single-threaded, owned by its domain agent's duty cycle ({@link DomainAgent}); package-private.
 */
final class RemoteRanges
{
    /** Raw target segments of the remote list just checked (also scratch for result lists). */
    final long[] address = new long[DomainAgent.MAX_IOV];
    /** Their lengths. */
    final long[] length = new long[DomainAgent.MAX_IOV];
    private final MemoryRegistry registry;

    RemoteRanges(final MemoryRegistry registry)
    {
        this.registry = registry;
    }

    /**
     * Check every range of a remote list before anything is read or written (all-or-nothing, as
     * {@code ofi_mr_map_verify} per {@code fi_rma_iov} entry) and map them into {@link #rangeAddress} and
     * {@link #rangeLength}.
     *
     * @return the number of ranges, or a negative errno: {@code -EINVAL} for an unknown key, more than
     * {@link DomainAgent#MAX_IOV} ranges, lengths that are not whole elements or do not add up to {@code total};
     * {@code -EACCES} for missing rights or a range outside its region.
     */
    int verifyRemoteList(
        final DirectBuffer buffer, final int at, final long total, final long access, final int elementSize)
    {
        final long count = FrameLists.rawCount(buffer, at);
        if (count < 1 || count > DomainAgent.MAX_IOV)
        {
            return Errno.EINVAL.negated();
        }
        long sum = 0;
        for (int k = 0; k < count; k++)
        {
            final long length = FrameLists.remoteLength(buffer, at, k);
            if (length < 0 || length % elementSize != 0)
            {
                return Errno.EINVAL.negated();
            }
            final long raw = registry.verify(
                FrameLists.remoteKey(buffer, at, k), FrameLists.remoteAddress(buffer, at, k), length, access);
            if (raw < 0)
            {
                return (int) raw;
            }
            address[k] = raw;
            this.length[k] = length;
            sum += length;
        }
        return sum == total ? (int) count : Errno.EINVAL.negated();
    }
}
