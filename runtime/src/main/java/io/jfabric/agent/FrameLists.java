package io.jfabric.agent;

import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

/**
 * The segment and remote lists frames carry ({@link FrameDescriptor}: count, then entries), read and scattered
 * without allocation. Stateless: static helpers, any thread.
 */
final class FrameLists
{
    private FrameLists()
    {
    }

    /**
     * @param buffer holding a list.
     * @param at     the list's count.
     * @return the list's count as written (unchecked).
     */
    static long rawCount(final DirectBuffer buffer, final int at)
    {
        return buffer.getLong(at);
    }

    /**
     * @param buffer holding a list.
     * @param at     the list's count.
     * @return the list's count, clamped to [0, {@link DomainAgent#MAX_IOV}].
     */
    static int count(final DirectBuffer buffer, final int at)
    {
        return (int) Math.max(0, Math.min(DomainAgent.MAX_IOV, buffer.getLong(at)));
    }

    /**
     * @param buffer holding a segment list.
     * @param at     the list's count.
     * @return the list's bytes (count and entries).
     */
    static int segmentListLength(final DirectBuffer buffer, final int at)
    {
        return FrameDescriptor.LIST_COUNT_LENGTH + count(buffer, at) * FrameDescriptor.SEGMENT_LENGTH;
    }

    /**
     * The offset just after a remote list.
     *
     * @param buffer holding a remote list.
     * @param at     the list's count.
     * @return the offset after its last entry.
     */
    static int skipRemoteList(final DirectBuffer buffer, final int at)
    {
        return at + FrameDescriptor.LIST_COUNT_LENGTH + count(buffer, at) * FrameDescriptor.REMOTE_ENTRY_LENGTH;
    }

    /**
     * @param buffer holding a remote list.
     * @param at     the list's count.
     * @param k      an entry.
     * @return entry {@code k}'s remote address.
     */
    static long remoteAddress(final DirectBuffer buffer, final int at, final int k)
    {
        return buffer.getLong(at + FrameDescriptor.LIST_COUNT_LENGTH + k * FrameDescriptor.REMOTE_ENTRY_LENGTH);
    }

    /**
     * @param buffer holding a remote list.
     * @param at     the list's count.
     * @param k      an entry.
     * @return entry {@code k}'s length.
     */
    static long remoteLength(final DirectBuffer buffer, final int at, final int k)
    {
        return buffer.getLong(at + FrameDescriptor.LIST_COUNT_LENGTH + k * FrameDescriptor.REMOTE_ENTRY_LENGTH + 8);
    }

    /**
     * @param buffer holding a remote list.
     * @param at     the list's count.
     * @param k      an entry.
     * @return entry {@code k}'s MR key.
     */
    static long remoteKey(final DirectBuffer buffer, final int at, final int k)
    {
        return buffer.getLong(at + FrameDescriptor.LIST_COUNT_LENGTH + k * FrameDescriptor.REMOTE_ENTRY_LENGTH + 16);
    }

    /**
     * @param buffer holding a segment list.
     * @param at     the list's count.
     * @param k      an entry.
     * @return entry {@code k}'s address.
     */
    static long segmentAddress(final DirectBuffer buffer, final int at, final int k)
    {
        return buffer.getLong(at + FrameDescriptor.LIST_COUNT_LENGTH + k * FrameDescriptor.SEGMENT_LENGTH);
    }

    /**
     * @param buffer holding a segment list.
     * @param at     the list's count.
     * @param k      an entry.
     * @return entry {@code k}'s length.
     */
    static long segmentLength(final DirectBuffer buffer, final int at, final int k)
    {
        return buffer.getLong(at + FrameDescriptor.LIST_COUNT_LENGTH + k * FrameDescriptor.SEGMENT_LENGTH + 8);
    }

    /**
     * Read a segment list (count, then entries) into {@code address}/{@code length} from {@code base}.
     *
     * @return the number of entries kept (at most {@link DomainAgent#MAX_IOV}).
     */
    static int readSegments(
        final DirectBuffer buffer, final int at, final long[] address, final long[] length, final int base)
    {
        final int count = count(buffer, at);
        for (int k = 0; k < count; k++)
        {
            address[base + k] = segmentAddress(buffer, at, k);
            length[base + k] = segmentLength(buffer, at, k);
        }
        return count;
    }

    /**
     * The offset just after a segment list.
     */
    static int skipSegments(final DirectBuffer buffer, final int at)
    {
        return at + segmentListLength(buffer, at);
    }

    /**
     * Copy {@code length} bytes from {@code from} across segments in order.
     */
    static void scatter(
        final long from, final long length, final long[] address, final long[] lengths, final int base,
        final int count)
    {
        long source = from;
        long left = length;
        for (int k = 0; k < count && left > 0; k++)
        {
            final long n = Math.min(left, lengths[base + k]);
            if (n > 0)
            {
                UnsafeApi.copyMemory(source, address[base + k], n);
            }
            source += n;
            left -= n;
        }
    }
}
