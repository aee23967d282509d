package io.jfabric.aries;

import io.jfabric.Info;
import io.jfabric.provider.shm.ShmProvider;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.FrameHandler;
import io.jfabric.spi.TransportEventHandler;
import org.agrona.DirectBuffer;
import org.agrona.collections.LongArrayList;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The wire over the shm provider's frame transport ({@code io.jfabric.spi.DomainTransport}, one host, many
 * processes). The shm transport inspects the runtime's frame header (version, opcode, source key, length), so each
 * NIC frame travels as the payload of a plain {@code OPCODE_MSG} runtime frame with no acknowledgement requested:
 * the transport tracks nothing for it and delivers it in order on the peer's request ring.
 * <p>
 * Peer down: a peer whose epoch ({@link DomainTransport#peerEpoch}) changes, or whose offer fails, is reported
 * to the engine once, from the next {@link #poll}.
 * <p>
 * Threading: {@link #offer} and {@link #poll} on the engine's thread (under the node's lock), the rest control path.
 * Frames go on the request lane; the transport's peer-down events and epoch changes both report a peer down.
 */
public final class ShmAriesWire implements AriesWire
{
    private static final int ENVELOPE = DomainTransport.MIN_FRAME_LENGTH;

    private final DomainTransport transport;
    private final UnsafeBuffer scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(
        ENVELOPE + AriesFrameDescriptor.HEADER_LENGTH + SmsgAttr.MAX_SIZE));
    private final LongArrayList knownPeers = new LongArrayList();
    private final LongArrayList knownEpochs = new LongArrayList();
    private final LongArrayList downPeers = new LongArrayList();
    private final FrameHandler frameHandler = this::onFrame;
    private final TransportEventHandler events = new TransportEventHandler()
    {
        @Override
        public void onPeerDown(final long peerKey, final int errno)
        {
            ShmAriesWire.this.onPeerDown(peerKey);
        }

        @Override
        public void onTransportError(final int errno, final String detail)
        {
        }
    };
    private Handler current;
    private int polls;

    private ShmAriesWire(final DomainTransport transport)
    {
        this.transport = transport;
    }

    /**
     * Open the wire as the shm domain {@code name} (its ring under the shm directory, see the shm provider's
     * {@code jfabric.shm.dir}).
     *
     * @param name a shm domain name unique on the host.
     * @return the wire.
     * @throws io.jfabric.FabricException as the shm provider's domain open.
     */
    public static ShmAriesWire open(final String name)
    {
        final byte[] address = ("fi_shm://" + name).getBytes(StandardCharsets.US_ASCII);
        return new ShmAriesWire(new ShmProvider().openDomain(Info.builder().srcAddr(address).build()));
    }

    @Override
    public byte[] localAddress()
    {
        return transport.endpointAddress(0);
    }

    @Override
    public synchronized long resolve(final byte[] address)
    {
        final long peer = transport.resolve(address);
        if (peer >= 0 && !knownPeers.containsLong(peer))
        {
            knownPeers.addLong(peer);
            knownEpochs.addLong(transport.peerEpoch(peer));
        }
        return peer;
    }

    @Override
    public int maxFrameLength()
    {
        return transport.maxFrameLength() - ENVELOPE;
    }

    @Override
    public int headroom()
    {
        return ENVELOPE;
    }

    @Override
    public int offer(
        final long peer, final DirectBuffer header, final int headerOffset, final int headerLength,
        final DirectBuffer payload, final int payloadOffset, final int payloadLength)
    {
        // The shm transport reads nothing of a frame but fills the source key at SOURCE_KEY_OFFSET on delivery: the
        // envelope is that reserved prefix, zeroed. A header with the headroom in front (zero, headroom()) goes as it
        // is; another is copied behind a zeroed envelope first.
        final int rc;
        if (headerOffset >= ENVELOPE)
        {
            rc = transport.offer(peer, DomainTransport.LANE_REQUEST, header, headerOffset - ENVELOPE,
                ENVELOPE + headerLength, payload, payloadOffset, payloadLength);
        }
        else
        {
            final UnsafeBuffer out = scratch;
            out.setMemory(0, ENVELOPE, (byte) 0);
            out.putBytes(ENVELOPE, header, headerOffset, headerLength);
            rc = transport.offer(peer, DomainTransport.LANE_REQUEST, out, 0, ENVELOPE + headerLength, payload,
                payloadOffset, payloadLength);
        }
        if (rc < 0 && !downPeers.containsLong(peer))
        {
            downPeers.addLong(peer);
        }
        return rc;
    }

    @Override
    public int poll(final Handler handler, final int limit)
    {
        int work = 0;
        // Epochs (a peer restarted) are read every 16th poll: a mapped read per peer is not worth every duty cycle,
        // and a dead peer is also reported at once by the transport's own events below.
        for (int i = 0, n = 0 == (polls++ & 15) ? knownPeers.size() : 0; i < n; i++)
        {
            final long peer = knownPeers.getLong(i);
            final long epoch = transport.peerEpoch(peer);
            if (epoch != knownEpochs.getLong(i))
            {
                knownEpochs.setLong(i, epoch);
                if (!downPeers.containsLong(peer))
                {
                    downPeers.addLong(peer);
                }
            }
        }
        // The transport holds its frames back until its events are taken: a peer-down event reports every known
        // peer of that peer domain.
        work += transport.pollEvents(events, limit);
        while (!downPeers.isEmpty())
        {
            handler.onPeerDown(downPeers.fastUnorderedRemove(downPeers.size() - 1));
            work++;
        }
        current = handler;
        return work + transport.poll(frameHandler, limit);
    }

    private void onPeerDown(final long peerKey)
    {
        final long domain = transport.peerDomain(peerKey);
        for (int i = 0; i < knownPeers.size(); i++)
        {
            final long peer = knownPeers.getLong(i);
            if (transport.peerDomain(peer) == domain && !downPeers.containsLong(peer))
            {
                downPeers.addLong(peer);
            }
        }
    }

    private boolean onFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length > ENVELOPE)
        {
            current.onFrame(buffer, offset + ENVELOPE, length - ENVELOPE);
        }
        return true;
    }

    /**
     * {@inheritDoc} The shm transport's pool ({@code Domain.allocateShared} of the shm provider).
     */
    @Override
    public AtomicBuffer allocateShared(final int length)
    {
        return transport.allocateShared(length);
    }

    @Override
    public boolean freeShared(final DirectBuffer buffer)
    {
        return transport.freeShared(buffer);
    }

    /**
     * {@inheritDoc} The shm transport maps the peer's pool file once per peer incarnation and checks, before every
     * answer, that the peer is live and the file not cut; it closes that mapping only from {@link #poll}, which
     * runs under the same node lock as the caller.
     */
    @Override
    public long directAddress(final long peer, final long address, final long length)
    {
        return transport.directAddress(peer, address, length);
    }

    @Override
    public void close()
    {
        transport.close();
    }

    @Override
    public String toString()
    {
        return "ShmAriesWire[" + new String(localAddress(), StandardCharsets.US_ASCII) + "]";
    }
}
