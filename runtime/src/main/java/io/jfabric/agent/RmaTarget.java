package io.jfabric.agent;

import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.ring.CompletionRing;
import io.jfabric.spi.DomainTransport;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Part of the domain agent: the target of RMA requests. A WRITE lands after the checks of every range and is
 * answered by an RMA_ACK; a READ_REQ is answered by a READ_RESP (or streamed, {@link Rendezvous#onStreamedRead}); a
 * streamed WRITE_RTS takes a write slot, copies directly from a mapped initiator or asks for the data with a CTS,
 * and answers RMA_ACK once the last chunk landed. ATOMIC frames go to the {@link AtomicTarget}.
 * <p>
 * Threading: single-threaded, owned by its domain agent's duty cycle ({@link DomainAgent}); package-private.
 */
final class RmaTarget
{
    /** Streamed RMA writes this agent can be the target of at once. */
    static final int SLOTS = 64;
    private final FrameFlyweight in;
    private final DomainTransport transport;
    private final MemoryRegistry registry;
    private final int chunk;
    // Streamed RMA writes this agent is the target of, between its CTS and the last RDATA chunk.
    private final long[] rmaPeer = new long[SLOTS];
    private final long[] rmaCookie = new long[SLOTS];
    private final long[] rmaFrameFlags = new long[SLOTS];
    private final long[] rmaData = new long[SLOTS];
    private final long[] rmaLength = new long[SLOTS];
    private final int[] rmaFree = new int[SLOTS];
    private int rmaFreeCount;
    // Scratch of writeDirect: the initiator's segments as mapped here.
    private final long[] directSource = new long[DomainAgent.MAX_IOV];
    private final long[] directSourceLength = new long[DomainAgent.MAX_IOV];
    AnswerQueue answers;
    RemoteRanges remoteRanges;
    Rendezvous rendezvous;
    AtomicTarget atomicTarget;
    TransmitCompletion completion;

    RmaTarget(final FrameFlyweight in, final DomainTransport transport, final MemoryRegistry registry, final int chunk)
    {
        this.in = in;
        this.transport = transport;
        this.registry = registry;
        this.chunk = chunk;
        for (int i = 0; i < SLOTS; i++)
        {
            rmaFree[i] = SLOTS - 1 - i;
        }
        this.rmaFreeCount = SLOTS;
    }

    /**
     * Release a write slot whose stream ended without its answer (its initiator died or its chunks were refused).
     *
     * @param slot the slot; out of range is ignored.
     */
    void releaseSlot(final int slot)
    {
        if (slot >= 0 && slot < SLOTS)
        {
            rmaFree[rmaFreeCount++] = slot;
        }
    }

    /**
     * @param slot a write slot.
     * @return the frame flags of the WRITE_RTS that took it.
     */
    long frameFlags(final int slot)
    {
        return rmaFrameFlags[slot];
    }

    /**
     * The last chunk of a streamed write arrived for an endpoint that closed: answer its initiator with
     * {@code CLOSED_ENDPOINT_STATUS} and free the slot (target memory keeps the chunks that landed before the close).
     *
     * @param slot          the write slot the chunk names; out of range is ignored.
     * @param endpointIndex the closed endpoint.
     */
    void refuseClosedWrite(final int slot, final int endpointIndex)
    {
        if (slot < 0 || slot >= SLOTS)
        {
            return;
        }
        answers.enqueueAck(FrameDescriptor.OPCODE_RMA_ACK, rmaPeer[slot], endpointIndex, rmaCookie[slot],
            rmaFrameFlags[slot], Flags.RMA | Flags.WRITE, DomainAgent.CLOSED_ENDPOINT_STATUS, 0, 0, 0);
        rmaFree[rmaFreeCount++] = slot;
    }

    boolean onRmaFrame(
        final byte opcode, final EndpointState ep, final DirectBuffer buffer, final int offset, final long frameFlags)
    {
        final long srcKey = in.srcKey();
        final long cookie = in.cookie();
        final long length = in.length();
        final long data = in.data();
        switch (opcode)
        {
            case FrameDescriptor.OPCODE_WRITE:
            {
                final CompletionRing cq = ep.rxCq;
                final boolean remoteData = (frameFlags & FrameDescriptor.FLAG_REMOTE_CQ_DATA) != 0;
                if (answers.isFull())
                {
                    return false;
                }
                if (remoteData && null != cq && !CreditFlow.reserveRemoteData(cq))
                {
                    // No room for the target's completion: the write is refused (memory untouched), never left in
                    // the ring in front of other peers' requests; the initiator's completion fails with EAGAIN.
                    answers.enqueueAck(FrameDescriptor.OPCODE_RMA_ACK, srcKey, ep.index, cookie, frameFlags,
                        Flags.RMA | Flags.WRITE, Errno.EAGAIN.value(), length, 0, 0);
                    return true;
                }
                // MR check of every range before touching target memory: bad key EINVAL, rights or bounds EACCES.
                final long raw;
                int payloadAt = in.rmaPayloadOffset();
                if ((frameFlags & FrameDescriptor.FLAG_REMOTE_IOV) != 0)
                {
                    raw = remoteRanges.verifyRemoteList(buffer, payloadAt, length, Flags.REMOTE_WRITE, 1);
                    payloadAt = FrameLists.skipRemoteList(buffer, payloadAt);
                }
                else
                {
                    final long address = registry.verify(in.rmaKey(),
                        in.rmaAddress(), length, Flags.REMOTE_WRITE);
                    remoteRanges.address[0] = address;
                    remoteRanges.length[0] = length;
                    raw = address < 0 ? address : 1;
                }
                if (raw < 0 && remoteData && null != cq)
                {
                    cq.release(1);
                }
                if (raw >= 0)
                {
                    FrameLists.scatter(buffer.addressOffset() + payloadAt, length, remoteRanges.address,
                        remoteRanges.length, 0, (int) raw);
                    if (remoteData && null != cq)
                    {
                        cq.write(0, Flags.REMOTE_WRITE | Flags.RMA | Flags.REMOTE_CQ_DATA, length, 0, data, 0,
                            DomainAgent.ADDR_NOTAVAIL);
                    }
                    if (null != ep.remoteWriteCounter)
                    {
                        ep.remoteWriteCounter.add(1);
                    }
                }
                answers.enqueueAck(FrameDescriptor.OPCODE_RMA_ACK, srcKey, ep.index, cookie, frameFlags,
                    Flags.RMA | Flags.WRITE, raw < 0 ? -raw : 0, length, 0, 0);
                return true;
            }
            case FrameDescriptor.OPCODE_READ_REQ:
            {
                if (answers.isFull())
                {
                    return false;
                }
                if ((frameFlags & FrameDescriptor.FLAG_STREAM) != 0)
                {
                    return rendezvous.onStreamedRead(ep, buffer, offset, frameFlags, srcKey, cookie, length);
                }
                final long raw = registry.verify(in.rmaKey(),
                    in.rmaAddress(), length, Flags.REMOTE_READ);
                if (raw >= 0 && null != ep.remoteReadCounter)
                {
                    ep.remoteReadCounter.add(1);
                }
                // The response's payload is copied from the registered memory when the answer is sent.
                answers.enqueueAck(FrameDescriptor.OPCODE_READ_RESP, srcKey, ep.index, cookie, frameFlags, data,
                    raw < 0 ? -raw : 0, length, raw < 0 ? 0 : raw, raw < 0 ? 0 : (int) length);
                return true;
            }
            case FrameDescriptor.OPCODE_ATOMIC:
                return atomicTarget.onAtomicFrame(ep, buffer, offset, frameFlags, srcKey, cookie, length, data);
            case FrameDescriptor.OPCODE_ATOMIC_RESP:
            case FrameDescriptor.OPCODE_READ_RESP:
            case FrameDescriptor.OPCODE_RMA_ACK:
                return completion.onRmaAnswer(opcode, ep, frameFlags, cookie, (int) data, buffer, offset, length);
            default:
                return true;
        }
    }

    /**
     * A streamed RMA write request at its target: check every remote range first (all-or-nothing); a failure
     * answers the initiator at once (RMA_ACK with the error, target untouched); otherwise keep a write slot and
     * ask for the data (CTS with the initiator's segments echoed and the raw target ranges).
     */
    boolean onWriteRequest(
        final EndpointState ep, final DirectBuffer buffer, final int offset, final long frameFlags)
    {
        if (answers.isFull() || 0 == rmaFreeCount)
        {
            return false;
        }
        final long srcKey = in.srcKey();
        final long cookie = in.cookie();
        final long length = in.length();
        final int at = in.rmaPayloadOffset();
        final int ranges = remoteRanges.verifyRemoteList(buffer, FrameLists.skipSegments(buffer, at), length,
            Flags.REMOTE_WRITE, 1);
        if (ranges < 0)
        {
            answers.enqueueAck(FrameDescriptor.OPCODE_RMA_ACK, srcKey, ep.index, cookie, frameFlags,
                Flags.RMA | Flags.WRITE,
                -ranges, length, 0, 0);
            return true;
        }
        final boolean remoteData = (frameFlags & FrameDescriptor.FLAG_REMOTE_CQ_DATA) != 0;
        if (remoteData && null != ep.rxCq && !CreditFlow.reserveRemoteData(ep.rxCq))
        {
            // As for a single-frame write: no room for the target's completion, refused before any data moves.
            answers.enqueueAck(FrameDescriptor.OPCODE_RMA_ACK, srcKey, ep.index, cookie, frameFlags,
                Flags.RMA | Flags.WRITE,
                Errno.EAGAIN.value(), length, 0, 0);
            return true;
        }
        final boolean direct = (!remoteData || null == ep.rxCq || ep.rxCq.hasSpace()) &&
            writeDirect(srcKey, buffer, at, length, ranges);
        final int slot = rmaFree[--rmaFreeCount];
        rmaPeer[slot] = srcKey;
        rmaCookie[slot] = cookie;
        rmaFrameFlags[slot] = frameFlags;
        rmaData[slot] = in.data();
        rmaLength[slot] = length;
        if (direct)
        {
            // Single copy from the initiator's shared memory: no CTS, no RDATA; the RMA_ACK completes the write.
            finishWrite(ep, slot);
            return true;
        }
        final int ackSlot = answers.nextSlot();
        final UnsafeBuffer s = answers.scratch();
        final int start = ackSlot * answers.scratchStride();
        final int srcBytes = FrameLists.skipSegments(buffer, at) - at;
        s.putBytes(start, buffer, at, srcBytes);
        s.putLong(start, FrameLists.count(buffer, at));
        int p = start + srcBytes;
        s.putLong(p, ranges);
        p += FrameDescriptor.LIST_COUNT_LENGTH;
        for (int k = 0; k < ranges; k++)
        {
            s.putLong(p, remoteRanges.address[k]);
            s.putLong(p + 8, remoteRanges.length[k]);
            p += FrameDescriptor.SEGMENT_LENGTH;
        }
        answers.enqueueAck(FrameDescriptor.OPCODE_CTS, srcKey, ep.index, cookie,
            frameFlags | FrameDescriptor.FLAG_RMA_WRITE,
            0, slot, length, s.addressOffset() + start, p - start);
        return true;
    }

    /**
     * A checked streamed RMA write whose source segments ({@code at}: the initiator's list) are all directly readable
     * here ({@link DomainTransport#directAddress}): copy them into the target ranges ({@link #remoteRanges.address},
     * {@link #remoteRanges.length}, already verified against the MR) and report true; otherwise copy nothing.
     */
    private boolean writeDirect(
        final long srcKey, final DirectBuffer buffer, final int at, final long length, final int ranges)
    {
        final long[] src = directSource;
        final long[] srcLength = directSourceLength;
        final int count = FrameLists.readSegments(buffer, at, src, srcLength, 0);
        long left = length;
        int used = 0;
        for (int k = 0; k < count && left > 0; k++)
        {
            final long n = Math.min(left, srcLength[k]);
            if (n > 0)
            {
                final long local = transport.directAddress(srcKey, src[k], n);
                if (0 == local)
                {
                    return false;
                }
                src[used] = local;
                srcLength[used] = n;
                used++;
                left -= n;
            }
        }
        if (0 == used || left > 0)
        {
            return false;
        }
        // Two cursors: a copy never crosses a segment of either side.
        int s = 0;
        long sAt = 0;
        for (int d = 0; d < ranges && s < used; d++)
        {
            final long room = remoteRanges.length[d];
            long dAt = 0;
            while (dAt < room && s < used)
            {
                final long n = Math.min(room - dAt, srcLength[s] - sAt);
                UnsafeApi.copyMemory(src[s] + sAt, remoteRanges.address[d] + dAt, n);
                dAt += n;
                sAt += n;
                if (sAt == srcLength[s])
                {
                    s++;
                    sAt = 0;
                }
            }
        }
        return true;
    }

    /**
     * The last chunk of a streamed RMA write arrived: complete it as a single-frame write completes.
     */
    void finishWrite(final EndpointState ep, final int slot)
    {
        final long frameFlags = rmaFrameFlags[slot];
        final CompletionRing cq = ep.rxCq;
        if ((frameFlags & FrameDescriptor.FLAG_REMOTE_CQ_DATA) != 0 && null != cq)
        {
            cq.write(0, Flags.REMOTE_WRITE | Flags.RMA | Flags.REMOTE_CQ_DATA, rmaLength[slot], 0, rmaData[slot], 0,
                DomainAgent.ADDR_NOTAVAIL);
        }
        if (null != ep.remoteWriteCounter)
        {
            ep.remoteWriteCounter.add(1);
        }
        answers.enqueueAck(FrameDescriptor.OPCODE_RMA_ACK, rmaPeer[slot], ep.index, rmaCookie[slot], frameFlags,
            Flags.RMA | Flags.WRITE, 0, rmaLength[slot], 0, 0);
        rmaFree[rmaFreeCount++] = slot;
    }
}
