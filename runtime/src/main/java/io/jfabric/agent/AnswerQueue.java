package io.jfabric.agent;

import io.jfabric.spi.DomainTransport;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Part of the domain agent: the answers this domain owes its peers (ACK, FIN, RMA_ACK, READ_RESP, ATOMIC_RESP,
 * CTS), queued by the targets and the receive side, sent in order per peer by {@link #flushAcks()}. Each slot has
 * scratch room (atomic results and a result list, or a CTS's two segment lists) that stays valid until the answer is
 * sent.
 * <p>
 * Threading: single-threaded, owned by its domain agent's duty cycle ({@link DomainAgent}); package-private.
 */
final class AnswerQueue
{
    /** Answer slots allocated when the domain opens. */
    static final int INITIAL_CAPACITY = 256;
    /**
     * Most answer slots: the queue doubles up to this many when answers owed to peers that do not read (their
     * rings full) fill it. Each peer endpoint may have at most {@link FlowControl#requests()} requests outstanding
     * per endpoint of ours, so it never takes more than that many; only that many stalled peers at once reach this.
     */
    static final int MAX_CAPACITY = 1 << 15;
    private final DomainTransport transport;
    private final FrameOutbox outbox;
    private final UnsafeBuffer header =
        new UnsafeBuffer(ByteBuffer.allocateDirect(FrameDescriptor.RMA_HEADER_LENGTH + DomainAgent.REMOTE_LIST_MAX));
    /** Encodes this part's frames into {@link #header}. */
    private final FrameFlyweight out = new FrameFlyweight().wrapForEncode(header, 0);
    private final UnsafeBuffer payloadView = new UnsafeBuffer(0, 0);
    private UnsafeBuffer ackScratch;
    /** Bytes of scratch per answer slot: atomic results plus a segment list, or a CTS's two segment lists. */
    private final int scratchStride;
    private int capacity;
    private long[] ackPeer;
    private long[] ackCookie;
    private long[] ackFlags;
    private long[] ackKind;
    private long[] ackData;
    private long[] ackLength;
    private long[] ackPayload;
    private int[] ackPayloadLength;
    private byte[] ackOpcode;
    private int[] ackEndpoint;
    private int ackHead;
    private int ackCount;
    /** Told of each answer handed to the transport (the target side of the request window). */
    OwedRequests owed;

    AnswerQueue(final DomainTransport transport, final FrameOutbox outbox, final int scratchStride)
    {
        this.transport = transport;
        this.outbox = outbox;
        this.scratchStride = scratchStride;
        allocate(INITIAL_CAPACITY);
    }

    private void allocate(final int slots)
    {
        capacity = slots;
        ackPeer = new long[slots];
        ackCookie = new long[slots];
        ackFlags = new long[slots];
        ackKind = new long[slots];
        ackData = new long[slots];
        ackLength = new long[slots];
        ackPayload = new long[slots];
        ackPayloadLength = new int[slots];
        ackOpcode = new byte[slots];
        ackEndpoint = new int[slots];
        ackScratch = new UnsafeBuffer(ByteBuffer.allocateDirect(slots * scratchStride));
    }

    /**
     * Double the queue (answers keep their order; a payload in a slot's scratch moves with it). The only
     * allocation, off the steady state: it happens only while answers to peers whose rings are full pile up, and
     * the larger arrays are kept.
     *
     * @return false at {@link #MAX_CAPACITY}.
     */
    private boolean grow()
    {
        if (capacity >= MAX_CAPACITY)
        {
            return false;
        }
        final int oldCapacity = capacity;
        final long[] peer = ackPeer;
        final long[] cookie = ackCookie;
        final long[] frameFlags = ackFlags;
        final long[] kind = ackKind;
        final long[] data = ackData;
        final long[] length = ackLength;
        final long[] payload = ackPayload;
        final int[] payloadLength = ackPayloadLength;
        final byte[] opcode = ackOpcode;
        final int[] endpoint = ackEndpoint;
        final UnsafeBuffer scratch = ackScratch;
        final long oldBase = scratch.addressOffset();
        final long oldEnd = oldBase + (long) oldCapacity * scratchStride;
        allocate(oldCapacity * 2);
        final long base = ackScratch.addressOffset();
        for (int k = 0; k < ackCount; k++)
        {
            final int i = (ackHead + k) % oldCapacity;
            ackPeer[k] = peer[i];
            ackCookie[k] = cookie[i];
            ackFlags[k] = frameFlags[i];
            ackKind[k] = kind[i];
            ackData[k] = data[i];
            ackLength[k] = length[i];
            ackPayloadLength[k] = payloadLength[i];
            ackOpcode[k] = opcode[i];
            ackEndpoint[k] = endpoint[i];
            ackScratch.putBytes(k * scratchStride, scratch, i * scratchStride, scratchStride);
            final long at = payload[i];
            // A payload in the slot's own scratch (CTS lists, atomic results) moves with it; a READ_RESP's payload
            // is registered memory and stays where it is.
            ackPayload[k] = at >= oldBase && at < oldEnd ?
                base + (long) k * scratchStride + (at - oldBase - (long) i * scratchStride) : at;
        }
        ackHead = 0;
        return true;
    }

    /**
     * @param n answers about to be queued.
     * @return true when {@code n} more answers fit (the queue grows up to {@link #MAX_CAPACITY} to make room).
     */
    boolean hasRoom(final int n)
    {
        while (ackCount + n > capacity)
        {
            if (!grow())
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @return true when no answer can be queued now (the queue is at {@link #MAX_CAPACITY} and full).
     */
    boolean isFull()
    {
        return !hasRoom(1);
    }

    /**
     * @return answers queued.
     */
    int size()
    {
        return ackCount;
    }

    /**
     * @return the slot queue's current number of slots.
     */
    int capacity()
    {
        return capacity;
    }

    /**
     * Make room for one answer (growing the queue if need be) and name its slot.
     *
     * @return the slot the next {@link #enqueueAck} takes (its scratch may be filled first; nothing may be queued
     * in between), valid while {@link #hasRoom} is true for one answer.
     */
    int nextSlot()
    {
        hasRoom(1);
        return (ackHead + ackCount) % capacity;
    }

    /**
     * @return the scratch of every slot, {@link #scratchStride()} bytes each (call after {@link #nextSlot()}: a
     * growing queue moves it).
     */
    UnsafeBuffer scratch()
    {
        return ackScratch;
    }

    /**
     * @return bytes of scratch per slot.
     */
    int scratchStride()
    {
        return scratchStride;
    }

    boolean enqueueAck(
        final byte opcode,
        final long peer,
        final int endpoint,
        final long cookie,
        final long frameFlags,
        final long tag,
        final long data,
        final long length,
        final long payloadAddress,
        final int payloadLength)
    {
        if (!hasRoom(1))
        {
            return false;
        }
        final int i = (ackHead + ackCount) % capacity;
        ackOpcode[i] = opcode;
        ackPeer[i] = peer;
        ackEndpoint[i] = endpoint;
        ackCookie[i] = cookie;
        ackFlags[i] = frameFlags;
        ackKind[i] = tag;
        ackData[i] = data;
        ackLength[i] = length;
        ackPayload[i] = payloadAddress;
        ackPayloadLength[i] = payloadLength;
        ackCount++;
        return true;
    }

    int flushAcks()
    {
        if (0 == ackCount)
        {
            return 0;
        }
        int sent = 0;
        final UnsafeBuffer h = header;
        outbox.clearBlocked();
        // In order per peer; an answer whose peer's ring is full holds back only later answers to that peer (the
        // ones sent past it leave holes, opcode 0, that the head skips).
        for (int k = 0; k < ackCount; k++)
        {
            final int i = (ackHead + k) % capacity;
            if (0 == ackOpcode[i] || outbox.blocked(ackPeer[i]))
            {
                continue;
            }
            out.version(FrameDescriptor.VERSION);
            out.opcode(ackOpcode[i]);
            out.dstEndpoint(transport.endpointIndex(ackPeer[i]));
            out.srcKey(transport.localKey(ackEndpoint[i]));
            out.tag(ackKind[i]);
            out.data(ackData[i]);
            out.length(ackLength[i]);
            out.flags(ackFlags[i]);
            out.cookie(ackCookie[i]);
            out.sequence(outbox.sequence());
            final int payloadLength = ackPayloadLength[i];
            if (payloadLength > 0)
            {
                payloadView.wrap(ackPayload[i], payloadLength);
            }
            int headerLength = FrameDescriptor.HEADER_LENGTH;
            if (FrameDescriptor.OPCODE_CTS == ackOpcode[i])
            {
                // The lists travel in the payload; the extension is unused.
                out.rmaAddress(0);
                out.rmaKey(0);
                headerLength = FrameDescriptor.RMA_HEADER_LENGTH;
            }
            final int result = outbox.offer(ackPeer[i], ackEndpoint[i], h, headerLength,
                payloadLength > 0 ? payloadView : null, 0, payloadLength);
            if (0 == result)
            {
                outbox.block(ackPeer[i]);
                continue;
            }
            if (null != owed)
            {
                owed.onAnswerSent(ackOpcode[i], ackEndpoint[i], ackPeer[i]);
            }
            ackOpcode[i] = 0;
            sent++;
        }
        while (ackCount > 0 && 0 == ackOpcode[ackHead])
        {
            ackHead = (ackHead + 1) % capacity;
            ackCount--;
        }
        return sent;
    }
}
