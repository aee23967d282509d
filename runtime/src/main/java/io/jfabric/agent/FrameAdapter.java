package io.jfabric.agent;

import io.jfabric.Flags;
import io.jfabric.ring.CompletionRing;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.FrameHandler;
import io.jfabric.spi.TransportEventHandler;
import org.agrona.DirectBuffer;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongUnaryOperator;

/**
 * Part of the domain agent: what comes from the frame transport. Every frame passes here first: malformed frames
 * and answers to nothing this domain awaits ({@link AwaitedAnswers}) are dropped, the rest go to the
 * {@link MessageReceiver}. The transport's events come here too: a peer reported down has every request awaiting
 * its answer failed ({@link #failAwaited()}: the same error completion the answer would have brought).
 * <p>
 * Threading: single-threaded, owned by its domain agent's duty cycle ({@link DomainAgent}); package-private.
 */
final class FrameAdapter
{
    private final DomainTransport transport;
    private final AtomicReferenceArray<EndpointState> endpoints;
    private final FrameFlyweight in;
    private final AwaitedAnswers awaited;
    private final LongUnaryOperator peerDomainOf;
    private long dataFrames;
    private long droppedFrames;
    private long transportErrors;
    /** Told of each transport error after it is counted (the domain's bound EQ); null: none. Control path sets. */
    private volatile TransportEventHandler errorListener;
    /** Takes the transport's frames. */
    final FrameHandler frameHandler = this::onFrame;
    /** Takes the transport's events. */
    final TransportEventHandler eventHandler = new TransportEvents();
    MessageReceiver receiver;
    TransmitCompletion completion;
    Rendezvous rendezvous;
    RmaTarget rmaTarget;
    CreditFlow flow;
    ConnectionFrames connections;

    FrameAdapter(
        final DomainTransport transport,
        final AtomicReferenceArray<EndpointState> endpoints,
        final FrameFlyweight in,
        final AwaitedAnswers awaited)
    {
        this.transport = transport;
        this.endpoints = endpoints;
        this.in = in;
        this.awaited = awaited;
        this.peerDomainOf = transport::peerDomain;
    }

    /**
     * @return RDATA frames taken.
     */
    long dataFrames()
    {
        return dataFrames;
    }

    /**
     * @return frames dropped as malformed or as answers to nothing awaited.
     */
    long droppedFrames()
    {
        return droppedFrames;
    }

    /**
     * @return errors the transport reported.
     */
    long transportErrors()
    {
        return transportErrors;
    }

    void errorListener(final TransportEventHandler listener)
    {
        errorListener = listener;
    }

    /**
     * Report an error of the agent's own (not the transport's) to the domain's bound EQ, if any.
     *
     * @param errno  the error.
     * @param detail what happened.
     */
    void report(final int errno, final String detail)
    {
        final TransportEventHandler listener = errorListener;
        if (null != listener)
        {
            listener.onTransportError(errno, detail);
        }
    }

    /**
     * Every frame from the transport: malformed frames and answers that answer none of this domain's awaited
     * requests are dropped (a restarted peer must never receive an answer meant for its predecessor, nor one for
     * an operation already failed); an answer that ends its request removes the record once taken.
     */
    private boolean onFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < FrameDescriptor.HEADER_LENGTH || !wellFormed(in.wrap(buffer, offset), length))
        {
            droppedFrames++;
            return true;
        }
        final byte opcode = in.opcode();
        if (FrameDescriptor.OPCODE_CM == opcode)
        {
            return connections.onFrame(buffer, offset, length);
        }
        if (!FrameDescriptor.isSolicitedAnswer(opcode))
        {
            return receiver.onFrame(buffer, offset, length);
        }
        final long srcKey = in.srcKey();
        final int endpoint = in.dstEndpoint();
        long cookie = in.cookie();
        byte recordOpcode = opcode;
        boolean consumesRecord = false;
        switch (opcode)
        {
            case FrameDescriptor.OPCODE_CTS:
                // A CTS needs the RTS (FIN record) or streamed WRITE_RTS (RMA_ACK record) it answers to be
                // outstanding; it consumes nothing.
                recordOpcode = (in.flags() &
                    FrameDescriptor.FLAG_RMA_WRITE) != 0 ? FrameDescriptor.OPCODE_RMA_ACK : FrameDescriptor.OPCODE_FIN;
                break;
            case FrameDescriptor.OPCODE_RDATA:
            {
                final long chunkFlags = in.flags();
                consumesRecord = (chunkFlags & FrameDescriptor.FLAG_LAST) != 0;
                if ((chunkFlags & FrameDescriptor.FLAG_READ_DATA) != 0)
                {
                    // A streamed read's chunks answer its READ_REQ (cookie = the read's context).
                    recordOpcode = FrameDescriptor.OPCODE_READ_RESP;
                }
                else
                {
                    // Chunks name the receiver's or the write target's slot; the last one ends the pull.
                    cookie = in.data();
                    if ((chunkFlags & FrameDescriptor.FLAG_RMA_WRITE) != 0)
                    {
                        recordOpcode = AwaitedAnswers.ANSWER_WRITE_DATA;
                    }
                }
                break;
            }
            default:
                consumesRecord = true;
                break;
        }
        if (awaited.find(srcKey, endpoint, cookie, recordOpcode) < 0)
        {
            droppedFrames++;
            return true;
        }
        if (!receiver.onFrame(buffer, offset, length))
        {
            return false;
        }
        if (FrameDescriptor.OPCODE_RDATA == opcode)
        {
            dataFrames++;
        }
        if (consumesRecord)
        {
            // Found again: the handler queues its own answers but never offers, so the table is unchanged.
            final int found = awaited.find(srcKey, endpoint, cookie, recordOpcode);
            if (found >= 0)
            {
                awaited.removeAt(found);
                if (isRequestAnswer(recordOpcode))
                {
                    flow.answered(endpoint, srcKey);
                }
            }
        }
        return true;
    }

    /**
     * @return true for the answer of a request counted in the request window (not a rendezvous send's FIN, nor a
     * CTS's data).
     */
    private static boolean isRequestAnswer(final byte answer)
    {
        switch (answer)
        {
            case FrameDescriptor.OPCODE_ACK:
            case FrameDescriptor.OPCODE_RMA_ACK:
            case FrameDescriptor.OPCODE_READ_RESP:
            case FrameDescriptor.OPCODE_ATOMIC_RESP:
                return true;
            default:
                return false;
        }
    }

    /**
     * A frame whose lengths agree with what the transport delivered: the agent copies as many bytes as the header
     * says, so a frame that claims more than it holds is dropped rather than read past.
     */
    private boolean wellFormed(final FrameFlyweight in, final int length)
    {
        if (FrameDescriptor.VERSION != in.version())
        {
            return false;
        }
        final long declared = in.length();
        if (declared < 0)
        {
            return false;
        }
        switch (in.opcode())
        {
            case FrameDescriptor.OPCODE_MSG:
            case FrameDescriptor.OPCODE_TAGGED:
            case FrameDescriptor.OPCODE_RDATA:
            case FrameDescriptor.OPCODE_CM:
                return FrameDescriptor.HEADER_LENGTH + declared <= length;
            case FrameDescriptor.OPCODE_READ_RESP:
            case FrameDescriptor.OPCODE_ATOMIC_RESP:
                return 0 != in.data() ||
                    FrameDescriptor.HEADER_LENGTH + declared <= length;
            case FrameDescriptor.OPCODE_WRITE:
                return FrameDescriptor.RMA_HEADER_LENGTH + declared <= length;
            case FrameDescriptor.OPCODE_ATOMIC:
            {
                final boolean compare = (in.data() >>> 16) == 2;
                return FrameDescriptor.RMA_HEADER_LENGTH + (compare ? 2 * declared : declared) <= length;
            }
            case FrameDescriptor.OPCODE_READ_REQ:
            case FrameDescriptor.OPCODE_RTS:
            case FrameDescriptor.OPCODE_CTS:
                return FrameDescriptor.RMA_HEADER_LENGTH <= length;
            default:
                return true;
        }
    }

    /**
     * Turn the awaited requests of peers reported down into error completions, oldest first; a full CQ leaves the
     * rest for a later duty cycle.
     *
     * @return operations failed.
     */
    int failAwaited()
    {
        int work = 0;
        final AwaitedAnswers a = awaited;
        while (a.failures() > 0 && work < DomainAgent.BATCH)
        {
            final EndpointState ep = endpoints.get(a.failedEndpoint());
            // An endpoint that closed meanwhile has nobody to tell.
            if (null != ep && !failAwaited(ep, a.failedAnswer(), a.failedCookie(), a.failedFlags(), a.failedTag(),
                a.failedStatus()))
            {
                break;
            }
            if (isRequestAnswer(a.failedAnswer()))
            {
                flow.answered(a.failedEndpoint(), a.failedPeer());
            }
            a.consumeFailure();
            work++;
        }
        return work;
    }

    /**
     * Complete one awaited request with {@code status}: the same completion its answer would have brought had the
     * peer answered with that error.
     *
     * @return false to retry later (a full CQ).
     */
    private boolean failAwaited(
        final EndpointState ep, final byte answer, final long cookie, final long frameFlags, final long kind,
        final int status)
    {
        switch (answer)
        {
            case FrameDescriptor.OPCODE_ACK:
            case FrameDescriptor.OPCODE_FIN:
                return completion.failTransmit(ep, cookie, Flags.SEND | kind, status);
            case FrameDescriptor.OPCODE_RMA_ACK:
            case FrameDescriptor.OPCODE_READ_RESP:
            case FrameDescriptor.OPCODE_ATOMIC_RESP:
                return completion.onRmaAnswer(answer, ep, frameFlags, cookie, status, null, 0, 0);
            case AwaitedAnswers.ANSWER_WRITE_DATA:
                // The initiator of a streamed write died: release the slot; no answer is due, target memory keeps
                // whatever chunks arrived.
                rmaTarget.releaseSlot((int) cookie);
                return true;
            default:
            {
                // The sender of a rendezvous message died: the receive completes with the error.
                final CompletionRing cq = ep.rx.rxCq;
                if (null != cq && !cq.hasErrorSpace())
                {
                    return false;
                }
                rendezvous.failRendezvous(ep.rx, (int) cookie, status);
                return true;
            }
        }
    }

    // ------------------------------------------------------------------ flow control

    /**
     * The transport's events, on the agent thread: a peer down fails what this domain awaits from it.
     */
    private final class TransportEvents implements TransportEventHandler
    {
        @Override
        public void onPeerDown(final long peerKey, final int errno)
        {
            awaited.failPeer(peerDomainOf, transport.peerDomain(peerKey), errno);
            connections.onPeerDown(peerKey, errno);
        }

        @Override
        public void onTransportError(final int errno, final String detail)
        {
            transportErrors++;
            final TransportEventHandler listener = errorListener;
            if (null != listener)
            {
                listener.onTransportError(errno, detail);
            }
        }
    }
}
