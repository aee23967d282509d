package io.jfabric.provider.aeron;

import org.agrona.concurrent.status.CountersReader;

/**
 * What a media driver carried, read from its counters: the bytes it sent by UDP (its {@code Bytes sent} system
 * counter) and the bytes its subscribers consumed from jfabric domains' {@code aeron:ipc} streams (the sum of the
 * {@code sub-pos} counters of IPC subscriptions on streams from {@link AeronIpcRegistry#STREAM_BASE}).
 *
 * @param udpBytesSent   bytes sent on UDP sockets.
 * @param ipcBytesPolled bytes consumed by jfabric's IPC subscriptions that exist now.
 */
record DriverTraffic(long udpBytesSent, long ipcBytesPolled)
{
    /**
     * @param counters the driver's counters.
     * @return what they say now.
     */
    static DriverTraffic of(final CountersReader counters)
    {
        final long[] sums = new long[2];
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith("Bytes sent"))
            {
                sums[0] += counters.getCounterValue(counterId);
            }
            else if (label.startsWith("sub-pos") && label.contains(AeronIpcRegistry.CHANNEL))
            {
                final String[] words = label.split(" ");
                if (words.length > 3 && Long.parseLong(words[3]) >= AeronIpcRegistry.STREAM_BASE)
                {
                    sums[1] += counters.getCounterValue(counterId);
                }
            }
        });
        return new DriverTraffic(sums[0], sums[1]);
    }
}
