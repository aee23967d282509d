package io.jfabric.provider.inproc;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.FrameHandler;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The inproc back-end of one domain: two inbound many-to-one rings in direct memory that the agents of every
 * other inproc domain in the JVM write frames into, one per lane ({@link #LANE_REQUEST}, {@link #LANE_ANSWER}),
 * polled answers first, so that rendezvous data never waits behind requests the
 * agent cannot take yet. A peer key is {@code domainId << 32 | endpointIndex}; the
 * address of an endpoint is the string {@code fi_inproc://<domainId>:<endpointIndex>} ({@code FI_ADDR_STR}).
 * <p>
 * Threading: {@link #offer} may be called by many agents at once (the ring is many-producer); {@link #poll} by
 * this domain's agent only; the rest is control path.
 */
final class InprocDomainTransport implements DomainTransport
{
    static final String SCHEME = "fi_inproc://";
    static final int MAX_DOMAINS = 4096;
    private static final int FRAME_TYPE = 1;
    private static final AtomicReferenceArray<InprocDomainTransport> DOMAINS =
        new AtomicReferenceArray<>(MAX_DOMAINS);
    private static final AtomicInteger NEXT_ID = new AtomicInteger();

    private final int domainId;
    private final ManyToOneRingBuffer inbound;
    private final ManyToOneRingBuffer inboundAnswers;
    private FrameHandler cachedHandler;
    private ControlledMessageHandler cachedAdapter;
    private FrameHandler current;

    private InprocDomainTransport(final int domainId, final int inboundCapacity)
    {
        this.domainId = domainId;
        this.inbound = new ManyToOneRingBuffer(new UnsafeBuffer(
            ByteBuffer.allocateDirect(inboundCapacity + RingBufferDescriptor.TRAILER_LENGTH)));
        this.inboundAnswers = new ManyToOneRingBuffer(new UnsafeBuffer(
            ByteBuffer.allocateDirect(inboundCapacity + RingBufferDescriptor.TRAILER_LENGTH)));
    }

    static InprocDomainTransport open(final int inboundCapacity)
    {
        // Ids rotate so that a closed domain's id is reused as late as possible (stale peers then get
        // EHOSTUNREACH rather than reaching a newer domain).
        for (int attempt = 0; attempt < MAX_DOMAINS; attempt++)
        {
            final int i = Math.floorMod(NEXT_ID.getAndIncrement(), MAX_DOMAINS);
            if (null == DOMAINS.get(i))
            {
                final InprocDomainTransport transport = new InprocDomainTransport(i, inboundCapacity);
                if (DOMAINS.compareAndSet(i, null, transport))
                {
                    return transport;
                }
            }
        }
        throw new FabricException(Errno.ENOSPC, "inproc: too many open domains (" + MAX_DOMAINS + ")");
    }

    int domainId()
    {
        return domainId;
    }

    @Override
    public int maxFrameLength()
    {
        return inbound.maxMsgLength();
    }

    @Override
    public byte[] endpointAddress(final int endpointIndex)
    {
        return address(localKey(endpointIndex));
    }

    @Override
    public long localKey(final int endpointIndex)
    {
        return ((long) domainId << 32) | endpointIndex;
    }

    @Override
    public long resolve(final byte[] address)
    {
        return parse(address);
    }

    static long parse(final byte[] address)
    {
        if (null == address)
        {
            return -1;
        }
        final String text = new String(address, StandardCharsets.US_ASCII);
        if (!text.startsWith(SCHEME))
        {
            return -1;
        }
        final int colon = text.indexOf(':', SCHEME.length());
        if (colon < 0)
        {
            return -1;
        }
        try
        {
            final int domain = Integer.parseInt(text.substring(SCHEME.length(), colon));
            final int endpoint = Integer.parseInt(text.substring(colon + 1));
            if (domain < 0 || domain >= MAX_DOMAINS || endpoint < 0)
            {
                return -1;
            }
            return ((long) domain << 32) | endpoint;
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    @Override
    public byte[] address(final long peerKey)
    {
        return (SCHEME + (peerKey >>> 32) + ":" + (int) peerKey).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public int endpointIndex(final long peerKey)
    {
        return (int) peerKey;
    }

    @Override
    public long contextKey(final long peerKey, final int offset)
    {
        // Keys are domainId << 32 | endpointIndex: the next endpoints of one domain are the next keys.
        final long index = (peerKey & 0xFFFF_FFFFL) + offset;
        return peerKey < 0 || offset < 0 || index > Integer.MAX_VALUE ? -1 : peerKey + offset;
    }

    @Override
    public int offer(
        final long peerKey,
        final int lane,
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        final InprocDomainTransport peer = DOMAINS.get((int) (peerKey >>> 32));
        if (null == peer)
        {
            return Errno.EHOSTUNREACH.negated();
        }
        final ManyToOneRingBuffer ring = LANE_ANSWER == lane ? peer.inboundAnswers : peer.inbound;
        final int length = headerLength + payloadLength;
        if (length > ring.maxMsgLength())
        {
            return Errno.EMSGSIZE.negated();
        }
        final int index = ring.tryClaim(FRAME_TYPE, length);
        if (index < 0)
        {
            return 0;
        }
        final AtomicBuffer buffer = ring.buffer();
        buffer.putBytes(index, header, headerOffset, headerLength);
        if (payloadLength > 0)
        {
            buffer.putBytes(index + headerLength, payload, payloadOffset, payloadLength);
        }
        // commit publishes the record with a release store of its length.
        ring.commit(index);
        return 1;
    }

    /**
     * {@inheritDoc}
     * <p>
     * The domain id: every endpoint of one inproc domain shares it.
     */
    @Override
    public long peerDomain(final long peerKey)
    {
        return peerKey >>> 32;
    }

    @Override
    public int poll(final FrameHandler handler, final int limit)
    {
        if (handler != cachedHandler)
        {
            cachedHandler = handler;
            cachedAdapter = this::onMessage;
        }
        current = handler;
        // Answers first: they complete operations and free what requests wait for.
        final int answers = inboundAnswers.controlledRead(cachedAdapter, limit);
        return answers >= limit ? answers : answers + inbound.controlledRead(cachedAdapter, limit - answers);
    }

    private ControlledMessageHandler.Action onMessage(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        return current.onFrame(buffer, index, length) ?
            ControlledMessageHandler.Action.COMMIT : ControlledMessageHandler.Action.ABORT;
    }

    @Override
    public void close()
    {
        DOMAINS.compareAndSet(domainId, this, null);
    }
}
