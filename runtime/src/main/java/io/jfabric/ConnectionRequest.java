package io.jfabric;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A pending connection request: the handle carried by the info of a CONNREQ event ({@code info.handle()}). Also
 * records the peer of an established connection.
 * <p>
 * Threading: thread-safe; answered once.
 */
final class ConnectionRequest
{
    private final Endpoint client;
    private final byte[] param;
    private final AtomicBoolean answered = new AtomicBoolean();
    /** The frame path: the passive endpoint that took the request, else null. */
    private final PassiveEndpoint pep;
    private final byte[] clientAddress;
    private final long clientKey;
    private final long connection;

    ConnectionRequest(final Endpoint client, final byte[] param)
    {
        this.client = client;
        this.param = null == param ? null : param.clone();
        this.pep = null;
        this.clientAddress = null;
        this.clientKey = -1;
        this.connection = 0;
    }

    /**
     * A request that came as a frame (the frame path).
     *
     * @param pep           the passive endpoint that took it.
     * @param clientAddress the client endpoint's address.
     * @param clientKey     the pep domain's key for the client.
     * @param connection    the connection's id.
     * @param param         the connection data, or null.
     */
    ConnectionRequest(
        final PassiveEndpoint pep, final byte[] clientAddress, final long clientKey, final long connection,
        final byte[] param)
    {
        this.client = null;
        this.param = param;
        this.pep = pep;
        this.clientAddress = clientAddress;
        this.clientKey = clientKey;
        this.connection = connection;
    }

    /**
     * @return true for a request that came as a frame (the client may be in another process).
     */
    boolean remote()
    {
        return null != pep;
    }

    PassiveEndpoint pep()
    {
        return pep;
    }

    byte[] clientAddress()
    {
        return clientAddress;
    }

    long clientKey()
    {
        return clientKey;
    }

    long connection()
    {
        return connection;
    }

    Endpoint client()
    {
        return client;
    }

    byte[] param()
    {
        return param;
    }

    /**
     * Claim the right to answer (accept or reject) the request.
     *
     * @return true the first time.
     */
    boolean answer()
    {
        return answered.compareAndSet(false, true);
    }
}
