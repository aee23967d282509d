package io.jfabric;

import io.jfabric.agent.ConnectionFrames;

/**
 * One {@code FI_EP_MSG} connection managed through the transport's frames ({@link ConnectionManager}): the
 * client's side from {@code fi_connect} (CONNECTING until an accept, a reject, an undeliverable request, the
 * listener's domain reported down or the connect timeout) or the server's from {@code fi_accept}; CONNECTED until
 * either side shuts it down, closes, or its peer's domain is reported down (then {@code FI_SHUTDOWN}).
 * <p>
 * Threading: the application's calls (connect, accept, shutdown, close) and the agent thread's callbacks all take
 * this object's monitor; nothing under it waits for the agent (frames are queued, events written to the EQ).
 */
final class FrameConnection
{
    private static final int CONNECTING = 1;
    private static final int CONNECTED = 2;
    private static final int DOWN = 3;

    private final Endpoint endpoint;
    private final EndpointConnection owner;
    private final ConnectionManager manager;
    private final EventQueue eq;
    private final int index;
    private final long connection;
    private long peerKey;
    private int state;
    private long deadlineNs;
    private boolean timing;
    private boolean wasConnected;

    private FrameConnection(
        final Endpoint endpoint, final EndpointConnection owner, final long connection, final long peerKey,
        final int state)
    {
        this.endpoint = endpoint;
        this.owner = owner;
        this.manager = endpoint.domain().connections();
        this.eq = endpoint.eventQueue();
        this.index = endpoint.index();
        this.connection = connection;
        this.peerKey = peerKey;
        this.state = state;
        if (endpoint.domain().manualProgress())
        {
            // FI_PROGRESS_MANUAL: reading the EQ moves this domain's CM frames (fi_eq(3)).
            eq.progressOnRead(endpoint.domain());
        }
    }

    private static long resolve(final Endpoint endpoint, final byte[] address, final String what)
    {
        final long key;
        try
        {
            key = endpoint.domain().transport().resolve(address);
        }
        catch (final RuntimeException ex)
        {
            throw new FabricException(Errno.ECONNREFUSED, what + " cannot be reached: " + ex.getMessage());
        }
        if (key < 0)
        {
            throw new FabricException(Errno.ECONNREFUSED, what + " cannot be reached");
        }
        return key;
    }

    /**
     * {@code fi_connect} through frames: a CONNREQ to the passive endpoint at {@code address}.
     *
     * @return the new connection.
     * @throws FabricException ECONNREFUSED when the transport cannot resolve the address.
     */
    static FrameConnection connect(
        final Endpoint endpoint, final EndpointConnection owner, final byte[] address, final byte[] param,
        final FrameConnection previous)
    {
        final long key = resolve(endpoint, address, "the passive endpoint");
        if (null != previous)
        {
            previous.closed();
        }
        final FrameConnection c = new FrameConnection(endpoint, owner, ConnectionManager.nextConnectionId(), key,
            CONNECTING);
        synchronized (c)
        {
            c.deadlineNs = System.nanoTime() + c.manager.connectTimeoutNs();
            c.timing = true;
            c.manager.register(c.index, c);
            c.manager.connecting(true);
            c.manager.send(key, c.index, ConnectionFrames.CONNREQ, c.connection, param);
        }
        return c;
    }

    /**
     * {@code fi_accept} of a request that came as a frame: ACCEPT to the client, CONNECTED here.
     *
     * @return the new connection.
     * @throws FabricException ECONNREFUSED when the client's address cannot be resolved here.
     */
    static FrameConnection accept(
        final Endpoint endpoint, final EndpointConnection owner, final ConnectionRequest request, final byte[] param)
    {
        final long key = resolve(endpoint, request.clientAddress(), "the connecting endpoint");
        final FrameConnection c = new FrameConnection(endpoint, owner, request.connection(), key, CONNECTED);
        synchronized (c)
        {
            c.wasConnected = true;
            owner.peer(key);
            c.manager.register(c.index, c);
            c.manager.send(key, c.index, ConnectionFrames.ACCEPT, c.connection, param);
            c.eq.writeConnection(EventQueue.CONNECTED, endpoint, null, null);
        }
        return c;
    }

    synchronized boolean busy()
    {
        return CONNECTING == state || CONNECTED == state;
    }

    synchronized boolean established()
    {
        return CONNECTED == state;
    }

    /**
     * {@code fi_shutdown} (or close with {@code localEvent} false): SHUTDOWN to the peer.
     *
     * @throws FabricException EOPBADSTATE when never connected.
     */
    synchronized void disconnect(final boolean localEvent)
    {
        if (CONNECTED != state)
        {
            if (wasConnected)
            {
                return;
            }
            throw new FabricException(Errno.EOPBADSTATE, "endpoint is not connected");
        }
        down();
        // fi_shutdown (localEvent) of a provider whose shutdown is local only tells the peer nothing (fi_gni(7));
        // closing the endpoint always does.
        if (!localEvent || !endpoint.domain().capabilities().localShutdown())
        {
            try
            {
                manager.send(peerKey, index, ConnectionFrames.SHUTDOWN, connection, null);
            }
            catch (final RuntimeException ignored)
            {
                // the peer is unknown to the transport already: nobody to tell
            }
        }
        if (localEvent)
        {
            eq.writeConnection(EventQueue.SHUTDOWN, endpoint, null, null);
        }
    }

    /**
     * The endpoint closes: stop taking frames for it.
     */
    synchronized void closed()
    {
        if (CONNECTING == state)
        {
            down();
        }
        state = DOWN;
        manager.unregister(index, this);
    }

    private void down()
    {
        state = DOWN;
        owner.peer(-1);
        if (timing)
        {
            timing = false;
            manager.connecting(false);
        }
    }

    private void refused(final byte[] param)
    {
        down();
        eq.writeConnectionError(EventQueue.CONNREQ, endpoint, Errno.ECONNREFUSED.value(), param);
    }

    synchronized void onFrame(final int kind, final long srcKey, final long id, final byte[] param)
    {
        if (id != connection)
        {
            return;
        }
        if (CONNECTING == state && ConnectionFrames.ACCEPT == kind)
        {
            timing = false;
            manager.connecting(false);
            peerKey = srcKey;
            state = CONNECTED;
            wasConnected = true;
            owner.peer(srcKey);
            eq.writeConnection(EventQueue.CONNECTED, endpoint, null, param);
        }
        else if (CONNECTING == state && ConnectionFrames.REJECT == kind)
        {
            refused(param);
        }
        else if (CONNECTED == state && ConnectionFrames.SHUTDOWN == kind)
        {
            down();
            eq.writeConnection(EventQueue.SHUTDOWN, endpoint, null, null);
        }
    }

    synchronized void onUndeliverable(final int kind, final long id, final int errno)
    {
        if (id == connection && CONNECTING == state && ConnectionFrames.CONNREQ == kind)
        {
            refused(null);
        }
    }

    synchronized void onPeerDown(final long peerDomain, final int errno)
    {
        if ((CONNECTING != state && CONNECTED != state) ||
            manager.transport().peerDomain(peerKey) != peerDomain)
        {
            return;
        }
        if (CONNECTING == state)
        {
            refused(null);
        }
        else
        {
            down();
            eq.writeConnection(EventQueue.SHUTDOWN, endpoint, null, null);
        }
    }

    synchronized void onTick(final long nowNs)
    {
        if (CONNECTING == state && timing && nowNs - deadlineNs > 0)
        {
            refused(null);
        }
    }
}
