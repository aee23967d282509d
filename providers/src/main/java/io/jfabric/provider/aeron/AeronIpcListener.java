package io.jfabric.provider.aeron;

import io.aeron.Aeron;
import io.aeron.Subscription;
import org.agrona.CloseHelper;

/**
 * A domain's IPC side: two subscriptions on {@code aeron:ipc}, requests on a stream unique among the domains of the
 * media driver and answers on the next, for peers that share the driver ({@link AeronIpcRegistry}).
 *
 * @param requests the requests' subscription.
 * @param answers  the answers' subscription.
 * @param stream   the requests' stream id.
 */
record AeronIpcListener(Subscription requests, Subscription answers, int stream) implements AutoCloseable
{
    /**
     * Subscribe to a fresh pair of IPC streams.
     *
     * @param aeron the fabric's client.
     * @return the listener.
     */
    static AeronIpcListener open(final Aeron aeron)
    {
        final int stream = AeronIpcRegistry.allocateStream(aeron);
        final Subscription requests = aeron.addSubscription(AeronIpcRegistry.CHANNEL, stream);
        try
        {
            return new AeronIpcListener(requests, aeron.addSubscription(AeronIpcRegistry.CHANNEL, stream + 1), stream);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(requests);
            throw ex;
        }
    }

    /**
     * Announce the domain in the driver's registry.
     *
     * @param fabric      the fabric (driver directory, client, liveness timeout).
     * @param local       the domain's UDP address.
     * @param incarnation the domain's incarnation.
     * @return the registry, or null when the driver's directory takes no file (peers then reach it by UDP).
     */
    AeronIpcRegistry register(final AeronFabricBackend fabric, final AeronAddress local, final long incarnation)
    {
        final AeronIpcRegistry registry =
            new AeronIpcRegistry(fabric.directory(), fabric.aeron(), fabric.livenessTimeoutMs());
        return registry.register(local, stream, fabric.aeron().clientId(), incarnation) ? registry : null;
    }

    /**
     * Close both subscriptions.
     */
    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(answers, requests);
    }
}
