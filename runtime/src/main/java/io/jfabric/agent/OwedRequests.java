package io.jfabric.agent;

import io.jfabric.Errno;
import io.jfabric.stat.DomainCounters;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Part of the domain agent: the target side of the request window. Each peer endpoint may have at most
 * {@link FlowControl#peerOwed()} requests that this domain owes an answer (RMA writes and reads, one-frame or
 * streamed, atomics, eager delivery-complete sends) outstanding at each endpoint of ours
 * ({@link PeerAccount#owed}: counted up when the request is taken, down when its final answer, the last chunk of a
 * streamed read included, is handed to the transport). A jfabric peer never gets near that bound: its own agent
 * keeps at most {@link FlowControl#requests()} such requests outstanding per endpoint pair. A peer that ignores its
 * window (frames forged through the transport, another implementation) has its further requests dropped without an
 * answer, counted ({@link #dropped()}, the counters file) and reported once per episode as an error event on the
 * event queue bound to the domain, so the answer queue, the stream table and the streamed-write slots never grow
 * for it beyond the bound and other peers' answers never wait behind its requests.
 * <p>
 * Threading: single-threaded, owned by its domain agent's duty cycle ({@link DomainAgent}); package-private.
 */
final class OwedRequests
{
    private final AtomicReferenceArray<EndpointState> endpoints;
    private final int limit;
    private long dropped;
    DomainCounters counters;
    FrameAdapter frames;

    OwedRequests(final AtomicReferenceArray<EndpointState> endpoints, final int limit)
    {
        this.endpoints = endpoints;
        this.limit = limit;
    }

    /**
     * @return requests dropped because their peer had {@link FlowControl#peerOwed()} answers owed already.
     */
    long dropped()
    {
        return dropped;
    }

    /**
     * @param opcode     an arriving frame's opcode.
     * @param frameFlags its flags.
     * @return true when the frame is a request this domain answers once it takes it (the requests the window
     * counts).
     */
    static boolean answered(final byte opcode, final long frameFlags)
    {
        switch (opcode)
        {
            case FrameDescriptor.OPCODE_WRITE:
            case FrameDescriptor.OPCODE_READ_REQ:
            case FrameDescriptor.OPCODE_ATOMIC:
            case FrameDescriptor.OPCODE_WRITE_RTS:
                return true;
            case FrameDescriptor.OPCODE_MSG:
            case FrameDescriptor.OPCODE_TAGGED:
                return (frameFlags & FrameDescriptor.FLAG_ACK_REQUESTED) != 0;
            default:
                return false;
        }
    }

    /**
     * A request from {@code account}'s peer arrives: take it into the account, or drop it when the peer already has
     * the bound owed.
     *
     * @param account the peer endpoint's account at the destination endpoint.
     * @return true when the request may be served (then it is counted: {@link #untake} if it is left in the ring).
     */
    boolean take(final PeerAccount account)
    {
        if (account.owed >= limit)
        {
            dropped++;
            if (null != counters)
            {
                counters.onOwedDrop();
            }
            if (!account.owedReported)
            {
                // Once per episode (until the peer owes nothing again): an error event on the domain's EQ.
                account.owedReported = true;
                frames.report(Errno.EREMOTEIO.value(), "peer key 0x" + Long.toHexString(account.peerKey) +
                    " has " + account.owed + " requests awaiting answers at endpoint " + account.endpoint.index +
                    " (bound " + limit + ", jfabric.flow.peerOwed): it ignores the request window, its further" +
                    " requests are dropped without an answer");
            }
            return false;
        }
        account.owed++;
        return true;
    }

    /**
     * A request {@link #take}n was left in the ring (no room yet): it will arrive again.
     *
     * @param account its account.
     */
    static void untake(final PeerAccount account)
    {
        if (account.owed > 0)
        {
            account.owed--;
        }
    }

    /**
     * A frame went to a peer: when it is the final answer to one of the peer's requests, the peer owes one less.
     *
     * @param opcode   the frame's opcode (an answer, or {@link FrameDescriptor#OPCODE_READ_RESP} for the last chunk
     *                 of a streamed read).
     * @param endpoint our endpoint that answers.
     * @param peer     the peer endpoint's key.
     */
    void onAnswerSent(final byte opcode, final int endpoint, final long peer)
    {
        if (FrameDescriptor.OPCODE_ACK != opcode && FrameDescriptor.OPCODE_RMA_ACK != opcode &&
            FrameDescriptor.OPCODE_READ_RESP != opcode && FrameDescriptor.OPCODE_ATOMIC_RESP != opcode)
        {
            return;
        }
        final EndpointState ep = endpoint >= 0 && endpoint < endpoints.length() ? endpoints.get(endpoint) : null;
        if (null == ep)
        {
            return;
        }
        PeerAccount account = ep.lastAccount;
        if (null == account || account.peerKey != peer)
        {
            account = ep.accounts.get(peer);
        }
        if (null != account && account.owed > 0)
        {
            account.owed--;
            if (0 == account.owed)
            {
                account.owedReported = false;
            }
        }
    }
}
