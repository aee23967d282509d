package io.jfabric.agent;

import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.matching.MatchFlags;
import io.jfabric.matching.MatchResult;
import io.jfabric.matching.MatchStatus;
import io.jfabric.ring.CompletionRing;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.collections.Long2LongHashMap;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Part of the domain agent: every arriving frame is dispatched here ({@link #onFrame}); messages (eager and
 * rendezvous requests) are matched through the endpoint's matching engine, copied into the receive's buffers or
 * stored as unexpected within the sender's credit, and completed; requests for a closed endpoint are answered with
 * {@code ECONNREFUSED}.
 * <p>
 * Threading: single-threaded, owned by its domain agent's duty cycle ({@link DomainAgent}); package-private.
 */
final class MessageReceiver
{
    private final AtomicReferenceArray<EndpointState> endpoints;
    private final Long2LongHashMap[] avReverse;
    private final MatchResult result;
    private final FrameFlyweight in;
    private long refused;
    AnswerQueue answers;
    CreditFlow flow;
    Rendezvous rendezvous;
    RmaTarget rmaTarget;
    TransmitCompletion completion;
    CommandAdapter commands;
    OwedRequests owed;
    /** An operation-level domain's rendezvous arrivals (null for a frame transport). */
    OperationArrivals arrivals;

    /** Writes received messages' completions (FI_SOURCE_ERR, the provider's multi-recv reporting). */
    private final ReceiveCompletions receiveCompletions;

    MessageReceiver(
        final AtomicReferenceArray<EndpointState> endpoints,
        final Long2LongHashMap[] avReverse,
        final MatchResult result,
        final FrameFlyweight in,
        final ReceiveCompletions receiveCompletions)
    {
        this.receiveCompletions = receiveCompletions;
        this.endpoints = endpoints;
        this.avReverse = avReverse;
        this.result = result;
        this.in = in;
    }

    /**
     * @return messages refused because their sender was over its credit or the store was full.
     */
    long refused()
    {
        return refused;
    }

    boolean onFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        in.wrap(buffer, offset);
        final byte opcode = in.opcode();
        final EndpointState ep = endpoints.get(in.dstEndpoint());
        // The target side of the request window: a request this endpoint must answer is taken only while its peer
        // has fewer than the bound awaiting answers here; beyond, the peer ignores its window and the request is
        // dropped (counted, reported), so no table grows for it. A held arrival replayed was counted when it came.
        if (null != ep && null != owed && !flow.replayingHeld() && OwedRequests.answered(opcode, in.flags()))
        {
            final PeerAccount account = flow.inboundAccount(ep, in.srcKey());
            if (!owed.take(account))
            {
                return true;
            }
            if (!onArrival(buffer, offset, length))
            {
                OwedRequests.untake(account);
                return false;
            }
            return true;
        }
        return onArrival(buffer, offset, length);
    }

    private boolean onArrival(final DirectBuffer buffer, final int offset, final int length)
    {
        in.wrap(buffer, offset);
        final byte opcode = in.opcode();
        final EndpointState ep = endpoints.get(in.dstEndpoint());
        if (null == ep)
        {
            // The destination endpoint is closed: requests that wait for an answer get one with an error.
            return refuseClosed(opcode, buffer, offset);
        }
        final long frameFlags = in.flags();
        if (opcode >= FrameDescriptor.OPCODE_CTS)
        {
            return rendezvous.onRendezvousFrame(opcode, ep, buffer, offset, frameFlags);
        }
        if (opcode >= FrameDescriptor.OPCODE_WRITE && FrameDescriptor.OPCODE_RTS != opcode)
        {
            return rmaTarget.onRmaFrame(opcode, ep, buffer, offset, frameFlags);
        }
        if (FrameDescriptor.OPCODE_ACK == opcode)
        {
            return completion.onSendAnswer(ep, frameFlags, in.cookie(), in.tag(), in.data());
        }

        // A shared receive context (fi_srx_context) matches, stores and completes; answers and credit stay ep's.
        final EndpointState rx = ep.rx;
        final CompletionRing cq = rx.rxCq;
        // Receives reserve their completion at post time, so a match normally has room; only unreserved
        // completions (multi-recv segments, deferred tsearch answers) can fill the ring. Then the message waits in
        // this endpoint's held FIFO, not at the head of the domain's inbound ring in front of every other peer and
        // every RMA; later arrivals for the endpoint queue behind it (arrival order is kept).
        if (!flow.replayingHeld() && null != ep.held && ep.held.deferredCount > 0)
        {
            return flow.hold(ep, buffer, offset, length);
        }
        if ((null != cq && (!cq.hasSpace() || !cq.hasErrorSpace())) || answers.isFull())
        {
            return !flow.replayingHeld() && flow.hold(ep, buffer, offset, length);
        }
        final int slot = rx.allocateSlot();
        if (slot < 0)
        {
            return false;
        }
        rx.slotArrival[slot] = ep.index;
        // The payload handle is the slot: it also carries whether the sender attached remote CQ data.
        rx.remoteData[slot] = (frameFlags & FrameDescriptor.FLAG_REMOTE_CQ_DATA) != 0;
        final boolean rts = FrameDescriptor.OPCODE_RTS == opcode;
        final boolean tagged = FrameDescriptor.OPCODE_TAGGED == opcode ||
            (rts && (frameFlags & FrameDescriptor.FLAG_TAGGED) != 0);
        final long srcKey = in.srcKey();
        final long tag = in.tag();
        final long data = in.data();
        final long messageLength = in.length();
        // Flow control: the message is charged to its sender's account until it leaves the slot. It may be stored
        // only within the sender's credit and the store's bounds; a posted receive that matches always gets it.
        // A datagram endpoint's arrival (its senders spend no credit) is charged to nobody either: kept within the
        // store's bounds, else dropped and counted (RUNTIME.md, "Datagram endpoints and multicast").
        final PeerAccount account = ep.datagram ? null : flow.inboundAccount(ep, srcKey);
        final long charge = rts ? 0 : messageLength;
        // A frame an earlier incarnation of the sender left behind is charged to nobody (its slot's epoch differs
        // from the account's, so consuming it returns no credit): it is stored within the store's bounds only.
        final boolean current = null != account && flow.arrivalEpoch() == account.inEpoch;
        final boolean mayQueue = (!current || account.arrived - account.consumed < flow.credits() &&
            account.arrivedBytes - account.consumedBytes + charge <= flow.creditBytes()) &&
            (rts || rx.store.canAllocate(messageLength));
        if (current)
        {
            account.arrived++;
            account.arrivedBytes += charge;
        }
        rx.slotAccount[slot] = account;
        rx.slotEpoch[slot] = flow.arrivalEpoch();
        rx.slotCharge[slot] = charge;
        final MatchResult r = result;
        final int status = match(avReverse, ep, rx, srcKey, tagged, tag, messageLength, data, slot, mayQueue, r);
        final int payloadOffset = in.payloadOffset();
        switch (status)
        {
            case MatchStatus.MATCHED:
                if (rts)
                {
                    rendezvous.holdRendezvous(rx, slot, buffer, offset, srcKey, frameFlags);
                    rendezvous.startPull(rx, slot, r);
                    return true;
                }
                flow.freeSlot(rx, slot);
                copyOut(rx, buffer.addressOffset() + payloadOffset, r);
                complete(rx, r);
                break;
            case MatchStatus.QUEUED:
                if (rts)
                {
                    rendezvous.holdRendezvous(rx, slot, buffer, offset, srcKey, frameFlags);
                    return true;
                }
                UnsafeApi.copyMemory(buffer.addressOffset() + payloadOffset, rx.storePayload(slot, messageLength),
                    messageLength);
                break;
            case MatchStatus.EAGAIN:
                // No receive matches and the sender is over its credit (or the store is full): refused, never left
                // in the ring. An initiator waiting for an answer gets ENORX; a plain eager message is dropped.
                flow.freeSlot(rx, slot);
                refused++;
                if (rts || (frameFlags & FrameDescriptor.FLAG_ACK_REQUESTED) != 0)
                {
                    answers.enqueueAck(rts ? FrameDescriptor.OPCODE_FIN : FrameDescriptor.OPCODE_ACK, srcKey, ep.index,
                        in.cookie(),
                        rts ? frameFlags : frameFlags & FrameDescriptor.FLAG_WANT_COMPLETION,
                        tagged ? Flags.TAGGED : Flags.MSG, Errno.ENORX.value(), 0, 0, 0);
                }
                return true;
            default:
                flow.freeSlot(rx, slot);
                break;
        }
        if ((frameFlags & FrameDescriptor.FLAG_ACK_REQUESTED) != 0)
        {
            answers.enqueueAck(FrameDescriptor.OPCODE_ACK, srcKey, ep.index,
                in.cookie(),
                frameFlags & FrameDescriptor.FLAG_WANT_COMPLETION, tagged ? Flags.TAGGED : Flags.MSG, 0,
                messageLength, 0, 0);
        }
        return true;
    }

    void deliverFromSlot(final EndpointState ep, final MatchResult r)
    {
        final int slot = (int) r.payloadHandle();
        if (ep.rendezvous[slot])
        {
            if (null != arrivals)
            {
                arrivals.matchedStored(ep, slot, r);
                return;
            }
            rendezvous.startPull(ep, slot, r);
            return;
        }
        copyOut(ep, ep.slotAddress(slot), r);
        flow.freeSlot(ep, slot);
        complete(ep, r);
    }

    void releaseDiscarded(final EndpointState ep, final int slot)
    {
        if (ep.rendezvous[slot] && null != arrivals)
        {
            arrivals.discarded(ep, slot);
            return;
        }
        if (ep.rendezvous[slot])
        {
            // The sender's buffer is no longer needed: finish its send.
            answers.enqueueAck(FrameDescriptor.OPCODE_FIN, ep.rvSenderKey[slot], ep.slotArrival[slot],
                ep.rvCookie[slot], ep.rvFrameFlags[slot], (ep.rvFrameFlags[slot] & FrameDescriptor.FLAG_TAGGED) != 0 ?
                Flags.TAGGED : Flags.MSG, 0, 0, 0, 0);
        }
        flow.freeSlot(ep, slot);
    }

    /**
     * A request frame for an endpoint of this domain that is closed (or never was): answer it as the sender waits
     * for it (ACK of a delivery-complete send, FIN of a rendezvous send, RMA_ACK of a write, READ_RESP of a read,
     * ATOMIC_RESP of an atomic) with status {@link #DomainAgent.CLOSED_ENDPOINT_STATUS},
         so that its operation completes with
     * that error instead of never; other frames (plain sends, answers, stream data) are dropped.
     *
     * @return false to leave the frame while the answer queue is full.
     */
    boolean refuseClosed(final byte opcode, final DirectBuffer buffer, final int offset)
    {
        in.wrap(buffer, offset);
        final long frameFlags = in.flags();
        if (FrameDescriptor.OPCODE_RDATA == opcode)
        {
            return rendezvous.refuseClosedStream(buffer, offset, frameFlags);
        }
        final boolean tagged = FrameDescriptor.OPCODE_TAGGED == opcode ||
            (FrameDescriptor.OPCODE_RTS == opcode && (frameFlags & FrameDescriptor.FLAG_TAGGED) != 0);
        final byte answer;
        final long kind;
        switch (opcode)
        {
            case FrameDescriptor.OPCODE_MSG:
            case FrameDescriptor.OPCODE_TAGGED:
                answer = (frameFlags & FrameDescriptor.FLAG_ACK_REQUESTED) != 0 ? FrameDescriptor.OPCODE_ACK : 0;
                kind = tagged ? Flags.TAGGED : Flags.MSG;
                break;
            case FrameDescriptor.OPCODE_RTS:
                answer = FrameDescriptor.OPCODE_FIN;
                kind = tagged ? Flags.TAGGED : Flags.MSG;
                break;
            case FrameDescriptor.OPCODE_WRITE:
            case FrameDescriptor.OPCODE_WRITE_RTS:
                answer = FrameDescriptor.OPCODE_RMA_ACK;
                kind = Flags.RMA | Flags.WRITE;
                break;
            case FrameDescriptor.OPCODE_READ_REQ:
                answer = FrameDescriptor.OPCODE_READ_RESP;
                kind = 0;
                break;
            case FrameDescriptor.OPCODE_ATOMIC:
                answer = FrameDescriptor.OPCODE_ATOMIC_RESP;
                kind = 0;
                break;
            default:
                answer = 0;
                kind = 0;
                break;
        }
        if (0 == answer)
        {
            return true;
        }
        return answers.enqueueAck(answer, in.srcKey(),
            in.dstEndpoint(),
            in.cookie(), frameFlags, kind, DomainAgent.CLOSED_ENDPOINT_STATUS, 0, 0, 0);
    }

    static void copyOut(final EndpointState ep, final long from, final MatchResult r)
    {
        final long length = r.length();
        if (length <= 0)
        {
            return;
        }
        final long address = r.bufferAddress();
        if (address >= 0)
        {
            UnsafeApi.copyMemory(from, address + r.offset(), length);
            return;
        }
        final int entry = (int) (address & ~EndpointState.IOV_HANDLE);
        FrameLists.scatter(from, length, ep.rxIovAddress, ep.rxIovLength, entry * DomainAgent.MAX_IOV,
            ep.rxIovCount[entry]);
    }

    /**
     * Rx selective completion: is this receive's successful completion suppressed? Consumes the record once the
     * posted receive is used up.
     */
    static boolean silent(final EndpointState ep, final MatchResult r)
    {
        if (!ep.rxSelective)
        {
            return false;
        }
        final long handle = r.receiveHandle();
        if (-1 == handle)
        {
            return ep.immediateSilent;
        }
        final long kind = ep.silentReceives.get(handle);
        if (0 == kind)
        {
            return false;
        }
        if (1 == kind || (r.flags() & MatchFlags.MULTI_RECV) != 0)
        {
            ep.silentReceives.remove(handle);
        }
        return true;
    }

    void complete(final EndpointState ep, final MatchResult r)
    {
        // The payload is in place (copyOut ran): the buffer may go.
        commands.unpinReceive(ep, r.receiveHandle(), (r.flags() & MatchFlags.MULTI_RECV) != 0);
        final boolean silent = silent(ep, r);
        ep.engine.multiRecvSegmentComplete(r.receiveHandle());
        final CompletionRing cq = ep.rxCq;
        long flags = (r.flags() & (Flags.MSG | Flags.TAGGED | Flags.RECV | Flags.MULTI_RECV)) |
            (hasRemoteData(ep, r) ? Flags.REMOTE_CQ_DATA : 0);
        if ((flags & Flags.MULTI_RECV) != 0 && null != arrivals && arrivals.holdRelease(ep, r.receiveHandle()))
        {
            // A pull still copies into the released buffer: the release goes with the last pull's completion.
            flags &= ~Flags.MULTI_RECV;
        }
        final long source = source(r);
        final long buf = ep.bufferOf(r.bufferAddress()) + r.offset();
        // The payload is in place: a receive with several buffers gives its segments back.
        ep.releaseRxIov(r.bufferAddress());
        if (r.overflow() > 0)
        {
            if (null != ep.recvCounter)
            {
                ep.recvCounter.addError(1);
            }
            if (null != cq)
            {
                cq.writeError(r.context(), flags, r.length(), buf, r.data(), r.tag(),
                    r.overflow(), Errno.ETRUNC.value(), 0, source);
            }
            return;
        }
        receiveCompletions.complete(ep, silent, r.context(), flags, r.length(), buf, r.data(), r.tag(), source,
            r.source());
    }

    static boolean hasRemoteData(final EndpointState ep, final MatchResult r)
    {
        final long slot = r.payloadHandle();
        return slot >= 0 && slot < ep.remoteData.length ? ep.remoteData[(int) slot] : r.data() != 0;
    }

    static long source(final MatchResult r)
    {
        return (r.flags() & MatchFlags.SOURCE_UNRESOLVED) != 0 ? DomainAgent.ADDR_NOTAVAIL : r.source();
    }

    /**
     * Match an arrival against the receives of {@code rx} (the endpoint itself, or the shared receive context bound to
     * it), its source resolved through the address vector of {@code arrival}, the endpoint it arrived at (an
     * unresolved source matches receives that name none).
     *
     * @return the engine's {@code MatchStatus}.
     */
    static int match(
        final Long2LongHashMap[] avReverse,
        final EndpointState arrival,
        final EndpointState rx,
        final long srcKey,
        final boolean tagged,
        final long tag,
        final long length,
        final long data,
        final int slot,
        final boolean mayQueue,
        final MatchResult r)
    {
        final Long2LongHashMap map = arrival.avId >= 0 ? avReverse[arrival.avId] : null;
        final long fiAddr = null == map ? DomainAgent.ADDR_NOTAVAIL : map.get(srcKey);
        return DomainAgent.ADDR_NOTAVAIL != fiAddr ?
            rx.engine.onArrival(fiAddr, tagged, tag, length, data, slot, mayQueue, r) :
            rx.engine.onUnresolvedArrival(srcKey, tagged, tag, length, data, slot, mayQueue, r);
    }
}
