package io.jfabric;

import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.FrameHandler;
import io.jfabric.spi.OpsExtension;
import io.jfabric.spi.TransportCounters;
import io.jfabric.spi.TransportEventHandler;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A test transport that forwards every {@link DomainTransport} method, defaults included, to a wrapped one; test
 * wrappers (fault injection, described providers, failing transports) override only what they change, so a method
 * added to the SPI reaches the wrapped transport without each wrapper having to forward it.
 * <p>
 * Threading: as the wrapped transport's.
 */
public class ForwardingDomainTransport implements DomainTransport
{
    /** The wrapped transport. */
    protected final DomainTransport inner;

    /**
     * @param inner the transport every call goes to.
     */
    public ForwardingDomainTransport(final DomainTransport inner)
    {
        this.inner = inner;
    }

    @Override
    public int maxFrameLength()
    {
        return inner.maxFrameLength();
    }

    @Override
    public int eagerThreshold()
    {
        return inner.eagerThreshold();
    }

    @Override
    public byte[] endpointAddress(final int endpointIndex)
    {
        return inner.endpointAddress(endpointIndex);
    }

    @Override
    public long localKey(final int endpointIndex)
    {
        return inner.localKey(endpointIndex);
    }

    @Override
    public long resolve(final byte[] address)
    {
        return inner.resolve(address);
    }

    @Override
    public byte[] address(final long peerKey)
    {
        return inner.address(peerKey);
    }

    @Override
    public int endpointIndex(final long peerKey)
    {
        return inner.endpointIndex(peerKey);
    }

    @Override
    public void openEndpoint(final int endpointIndex, final Info info)
    {
        inner.openEndpoint(endpointIndex, info);
    }

    @Override
    public void closeEndpoint(final int endpointIndex)
    {
        inner.closeEndpoint(endpointIndex);
    }

    @Override
    public OpsExtension openOps(final String name)
    {
        return inner.openOps(name);
    }

    @Override
    public OpsExtension openOps(final int endpointIndex, final String name)
    {
        return inner.openOps(endpointIndex, name);
    }

    @Override
    public long peerDomain(final long peerKey)
    {
        return inner.peerDomain(peerKey);
    }

    @Override
    public int pollEvents(final TransportEventHandler handler, final int limit)
    {
        return inner.pollEvents(handler, limit);
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
        return inner.offer(peerKey, lane, header, headerOffset, headerLength, payload, payloadOffset, payloadLength);
    }

    @Override
    public AtomicBuffer allocateShared(final int length)
    {
        return inner.allocateShared(length);
    }

    @Override
    public boolean freeShared(final DirectBuffer buffer)
    {
        return inner.freeShared(buffer);
    }

    @Override
    public long directAddress(final long peerKey, final long address, final long length)
    {
        return inner.directAddress(peerKey, address, length);
    }

    @Override
    public long peerEpoch(final long peerKey)
    {
        return inner.peerEpoch(peerKey);
    }

    @Override
    public long sourceEpoch(final long peerKey)
    {
        return inner.sourceEpoch(peerKey);
    }

    @Override
    public int status()
    {
        return inner.status();
    }

    @Override
    public void registerCounters(final TransportCounters counters)
    {
        inner.registerCounters(counters);
    }

    @Override
    public int poll(final FrameHandler handler, final int limit)
    {
        return inner.poll(handler, limit);
    }

    @Override
    public void close()
    {
        inner.close();
    }

    @Override
    public void onFault(final Throwable fault)
    {
        inner.onFault(fault);
    }
}
