package io.jfabric.agent;

import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.matching.MatchResult;
import io.jfabric.matching.MatchStatus;
import io.jfabric.ring.CompletionRing;
import io.jfabric.spi.OperationBackend;
import io.jfabric.spi.OperationContext;
import io.jfabric.spi.RendezvousPull;
import org.agrona.collections.Long2LongHashMap;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Part of the domain agent, wired only for a domain with an {@link OperationBackend}: rendezvous arrivals announced
 * without their payload ({@link OperationContext#arrive}). An arrival is matched through the endpoint's matching
 * engine like a message; a match takes an unexpected slot of the receiving state (as a frame rendezvous does, so
 * that the receive's completion fields, its pin and a multi-recv buffer's in-flight count are kept the same way) and
 * a record of a fixed table (the handle the back-end ends the pull with), and the back-end is asked to pull into the
 * receive's buffer ({@link OperationBackend#pull}, with this object as the {@link RendezvousPull} view). The end of
 * the pull writes the receive's completion (truncation, {@code FI_SOURCE}, selective completion, a multi-recv
 * release) or its error, gives the buffer's pin back and frees the slot. Nothing is allocated per arrival.
 * <p>
 * Threading: single-threaded, owned by its domain agent's duty cycle ({@link DomainAgent}); package-private.
 */
final class OperationArrivals implements RendezvousPull
{
    private static final int ECONNREFUSED = Errno.ECONNREFUSED.negated();
    private static final int ENOENT = Errno.ENOENT.negated();
    private static final int EAGAIN = Errno.EAGAIN.negated();
    /** {@code rvSrcCount} of a slot that holds an arrival stored as unexpected (no pull asked for yet). */
    private static final int STORED = -1;

    private final OperationBackend backend;
    private final AtomicReferenceArray<EndpointState> endpoints;
    private final Long2LongHashMap[] avReverse;
    private final MatchResult result;
    private final ReceiveCompletions receiveCompletions;
    // Matched arrivals whose pull is in flight: a fixed table with a free stack.
    private EndpointState[] arrivalState;
    private EndpointState[] receiveState;
    private int[] arrivalSlot;
    private int[] freeStack;
    private int freeCount;
    // The view handed to the back-end's pull.
    private final long[] segmentAddress = new long[DomainAgent.MAX_IOV];
    private final long[] segmentLength = new long[DomainAgent.MAX_IOV];
    private int segmentCount;
    private long viewArrival;
    private int viewHandle;
    private long viewMessageLength;
    private long viewLength;
    // Multi-recv buffers released while a pull into them is in flight: the release (FI_MULTI_RECV) moves to the
    // completion of the last pull (a short list: a linear scan; it grows past its size only off the steady state).
    private EndpointState[] owedState = new EndpointState[16];
    private long[] owedHandle = new long[16];
    private int owedCount;
    CommandAdapter commands;
    CreditFlow flow;

    OperationArrivals(
        final OperationBackend backend,
        final AtomicReferenceArray<EndpointState> endpoints,
        final Long2LongHashMap[] avReverse,
        final MatchResult result,
        final ReceiveCompletions receiveCompletions,
        final int capacity)
    {
        this.backend = backend;
        this.endpoints = endpoints;
        this.avReverse = avReverse;
        this.result = result;
        this.receiveCompletions = receiveCompletions;
        this.arrivalState = new EndpointState[capacity];
        this.receiveState = new EndpointState[capacity];
        this.arrivalSlot = new int[capacity];
        this.freeStack = new int[capacity];
        for (int i = 0; i < capacity; i++)
        {
            freeStack[i] = capacity - 1 - i;
        }
        this.freeCount = capacity;
    }

    int arrive(
        final int endpoint,
        final long sourceKey,
        final boolean tagged,
        final long tag,
        final long data,
        final boolean hasData,
        final long length,
        final long arrival,
        final boolean store)
    {
        final EndpointState arrivalEp = EndpointState.at(endpoints, endpoint);
        if (null == arrivalEp)
        {
            return ECONNREFUSED;
        }
        final EndpointState ep = arrivalEp.rx;
        final CompletionRing cq = ep.rxCq;
        if ((null != cq && (!cq.hasSpace() || !cq.hasErrorSpace())) || 0 == freeCount)
        {
            return OperationContext.BUSY;
        }
        final int slot = ep.allocateSlot();
        if (slot < 0)
        {
            return OperationContext.BUSY;
        }
        ep.slotArrival[slot] = arrivalEp.index;
        // No account: an operation-level back-end runs its own flow control.
        ep.remoteData[slot] = hasData;
        ep.slotAccount[slot] = null;
        ep.slotCharge[slot] = 0;
        ep.rendezvous[slot] = true;
        ep.rvSenderKey[slot] = sourceKey;
        ep.rvCookie[slot] = arrival;
        final MatchResult r = result;
        final int status =
            MessageReceiver.match(avReverse, arrivalEp, ep, sourceKey, tagged, tag, length, data, slot, store, r);
        switch (status)
        {
            case MatchStatus.MATCHED:
                matched(arrivalEp, ep, slot, r, length);
                return OperationContext.DELIVERED;
            case MatchStatus.QUEUED:
                // Stored without its payload: a later receive, a claim or a discard decides (the slot keeps it).
                ep.rvSrcCount[slot] = STORED;
                return OperationContext.DELIVERED;
            case MatchStatus.EAGAIN:
                flow.freeSlot(ep, slot);
                return store ? EAGAIN : OperationContext.NOT_MATCHED;
            default:
                // Taken without a buffer (a search that discards): the sender is done.
                flow.freeSlot(ep, slot);
                backend.discard(arrival, 0);
                return OperationContext.DELIVERED;
        }
    }

    /**
     * A receive (or a claim) matched an arrival stored in {@code slot}: ask the back-end to pull it now.
     */
    void matchedStored(final EndpointState ep, final int slot, final MatchResult r)
    {
        final EndpointState arrivalEp = endpoints.get(ep.slotArrival[slot]);
        matched(null == arrivalEp ? ep : arrivalEp, ep, slot, r, r.length() + r.overflow());
    }

    /**
     * An arrival stored in {@code slot} was discarded ({@code FI_DISCARD}): the back-end ends its sender's operation
     * without pulling.
     */
    void discarded(final EndpointState ep, final int slot)
    {
        backend.discard(ep.rvCookie[slot], 0);
        flow.freeSlot(ep, slot);
    }

    /**
     * Endpoint {@code state} closes (agent thread, before it is withdrawn): the arrivals it stored are refused, so
     * that their senders complete with {@code ECONNREFUSED} instead of waiting. A shared receive context's stored
     * arrivals stay (its other endpoints may still take them).
     */
    void endpointClosed(final EndpointState state)
    {
        for (int i = owedCount - 1; i >= 0; i--)
        {
            if (owedState[i] == state)
            {
                remove(i);
            }
        }
        if (null == state || state.rx != state)
        {
            return;
        }
        for (int slot = 0; slot < state.rendezvous.length; slot++)
        {
            if (state.rendezvous[slot] && STORED == state.rvSrcCount[slot])
            {
                state.rendezvous[slot] = false;
                backend.discard(state.rvCookie[slot], Errno.ECONNREFUSED.value());
            }
        }
    }

    /**
     * A receive matched the arrival in {@code slot}: keep its completion fields and pin, then ask the back-end to
     * pull into its buffer.
     */
    private void matched(
        final EndpointState arrivalEp, final EndpointState ep, final int slot, final MatchResult r,
        final long messageLength)
    {
        final long address = r.bufferAddress();
        Rendezvous.keepReceive(ep, slot, r, commands);
        ep.rvSrcCount[slot] = 0;
        // The destination, cut to the bytes that fit.
        long left = r.length();
        int count = 0;
        if (left > 0 && address >= 0)
        {
            segmentAddress[0] = address + r.offset();
            segmentLength[0] = left;
            count = 1;
        }
        else if (left > 0)
        {
            final int entry = (int) (address & ~EndpointState.IOV_HANDLE);
            for (int k = 0; k < ep.rxIovCount[entry] && left > 0; k++)
            {
                final long n = Math.min(left, ep.rxIovLength[entry * DomainAgent.MAX_IOV + k]);
                if (n > 0)
                {
                    segmentAddress[count] = ep.rxIovAddress[entry * DomainAgent.MAX_IOV + k];
                    segmentLength[count] = n;
                    count++;
                    left -= n;
                }
            }
        }
        // The segments are copied here: a receive with several buffers gives its entry back now.
        ep.releaseRxIov(address);
        if (0 == freeCount)
        {
            grow();
        }
        final int handle = freeStack[--freeCount];
        arrivalState[handle] = arrivalEp;
        receiveState[handle] = ep;
        arrivalSlot[handle] = slot;
        segmentCount = count;
        viewArrival = ep.rvCookie[slot];
        viewHandle = handle;
        viewMessageLength = messageLength;
        viewLength = r.length();
        final int status = backend.pull(this);
        if (status < 0)
        {
            done(handle, -status);
        }
    }

    /**
     * The table doubles when a stored arrival is matched with every record in flight (a new announcement waits
     * instead: {@code BUSY}); off the steady state.
     */
    private void grow()
    {
        final int old = freeStack.length;
        arrivalState = Arrays.copyOf(arrivalState, 2 * old);
        receiveState = Arrays.copyOf(receiveState, 2 * old);
        arrivalSlot = Arrays.copyOf(arrivalSlot, 2 * old);
        freeStack = new int[2 * old];
        for (int i = 2 * old - 1; i >= old; i--)
        {
            freeStack[freeCount++] = i;
        }
    }

    /**
     * The back-end's {@link OperationContext#arrivalDone}.
     */
    int done(final int handle, final int errno)
    {
        if (handle < 0 || handle >= arrivalState.length || null == arrivalState[handle])
        {
            return ENOENT;
        }
        final EndpointState arrivalEp = arrivalState[handle];
        final EndpointState ep = receiveState[handle];
        final int slot = arrivalSlot[handle];
        arrivalState[handle] = null;
        receiveState[handle] = null;
        freeStack[freeCount++] = handle;
        if (ep == arrivalEp && endpoints.get(arrivalEp.index) != arrivalEp)
        {
            // The receiving endpoint closed meanwhile (its close gave the pins back): nothing is written. (On a
            // shared receive context the receive is the context's: it completes there.)
            return ECONNREFUSED;
        }
        ep.engine.multiRecvSegmentComplete(ep.rvReceiveHandle[slot]);
        final long receive = ep.rvReceiveHandle[slot];
        if ((ep.rvFlags[slot] & Flags.MULTI_RECV) != 0 && -1 != receive &&
            (ep.receivePins.get(receive) >>> 40) > 1 && holdRelease(ep, receive))
        {
            // This pull released the buffer but others still copy into it: the last of them carries the release.
            ep.rvFlags[slot] &= ~Flags.MULTI_RECV;
        }
        else if (owedCount > 0 && lastPullOfReleased(ep, receive))
        {
            ep.rvFlags[slot] |= Flags.MULTI_RECV;
        }
        final CompletionRing cq = ep.rxCq;
        if (0 != errno)
        {
            if (null != ep.recvCounter)
            {
                ep.recvCounter.addError(1);
            }
            if (null != cq)
            {
                // Errors are reported even for receives posted without FI_COMPLETION (selective completion).
                cq.writeError(ep.rvContext[slot], ep.rvFlags[slot], 0, ep.rvBuffer[slot], ep.rvData[slot],
                    ep.rvTag[slot], 0, Math.abs(errno), 0, ep.rvSource[slot]);
            }
        }
        else if (ep.rvOverflow[slot] > 0)
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
        final long receiveHandle = ep.rvReceiveHandle[slot];
        commands.unpinReceive(ep, -1 == receiveHandle ? EndpointState.RV_PIN_KEY | slot : receiveHandle,
            (ep.rvFlags[slot] & Flags.MULTI_RECV) != 0, true);
        flow.freeSlot(ep, slot);
        return OperationContext.DELIVERED;
    }

    /**
     * A message released multi-recv buffer {@code handle} ({@code MessageReceiver.complete}) while a pull still
     * copies into it (its pin is kept): the release moves to the completion of the last pull, so that the completion
     * with {@code FI_MULTI_RECV} (or the separate release entry) is the buffer's last.
     *
     * @return true when moved (the caller completes the message without {@code FI_MULTI_RECV}).
     */
    boolean holdRelease(final EndpointState ep, final long handle)
    {
        if (-1 == handle || -1 == ep.receivePins.get(handle))
        {
            return false;
        }
        if (owedCount == owedState.length)
        {
            owedState = Arrays.copyOf(owedState, 2 * owedCount);
            owedHandle = Arrays.copyOf(owedHandle, 2 * owedCount);
        }
        owedState[owedCount] = ep;
        owedHandle[owedCount] = handle;
        owedCount++;
        return true;
    }

    /**
     * Whether the pull ending now is the last one into released multi-recv buffer {@code handle} whose release it
     * carries (taken off the list when so).
     */
    private boolean lastPullOfReleased(final EndpointState ep, final long handle)
    {
        for (int i = 0; i < owedCount; i++)
        {
            if (owedState[i] == ep && owedHandle[i] == handle)
            {
                if ((ep.receivePins.get(handle) >>> 40) > 1)
                {
                    return false;
                }
                remove(i);
                return true;
            }
        }
        return false;
    }

    private void remove(final int i)
    {
        owedCount--;
        owedState[i] = owedState[owedCount];
        owedHandle[i] = owedHandle[owedCount];
        owedState[owedCount] = null;
    }

    // ---- RendezvousPull: the view of the pull being asked for ---------------------------------------------------

    @Override
    public long arrival()
    {
        return viewArrival;
    }

    @Override
    public int handle()
    {
        return viewHandle;
    }

    @Override
    public long messageLength()
    {
        return viewMessageLength;
    }

    @Override
    public long length()
    {
        return viewLength;
    }

    @Override
    public int segmentCount()
    {
        return segmentCount;
    }

    @Override
    public long segmentAddress(final int index)
    {
        return segmentAddress[index];
    }

    @Override
    public long segmentLength(final int index)
    {
        return segmentLength[index];
    }
}
