package io.jfabric.agent;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * The flow-control state between one local endpoint and one peer endpoint (see {@link FlowControl}), both ways.
 * <p>
 * Inbound (the peer sends to us): messages and eager bytes that arrived and that were consumed (matched or taken
 * out of the unexpected store), and how much of that was last reported back in a credit frame. Outbound (we send to
 * the peer): messages and bytes sent, and what the peer reported consumed; the difference is what we may still
 * send. Counters are cumulative and reports absolute, so a lost or repeated credit frame is harmless. Each side
 * records the transport's epoch of the peer ({@code DomainTransport.peerEpoch}); when it changes (the peer died or
 * restarted) that side starts over.
 * <p>
 * Sends without credit wait here, in posting order, as copies of their command records ({@link #defer}).
 * <p>
 * Threading: not thread-safe; owned by the domain agent.
 */
final class PeerAccount
{
    private static final int RECORD_HEADER = 8;

    final EndpointState endpoint;
    final long peerKey;

    long inEpoch;
    long arrived;
    long arrivedBytes;
    long consumed;
    long consumedBytes;
    long reported;
    long reportedBytes;
    /** In the agent's list of accounts with a credit frame to send. */
    boolean creditQueued;

    long outEpoch;
    long sent;
    long sentBytes;
    long acked;
    long ackedBytes;
    /** Requests to the peer that await their answer (the request window, {@link FlowControl#requests()}). */
    int awaiting;
    /**
     * Requests from the peer that this endpoint took and has not answered yet (the target side of the window,
     * {@link OwedRequests}); inbound, started over with the peer's incarnation.
     */
    int owed;
    /** The peer went over {@link FlowControl#peerOwed()} and was reported; cleared once it owes nothing again. */
    boolean owedReported;
    /** In the agent's list of accounts with deferred sends. */
    boolean waiting;
    /** Deferred commands queued here, and how many of them are fenced. */
    int deferredCount;
    int fencedDeferred;
    private UnsafeBuffer deferred;
    private int head;
    private int tail;

    PeerAccount(final EndpointState endpoint, final long peerKey, final long epoch)
    {
        this.endpoint = endpoint;
        this.peerKey = peerKey;
        this.inEpoch = epoch;
        this.outEpoch = epoch;
    }

    /**
     * The peer started over (died or restarted): nothing it sent before is charged any more.
     */
    void resetInbound(final long epoch)
    {
        inEpoch = epoch;
        arrived = 0;
        arrivedBytes = 0;
        consumed = 0;
        consumedBytes = 0;
        reported = 0;
        reportedBytes = 0;
        owed = 0;
        owedReported = false;
    }

    /**
     * The peer started over: it holds nothing of ours, so the full grant is ours again.
     */
    void resetOutbound(final long epoch)
    {
        outEpoch = epoch;
        sent = 0;
        sentBytes = 0;
        acked = 0;
        ackedBytes = 0;
    }

    /**
     * Copy a command record to the tail of the deferred FIFO (the inject payload lives in the record, so the
     * application may reuse its buffer at once).
     */
    void defer(final int msgTypeId, final DirectBuffer buffer, final int index, final int length,
        final boolean fenced)
    {
        final int needed = RECORD_HEADER + ((length + 7) & ~7);
        if (null == deferred || tail + needed > deferred.capacity())
        {
            makeRoom(needed);
        }
        deferred.putInt(tail, length);
        deferred.putInt(tail + 4, msgTypeId);
        deferred.putBytes(tail + RECORD_HEADER, buffer, index, length);
        tail += needed;
        deferredCount++;
        if (fenced)
        {
            fencedDeferred++;
        }
    }

    private void makeRoom(final int needed)
    {
        final int live = tail - head;
        final int capacity = null == deferred ? 0 : deferred.capacity();
        if (null != deferred && live + needed <= capacity && head >= live)
        {
            // Compact: move the live records to the front (the ranges do not overlap).
            deferred.putBytes(0, deferred, head, live);
        }
        else
        {
            int grown = Math.max(4096, capacity);
            while (grown < live + needed)
            {
                grown *= 2;
            }
            final UnsafeBuffer bigger = new UnsafeBuffer(ByteBuffer.allocateDirect(grown));
            if (live > 0)
            {
                bigger.putBytes(0, deferred, head, live);
            }
            deferred = bigger;
        }
        head = 0;
        tail = live;
    }

    /**
     * @return the buffer holding the oldest deferred record (valid while {@link #deferredCount} is positive).
     */
    MutableDirectBuffer deferredBuffer()
    {
        return deferred;
    }

    /**
     * @return the offset of the oldest record's command.
     */
    int headIndex()
    {
        return head + RECORD_HEADER;
    }

    /**
     * @return the oldest record's length.
     */
    int headLength()
    {
        return deferred.getInt(head);
    }

    /**
     * @return the oldest record's command type.
     */
    int headType()
    {
        return deferred.getInt(head + 4);
    }

    /**
     * Drop the oldest record (it was sent or failed).
     */
    void popDeferred(final boolean fenced)
    {
        head += RECORD_HEADER + ((headLength() + 7) & ~7);
        deferredCount--;
        if (fenced)
        {
            fencedDeferred--;
        }
        if (0 == deferredCount)
        {
            head = 0;
            tail = 0;
        }
    }
}
