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
    /** Answers queued at most. */
    static final int CAPACITY = 256;
    private final DomainTransport transport;
    private final FrameOutbox outbox;
    private final UnsafeBuffer header =
        new UnsafeBuffer(ByteBuffer.allocateDirect(FrameDescriptor.RMA_HEADER_LENGTH + DomainAgent.REMOTE_LIST_MAX));
    /** Encodes this part's frames into {@link #header}. */
    private final FrameFlyweight out = new FrameFlyweight().wrapForEncode(header, 0);
    private final UnsafeBuffer payloadView = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer ackScratch;
    /** Bytes of scratch per answer slot: atomic results plus a segment list, or a CTS's two segment lists. */
    private final int scratchStride;
    private final long[] ackPeer = new long[CAPACITY];
    private final long[] ackCookie = new long[CAPACITY];
    private final long[] ackFlags = new long[CAPACITY];
    private final long[] ackKind = new long[CAPACITY];
    private final long[] ackData = new long[CAPACITY];
    private final long[] ackLength = new long[CAPACITY];
    private final long[] ackPayload = new long[CAPACITY];
    private final int[] ackPayloadLength = new int[CAPACITY];
    private final byte[] ackOpcode = new byte[CAPACITY];
    private final int[] ackEndpoint = new int[CAPACITY];
    private int ackHead;
    private int ackCount;

    AnswerQueue(final DomainTransport transport, final FrameOutbox outbox, final int scratchStride)
    {
        this.transport = transport;
        this.outbox = outbox;
        this.scratchStride = scratchStride;
        this.ackScratch = new UnsafeBuffer(ByteBuffer.allocateDirect(CAPACITY * scratchStride));
    }

    /**
     * @return true when no answer can be queued now.
     */
    boolean isFull()
    {
        return ackCount == CAPACITY;
    }

    /**
     * @return answers queued.
     */
    int size()
    {
        return ackCount;
    }

    /**
     * @return the slot the next {@link #enqueueAck} takes (its scratch may be filled first).
     */
    int nextSlot()
    {
        return (ackHead + ackCount) % CAPACITY;
    }

    /**
     * @return the scratch of every slot, {@link #scratchStride()} bytes each.
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
        if (ackCount == CAPACITY)
        {
            return false;
        }
        final int i = (ackHead + ackCount) % CAPACITY;
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
        int sent = 0;
        final UnsafeBuffer h = header;
        outbox.clearBlocked();
        // In order per peer; an answer whose peer's ring is full holds back only later answers to that peer (the
        // ones sent past it leave holes, opcode 0, that the head skips).
        for (int k = 0; k < ackCount; k++)
        {
            final int i = (ackHead + k) % CAPACITY;
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
                if (!outbox.block(ackPeer[i]))
                {
                    break;
                }
                continue;
            }
            ackOpcode[i] = 0;
            sent++;
        }
        while (ackCount > 0 && 0 == ackOpcode[ackHead])
        {
            ackHead = (ackHead + 1) % CAPACITY;
            ackCount--;
        }
        return sent;
    }
}
