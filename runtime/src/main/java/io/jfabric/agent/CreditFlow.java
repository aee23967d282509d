package io.jfabric.agent;

import io.jfabric.Flags;
import io.jfabric.ring.CompletionRing;
import io.jfabric.spi.DomainTransport;
import io.jfabric.stat.DomainCounters;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Part of the domain agent: flow control as a protocol rule (see {@link FlowControl} and RUNTIME.md "Flow
 * control"). Keeps the per-peer accounts, parks sends without credit (or to a full ring) in per-peer FIFOs and replays
 * them, holds arrivals an endpoint cannot take yet in its held FIFO, and returns credit to senders.
 * <p>
 * Threading: single-threaded, owned by its domain agent's duty cycle ({@link DomainAgent}); package-private.
 */
final class CreditFlow
{
    /** The domain's counters (process counters file); set once by the agent's wiring. */
    DomainCounters counters;
    private final DomainTransport transport;
    private final AtomicReferenceArray<EndpointState> endpoints;
    private final FrameFlyweight in;
    private final CommandFlyweight deferredCommand = new CommandFlyweight();
    private final UnsafeBuffer header =
        new UnsafeBuffer(ByteBuffer.allocateDirect(FrameDescriptor.RMA_HEADER_LENGTH + DomainAgent.REMOTE_LIST_MAX));
    /** Encodes this part's frames into {@link #header}. */
    private final FrameFlyweight out = new FrameFlyweight().wrapForEncode(header, 0);
    private final UnsafeBuffer payloadView = new UnsafeBuffer(0, 0);
    private final int credits;
    private final long creditBytes;
    private final int requests;
    private final int creditReportMessages;
    private final long creditReportBytes;
    /** Endpoints with held arrivals ({@link #hold}), and whether {@link #flushHeld} is replaying one now. */
    private EndpointState[] holdingEps = new EndpointState[8];
    private int holdingCount;
    private boolean replayingHeld;
    private PeerAccount[] waiting = new PeerAccount[16];
    private int waitingCount;
    private PeerAccount[] creditQueue = new PeerAccount[16];
    private int creditCount;
    private boolean flushingDeferred;
    private long arrivalEpoch;
    FrameOutbox outbox;
    MessageInitiator initiator;
    MessageReceiver receiver;

    CreditFlow(
        final DomainTransport transport,
        final AtomicReferenceArray<EndpointState> endpoints,
        final FrameFlyweight in,
        final int credits,
        final long creditBytes,
        final int creditReportMessages,
        final long creditReportBytes)
    {
        this.transport = transport;
        this.endpoints = endpoints;
        this.in = in;
        this.credits = credits;
        this.creditBytes = creditBytes;
        this.requests = FlowControl.requests();
        this.creditReportMessages = creditReportMessages;
        this.creditReportBytes = creditReportBytes;
    }

    /**
     * @return messages one sending endpoint may have charged at one receiving endpoint.
     */
    int credits()
    {
        return credits;
    }

    /**
     * @return requests awaiting answers one endpoint may have outstanding at one peer endpoint.
     */
    int requests()
    {
        return requests;
    }

    /**
     * A request of endpoint {@code endpointIndex} to {@code peer} has its answer (or failed): one more may go.
     */
    void answered(final int endpointIndex, final long peer)
    {
        final EndpointState ep = endpointIndex >= 0 && endpointIndex < endpoints.length() ?
            endpoints.get(endpointIndex) : null;
        if (null == ep)
        {
            return;
        }
        PeerAccount account = ep.lastAccount;
        if (null == account || account.peerKey != peer)
        {
            account = ep.accounts.get(peer);
        }
        if (null != account && account.awaiting > 0)
        {
            account.awaiting--;
        }
    }

    /**
     * @return eager payload bytes one sending endpoint may have charged at one receiving endpoint.
     */
    long creditBytes()
    {
        return creditBytes;
    }

    /**
     * @return true while {@link #flushHeld} replays a held arrival.
     */
    boolean replayingHeld()
    {
        return replayingHeld;
    }

    /**
     * @return true while {@link #flushDeferred} replays a parked send.
     */
    boolean flushingDeferred()
    {
        return flushingDeferred;
    }

    /**
     * The account of {@code peer} at {@code ep}, created on first contact; its outbound side starts over when the
     * transport reports a new epoch for the peer (it died or restarted: it holds nothing of ours any more).
     */
    PeerAccount outboundAccount(final EndpointState ep, final long peer)
    {
        final PeerAccount account = account(ep, peer);
        final long epoch = transport.peerEpoch(peer);
        if (epoch != account.outEpoch)
        {
            account.resetOutbound(epoch);
        }
        return account;
    }

    /**
     * The account of sender {@code peer} at {@code ep}; its inbound side starts over on a new epoch (what the
     * previous incarnation sent is no longer charged: its messages stay receivable but block nobody).
     */
    PeerAccount inboundAccount(final EndpointState ep, final long peer)
    {
        final PeerAccount account = account(ep, peer);
        // The incarnation that wrote this frame, not the one mapped now: each incarnation has its own account.
        final long epoch = transport.sourceEpoch(peer);
        arrivalEpoch = epoch;
        if (epoch != account.inEpoch && newer(epoch, account.inEpoch))
        {
            account.resetInbound(epoch);
        }
        return account;
    }

    /**
     * @return the epoch of the incarnation that wrote the frame {@link #inboundAccount} was last asked about: equal
     * to that account's {@code inEpoch} when the frame is charged to it, else (a frame an earlier incarnation left
     * behind) it is charged to nobody.
     */
    long arrivalEpoch()
    {
        return arrivalEpoch;
    }

    /**
     * Is epoch {@code a} a later incarnation than {@code b}? Epochs grow per incarnation; a transport reports a dead
     * incarnation as the complement of its live epoch ({@code peerEpoch}), which names the same incarnation.
     */
    static boolean newer(final long a, final long b)
    {
        final long liveA = a < 0 ? ~a : a;
        final long liveB = b < 0 ? ~b : b;
        return liveA > liveB || (liveA == liveB && a >= 0 && b < 0);
    }

    private PeerAccount account(final EndpointState ep, final long peer)
    {
        PeerAccount account = ep.lastAccount;
        if (null == account || account.peerKey != peer)
        {
            account = ep.accounts.get(peer);
            if (null == account)
            {
                // First contact with this peer endpoint: the only allocation, kept for the endpoint's life.
                account = new PeerAccount(ep, peer, transport.peerEpoch(peer));
                ep.accounts.put(peer, account);
            }
            ep.lastAccount = account;
        }
        return account;
    }

    /**
     * Park a command in its peer's FIFO (a copy: an inject payload lives in the record).
     */
    ControlledMessageHandler.Action defer(
        final EndpointState ep,
        final PeerAccount account,
        final int msgTypeId,
        final MutableDirectBuffer buffer,
        final int index,
        final int length,
        final boolean fenced)
    {
        account.defer(msgTypeId, buffer, index, length, fenced);
        counters.onDeferredSend();
        // Single writer: the agent; posting threads read it to answer -EAGAIN at the transmit queue size.
        ep.deferredSends = ep.deferredSends + 1;
        if (!account.waiting)
        {
            account.waiting = true;
            if (waitingCount == waiting.length)
            {
                waiting = java.util.Arrays.copyOf(waiting, waitingCount * 2);
            }
            waiting[waitingCount++] = account;
        }
        return ControlledMessageHandler.Action.CONTINUE;
    }

    /**
     * Keep a copy of an arrival the endpoint cannot take now (see {@link #onFrame}); its sender's credit bounds how
     * many there can be.
     *
     * @return true (the frame is consumed from the inbound ring).
     */
    boolean hold(final EndpointState ep, final DirectBuffer buffer, final int offset, final int length)
    {
        if (null == ep.held)
        {
            ep.held = new PeerAccount(ep, -1, 0);
        }
        ep.held.defer(0, buffer, offset, length, false);
        counters.onCqFullHold();
        if (!ep.holding)
        {
            ep.holding = true;
            if (holdingCount == holdingEps.length)
            {
                holdingEps = java.util.Arrays.copyOf(holdingEps, holdingCount * 2);
            }
            holdingEps[holdingCount++] = ep;
        }
        return true;
    }

    /**
     * Deliver held arrivals, oldest first per endpoint, as far as each endpoint's CQ allows; a closed endpoint's
     * are answered as any frame to a closed endpoint.
     */
    int flushHeld()
    {
        if (0 == holdingCount)
        {
            return 0;
        }
        int work = 0;
        int i = 0;
        while (i < holdingCount)
        {
            final EndpointState ep = holdingEps[i];
            final PeerAccount fifo = ep.held;
            final boolean open = endpoints.get(ep.index) == ep;
            while (fifo.deferredCount > 0)
            {
                final MutableDirectBuffer frame = fifo.deferredBuffer();
                final int at = fifo.headIndex();
                final boolean done;
                if (open)
                {
                    replayingHeld = true;
                    done = receiver.onFrame(frame, at, fifo.headLength());
                    replayingHeld = false;
                }
                else
                {
                    done = receiver.refuseClosed(in.wrap(frame, at).opcode(), frame, at);
                }
                if (!done)
                {
                    break;
                }
                fifo.popDeferred(false);
                work++;
            }
            if (0 == fifo.deferredCount)
            {
                ep.holding = false;
                holdingEps[i] = holdingEps[--holdingCount];
                holdingEps[holdingCount] = null;
            }
            else
            {
                i++;
            }
        }
        return work;
    }

    /**
     * Send what credit allows from the FIFOs of the peers that have deferred commands, oldest first per peer.
     */
    int flushDeferred()
    {
        if (0 == waitingCount)
        {
            return 0;
        }
        int work = 0;
        flushingDeferred = true;
        int i = 0;
        while (i < waitingCount)
        {
            final PeerAccount account = waiting[i];
            final long epoch = transport.peerEpoch(account.peerKey);
            if (epoch != account.outEpoch)
            {
                // The peer died or restarted: full credit again (a dead peer's offers then fail at once).
                account.resetOutbound(epoch);
            }
            int sent = 0;
            if (endpoints.get(account.endpoint.index) != account.endpoint)
            {
                // Its endpoint closed (its index may already serve another one): its waiting sends die with it.
                while (account.deferredCount > 0)
                {
                    final int type = account.headType();
                    account.popDeferred((deferredCommand.wrap(account.deferredBuffer(), account.headIndex()).flags() &
                        Flags.FENCE) != 0 || (CommandDescriptor.OP_SEND != type && CommandDescriptor.OP_TSEND != type));
                }
                account.endpoint.deferredSends = 0;
            }
            while (account.deferredCount > 0 && sent < DomainAgent.BATCH)
            {
                final MutableDirectBuffer buffer = account.deferredBuffer();
                final int index = account.headIndex();
                final int type = account.headType();
                // Fenced operations and RMA/atomics (deferred only by a full ring) are barriers (see defer).
                final boolean fenced = (deferredCommand.wrap(buffer, index).flags() & Flags.FENCE) != 0 ||
                    (CommandDescriptor.OP_SEND != type && CommandDescriptor.OP_TSEND != type);
                if (ControlledMessageHandler.Action.CONTINUE !=
                    initiator.onSendCommand(type, buffer, index, account.headLength()))
                {
                    break;
                }
                account.popDeferred(fenced);
                account.endpoint.deferredSends = account.endpoint.deferredSends - 1;
                sent++;
            }
            work += sent;
            if (0 == account.deferredCount)
            {
                account.waiting = false;
                waiting[i] = waiting[--waitingCount];
                waiting[waitingCount] = null;
            }
            else
            {
                i++;
            }
        }
        flushingDeferred = false;
        return work;
    }

    /**
     * Release a slot; when that hands a message back to its sender's account, maybe queue a credit frame.
     */
    void freeSlot(final EndpointState ep, final int slot)
    {
        final PeerAccount account = ep.freeSlot(slot);
        if (null != account)
        {
            creditBack(account);
        }
    }

    /**
     * Queue a credit frame once the sender may be running short: half its grant (messages or bytes) is charged
     * since the last report. A ping-pong sends one credit frame per half grant; a sender that used up its grant
     * gets one as soon as anything is consumed.
     */
    private void creditBack(final PeerAccount account)
    {
        if (!account.creditQueued && account.consumed > account.reported &&
            (account.arrived - account.reported >= creditReportMessages ||
            account.arrivedBytes - account.reportedBytes >= creditReportBytes))
        {
            account.creditQueued = true;
            if (creditCount == creditQueue.length)
            {
                creditQueue = java.util.Arrays.copyOf(creditQueue, creditCount * 2);
            }
            creditQueue[creditCount++] = account;
        }
    }

    /**
     * Send the queued credit frames (answers: they never wait behind requests); one whose peer's ring is full
     * stays queued for the next duty cycle; one for a peer that started over is dropped.
     */
    int flushCredits()
    {
        int sent = 0;
        int i = 0;
        final UnsafeBuffer h = header;
        while (i < creditCount)
        {
            final PeerAccount account = creditQueue[i];
            int result = -1;
            if (transport.peerEpoch(account.peerKey) == account.inEpoch)
            {
                out.version(FrameDescriptor.VERSION);
                out.opcode(FrameDescriptor.OPCODE_CREDIT);
                out.dstEndpoint(transport.endpointIndex(account.peerKey));
                out.srcKey(transport.localKey(account.endpoint.index));
                out.tag(0);
                out.data(account.consumed);
                out.length(account.consumedBytes);
                out.flags(0);
                out.cookie(0);
                out.sequence(outbox.sequence());
                result = outbox.offer(
                    account.peerKey, account.endpoint.index, h, FrameDescriptor.HEADER_LENGTH, null, 0, 0);
                if (0 == result)
                {
                    i++;
                    continue;
                }
            }
            if (result > 0)
            {
                sent++;
                account.reported = account.consumed;
                account.reportedBytes = account.consumedBytes;
            }
            account.creditQueued = false;
            creditQueue[i] = creditQueue[--creditCount];
            creditQueue[creditCount] = null;
        }
        return sent;
    }

    /**
     * Reserve the target completion of a write with remote CQ data ({@code FI_REMOTE_CQ_DATA}, {@code FI_RMA_EVENT})
     * as a receive reserves its own at post: completions the application did not ask for count against the CQ's
     * size too, so they can never take the room a posted receive's completion needs.
     *
     * @return true when reserved and the ring has room.
     */
    static boolean reserveRemoteData(final CompletionRing cq)
    {
        if (!cq.reserve())
        {
            return false;
        }
        if (!cq.hasSpace())
        {
            cq.release(1);
            return false;
        }
        return true;
    }

    /**
     * A credit frame: the peer reports how much of what we sent it has consumed (absolute counts).
     */
    boolean onCredit(final EndpointState ep, final DirectBuffer buffer, final int offset)
    {
        final PeerAccount account =
            outboundAccount(ep, in.srcKey());
        account.acked = Math.max(account.acked, in.data());
        account.ackedBytes = Math.max(account.ackedBytes, in.length());
        return true;
    }
}
