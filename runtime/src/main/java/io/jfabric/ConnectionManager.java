package io.jfabric;

import io.jfabric.agent.ConnectionFrames;
import io.jfabric.spi.DomainTransport;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Connection management of one domain over its transport ({@code fi_cm(3)} across processes): the endpoints and
 * passive endpoints of the domain that take part register their index here, and the domain agent's
 * {@link ConnectionFrames} calls back with each CM frame, each undeliverable frame, each peer down and, while a
 * connect is pending, each duty cycle (the connect timeout, {@link #CONNECT_TIMEOUT_PROPERTY}).
 * <p>
 * Threading: registration and sends from application threads; the callbacks on the domain's agent thread. The
 * callbacks take the connection's own lock and the event queue's, never an endpoint's monitor, so an application
 * thread that waits for the agent under its endpoint's monitor cannot deadlock with them.
 */
final class ConnectionManager implements ConnectionFrames.Listener
{
    /** Milliseconds a connect waits for an accept or reject before its ECONNREFUSED error event. */
    static final String CONNECT_TIMEOUT_PROPERTY = "jfabric.cm.connectTimeoutMs";
    /** Default of {@link #CONNECT_TIMEOUT_PROPERTY}. */
    static final long DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
    private static final AtomicLong NEXT_CONNECTION = new AtomicLong(System.nanoTime() & 0xFFFF_FFFFL);

    private final DomainTransport transport;
    private final ConnectionFrames frames;
    private final ConcurrentHashMap<Integer, Object> registered = new ConcurrentHashMap<>();
    private final AtomicInteger connecting = new AtomicInteger();
    private final long connectTimeoutNs;

    ConnectionManager(final DomainTransport transport, final ConnectionFrames frames)
    {
        this.transport = transport;
        this.frames = frames;
        this.connectTimeoutNs = TimeUnit.MILLISECONDS.toNanos(connectTimeoutMs());
        frames.listener(this);
    }

    /**
     * @return the connect timeout in milliseconds ({@link #CONNECT_TIMEOUT_PROPERTY}, at least 1).
     * @throws FabricException EINVAL naming the property for a value that is not a positive number.
     */
    static long connectTimeoutMs()
    {
        final String value = System.getProperty(CONNECT_TIMEOUT_PROPERTY);
        if (null == value)
        {
            return DEFAULT_CONNECT_TIMEOUT_MS;
        }
        try
        {
            final long ms = Long.parseLong(value.trim());
            if (ms > 0)
            {
                return ms;
            }
        }
        catch (final NumberFormatException ignored)
        {
            // refused below
        }
        throw new FabricException(Errno.EINVAL, CONNECT_TIMEOUT_PROPERTY + "=" + value + " is not a positive number");
    }

    /**
     * @return a connection id unique in this process (and random across processes).
     */
    static long nextConnectionId()
    {
        return (ProcessHandle.current().pid() << 40) ^ NEXT_CONNECTION.incrementAndGet();
    }

    DomainTransport transport()
    {
        return transport;
    }

    long connectTimeoutNs()
    {
        return connectTimeoutNs;
    }

    void register(final int index, final Object target)
    {
        registered.put(index, target);
    }

    void unregister(final int index, final Object target)
    {
        registered.remove(index, target);
    }

    /**
     * A connect started (timers on) or ended (off when none remains).
     *
     * @param started true when one started.
     */
    void connecting(final boolean started)
    {
        frames.watch((started ? connecting.incrementAndGet() : connecting.decrementAndGet()) > 0);
    }

    void send(final long peerKey, final int endpoint, final int kind, final long connection, final byte[] data)
    {
        frames.send(peerKey, endpoint, kind, connection, data);
    }

    @Override
    public void onFrame(
        final int endpoint, final long srcKey, final int kind, final long connection, final byte[] address,
        final byte[] data)
    {
        final byte[] param = 0 == data.length ? null : data;
        final Object target = registered.get(endpoint);
        if (target instanceof PassiveEndpoint && ConnectionFrames.CONNREQ == kind)
        {
            ((PassiveEndpoint) target).frameRequest(srcKey, connection, address, param);
        }
        else if (target instanceof FrameConnection)
        {
            ((FrameConnection) target).onFrame(kind, srcKey, connection, param);
        }
        else if (ConnectionFrames.CONNREQ == kind)
        {
            // Nothing listens at that index (any more): refuse at once rather than let the client time out.
            try
            {
                send(srcKey, endpoint, ConnectionFrames.REJECT, connection, null);
            }
            catch (final RuntimeException ignored)
            {
                // the index has no address any more: the client's timeout answers
            }
        }
    }

    @Override
    public void onUndeliverable(final int endpoint, final int kind, final long connection, final int errno)
    {
        final Object target = registered.get(endpoint);
        if (target instanceof FrameConnection)
        {
            ((FrameConnection) target).onUndeliverable(kind, connection, errno);
        }
    }

    @Override
    public void onPeerDown(final long peerDomain, final int errno)
    {
        for (final Object target : registered.values())
        {
            if (target instanceof FrameConnection)
            {
                ((FrameConnection) target).onPeerDown(peerDomain, errno);
            }
        }
    }

    @Override
    public void onTick(final long nowNs)
    {
        for (final Object target : registered.values())
        {
            if (target instanceof FrameConnection)
            {
                ((FrameConnection) target).onTick(nowNs);
            }
        }
    }
}
