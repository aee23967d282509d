package io.jfabric;

import java.nio.charset.StandardCharsets;

/**
 * Connection management of a {@code FI_EP_MSG} endpoint ({@code fi_cm(3)}): connect to a passive endpoint, accept
 * a request, be rejected, shut down; the connected peer's key is what the endpoint's posts send to.
 * <p>
 * Threading: every change happens under the owning endpoint's monitor (the endpoint's connect and accept hold it;
 * the calls a peer makes take it here), so that the event queue, which bind and close change under the same
 * monitor, is read consistently. {@link #peer()} is a volatile read for the data path.
 */
final class EndpointConnection
{
    private final Endpoint endpoint;
    /** Connected peer key, -1 when not connected (volatile: set by connect/accept/shutdown, read by posts). */
    private volatile long peer = -1;
    private ConnectionRequest pendingRequest;
    private ConnectionRequest acceptedFrom;
    /** Connected once: shutting it down again is not an error. */
    private boolean wasConnected;
    /** Connection management through the transport's frames (null until this endpoint connects that way). */
    private FrameConnection frames;

    EndpointConnection(final Endpoint endpoint)
    {
        this.endpoint = endpoint;
    }

    /**
     * @return the connected peer's key, or -1.
     */
    long peer()
    {
        return peer;
    }

    /**
     * @return true when the connection is up with a known peer endpoint (close then disconnects it).
     */
    boolean established()
    {
        final FrameConnection f = frames;
        return null != f ? f.established() : peer >= 0 && null != acceptedFrom;
    }

    /**
     * Set the connected peer's key (the frame path).
     *
     * @param key the key, or -1.
     */
    void peer(final long key)
    {
        peer = key;
    }

    /**
     * @return the frame path's state, or null.
     */
    FrameConnection frames()
    {
        return frames;
    }

    /**
     * Refuse connection data above {@link Endpoint#CM_DATA_SIZE}.
     *
     * @param param the data, or null.
     * @throws FabricException EINVAL when it is too long.
     */
    static void checkCmData(final byte[] param)
    {
        if (null != param && param.length > Endpoint.CM_DATA_SIZE)
        {
            throw new FabricException(Errno.EINVAL, "connection data of " + param.length + " bytes exceeds " +
                "FI_OPT_CM_DATA_SIZE (" + Endpoint.CM_DATA_SIZE + ")");
        }
    }

    /**
     * {@code fi_connect}, under the endpoint's monitor.
     *
     * @param address the passive endpoint's name.
     * @param param   connection data, or null.
     */
    void connect(final byte[] address, final byte[] param)
    {
        checkCmData(param);
        if (null != pendingRequest || peer >= 0 || (null != frames && frames.busy()))
        {
            throw new FabricException(Errno.EOPBADSTATE, "endpoint is already connecting or connected");
        }
        if (!endpoint.domain().fabric().inProcessOnly())
        {
            frames = FrameConnection.connect(endpoint, this, address, param, frames);
            return;
        }
        final PassiveEndpoint pep = PassiveEndpoint.listening(address);
        if (null == pep)
        {
            throw new FabricException(Errno.ECONNREFUSED, "nothing listens at " +
                new String(address, StandardCharsets.US_ASCII));
        }
        final ConnectionRequest request = new ConnectionRequest(endpoint, param);
        pendingRequest = request;
        pep.connectionRequest(request);
    }

    /**
     * {@code fi_accept}, under the endpoint's monitor: both sides get CONNECTED.
     *
     * @param param connection data for the client, or null.
     */
    void accept(final byte[] param)
    {
        checkCmData(param);
        if (!(endpoint.info().handle() instanceof ConnectionRequest))
        {
            throw new FabricException(Errno.EINVAL, "endpoint was not opened from a connection request");
        }
        final ConnectionRequest request = (ConnectionRequest) endpoint.info().handle();
        if (!request.answer())
        {
            throw new FabricException(Errno.EINVAL, "connection request already answered");
        }
        if (request.remote())
        {
            frames = FrameConnection.accept(endpoint, this, request, param);
            return;
        }
        final Endpoint client = request.client();
        peer = client.domain().transport().localKey(client.index());
        acceptedFrom = request;
        wasConnected = true;
        client.connection().connected(endpoint.domain().transport().localKey(endpoint.index()), endpoint,
            null == param ? null : param.clone());
        endpoint.eventQueue().writeConnection(EventQueue.CONNECTED, endpoint, null, null);
    }

    private void connected(final long serverKey, final Endpoint server, final byte[] param)
    {
        synchronized (endpoint)
        {
            peer = serverKey;
            pendingRequest = null;
            acceptedFrom = new ConnectionRequest(server, null);
            wasConnected = true;
            endpoint.eventQueue().writeConnection(EventQueue.CONNECTED, endpoint, null, param);
        }
    }

    /**
     * The passive side rejected this endpoint's request: an ECONNREFUSED error entry with the reject's data.
     *
     * @param param the reject's data, or null.
     */
    void rejected(final byte[] param)
    {
        synchronized (endpoint)
        {
            pendingRequest = null;
            endpoint.eventQueue().writeConnectionError(EventQueue.CONNREQ, endpoint, Errno.ECONNREFUSED.value(),
                param);
        }
    }

    /**
     * Take the connection down at both ends ({@code fi_shutdown}, or close with {@code localEvent} false).
     *
     * @param localEvent write SHUTDOWN to this endpoint's own queue too.
     * @throws FabricException EOPBADSTATE when the endpoint was never connected.
     */
    void disconnect(final boolean localEvent)
    {
        final FrameConnection f = frames;
        if (null != f)
        {
            f.disconnect(localEvent);
            return;
        }
        final Endpoint other;
        synchronized (endpoint)
        {
            if (peer < 0 || null == acceptedFrom)
            {
                if (wasConnected)
                {
                    return;
                }
                throw new FabricException(Errno.EOPBADSTATE, "endpoint is not connected");
            }
            other = acceptedFrom.client();
            peer = -1;
            acceptedFrom = null;
            final EventQueue eq = endpoint.eventQueue();
            if (localEvent && null != eq)
            {
                eq.writeConnection(EventQueue.SHUTDOWN, endpoint, null, null);
            }
        }
        other.connection().peerShutdown();
    }

    /**
     * The endpoint closes (after any disconnect): the frame path stops taking frames for it.
     */
    void closed()
    {
        final FrameConnection f = frames;
        if (null != f)
        {
            f.closed();
        }
    }

    private void peerShutdown()
    {
        synchronized (endpoint)
        {
            if (peer >= 0)
            {
                peer = -1;
                acceptedFrom = null;
                final EventQueue eq = endpoint.eventQueue();
                if (null != eq)
                {
                    eq.writeConnection(EventQueue.SHUTDOWN, endpoint, null, null);
                }
            }
        }
    }
}
