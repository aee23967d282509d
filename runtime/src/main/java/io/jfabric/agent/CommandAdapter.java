package io.jfabric.agent;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.matching.MatchFlags;
import io.jfabric.matching.MatchResult;
import io.jfabric.matching.MatchStatus;
import io.jfabric.matching.MatchingEngine;
import io.jfabric.ring.CommandQueue;
import io.jfabric.ring.CompletionRing;
import io.jfabric.spi.OperationBackend;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.ControlledMessageHandler;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Part of the domain agent: decodes the control ring (MR registration and close, cancel, AV changes, endpoint
 * close, options) and the receive ring (receives, tsearch), posting receives into the matching engine and delivering
 * what matches at once.
 * <p>
 * Threading: single-threaded, owned by its domain agent's duty cycle ({@link DomainAgent}); package-private.
 */
final class CommandAdapter
{
    private final CommandQueue recvRing;
    private final AtomicReferenceArray<EndpointState> endpoints;
    private final Long2LongHashMap[] avReverse;
    private final MatchResult result;
    private final MemoryRegistry registry;
    private final AtomicLongArray replies;
    /** Commands being decoded: one per ring (a cancel drains the receive ring while its own command is wrapped). */
    private final CommandFlyweight controlCommand = new CommandFlyweight();
    private final CommandFlyweight recvCommand = new CommandFlyweight();
    /** Pin slot of the receive command being handled while it matches at once (no receive handle), else NONE. */
    private int immediatePin = PinTable.NONE;
    /** Decodes control-ring commands. */
    final ControlledMessageHandler controlHandler = this::onControl;
    /** Decodes receive-ring commands. */
    final ControlledMessageHandler recvHandler = this::onRecvCommand;
    AnswerQueue answers;
    RmaTarget rmaTarget;
    MessageReceiver receiver;
    Rendezvous rendezvous;
    TriggerTable triggers;
    RegionCounters regionCounters;
    /** The domain's operation-level back-end, told of regions registered and closed; null on the frame level. */
    OperationBackend backend;
    /** An operation-level domain's rendezvous arrivals (null for a frame transport). */
    OperationArrivals arrivals;

    CommandAdapter(
        final CommandQueue recvRing,
        final AtomicReferenceArray<EndpointState> endpoints,
        final Long2LongHashMap[] avReverse,
        final MatchResult result,
        final MemoryRegistry registry,
        final AtomicLongArray replies)
    {
        this.recvRing = recvRing;
        this.endpoints = endpoints;
        this.avReverse = avReverse;
        this.result = result;
        this.registry = registry;
        this.replies = replies;
    }

    /**
     * @return the pin slot of the receive matching at once, or {@link PinTable#NONE}.
     */
    int immediatePin()
    {
        return immediatePin;
    }

    /**
     * A rendezvous pull took over the pin of the receive matching at once.
     */
    void clearImmediatePin()
    {
        immediatePin = PinTable.NONE;
    }

    /**
     * Tell the back-end of a region the registry accepted; a refusal drops the region again.
     */
    private long regionRegistered(final long key, final CommandFlyweight ctl, final int segments)
    {
        if (null == backend)
        {
            return 0;
        }
        final int rc = segments > 0 ?
            backend.regionRegistered(key, ctl.iovAddress(0), ctl.iovLength(0), ctl.access()) :
            backend.regionRegistered(key, ctl.address(), ctl.length(), ctl.access());
        if (rc < 0)
        {
            registry.close(key);
            return -rc;
        }
        return 0;
    }

    private ControlledMessageHandler.Action onControl(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final CommandFlyweight ctl = controlCommand.wrap(buffer, index);
        switch (msgTypeId)
        {
            case CommandDescriptor.OP_AV_INSERT:
                return onAvInsert(buffer, index);
            case CommandDescriptor.OP_AV_REMOVE:
            {
                final Long2LongHashMap map = avReverse[(int) ctl.avId()];
                // Only when the key still maps to the removed handle: the address inserted again (a restarted peer
                // under the same name) keeps its sources when the old handle is removed afterwards.
                if (null != map && map.get(ctl.peer()) == ctl.fiAddr())
                {
                    map.remove(ctl.peer());
                }
                return ControlledMessageHandler.Action.CONTINUE;
            }
            case CommandDescriptor.OP_MR_REG:
            {
                long status = 0;
                long key = 0;
                try
                {
                    final int segments = ctl.segmentCount();
                    if (segments > 0)
                    {
                        // regv: the segments follow the header (control path: the arrays are copied anyway).
                        final long[] addresses = new long[segments];
                        final long[] lengths = new long[segments];
                        for (int i = 0; i < segments; i++)
                        {
                            addresses[i] = ctl.iovAddress(i);
                            lengths[i] = ctl.iovLength(i);
                        }
                        key = registry.register(addresses, lengths, segments, ctl.access(), ctl.mrKey());
                    }
                    else
                    {
                        key = registry.register(ctl.address(), ctl.length(), ctl.access(), ctl.mrKey());
                    }
                    status = regionRegistered(key, ctl, segments);
                }
                catch (final FabricException ex)
                {
                    status = ex.errno().value();
                }
                reply(status, key, ctl.replySequence());
                return ControlledMessageHandler.Action.CONTINUE;
            }
            case CommandDescriptor.OP_MR_CLOSE:
            {
                final int status = registry.close(ctl.mrKey());
                if (0 == status)
                {
                    // Streamed writes still landing in it stop here: nothing is written after the close returns.
                    rmaTarget.onRegionClosed(ctl.mrKey());
                    regionCounters.onRegionClosed(ctl.mrKey());
                    rendezvous.onRegionClosed(ctl.mrKey());
                    if (null != backend)
                    {
                        backend.regionClosed(ctl.mrKey());
                    }
                }
                reply(-status, 0, ctl.replySequence());
                return ControlledMessageHandler.Action.CONTINUE;
            }
            case CommandDescriptor.OP_CANCEL:
            {
                final long until = ctl.cancelPosition();
                // Receives posted before the cancel must reach the matching engine first, or it would miss them.
                // Drain while the position moves (a read that only skips the wrap padding still moves it).
                long before = recvRing.consumerPosition();
                while (before < until)
                {
                    recvRing.controlledRead(recvHandler, DomainAgent.BATCH);
                    final long after = recvRing.consumerPosition();
                    if (after == before)
                    {
                        break;
                    }
                    before = after;
                }
                final int held = triggers.cancel(ctl.endpoint(), ctl.context());
                final int status = TriggerTable.NOT_HELD != held ? held : ctl.endpoint() < 0 ?
                    Errno.ENOENT.negated() :
                    recvRing.consumerPosition() < until ? Errno.EAGAIN.negated() :
                    cancelReceive(endpoints.get(ctl.endpoint()), ctl.context());
                replies.set(DomainAgent.REPLY_CANCEL_STATUS, status);
                // Volatile store last: the cancelling thread reads the sequence, then the status.
                replies.set(DomainAgent.REPLY_CANCEL_SEQUENCE, ctl.replySequence());
                return ControlledMessageHandler.Action.CONTINUE;
            }
            case CommandDescriptor.OP_EP_CLOSE:
            {
                final int closing = ctl.closingEndpoint();
                if (null != arrivals)
                {
                    arrivals.endpointClosed(endpoints.get(closing));
                }
                if (null != backend)
                {
                    backend.endpointClosing(closing);
                }
                endpoints.set(closing, null);
                triggers.dropEndpoint(closing);
                rendezvous.abandonStreams(closing);
                replies.set(DomainAgent.REPLY_CANCEL_STATUS, 0);
                // Volatile store last: the closing thread may release the endpoint's buffers once it reads it.
                replies.set(DomainAgent.REPLY_CANCEL_SEQUENCE, ctl.replySequence());
                return ControlledMessageHandler.Action.CONTINUE;
            }
            case CommandDescriptor.OP_MR_BIND:
            {
                final boolean known = registry.contains(ctl.mrKey());
                if (known)
                {
                    regionCounters.bind(ctl.mrKey(), ctl.access());
                }
                reply(known ? 0 : Errno.EINVAL.value(), 0, ctl.replySequence());
                return ControlledMessageHandler.Action.CONTINUE;
            }
            case CommandDescriptor.OP_TRIGGER_WORK:
                triggers.holdWork(ctl.context());
                return ControlledMessageHandler.Action.CONTINUE;
            case CommandDescriptor.OP_MIN_MULTI_RECV:
            {
                final EndpointState ep = endpoints.get(ctl.endpoint());
                if (null != ep)
                {
                    ep.engine.minMultiRecv(ctl.minMultiRecv());
                }
                return ControlledMessageHandler.Action.CONTINUE;
            }
            default:
                return ControlledMessageHandler.Action.CONTINUE;
        }
    }

    /**
     * {@code fi_cancel} of a posted receive: an {@code ECANCELED} error completion with {@code FI_RECV} (and
     * {@code FI_MULTI_RECV} for a multi-recv buffer). Issue 4 semantics: a multi-recv buffer with a rendezvous
     * pull still copying into it is not cancelled ({@code -EAGAIN}); neither is anything while the CQ has no
     * room for the error entry. A context with no posted receive (matched already, or never posted) answers 0.
     */
    private int cancelReceive(final EndpointState ep, final long context)
    {
        if (null == ep)
        {
            return 0;
        }
        final CompletionRing cq = ep.rxCq;
        if (null != cq && !cq.hasErrorSpace())
        {
            return Errno.EAGAIN.negated();
        }
        final MatchResult r = result;
        final int cancelled = ep.engine.cancel(context, r);
        if (MatchStatus.EAGAIN == cancelled)
        {
            return Errno.EAGAIN.negated();
        }
        if (MatchStatus.ECANCELED == cancelled)
        {
            ep.silentReceives.remove(r.receiveHandle());
            unpinReceive(ep, r.receiveHandle(), true);
            final long buf = ep.bufferOf(r.bufferAddress());
            ep.releaseRxIov(r.bufferAddress());
            if (null != cq)
            {
                cq.writeError(context, r.flags(), 0, buf, 0, r.tag(), 0, Errno.ECANCELED.value(), 0,
                    DomainAgent.ADDR_NOTAVAIL);
            }
        }
        return 0;
    }

    private void reply(final long status, final long key, final long sequence)
    {
        replies.set(DomainAgent.REPLY_STATUS, status);
        replies.set(DomainAgent.REPLY_KEY, key);
        // Volatile store last: the control thread reads the sequence, then status and key.
        replies.set(DomainAgent.REPLY_SEQUENCE, sequence);
    }

    private ControlledMessageHandler.Action onAvInsert(final MutableDirectBuffer buffer, final int index)
    {
        final CommandFlyweight ctl = controlCommand.wrap(buffer, index);
        final int avId = (int) ctl.avId();
        final long key = ctl.peer();
        final long fiAddr = ctl.fiAddr();
        final Long2LongHashMap map = avReverse[avId];
        if (null == map)
        {
            return ControlledMessageHandler.Action.CONTINUE;
        }
        map.put(key, fiAddr);
        for (int i = 0; i < DomainAgent.MAX_ENDPOINTS; i++)
        {
            final EndpointState ep = endpoints.get(i);
            if (null != ep && ep.avId == avId)
            {
                // Unexpected messages from this source, queued before it was known, now match directed receives.
                ep.engine.avInsert(key, fiAddr);
                final MatchResult r = result;
                while (ep.rxCq != null && ep.rxCq.hasSpace() && ep.rxCq.hasErrorSpace() && !answers.isFull() &&
                    MatchStatus.MATCHED == ep.engine.pollRehomedMatch(r))
                {
                    receiver.deliverFromSlot(ep, r);
                }
                int answer;
                while (ep.rxCq != null && ep.rxCq.hasSpace() && ep.rxCq.hasErrorSpace() &&
                    0 != (answer = ep.engine.pollSearchEvent(r)))
                {
                    // The engine reports the deferred search's CLAIM/DISCARD in the result's flags: a DISCARD hit
                    // frees its unexpected slot here.
                    publishSearch(ep, answer, r.flags(), r.context(), r);
                }
            }
        }
        return ControlledMessageHandler.Action.CONTINUE;
    }

    /**
     * kfabric {@code tsearch} answered at once; the caller must have exclusive use of the agent (it holds the
     * domain's manual-progress guard, so no duty cycle runs concurrently).
     *
     * @param endpointIndex the endpoint.
     * @param source        fi_addr or ADDR_UNSPEC.
     * @param tag           the tag.
     * @param ignore        ignore mask.
     * @param flags         CLAIM, DISCARD or 0.
     * @param context       the search context (for CLAIM and a deferred answer).
     * @param sink          receives the hit at index 0 (context, flags, length, 0, data, tag, source).
     * @return 1 on a hit, 0 when the answer comes later as a completion, or a negative errno ({@code -ENOMSG},
     * {@code -EINVAL}, {@code -EAGAIN}, {@code -ENOENT} for an endpoint that is not enabled).
     */
    int tsearchNow(
        final int endpointIndex,
        final long source,
        final long tag,
        final long ignore,
        final long flags,
        final long context,
        final CompletionRing.CompletionSink sink)
    {
        final EndpointState ep = endpoints.get(endpointIndex);
        if (null == ep)
        {
            return Errno.ENOENT.negated();
        }
        final MatchResult r = result;
        final int answer = ep.engine.tsearch(source, tag, ignore, flags & (MatchFlags.CLAIM | MatchFlags.DISCARD),
            context, r);
        if (1 == answer)
        {
            if ((flags & MatchFlags.DISCARD) != 0)
            {
                receiver.releaseDiscarded(ep, (int) r.payloadHandle());
            }
            sink.onCompletion(0, context, Flags.RECV | Flags.TAGGED, r.messageLength(), 0, r.data(), r.tag(),
                MessageReceiver.source(r));
        }
        return answer;
    }

    private void publishSearch(
        final EndpointState ep, final int answer, final long flags, final long context, final MatchResult r)
    {
        final CompletionRing cq = ep.rxCq;
        if (1 == answer)
        {
            if ((flags & MatchFlags.DISCARD) != 0)
            {
                receiver.releaseDiscarded(ep, (int) r.payloadHandle());
            }
            if (null != cq)
            {
                cq.write(r.context(), Flags.RECV | Flags.TAGGED, r.messageLength(), 0, r.data(), r.tag(),
                    MessageReceiver.source(r));
            }
        }
        else if (answer < 0 && null != cq)
        {
            cq.writeError(context, Flags.RECV | Flags.TAGGED, 0, 0, 0, r.tag(), 0, -answer, 0,
                DomainAgent.ADDR_NOTAVAIL);
        }
    }

    private ControlledMessageHandler.Action onRecvCommand(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final CommandFlyweight rcv = recvCommand.wrap(buffer, index);
        final EndpointState ep = endpoints.get(rcv.endpoint());
        if (null == ep)
        {
            return ControlledMessageHandler.Action.CONTINUE;
        }
        final CompletionRing cq = ep.rxCq;
        // A match may need a CTS (rendezvous) or a FIN (discard): keep room in the answer queue.
        if ((null != cq && (!cq.hasSpace() || !cq.hasErrorSpace())) || !answers.hasRoom(2))
        {
            return ControlledMessageHandler.Action.ABORT;
        }
        final long context = rcv.context();
        final MatchResult r = result;
        if (CommandDescriptor.OP_TSEARCH == msgTypeId)
        {
            final int answer = ep.engine.tsearch(
                rcv.peer(),
                rcv.tag(),
                rcv.ignore(),
                rcv.flags() & (MatchFlags.CLAIM | MatchFlags.DISCARD),
                context,
                r);
            publishSearch(ep, answer, rcv.flags(), context, r);
            return ControlledMessageHandler.Action.CONTINUE;
        }

        final boolean tagged = CommandDescriptor.OP_TRECV == msgTypeId;
        final long flags = rcv.flags();
        final long matchFlags =
            flags & (MatchFlags.PEEK | MatchFlags.CLAIM | MatchFlags.DISCARD | MatchFlags.MULTI_RECV);
        long address = rcv.address();
        if ((flags & CommandDescriptor.FLAG_IOV) != 0)
        {
            // Several buffers: the engine holds a handle to their segments; the total is the receive's length.
            final int entry = ep.allocateRxIov();
            if (entry < 0)
            {
                return ControlledMessageHandler.Action.ABORT;
            }
            final int count = Math.min(DomainAgent.MAX_IOV, rcv.count());
            final int base = entry * DomainAgent.MAX_IOV;
            for (int k = 0; k < count; k++)
            {
                ep.rxIovAddress[base + k] = rcv.iovAddress(k);
                ep.rxIovLength[base + k] = rcv.iovLength(k);
            }
            ep.rxIovCount[entry] = count;
            address = EndpointState.IOV_HANDLE | entry;
        }
        final MatchingEngine engine = ep.engine;
        final int status = engine.postReceive(
            tagged,
            rcv.peer(),
            rcv.tag(),
            rcv.ignore(),
            context,
            address,
            rcv.length(),
            matchFlags,
            r);
        if (address < 0 && MatchStatus.POSTED != status && MatchStatus.MATCHED != status)
        {
            // Not posted (PEEK, DISCARD, errors, a full posted pool): the segments are not needed.
            ep.releaseRxIov(address);
        }
        final long kind = tagged ? Flags.TAGGED : Flags.MSG;
        pinReceive(ep, rcv.pin(), status, matchFlags, r);
        final boolean silent = ep.rxSelective && (flags & Flags.COMPLETION) == 0;
        ep.immediateSilent = silent;
        if (silent && (MatchStatus.MATCHED == status || MatchStatus.POSTED == status) && -1 != r.receiveHandle())
        {
            ep.silentReceives.put(r.receiveHandle(), (matchFlags & MatchFlags.MULTI_RECV) != 0 ? 2 : 1);
        }
        switch (status)
        {
            case MatchStatus.MATCHED:
                receiver.deliverFromSlot(ep, r);
                if ((matchFlags & MatchFlags.MULTI_RECV) != 0)
                {
                    final long handle = r.receiveHandle();
                    while (null != cq && cq.hasSpace() && cq.hasErrorSpace() && !answers.isFull() &&
                        MatchStatus.MATCHED == engine.drainMultiRecv(handle, r))
                    {
                        receiver.deliverFromSlot(ep, r);
                    }
                }
                break;
            case MatchStatus.POSTED:
                break;
            case MatchStatus.PEEKED:
                if (null != cq)
                {
                    cq.write(context, Flags.RECV | kind, r.messageLength(), 0, r.data(), r.tag(),
                        MessageReceiver.source(r));
                }
                break;
            case MatchStatus.DISCARDED:
                receiver.releaseDiscarded(ep, (int) r.payloadHandle());
                if (null != cq)
                {
                    cq.write(context, Flags.RECV | kind, 0, 0, r.data(), r.tag(), MessageReceiver.source(r));
                }
                break;
            case MatchStatus.EAGAIN:
                // Posted-receive pool full: keep the command until a receive completes.
                return ControlledMessageHandler.Action.ABORT;
            case MatchStatus.ENOMSG:
                if (null != cq)
                {
                    cq.writeError(context, Flags.RECV | kind, 0, 0, 0, rcv.tag(), 0,
                        Errno.ENOMSG.value(), 0, DomainAgent.ADDR_NOTAVAIL);
                }
                break;
            default:
                if (null != cq)
                {
                    cq.writeError(context, Flags.RECV | kind, 0, 0, 0, 0, 0, Errno.EINVAL.value(), 0,
                        DomainAgent.ADDR_NOTAVAIL);
                }
                break;
        }
        ep.releasePin(immediatePin);
        immediatePin = PinTable.NONE;
        return ControlledMessageHandler.Action.CONTINUE;
    }

    /**
     * Keep a receive's pin slot (issue 10) where its completion finds it: by receive handle while it is posted, in
     * {@link #immediatePin} while it matches at once; a receive that did not take its buffer (PEEK, DISCARD, an
     * error) releases it now. A command left in the ring (EAGAIN) keeps it.
     */
    private void pinReceive(
        final EndpointState ep, final int pin, final int status, final long matchFlags, final MatchResult r)
    {
        if (pin < 0 || MatchStatus.EAGAIN == status)
        {
            return;
        }
        if ((MatchStatus.MATCHED == status || MatchStatus.POSTED == status) && -1 != r.receiveHandle())
        {
            ep.receivePins.put(r.receiveHandle(),
                pin | ((matchFlags & MatchFlags.MULTI_RECV) != 0 ? EndpointState.MULTI_RECV_PIN : 0));
        }
        else if (MatchStatus.MATCHED == status)
        {
            immediatePin = pin;
        }
        else
        {
            ep.releasePin(pin);
        }
    }

    /**
     * A receive is done with its buffer: release its pin slot. {@code key} is its receive handle, -1 for one that
     * matched at post, or {@code RV_PIN_KEY | slot} for such a one's rendezvous pull; a multi-recv buffer keeps its
     * pin until {@code lastUse}.
     */
    void unpinReceive(final EndpointState ep, final long key, final boolean lastUse)
    {
        unpinReceive(ep, key, lastUse, false);
    }

    /**
     * As {@link #unpinReceive(EndpointState, long, boolean)}; {@code pullDone}: a rendezvous pull into it finished
     * (a multi-recv buffer released while pulls still copy into it keeps its pin until the last one is done).
     */
    void unpinReceive(final EndpointState ep, final long key, final boolean lastUse, final boolean pullDone)
    {
        if (-1 == key)
        {
            ep.releasePin(immediatePin);
            immediatePin = PinTable.NONE;
            return;
        }
        long value = ep.receivePins.get(key);
        if (-1 == value)
        {
            return;
        }
        if ((value & EndpointState.MULTI_RECV_PIN) != 0)
        {
            value -= pullDone ? EndpointState.MULTI_RECV_PULL : 0;
            value |= lastUse ? EndpointState.MULTI_RECV_DONE : 0;
            if ((value & EndpointState.MULTI_RECV_DONE) == 0 || value >= EndpointState.MULTI_RECV_PULL)
            {
                ep.receivePins.put(key, value);
                return;
            }
        }
        ep.receivePins.remove(key);
        ep.releasePin((int) value);
    }
}
