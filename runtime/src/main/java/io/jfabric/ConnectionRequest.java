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

    ConnectionRequest(final Endpoint client, final byte[] param)
    {
        this.client = client;
        this.param = null == param ? null : param.clone();
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
