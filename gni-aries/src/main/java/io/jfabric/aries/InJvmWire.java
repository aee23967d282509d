package io.jfabric.aries;

import io.jfabric.Errno;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The in-process wire: every node of one {@link Hub} owns an inbound ring in direct memory; a frame is copied into
 * the destination's ring. Deterministic: frames between two nodes arrive in send order and nothing moves until the
 * destination's engine polls. Closing a wire makes it unreachable and reports it down to the others.
 * <p>
 * Threading: {@link #offer} is safe from many threads (many-to-one rings); {@link #poll} by the owning engine only.
 */
public final class InJvmWire implements AriesWire
{
    /** Default inbound ring capacity per node, bytes. */
    public static final int DEFAULT_RING_CAPACITY = 4 << 20;
    private static final String SCHEME = "injvm:";

    /**
     * The set of wires that can reach each other (one emulated fabric inside a JVM).
     * <p>
     * Threading: thread-safe (control path synchronised).
     */
    public static final class Hub
    {
        private final List<InJvmWire> wires = new ArrayList<>();
        private final int ringCapacity;

        /**
         * A hub whose nodes get {@link #DEFAULT_RING_CAPACITY}-byte rings.
         */
        public Hub()
        {
            this(DEFAULT_RING_CAPACITY);
        }

        /**
         * @param ringCapacity inbound ring bytes per node, a power of two.
         */
        public Hub(final int ringCapacity)
        {
            this.ringCapacity = ringCapacity;
        }

        /**
         * Open a new wire on this hub.
         *
         * @return the wire.
         */
        public synchronized InJvmWire open()
        {
            final InJvmWire wire = new InJvmWire(this, wires.size(), ringCapacity);
            wires.add(wire);
            return wire;
        }

        synchronized InJvmWire wire(final int index)
        {
            return index >= 0 && index < wires.size() ? wires.get(index) : null;
        }

        synchronized int size()
        {
            return wires.size();
        }
    }

    private final Hub hub;
    private final int index;
    private final ManyToOneRingBuffer inbound;
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private volatile boolean closed;
    private boolean[] reportedDown = new boolean[0];
    private final MessageHandler messageHandler = this::onMessage;
    private Handler current;

    private InJvmWire(final Hub hub, final int index, final int ringCapacity)
    {
        this.hub = hub;
        this.index = index;
        this.inbound = new ManyToOneRingBuffer(new UnsafeBuffer(
            ByteBuffer.allocateDirect(ringCapacity + RingBufferDescriptor.TRAILER_LENGTH)));
    }

    @Override
    public byte[] localAddress()
    {
        return (SCHEME + index).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public long resolve(final byte[] address)
    {
        final String text = new String(address, StandardCharsets.US_ASCII);
        if (!text.startsWith(SCHEME))
        {
            return -1;
        }
        try
        {
            final int peer = Integer.parseInt(text.substring(SCHEME.length()));
            return null == hub.wire(peer) ? -1 : peer;
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    @Override
    public int maxFrameLength()
    {
        return inbound.maxMsgLength();
    }

    @Override
    public int offer(
        final long peer, final DirectBuffer header, final int headerOffset, final int headerLength,
        final DirectBuffer payload, final int payloadOffset, final int payloadLength)
    {
        final InJvmWire target = hub.wire((int) peer);
        if (null == target || target.closed || closed)
        {
            return Errno.EHOSTUNREACH.negated();
        }
        final int length = headerLength + payloadLength;
        final int claimed = target.inbound.tryClaim(1, length);
        if (claimed < 0)
        {
            return 0;
        }
        final var buffer = target.inbound.buffer();
        buffer.putBytes(claimed, header, headerOffset, headerLength);
        if (payloadLength > 0)
        {
            buffer.putBytes(claimed + headerLength, payload, payloadOffset, payloadLength);
        }
        target.inbound.commit(claimed);
        return 1;
    }

    @Override
    public int poll(final Handler handler, final int limit)
    {
        int work = 0;
        final int peers = hub.size();
        if (reportedDown.length < peers)
        {
            reportedDown = Arrays.copyOf(reportedDown, BitUtil.findNextPositivePowerOfTwo(peers));
        }
        for (int i = 0; i < peers; i++)
        {
            final InJvmWire wire = hub.wire(i);
            if (i != index && wire.closed && !reportedDown[i])
            {
                reportedDown[i] = true;
                handler.onPeerDown(i);
                work++;
            }
        }
        current = handler;
        work += inbound.read(messageHandler, limit);
        return work;
    }

    private void onMessage(final int typeId, final MutableDirectBuffer buffer, final int offset,
        final int length)
    {
        current.onFrame(buffer, offset, length);
    }

    @Override
    public void close()
    {
        closed = true;
    }

    @Override
    public String toString()
    {
        return "InJvmWire[" + index + "]";
    }
}
