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
     * Read a segment list (count, then entries) into {@code address}/{@code length} from {@code base}.
     *
     * @return the number of entries kept (at most {@link #DomainAgent.MAX_IOV}).
     */
    static int readSegments(
        final DirectBuffer buffer, final int at, final long[] address, final long[] length, final int base)
    {
        final int count = (int) Math.max(0, Math.min(DomainAgent.MAX_IOV, buffer.getLong(at)));
        for (int k = 0; k < count; k++)
        {
            final int entry = at + FrameDescriptor.LIST_COUNT_LENGTH + k * FrameDescriptor.SEGMENT_LENGTH;
            address[base + k] = buffer.getLong(entry);
            length[base + k] = buffer.getLong(entry + 8);
        }
        return count;
    }

    /**
     * The offset just after a segment list.
     */
    static int skipSegments(final DirectBuffer buffer, final int at)
    {
        return at + FrameDescriptor.LIST_COUNT_LENGTH +
            (int) Math.max(0, Math.min(DomainAgent.MAX_IOV, buffer.getLong(at))) * FrameDescriptor.SEGMENT_LENGTH;
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
