package io.jfabric.agent;

import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.matching.MatchResult;
import io.jfabric.ring.CompletionRing;
import io.jfabric.spi.DomainTransport;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Part of the domain agent: rendezvous and streams. A matched RTS is pulled (directly from a mapped sender, or by
 * a CTS and the sender's RDATA chunks) and answered by a FIN; this side streams the chunks peers ask for (rendezvous
 * data after their CTS, streamed RMA write data, streamed RMA read data), oldest stream first, a bounded number per
 * duty cycle.
 * <p>
 * Threading: single-threaded, owned by its domain agent's duty cycle ({@link DomainAgent}); package-private.
 */
final class Rendezvous
{
    /** Streams this agent can send at once when the domain opens (the table doubles when full). */
    static final int PULL_CAPACITY = 64;
    /**
     * Most streams at once: the table doubles up to this many when streams to peers that do not read (their rings
     * full) fill it. A peer endpoint asks for at most {@link FlowControl#requests()} of them per endpoint of ours (its
     * streamed reads; our rendezvous sends and streamed writes it pulls are bounded by our own window to it).
     */
    static final int MAX_PULLS = 1 << 14;
    /** Most data chunks one duty cycle sends (4 MiB at 256 KiB): a large stream never stalls the other work. */
    static final int CHUNKS_PER_CYCLE = 16;
    private final DomainTransport transport;
    private final FrameFlyweight in;
    private final int chunk;
    private final UnsafeBuffer header =
        new UnsafeBuffer(ByteBuffer.allocateDirect(FrameDescriptor.RMA_HEADER_LENGTH + DomainAgent.REMOTE_LIST_MAX));
    /** Encodes this part's frames into {@link #header}. */
    private final FrameFlyweight out = new FrameFlyweight().wrapForEncode(header, 0);
    private final UnsafeBuffer payloadView = new UnsafeBuffer(0, 0);
    // Scratch of pullDirect: the sender's segments as mapped here.
    private final long[] directSource = new long[DomainAgent.MAX_IOV];
    private final long[] directSourceLength = new long[DomainAgent.MAX_IOV];
    // Streams this agent sends (rendezvous data, RMA write data, RMA read data): a FIFO of pullCapacity.
    private int pullCapacity;
    private long[] pullPeer;
    private long[] pullRemaining;
    private long[] pullSlot;
    private long[] pullCookie;
    private long[] pullFlags;
    private int[] pullEndpoint;
    private long[] pullSrcAddress;
    private long[] pullSrcLength;
    private int[] pullSrcCount;
    private int[] pullSrcIndex;
    private long[] pullSrcPosition;
    private long[] pullDstAddress;
    private long[] pullDstLength;
    private int[] pullDstCount;
    private int[] pullDstIndex;
    private long[] pullDstPosition;
    /** Per stream serving a peer's read: the keys of the regions it reads ({@link DomainAgent#MAX_IOV} each). */
    private long[] pullKeys;
    private int[] pullKeyCount;
    private int pullHead;
    private int pullCount;
    FrameOutbox outbox;
    AnswerQueue answers;
    RemoteRanges remoteRanges;
    TransmitCompletion completion;
    RmaTarget rmaTarget;
    MessageReceiver receiver;
    CommandAdapter commands;
    CreditFlow flow;
    OwedRequests owed;
    RegionCounters regionCounters;

    /** Writes received messages' completions (FI_SOURCE_ERR, the provider's multi-recv reporting). */
    private final ReceiveCompletions receiveCompletions;

    Rendezvous(
        final DomainTransport transport,
        final FrameFlyweight in,
        final int chunk,
        final ReceiveCompletions receiveCompletions)
    {
        this.receiveCompletions = receiveCompletions;
        this.transport = transport;
        this.in = in;
        this.chunk = chunk;
        allocatePulls(PULL_CAPACITY);
    }

    private void allocatePulls(final int slots)
    {
        pullCapacity = slots;
        pullPeer = new long[slots];
        pullRemaining = new long[slots];
        pullSlot = new long[slots];
        pullCookie = new long[slots];
        pullFlags = new long[slots];
        pullEndpoint = new int[slots];
        pullSrcAddress = new long[slots * DomainAgent.MAX_IOV];
        pullSrcLength = new long[slots * DomainAgent.MAX_IOV];
        pullSrcCount = new int[slots];
        pullSrcIndex = new int[slots];
        pullSrcPosition = new long[slots];
        pullDstAddress = new long[slots * DomainAgent.MAX_IOV];
        pullDstLength = new long[slots * DomainAgent.MAX_IOV];
        pullDstCount = new int[slots];
        pullDstIndex = new int[slots];
        pullDstPosition = new long[slots];
        pullKeys = new long[slots * DomainAgent.MAX_IOV];
        pullKeyCount = new int[slots];
    }

    /**
     * Room for one more stream: the table doubles (streams keep their order) when full, up to {@link #MAX_PULLS}.
     * The only allocation, off the steady state: only streams to peers whose rings stay full fill it.
     *
     * @return false when the table is full at its largest.
     */
    private boolean pullRoom()
    {
        if (pullCount < pullCapacity)
        {
            return true;
        }
        if (pullCapacity >= MAX_PULLS)
        {
            return false;
        }
        final int old = pullCapacity;
        final long[] peer = pullPeer;
        final long[] remaining = pullRemaining;
        final long[] slot = pullSlot;
        final long[] cookie = pullCookie;
        final long[] flags = pullFlags;
        final int[] endpoint = pullEndpoint;
        final long[] srcAddress = pullSrcAddress;
        final long[] srcLength = pullSrcLength;
        final int[] srcCount = pullSrcCount;
        final int[] srcIndex = pullSrcIndex;
        final long[] srcPosition = pullSrcPosition;
        final long[] dstAddress = pullDstAddress;
        final long[] dstLength = pullDstLength;
        final int[] dstCount = pullDstCount;
        final int[] dstIndex = pullDstIndex;
        final long[] dstPosition = pullDstPosition;
        final long[] keys = pullKeys;
        final int[] keyCount = pullKeyCount;
        allocatePulls(old * 2);
        for (int k = 0; k < pullCount; k++)
        {
            final int i = (pullHead + k) % old;
            pullPeer[k] = peer[i];
            pullRemaining[k] = remaining[i];
            pullSlot[k] = slot[i];
            pullCookie[k] = cookie[i];
            pullFlags[k] = flags[i];
            pullEndpoint[k] = endpoint[i];
            System.arraycopy(srcAddress, i * DomainAgent.MAX_IOV, pullSrcAddress, k * DomainAgent.MAX_IOV,
                DomainAgent.MAX_IOV);
            System.arraycopy(srcLength, i * DomainAgent.MAX_IOV, pullSrcLength, k * DomainAgent.MAX_IOV,
                DomainAgent.MAX_IOV);
            pullSrcCount[k] = srcCount[i];
            pullSrcIndex[k] = srcIndex[i];
            pullSrcPosition[k] = srcPosition[i];
            System.arraycopy(dstAddress, i * DomainAgent.MAX_IOV, pullDstAddress, k * DomainAgent.MAX_IOV,
                DomainAgent.MAX_IOV);
            System.arraycopy(dstLength, i * DomainAgent.MAX_IOV, pullDstLength, k * DomainAgent.MAX_IOV,
                DomainAgent.MAX_IOV);
            pullDstCount[k] = dstCount[i];
            pullDstIndex[k] = dstIndex[i];
            pullDstPosition[k] = dstPosition[i];
            System.arraycopy(keys, i * DomainAgent.MAX_IOV, pullKeys, k * DomainAgent.MAX_IOV, DomainAgent.MAX_IOV);
            pullKeyCount[k] = keyCount[i];
        }
        pullHead = 0;
        return true;
    }

    void holdRendezvous(
        final EndpointState ep,
        final int slot,
        final DirectBuffer buffer,
        final int offset,
        final long srcKey,
        final long frameFlags)
    {
        ep.rendezvous[slot] = true;
        ep.rvSenderKey[slot] = srcKey;
        ep.rvSrcCount[slot] = FrameLists.readSegments(buffer, in.rmaPayloadOffset(),
            ep.rvSrcAddress, ep.rvSrcLength, slot * DomainAgent.MAX_IOV);
        ep.rvCookie[slot] = in.cookie();
        ep.rvFrameFlags[slot] = frameFlags;
    }

    /**
     * A rendezvous message matched a receive (this protocol's pull, or an operation-level back-end's rendezvous
     * arrival): keep the receive's completion fields in the rendezvous slot, and its pin until the pull ends (a
     * multi-recv buffer keeps its pin while a pull copies into it, even once it is released).
     */
    static void keepReceive(final EndpointState ep, final int slot, final MatchResult r, final CommandAdapter commands)
    {
        final long address = r.bufferAddress();
        ep.rvContext[slot] = r.context();
        ep.rvFlags[slot] = (r.flags() & (Flags.MSG | Flags.TAGGED | Flags.RECV | Flags.MULTI_RECV)) |
            (MessageReceiver.hasRemoteData(ep, r) ? Flags.REMOTE_CQ_DATA : 0);
        ep.rvLength[slot] = r.length();
        ep.rvBuffer[slot] = ep.bufferOf(address) + r.offset();
        ep.rvTag[slot] = r.tag();
        ep.rvData[slot] = r.data();
        ep.rvSource[slot] = MessageReceiver.source(r);
        ep.rvOverflow[slot] = r.overflow();
        ep.rvReceiveHandle[slot] = r.receiveHandle();
        final int immediatePin = commands.immediatePin();
        if (-1 == r.receiveHandle() && immediatePin >= 0)
        {
            // Matched at post: the pull keeps the receive's pin until it ends.
            ep.receivePins.put(EndpointState.RV_PIN_KEY | slot, immediatePin);
            commands.clearImmediatePin();
        }
        else if (-1 != r.receiveHandle())
        {
            final long pin = ep.receivePins.get(r.receiveHandle());
            if ((pin & EndpointState.MULTI_RECV_PIN) != 0 && -1 != pin)
            {
                // A multi-recv buffer keeps its pin while a pull copies into it, even once it is released.
                ep.receivePins.put(r.receiveHandle(), pin + EndpointState.MULTI_RECV_PULL);
            }
        }
        ep.rvSilent[slot] = MessageReceiver.silent(ep, r);
    }

    /**
     * A rendezvous message matched: remember the receive's completion and ask the sender for the data (CTS).
     */
    void startPull(final EndpointState ep, final int slot, final MatchResult r)
    {
        final long address = r.bufferAddress();
        keepReceive(ep, slot, r, commands);
        if (pullDirect(ep, slot, address, r))
        {
            // Single copy from the sender's shared memory: no CTS, no RDATA; the FIN completes the send.
            finishRendezvous(ep, slot);
            return;
        }
        // CTS payload: the sender's segments (echoed), then this receive's segments cut to the bytes that fit.
        final int ackSlot = answers.nextSlot();
        final UnsafeBuffer s = answers.scratch();
        final int start = ackSlot * answers.scratchStride();
        final int srcCount = ep.rvSrcCount[slot];
        int p = start;
        s.putLong(p, srcCount);
        p += FrameDescriptor.LIST_COUNT_LENGTH;
        for (int k = 0; k < srcCount; k++)
        {
            s.putLong(p, ep.rvSrcAddress[slot * DomainAgent.MAX_IOV + k]);
            s.putLong(p + 8, ep.rvSrcLength[slot * DomainAgent.MAX_IOV + k]);
            p += FrameDescriptor.SEGMENT_LENGTH;
        }
        final int countAt = p;
        p += FrameDescriptor.LIST_COUNT_LENGTH;
        int dstCount = 0;
        long left = r.length();
        if (address >= 0)
        {
            s.putLong(p, address + r.offset());
            s.putLong(p + 8, left);
            p += FrameDescriptor.SEGMENT_LENGTH;
            dstCount = 1;
        }
        else
        {
            final int entry = (int) (address & ~EndpointState.IOV_HANDLE);
            for (int k = 0; k < ep.rxIovCount[entry] && left > 0; k++)
            {
                final long n = Math.min(left, ep.rxIovLength[entry * DomainAgent.MAX_IOV + k]);
                s.putLong(p, ep.rxIovAddress[entry * DomainAgent.MAX_IOV + k]);
                s.putLong(p + 8, n);
                p += FrameDescriptor.SEGMENT_LENGTH;
                left -= n;
                dstCount++;
            }
            ep.releaseRxIov(address);
        }
        s.putLong(countAt, dstCount);
        answers.enqueueAck(FrameDescriptor.OPCODE_CTS, ep.rvSenderKey[slot], ep.slotArrival[slot],
            ep.rvCookie[slot],
            ep.rvFrameFlags[slot], 0, slot, r.length(), s.addressOffset() + start, p - start);
    }

    /**
     * Copy a matched rendezvous message straight from the sender's memory when the transport maps every segment of
     * it here ({@link DomainTransport#directAddress}, for example a shm peer's shared pool): one copy, no data
     * frames. Every segment is checked before the first byte moves; when one is not directly readable nothing is
     * copied and the caller pulls through frames as usual (also for receives into an iov). Callers keep room for
     * the FIN and the completion.
     *
     * @return true when the data has been copied into the receive's buffers.
     */
    private boolean pullDirect(final EndpointState ep, final int slot, final long address, final MatchResult r)
    {
        if (address < 0)
        {
            // A receive iov: no transport with a direct path offers rx iov > 1 yet; pulled through frames.
            return false;
        }
        final int srcCount = ep.rvSrcCount[slot];
        final long peerKey = ep.rvSenderKey[slot];
        final long[] src = directSource;
        final long[] srcLength = directSourceLength;
        long left = r.length();
        int used = 0;
        for (int k = 0; k < srcCount && left > 0; k++)
        {
            final long n = Math.min(left, ep.rvSrcLength[slot * DomainAgent.MAX_IOV + k]);
            if (n > 0)
            {
                final long local = transport.directAddress(peerKey, ep.rvSrcAddress[slot * DomainAgent.MAX_IOV + k], n);
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
        long to = address + r.offset();
        for (int k = 0; k < used; k++)
        {
            UnsafeApi.copyMemory(src[k], to, srcLength[k]);
            to += srcLength[k];
        }
        return true;
    }

    boolean onRendezvousFrame(
        final byte opcode, final EndpointState ep, final DirectBuffer buffer, final int offset, final long frameFlags)
    {
        switch (opcode)
        {
            case FrameDescriptor.OPCODE_CTS:
            {
                if (!pullRoom())
                {
                    return false;
                }
                // Stream the data the peer asked for: from our segments (echoed) into its segments.
                final int i = (pullHead + pullCount) % pullCapacity;
                final int at = in.rmaPayloadOffset();
                pullSrcCount[i] = FrameLists.readSegments(buffer, at, pullSrcAddress, pullSrcLength,
                    i * DomainAgent.MAX_IOV);
                pullDstCount[i] = FrameLists.readSegments(buffer, FrameLists.skipSegments(buffer, at),
                    pullDstAddress, pullDstLength,
                    i * DomainAgent.MAX_IOV);
                pushPull(i, in.srcKey(), ep.index,
                    in.data(),
                    in.cookie(),
                    // FLAG_TAGGED rides along so that a receiver that closed meanwhile answers with the right kind.
                    frameFlags & (FrameDescriptor.FLAG_RMA_WRITE | FrameDescriptor.FLAG_TAGGED),
                    in.length());
                return true;
            }
            case FrameDescriptor.OPCODE_RDATA:
                return onData(ep, buffer, offset, frameFlags);
            case FrameDescriptor.OPCODE_WRITE_RTS:
                return rmaTarget.onWriteRequest(ep, buffer, offset, frameFlags);
            case FrameDescriptor.OPCODE_CREDIT:
                return flow.onCredit(ep, buffer, offset);
            case FrameDescriptor.OPCODE_FIN:
                return completion.onSendAnswer(ep, frameFlags, in.cookie(), in.tag(), in.data());
            default:
                return true;
        }
    }

    private void finishRendezvous(final EndpointState ep, final int slot)
    {
        ep.engine.multiRecvSegmentComplete(ep.rvReceiveHandle[slot]);
        final CompletionRing cq = ep.rxCq;
        if (ep.rvOverflow[slot] > 0)
        {
            if (null != ep.recvCounter)
            {
                ep.recvCounter.addError(1);
            }
            if (null != cq)
            {
                cq.writeError(ep.rvContext[slot], ep.rvFlags[slot], ep.rvLength[slot], ep.rvBuffer[slot],
                    ep.rvData[slot], ep.rvTag[slot], ep.rvOverflow[slot], Errno.ETRUNC.value(), 0, ep.rvSource[slot]);
            }
        }
        else
        {
            receiveCompletions.complete(ep, ep.rvSilent[slot], ep.rvContext[slot], ep.rvFlags[slot],
                ep.rvLength[slot], ep.rvBuffer[slot], ep.rvData[slot], ep.rvTag[slot], ep.rvSource[slot],
                ep.rvSenderKey[slot]);
        }
        answers.enqueueAck(FrameDescriptor.OPCODE_FIN, ep.rvSenderKey[slot], ep.slotArrival[slot],
            ep.rvCookie[slot],
            ep.rvFrameFlags[slot], (ep.rvFrameFlags[slot] & FrameDescriptor.FLAG_TAGGED) != 0 ?
            Flags.TAGGED : Flags.MSG, 0, 0, 0, 0);
        unpinPull(ep, slot);
        flow.freeSlot(ep, slot);
    }

    /**
     * The rendezvous pull into unexpected slot {@code slot} is over: its receive is done with the buffer (a
     * multi-recv buffer only with its last message).
     */
    private void unpinPull(final EndpointState ep, final int slot)
    {
        final long handle = ep.rvReceiveHandle[slot];
        commands.unpinReceive(ep, -1 == handle ? EndpointState.RV_PIN_KEY | slot : handle,
            (ep.rvFlags[slot] & Flags.MULTI_RECV) != 0, true);
    }

    /**
     * A transport reported that the rendezvous transfer into {@code slot} cannot finish (its sender died): the
     * receive completes with {@code status} as an error, and the slot is released. No FIN is sent: there is nobody
     * to send it to.
     */
    void failRendezvous(final EndpointState ep, final int slot, final int status)
    {
        ep.engine.multiRecvSegmentComplete(ep.rvReceiveHandle[slot]);
        final CompletionRing cq = ep.rxCq;
        if (null != ep.recvCounter)
        {
            ep.recvCounter.addError(1);
        }
        if (null != cq)
        {
            // Errors are reported even for receives posted without FI_COMPLETION (selective completion).
            cq.writeError(ep.rvContext[slot], ep.rvFlags[slot], 0, ep.rvBuffer[slot], ep.rvData[slot],
                ep.rvTag[slot], 0, status, 0, ep.rvSource[slot]);
        }
        unpinPull(ep, slot);
        flow.freeSlot(ep, slot);
    }

    /**
     * Queue stream {@code i} (its segment lists already filled) behind the others.
     */
    private void pushPull(
        final int i, final long peer, final int endpoint, final long slot, final long cookie, final long flags,
        final long remaining)
    {
        pullPeer[i] = peer;
        pullEndpoint[i] = endpoint;
        pullSlot[i] = slot;
        pullCookie[i] = cookie;
        pullFlags[i] = flags;
        pullRemaining[i] = remaining;
        pullSrcIndex[i] = 0;
        pullSrcPosition[i] = 0;
        pullDstIndex[i] = 0;
        pullDstPosition[i] = 0;
        if ((flags & FrameDescriptor.FLAG_READ_DATA) == 0)
        {
            pullKeyCount[i] = 0;
        }
        pullCount++;
    }

    /**
     * Stream data for an endpoint that closed after it asked for it (a matched rendezvous receive, or the target
     * of a streamed RMA write): the chunks are dropped, and the last one is answered as the sender waits for it,
     * with {@link #DomainAgent.CLOSED_ENDPOINT_STATUS}: a FIN for a rendezvous send,
         an RMA_ACK for a write (whose slot is
     * freed; target memory keeps the chunks that landed before the close). Read data and failed chunks need no
     * answer.
     *
     * @return false to leave the frame while the answer queue is full.
     */
    boolean refuseClosedStream(final DirectBuffer buffer, final int offset, final long frameFlags)
    {
        if ((frameFlags & FrameDescriptor.FLAG_LAST) == 0 ||
            (frameFlags & (FrameDescriptor.FLAG_READ_DATA | FrameDescriptor.FLAG_FAILED)) != 0)
        {
            return true;
        }
        if (answers.isFull())
        {
            return false;
        }
        final int endpointIndex = in.dstEndpoint();
        if ((frameFlags & FrameDescriptor.FLAG_RMA_WRITE) != 0)
        {
            rmaTarget.refuseClosedWrite((int) in.data(), endpointIndex);
            return true;
        }
        return answers.enqueueAck(FrameDescriptor.OPCODE_FIN, in.srcKey(),
            endpointIndex, in.cookie(), frameFlags,
            (frameFlags & FrameDescriptor.FLAG_TAGGED) != 0 ? Flags.TAGGED : Flags.MSG,
                DomainAgent.CLOSED_ENDPOINT_STATUS, 0, 0,
            0);
    }

    /**
     * An endpoint closes: the streams that read its buffers (rendezvous send data, streamed RMA write data) stop
     * reading them. Each ends with an empty last chunk flagged {@link FrameDescriptor#FLAG_FAILED} carrying
     * {@code ECONNREFUSED}, so the receiver's receive completes with that error instead of waiting (a streamed
     * write's target frees its slot). Streams answering a peer's read come from registered memory and go on.
     */
    void abandonStreams(final int endpointIndex)
    {
        for (int k = 0; k < pullCount; k++)
        {
            final int i = (pullHead + k) % pullCapacity;
            if (pullRemaining[i] >= 0 && pullEndpoint[i] == endpointIndex &&
                (pullFlags[i] & FrameDescriptor.FLAG_READ_DATA) == 0)
            {
                pullSrcCount[i] = 0;
                pullFlags[i] |= FrameDescriptor.FLAG_FAILED;
            }
        }
    }

    /**
     * A memory region closed (on this agent, before its caller returns): the streams serving peers' reads from it
     * read it no more. Each ends with an empty last chunk flagged {@link FrameDescriptor#FLAG_FAILED} carrying
     * {@code EINVAL}, so the initiator's read completes with that error.
     *
     * @param key the closed region's key.
     * @return streams ended.
     */
    int onRegionClosed(final long key)
    {
        int ended = 0;
        for (int k = 0; k < pullCount; k++)
        {
            final int i = (pullHead + k) % pullCapacity;
            if (pullRemaining[i] < 0 || (pullFlags[i] & FrameDescriptor.FLAG_READ_DATA) == 0 ||
                (pullFlags[i] & FrameDescriptor.FLAG_FAILED) != 0)
            {
                continue;
            }
            for (int n = 0; n < pullKeyCount[i]; n++)
            {
                if (pullKeys[i * DomainAgent.MAX_IOV + n] == key)
                {
                    pullSrcCount[i] = 0;
                    pullFlags[i] |= FrameDescriptor.FLAG_FAILED;
                    ended++;
                    break;
                }
            }
        }
        return ended;
    }

    /**
     * Send the chunks of the queued streams (rendezvous data, RMA write data, RMA read data), oldest stream first,
     * as far as the peers' inbound rings take them and at most {@link #CHUNKS_PER_CYCLE} per duty cycle: a full ring
     * stops the flush until the next duty cycle, which bounds the bytes in flight by the peer's ring. A chunk is at
     * most {@link #chunk} bytes and never crosses a segment boundary of either side; it names its destination
     * address, so the receiving agent copies it without any state of its own.
     */
    int flushPulls()
    {
        if (0 == pullCount)
        {
            return 0;
        }
        int sent = 0;
        final UnsafeBuffer h = header;
        outbox.clearBlocked();
        int k = 0;
        // Oldest stream first; a stream whose peer's ring is full holds back only streams to that peer (a stream
        // that ends past it leaves a hole, remaining -1, that the head skips).
        while (k < pullCount && sent < CHUNKS_PER_CYCLE)
        {
            final int i = (pullHead + k) % pullCapacity;
            if (pullRemaining[i] < 0 || outbox.blocked(pullPeer[i]))
            {
                k++;
                continue;
            }
            final int base = i * DomainAgent.MAX_IOV;
            while (pullSrcIndex[i] < pullSrcCount[i] - 1 &&
                pullSrcPosition[i] == pullSrcLength[base + pullSrcIndex[i]])
            {
                pullSrcIndex[i]++;
                pullSrcPosition[i] = 0;
            }
            while (pullDstIndex[i] < pullDstCount[i] - 1 &&
                pullDstPosition[i] == pullDstLength[base + pullDstIndex[i]])
            {
                pullDstIndex[i]++;
                pullDstPosition[i] = 0;
            }
            final long srcLeft = pullSrcCount[i] > 0 ?
                pullSrcLength[base + pullSrcIndex[i]] - pullSrcPosition[i] : 0;
            final long dstLeft = pullDstCount[i] > 0 ?
                pullDstLength[base + pullDstIndex[i]] - pullDstPosition[i] : 0;
            final long remaining = pullRemaining[i];
            final long length = Math.max(0, Math.min(Math.min(remaining, chunk), Math.min(srcLeft, dstLeft)));
            // Lists holding fewer bytes than announced end the stream early rather than never.
            final boolean last = length == remaining || 0 == length;
            final long source = pullSrcCount[i] > 0 ? pullSrcAddress[base + pullSrcIndex[i]] + pullSrcPosition[i] : 0;
            out.version(FrameDescriptor.VERSION);
            out.opcode(FrameDescriptor.OPCODE_RDATA);
            out.dstEndpoint(transport.endpointIndex(pullPeer[i]));
            out.srcKey(transport.localKey(pullEndpoint[i]));
            out.tag(pullDstCount[i] > 0 ?
                pullDstAddress[base + pullDstIndex[i]] + pullDstPosition[i] : 0);
            out.data(pullSlot[i]);
            out.length(length);
            out.flags(pullFlags[i] | (last ? FrameDescriptor.FLAG_LAST : 0));
            out.cookie(pullCookie[i]);
            // An abandoned stream's failed chunk carries the errno where a sequence would be (see OPCODE_RDATA).
            // A read whose region closed fails with EINVAL (its key is no longer valid).
            out.sequence((pullFlags[i] & FrameDescriptor.FLAG_FAILED) != 0 ?
                ((pullFlags[i] & FrameDescriptor.FLAG_READ_DATA) != 0 ? Errno.EINVAL.value() :
                Errno.ECONNREFUSED.value()) : outbox.sequence());
            if (length > 0)
            {
                payloadView.wrap(source, (int) length);
            }
            final int result = outbox.offer(pullPeer[i], pullEndpoint[i], h, FrameDescriptor.HEADER_LENGTH,
                length > 0 ? payloadView : null, 0, (int) length);
            if (0 == result)
            {
                outbox.block(pullPeer[i]);
                k++;
                continue;
            }
            sent++;
            if (last || result < 0)
            {
                if ((pullFlags[i] & FrameDescriptor.FLAG_READ_DATA) != 0 && null != owed)
                {
                    // The last chunk of a streamed read is its final answer.
                    owed.onAnswerSent(FrameDescriptor.OPCODE_READ_RESP, pullEndpoint[i], pullPeer[i]);
                }
                pullRemaining[i] = -1;
                k++;
            }
            else
            {
                pullSrcPosition[i] += length;
                pullDstPosition[i] += length;
                pullRemaining[i] = remaining - length;
            }
        }
        while (pullCount > 0 && pullRemaining[pullHead] < 0)
        {
            pullHead = (pullHead + 1) % pullCapacity;
            pullCount--;
        }
        return sent;
    }

    /**
     * An RDATA chunk: copy it to the address it names; the last chunk finishes the rendezvous receive, the
     * streamed RMA write (target side) or the streamed RMA read (initiator side).
     */
    private boolean onData(final EndpointState ep, final DirectBuffer buffer, final int offset, final long frameFlags)
    {
        if ((frameFlags & FrameDescriptor.FLAG_FAILED) != 0)
        {
            return onFailedData(ep, buffer, offset, frameFlags);
        }
        final boolean last = (frameFlags & FrameDescriptor.FLAG_LAST) != 0;
        if ((frameFlags & FrameDescriptor.FLAG_READ_DATA) != 0)
        {
            final CompletionRing cq = ep.txCq;
            final boolean complete = null != cq && (frameFlags & FrameDescriptor.FLAG_WANT_COMPLETION) != 0;
            if (last && complete && !cq.hasSpace())
            {
                return false;
            }
            copyChunk(buffer, offset);
            if (last)
            {
                ep.outstanding--;
                final long context = ep.finishPinned(in.cookie());
                if (null != ep.readCounter)
                {
                    ep.readCounter.add(1);
                }
                if (complete)
                {
                    cq.write(context, Flags.RMA | Flags.READ, 0, 0, 0, 0, DomainAgent.ADDR_NOTAVAIL);
                }
            }
            return true;
        }
        final int slot = (int) in.data();
        if ((frameFlags & FrameDescriptor.FLAG_RMA_WRITE) != 0)
        {
            if (slot < 0 || slot >= rmaTarget.slots())
            {
                return true;
            }
            final CompletionRing cq = ep.rxCq;
            final boolean remoteData = (rmaTarget.frameFlags(slot) & FrameDescriptor.FLAG_REMOTE_CQ_DATA) != 0;
            if (last && (answers.isFull() || (remoteData && null != cq && !cq.hasSpace())))
            {
                return false;
            }
            // A region under the write closed mid-stream: the chunk is dropped, its memory is no longer ours.
            if (rmaTarget.landing(slot))
            {
                copyChunk(buffer, offset);
            }
            if (last)
            {
                rmaTarget.finishWrite(ep, slot);
            }
            return true;
        }
        // A rendezvous receive's slot lives where the message was matched (a shared receive context, or ep).
        final EndpointState rx = ep.rx;
        final CompletionRing cq = rx.rxCq;
        if (last && (answers.isFull() || (null != cq && (!cq.hasSpace() || !cq.hasErrorSpace()))))
        {
            return false;
        }
        copyChunk(buffer, offset);
        if (last)
        {
            finishRendezvous(rx, slot);
        }
        return true;
    }

    /**
     * A transport reported that the peer holding the data of a streamed transfer died: a rendezvous receive
     * completes with the error; a streamed RMA write at its target releases its slot (the initiator is gone, no
     * answer is due, target memory keeps whatever chunks arrived). Streamed RMA reads fail through a made-up
     * READ_RESP instead.
     */
    private boolean onFailedData(
        final EndpointState ep, final DirectBuffer buffer, final int offset, final long frameFlags)
    {
        if ((frameFlags & FrameDescriptor.FLAG_READ_DATA) != 0)
        {
            // The target ended a streamed read (its region closed): the read fails with the errno carried.
            final CompletionRing cq = ep.txCq;
            if (null != cq && !cq.hasErrorSpace())
            {
                return false;
            }
            ep.outstanding--;
            final long context = ep.finishPinned(in.cookie());
            if (null != ep.readCounter)
            {
                ep.readCounter.addError(1);
            }
            if (null != cq)
            {
                cq.writeError(context, Flags.RMA | Flags.READ, 0, 0, 0, 0, 0, (int) in.sequence(), 0,
                    DomainAgent.ADDR_NOTAVAIL);
            }
            return true;
        }
        final int slot = (int) in.data();
        if ((frameFlags & FrameDescriptor.FLAG_RMA_WRITE) != 0)
        {
            if (slot >= 0 && slot < rmaTarget.slots())
            {
                // The write ended without an answer (its initiator closed its endpoint): it is owed no more.
                final boolean owedByThisPeer = rmaTarget.heldFor(slot, in.srcKey());
                rmaTarget.releaseSlot(slot);
                if (owedByThisPeer && null != owed)
                {
                    owed.onAnswerSent(FrameDescriptor.OPCODE_RMA_ACK, ep.index, in.srcKey());
                }
            }
            return true;
        }
        final CompletionRing cq = ep.rx.rxCq;
        if (null != cq && !cq.hasErrorSpace())
        {
            return false;
        }
        failRendezvous(ep.rx, slot, (int) in.sequence());
        return true;
    }

    private void copyChunk(final DirectBuffer buffer, final int offset)
    {
        final long length = in.length();
        if (length > 0)
        {
            UnsafeApi.copyMemory(in.payloadAddress(),
                in.tag(), length);
        }
    }

    /**
     * A streamed RMA read request at its target: check every remote range first; a failure answers with a
     * READ_RESP carrying the error; otherwise stream the ranges into the initiator's segments (RDATA flagged
     * {@link FrameDescriptor#FLAG_READ_DATA}; the last chunk completes the read there).
     */
    boolean onStreamedRead(
        final EndpointState ep,
        final DirectBuffer buffer,
        final int offset,
        final long frameFlags,
        final long srcKey,
        final long cookie,
        final long length)
    {
        if (!pullRoom())
        {
            return false;
        }
        final int at = in.rmaPayloadOffset();
        final int ranges = remoteRanges.verifyRemoteList(buffer, FrameLists.skipSegments(buffer, at), length,
            Flags.REMOTE_READ, 1);
        if (ranges < 0)
        {
            answers.enqueueAck(FrameDescriptor.OPCODE_READ_RESP, srcKey, ep.index, cookie, frameFlags, 0, -ranges, 0,
                0, 0);
            return true;
        }
        if (null != ep.remoteReadCounter)
        {
            ep.remoteReadCounter.add(1);
        }
        regionCounters.countList(buffer, FrameLists.skipSegments(buffer, at), Flags.REMOTE_READ);
        final int i = (pullHead + pullCount) % pullCapacity;
        for (int k = 0; k < ranges; k++)
        {
            pullSrcAddress[i * DomainAgent.MAX_IOV + k] = remoteRanges.address[k];
            pullSrcLength[i * DomainAgent.MAX_IOV + k] = remoteRanges.length[k];
        }
        // The keys it reads: closing one of those regions ends the stream (onRegionClosed).
        final int list = FrameLists.skipSegments(buffer, at);
        final int keys = Math.min(DomainAgent.MAX_IOV, FrameLists.count(buffer, list));
        for (int k = 0; k < keys; k++)
        {
            pullKeys[i * DomainAgent.MAX_IOV + k] = FrameLists.remoteKey(buffer, list, k);
        }
        pullKeyCount[i] = keys;
        pullSrcCount[i] = ranges;
        pullDstCount[i] = FrameLists.readSegments(buffer, at, pullDstAddress, pullDstLength, i * DomainAgent.MAX_IOV);
        pushPull(i, srcKey, ep.index, 0, cookie,
            FrameDescriptor.FLAG_READ_DATA | (frameFlags & FrameDescriptor.FLAG_WANT_COMPLETION), length);
        return true;
    }
}
