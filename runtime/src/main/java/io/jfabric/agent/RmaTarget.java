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
    /** Streamed RMA writes this agent can be the target of at once when the domain opens (the table doubles). */
    static final int SLOTS = 64;
    /**
     * Most streamed RMA writes at once: the slots double up to this many when writes from peers that do not read
     * (their rings full, so the CTS cannot leave) hold them. A peer endpoint has at most
     * {@link FlowControl#requests()} requests outstanding per endpoint of ours.
     */
    static final int MAX_SLOTS = 1 << 14;
    private final FrameFlyweight in;
    private final DomainTransport transport;
    private final MemoryRegistry registry;
    private final int chunk;
    // Streamed RMA writes this agent is the target of, between its CTS and the last RDATA chunk.
    private int slots = SLOTS;
    private long[] rmaPeer = new long[SLOTS];
    private long[] rmaCookie = new long[SLOTS];
    private long[] rmaFrameFlags = new long[SLOTS];
    private long[] rmaData = new long[SLOTS];
    private long[] rmaLength = new long[SLOTS];
    private int[] rmaFree = new int[SLOTS];
    /** The keys of each slot's remote ranges ({@link DomainAgent#MAX_IOV} per slot) and how many. */
    private long[] rmaKeys = new long[SLOTS * DomainAgent.MAX_IOV];
    private int[] rmaKeyCount = new int[SLOTS];
    /** Per slot: 0 while the write may land, else the errno its last chunk answers (a region closed under it). */
    private int[] rmaFailed = new int[SLOTS];
    /** Per slot: taken by a write in progress. */
    private boolean[] rmaBusy = new boolean[SLOTS];
    private int rmaFreeCount;
    // Scratch of writeDirect: the initiator's segments as mapped here.
    private final long[] directSource = new long[DomainAgent.MAX_IOV];
    private final long[] directSourceLength = new long[DomainAgent.MAX_IOV];
    AnswerQueue answers;
    RemoteRanges remoteRanges;
    Rendezvous rendezvous;
    AtomicTarget atomicTarget;
    TransmitCompletion completion;
    RegionCounters regionCounters;

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
     * @return write slots now (slot numbers below this are valid).
     */
    int slots()
    {
        return slots;
    }

    /**
     * A free write slot, doubling the table (slot numbers stay valid) when none is free, up to {@link #MAX_SLOTS}.
     * The only allocation, off the steady state: only writes from peers whose rings stay full fill it.
     *
     * @return false when every slot is taken at the largest size.
     */
    private boolean slotRoom()
    {
        if (rmaFreeCount > 0)
        {
            return true;
        }
        if (slots >= MAX_SLOTS)
        {
            return false;
        }
        final int old = slots;
        slots = old * 2;
        rmaPeer = java.util.Arrays.copyOf(rmaPeer, slots);
        rmaCookie = java.util.Arrays.copyOf(rmaCookie, slots);
        rmaFrameFlags = java.util.Arrays.copyOf(rmaFrameFlags, slots);
        rmaData = java.util.Arrays.copyOf(rmaData, slots);
        rmaLength = java.util.Arrays.copyOf(rmaLength, slots);
        rmaKeys = java.util.Arrays.copyOf(rmaKeys, slots * DomainAgent.MAX_IOV);
        rmaKeyCount = java.util.Arrays.copyOf(rmaKeyCount, slots);
        rmaFailed = java.util.Arrays.copyOf(rmaFailed, slots);
        rmaBusy = java.util.Arrays.copyOf(rmaBusy, slots);
        rmaFree = new int[slots];
        for (int i = 0; i < slots - old; i++)
        {
            rmaFree[i] = slots - 1 - i;
        }
        rmaFreeCount = slots - old;
        return true;
    }

    /**
     * Release a write slot whose stream ended without its answer (its initiator died or its chunks were refused).
     *
     * @param slot the slot; out of range is ignored.
     */
    void releaseSlot(final int slot)
    {
        if (slot >= 0 && slot < slots && rmaBusy[slot])
        {
            free(slot);
        }
    }

    /**
     * @param slot a write slot; out of range is false.
     * @param peer a peer endpoint's key.
     * @return true when {@code slot} holds a streamed write of {@code peer}.
     */
    boolean heldFor(final int slot, final long peer)
    {
        return slot >= 0 && slot < slots && rmaBusy[slot] && rmaPeer[slot] == peer;
    }

    private void free(final int slot)
    {
        rmaBusy[slot] = false;
        rmaFailed[slot] = 0;
        rmaFree[rmaFreeCount++] = slot;
    }

    /**
     * A memory region closed ({@code fi_close} on the MR, handled on this agent before its caller returns): every
     * streamed write in progress into it fails. Its remaining chunks are dropped, nothing more is written into the
     * region's memory, and the last chunk answers the initiator with {@code EINVAL} (the key is no longer valid,
     * as for a write that arrives after the close).
     *
     * @param key the closed region's key.
     * @return writes failed.
     */
    int onRegionClosed(final long key)
    {
        int failed = 0;
        for (int slot = 0; slot < slots; slot++)
        {
            if (!rmaBusy[slot] || 0 != rmaFailed[slot])
            {
                continue;
            }
            final int base = slot * DomainAgent.MAX_IOV;
            for (int k = 0; k < rmaKeyCount[slot]; k++)
            {
                if (rmaKeys[base + k] == key)
                {
                    rmaFailed[slot] = Errno.EINVAL.value();
                    failed++;
                    break;
                }
            }
        }
        return failed;
    }

    /**
     * @param slot a write slot in use.
     * @return true while the chunks of the write in {@code slot} may land (no region under it closed).
     */
    boolean landing(final int slot)
    {
        return 0 == rmaFailed[slot];
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
        if (slot < 0 || slot >= slots || !rmaBusy[slot])
        {
            return;
        }
        answers.enqueueAck(FrameDescriptor.OPCODE_RMA_ACK, rmaPeer[slot], endpointIndex, rmaCookie[slot],
            rmaFrameFlags[slot], Flags.RMA | Flags.WRITE, DomainAgent.CLOSED_ENDPOINT_STATUS, 0, 0, 0);
        free(slot);
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
                    if (null != ep.remoteWriteCounter)
                    {
                        ep.remoteWriteCounter.add(1);
                    }
                    if ((frameFlags & FrameDescriptor.FLAG_REMOTE_IOV) != 0)
                    {
                        regionCounters.countList(buffer, in.rmaPayloadOffset(), Flags.REMOTE_WRITE);
                    }
                    else
                    {
                        regionCounters.count(in.rmaKey(), Flags.REMOTE_WRITE);
                    }
                    if (remoteData && null != cq)
                    {
                        cq.write(0, Flags.REMOTE_WRITE | Flags.RMA | Flags.REMOTE_CQ_DATA, length, 0, data, 0,
                            DomainAgent.ADDR_NOTAVAIL);
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
                if (raw >= 0)
                {
                    regionCounters.count(in.rmaKey(), Flags.REMOTE_READ);
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
        if (answers.isFull() || !slotRoom())
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
        rmaBusy[slot] = true;
        rmaFailed[slot] = 0;
        // The keys of its ranges: closing one of those regions fails the rest of this write (onRegionClosed).
        final int list = FrameLists.skipSegments(buffer, at);
        final int keys = Math.min(DomainAgent.MAX_IOV, FrameLists.count(buffer, list));
        for (int k = 0; k < keys; k++)
        {
            rmaKeys[slot * DomainAgent.MAX_IOV + k] = FrameLists.remoteKey(buffer, list, k);
        }
        rmaKeyCount[slot] = keys;
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
        final int failed = rmaFailed[slot];
        if (0 != failed)
        {
            // A region under it closed mid-stream: no target completion (its reservation goes back), the
            // initiator's write fails.
            if ((frameFlags & FrameDescriptor.FLAG_REMOTE_CQ_DATA) != 0 && null != cq)
            {
                cq.release(1);
            }
            answers.enqueueAck(FrameDescriptor.OPCODE_RMA_ACK, rmaPeer[slot], ep.index, rmaCookie[slot], frameFlags,
                Flags.RMA | Flags.WRITE, failed, rmaLength[slot], 0, 0);
            free(slot);
            return;
        }
        if (null != ep.remoteWriteCounter)
        {
            ep.remoteWriteCounter.add(1);
        }
        regionCounters.countKeys(rmaKeys, slot * DomainAgent.MAX_IOV, rmaKeyCount[slot], Flags.REMOTE_WRITE);
        if ((frameFlags & FrameDescriptor.FLAG_REMOTE_CQ_DATA) != 0 && null != cq)
        {
            cq.write(0, Flags.REMOTE_WRITE | Flags.RMA | Flags.REMOTE_CQ_DATA, rmaLength[slot], 0, rmaData[slot], 0,
                DomainAgent.ADDR_NOTAVAIL);
        }
        answers.enqueueAck(FrameDescriptor.OPCODE_RMA_ACK, rmaPeer[slot], ep.index, rmaCookie[slot], frameFlags,
            Flags.RMA | Flags.WRITE, 0, rmaLength[slot], 0, 0);
        free(slot);
    }
}
