package io.jfabric.agent;

import io.jfabric.spi.DomainTransport;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;

/**
 * Part of the domain agent: connection management ({@code fi_cm(3)}) as frames of the generic protocol, so that
 * any frame transport connects {@code FI_EP_MSG} endpoints across processes. One opcode
 * ({@link FrameDescriptor#OPCODE_CM}) carries four kinds in the frame's tag: {@link #CONNREQ}, {@link #ACCEPT},
 * {@link #REJECT} and {@link #SHUTDOWN}; the frame's data is the connection's id (chosen by the connecting side),
 * its payload the sender's endpoint address followed by the connection data ({@code FI_OPT_CM_DATA_SIZE} at
 * most). A CM frame names an endpoint index that may have no agent state (a passive endpoint's), so it is taken
 * before the message receiver.
 * <p>
 * Threading: {@link #send} from any thread (control path: a queue that allocates); every other method on the
 * agent thread; the {@link Listener} is called on the agent thread and must not wait for the agent.
 */
public final class ConnectionFrames
{
    /** A connection request: payload = the client endpoint's address, then the connection data. */
    public static final int CONNREQ = 1;
    /** The request accepted: payload = the accepting endpoint's address, then the connection data. */
    public static final int ACCEPT = 2;
    /** The request rejected: payload = the passive endpoint's address, then the connection data. */
    public static final int REJECT = 3;
    /** The connection shut down by the sender. */
    public static final int SHUTDOWN = 4;

    private static final int ADDRESS_LENGTH_BYTES = 4;

    /**
     * What the agent reports to connection management (implemented by the runtime's API layer).
     */
    public interface Listener
    {
        /**
         * A CM frame arrived.
         *
         * @param endpoint   the endpoint index it names in this domain.
         * @param srcKey     the transport's key for the sending endpoint (where answers go).
         * @param kind       {@link #CONNREQ}, {@link #ACCEPT}, {@link #REJECT} or {@link #SHUTDOWN}.
         * @param connection the connection's id.
         * @param address    the sender's endpoint address.
         * @param data       the connection data (empty when none).
         */
        void onFrame(int endpoint, long srcKey, int kind, long connection, byte[] address, byte[] data);

        /**
         * A CM frame could not be offered (the peer is unknown or dead).
         *
         * @param endpoint   the sending endpoint's index.
         * @param kind       the frame's kind.
         * @param connection the connection's id.
         * @param errno      the transport's errno (positive).
         */
        void onUndeliverable(int endpoint, int kind, long connection, int errno);

        /**
         * The transport reported a peer down.
         *
         * @param peerDomain the transport's domain key of that peer ({@code peerDomain(peerKey)}).
         * @param errno      the errno.
         */
        void onPeerDown(long peerDomain, int errno);

        /**
         * Called once a duty cycle while {@link #watch(boolean)} is on: connection management's timers.
         *
         * @param nowNs {@link System#nanoTime()}.
         */
        void onTick(long nowNs);
    }

    private static final class Outgoing
    {
        final long peerKey;
        final int endpoint;
        final int dstEndpoint;
        final long srcKey;
        final int kind;
        final long connection;
        final byte[] payload;

        Outgoing(
            final long peerKey, final int endpoint, final int dstEndpoint, final long srcKey, final int kind,
            final long connection, final byte[] payload)
        {
            this.peerKey = peerKey;
            this.endpoint = endpoint;
            this.dstEndpoint = dstEndpoint;
            this.srcKey = srcKey;
            this.kind = kind;
            this.connection = connection;
            this.payload = payload;
        }
    }

    private final DomainTransport transport;
    private final ManyToOneConcurrentLinkedQueue<Outgoing> queue = new ManyToOneConcurrentLinkedQueue<>();
    private final ArrayList<Outgoing> pending = new ArrayList<>();
    private final ArrayList<Long> blockedPeers = new ArrayList<>();
    private final UnsafeBuffer header = new UnsafeBuffer(new byte[FrameDescriptor.HEADER_LENGTH]);
    private final FrameFlyweight out = new FrameFlyweight();
    private final FrameFlyweight in = new FrameFlyweight();
    private volatile Listener listener;
    private volatile boolean watching;
    private volatile boolean queued;

    ConnectionFrames(final DomainTransport transport)
    {
        this.transport = transport;
    }

    /**
     * Set the listener (once, control path).
     *
     * @param listener connection management.
     */
    public void listener(final Listener listener)
    {
        this.listener = listener;
    }

    /**
     * Ask for (or stop) {@link Listener#onTick} calls each duty cycle.
     *
     * @param on true while timers run.
     */
    public void watch(final boolean on)
    {
        watching = on;
    }

    /**
     * Queue a CM frame for the agent to offer (any thread).
     *
     * @param peerKey    the destination endpoint's key.
     * @param endpoint   the sending endpoint's index (its address goes into the payload).
     * @param kind       the frame's kind.
     * @param connection the connection's id.
     * @param data       connection data, or null.
     * @throws RuntimeException what the transport throws for an endpoint or key it does not know.
     */
    public void send(final long peerKey, final int endpoint, final int kind, final long connection, final byte[] data)
    {
        final byte[] address = transport.endpointAddress(endpoint);
        final int dataLength = null == data ? 0 : data.length;
        final byte[] payload = new byte[ADDRESS_LENGTH_BYTES + address.length + dataLength];
        final UnsafeBuffer p = new UnsafeBuffer(payload);
        p.putInt(0, address.length);
        p.putBytes(ADDRESS_LENGTH_BYTES, address);
        if (dataLength > 0)
        {
            p.putBytes(ADDRESS_LENGTH_BYTES + address.length, data);
        }
        queue.offer(new Outgoing(peerKey, endpoint, transport.endpointIndex(peerKey), transport.localKey(endpoint),
            kind, connection, payload));
        queued = true;
    }

    /**
     * Offer what is queued (peers met with back-pressure keep their frames, in order, for the next cycle) and run
     * the timers.
     *
     * @return work done.
     */
    int doWork()
    {
        int work = 0;
        if (watching)
        {
            final Listener l = listener;
            if (null != l)
            {
                l.onTick(System.nanoTime());
            }
        }
        if (!queued && pending.isEmpty())
        {
            return 0;
        }
        queued = false;
        Outgoing next;
        while (null != (next = queue.poll()))
        {
            pending.add(next);
        }
        blockedPeers.clear();
        for (int i = 0; i < pending.size(); )
        {
            final Outgoing o = pending.get(i);
            if (blockedPeers.contains(o.peerKey))
            {
                i++;
                continue;
            }
            final int result = offer(o);
            if (0 == result)
            {
                blockedPeers.add(o.peerKey);
                i++;
                continue;
            }
            pending.remove(i);
            work++;
            if (result < 0)
            {
                final Listener l = listener;
                if (null != l)
                {
                    l.onUndeliverable(o.endpoint, o.kind, o.connection, -result);
                }
            }
        }
        return work;
    }

    private int offer(final Outgoing o)
    {
        out.wrapForEncode(header, 0)
            .version(FrameDescriptor.VERSION)
            .opcode(FrameDescriptor.OPCODE_CM)
            .dstEndpoint(o.dstEndpoint)
            .srcKey(o.srcKey)
            .tag(o.kind)
            .data(o.connection)
            .length(o.payload.length)
            .flags(0)
            .cookie(0)
            .sequence(0);
        final UnsafeBuffer payload = new UnsafeBuffer(o.payload);
        return transport.offer(o.peerKey, DomainTransport.LANE_REQUEST, header, 0, FrameDescriptor.HEADER_LENGTH,
            payload, 0, o.payload.length);
    }

    /**
     * A CM frame from the transport (well-formed: its payload is within the frame).
     *
     * @return true (taken).
     */
    boolean onFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        in.wrap(buffer, offset);
        final Listener l = listener;
        final int payloadLength = (int) in.length();
        final int payloadOffset = offset + FrameDescriptor.HEADER_LENGTH;
        if (null == l || payloadLength < ADDRESS_LENGTH_BYTES)
        {
            return true;
        }
        final int addressLength = buffer.getInt(payloadOffset);
        if (addressLength < 0 || addressLength > payloadLength - ADDRESS_LENGTH_BYTES)
        {
            return true;
        }
        final byte[] address = new byte[addressLength];
        buffer.getBytes(payloadOffset + ADDRESS_LENGTH_BYTES, address);
        final byte[] data = new byte[payloadLength - ADDRESS_LENGTH_BYTES - addressLength];
        buffer.getBytes(payloadOffset + ADDRESS_LENGTH_BYTES + addressLength, data);
        l.onFrame(in.dstEndpoint(), in.srcKey(), (int) in.tag(), in.data(), address, data);
        return true;
    }

    /**
     * The transport reported a peer down (agent thread).
     *
     * @param peerKey the peer.
     * @param errno   the errno.
     */
    void onPeerDown(final long peerKey, final int errno)
    {
        final Listener l = listener;
        if (null != l)
        {
            l.onPeerDown(transport.peerDomain(peerKey), errno);
        }
    }
}
