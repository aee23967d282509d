package io.jfabric.agent;

import io.jfabric.Flags;
import io.jfabric.spi.DomainTransport;
import io.jfabric.stat.DomainCounters;
import org.agrona.DirectBuffer;
import org.agrona.collections.LongHashSet;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Part of the domain agent: everything this domain offers goes out here. Picks the transport lane of a frame
 * (answers on the answer lane), numbers frames, remembers every request that waits for an answer
 * ({@link AwaitedAnswers}), and keeps the peers found full during the current flush.
 * <p>
 * Threading: single-threaded, owned by its domain agent's duty cycle ({@link DomainAgent}); package-private.
 */
final class FrameOutbox
{
    /** The domain's counters (process counters file); set once by the agent's wiring. */
    DomainCounters counters;
    private final DomainTransport transport;
    private final AwaitedAnswers awaited;
    /** Reads back the frame being offered. */
    private final FrameFlyweight sent = new FrameFlyweight();
    private long sequence;
    // Peers whose ring was found full during the current flush (answers and streams to others go on). A set, not a
    // fixed array: with a fixed 16 the flush had to stop at the 17th full peer, so answers owed to a bystander
    // queued behind 17 stalled peers' answers waited for one of them to read again. The set grows (an allocation
    // only when more peers are full at once than ever before) and is emptied at each flush.
    private final LongHashSet blockedPeers = new LongHashSet(64);

    FrameOutbox(final DomainTransport transport, final AwaitedAnswers awaited)
    {
        this.transport = transport;
        this.awaited = awaited;
    }

    /**
     * @return the sequence the next frame carries.
     */
    long sequence()
    {
        return sequence;
    }

    /**
     * Forget the peers found full (a new flush starts).
     */
    void clearBlocked()
    {
        blockedPeers.clear();
    }

    /**
     * Offer one frame to the transport on the lane its opcode calls for, and remember a request that waits for an
     * answer ({@link AwaitedAnswers}). A CTS that cannot reach its peer counts as sent: its receive fails at once
     * with the transport's errno, as if the sender had died after it.
     *
     * @return 1 when sent, 0 on back-pressure, or a negative errno.
     */
    int offer(
        final long peer,
        final int endpoint,
        final UnsafeBuffer h,
        final int headerLength,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        return offer(peer, endpoint, h, headerLength, payload, payloadOffset, payloadLength, false);
    }

    /**
     * {@link #offer(long, int, UnsafeBuffer, int, DirectBuffer, int, int)}, a datagram endpoint's message on the
     * unreliable lane when {@code datagram} is true.
     */
    int offer(
        final long peer,
        final int endpoint,
        final UnsafeBuffer h,
        final int headerLength,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength,
        final boolean datagram)
    {
        final FrameFlyweight out = sent.wrap(h, 0);
        final byte opcode = out.opcode();
        final int result = transport.offer(peer,
            FrameDescriptor.isAnswer(opcode) ? DomainTransport.LANE_ANSWER :
            (datagram ? DomainTransport.LANE_UNRELIABLE : DomainTransport.LANE_REQUEST),
            h, 0, headerLength, payload, payloadOffset, payloadLength);
        counters.onOffer(result);
        if (0 != result)
        {
            // Every frame that did not meet back-pressure takes a number (diagnostics; nothing depends on it).
            sequence++;
        }
        if (result > 0)
        {
            awaitAnswer(peer, endpoint, h, opcode);
        }
        else if (result < 0 && FrameDescriptor.OPCODE_CTS == opcode)
        {
            awaited.enqueueFailure(peer, endpoint, out.data(),
                answerOf(opcode, out.flags()), 0, 0, -result);
            return 1;
        }
        return result;
    }

    /**
     * The answer opcode a request frame waits for ({@link AwaitedAnswers#ANSWER_WRITE_DATA} for a write target's
     * CTS), or 0 when it needs none.
     */
    private static byte answerOf(final byte opcode, final long frameFlags)
    {
        switch (opcode)
        {
            case FrameDescriptor.OPCODE_MSG:
            case FrameDescriptor.OPCODE_TAGGED:
                return (frameFlags & FrameDescriptor.FLAG_ACK_REQUESTED) != 0 ? FrameDescriptor.OPCODE_ACK : 0;
            case FrameDescriptor.OPCODE_RTS:
                return FrameDescriptor.OPCODE_FIN;
            case FrameDescriptor.OPCODE_WRITE:
            case FrameDescriptor.OPCODE_WRITE_RTS:
                return FrameDescriptor.OPCODE_RMA_ACK;
            case FrameDescriptor.OPCODE_READ_REQ:
                return FrameDescriptor.OPCODE_READ_RESP;
            case FrameDescriptor.OPCODE_ATOMIC:
                return FrameDescriptor.OPCODE_ATOMIC_RESP;
            case FrameDescriptor.OPCODE_CTS:
                return (frameFlags & FrameDescriptor.FLAG_RMA_WRITE) != 0 ? AwaitedAnswers.ANSWER_WRITE_DATA :
                    FrameDescriptor.OPCODE_RDATA;
            default:
                return 0;
        }
    }

    private void awaitAnswer(final long peer, final int endpoint, final UnsafeBuffer h, final byte opcode)
    {
        final FrameFlyweight out = sent;
        final long frameFlags = out.flags();
        final byte answer = answerOf(opcode, frameFlags);
        if (0 == answer)
        {
            return;
        }
        final long cookie = out.cookie();
        switch (answer)
        {
            case FrameDescriptor.OPCODE_ACK:
                awaited.add(peer, endpoint, cookie, answer, frameFlags & FrameDescriptor.FLAG_WANT_COMPLETION,
                    FrameDescriptor.OPCODE_TAGGED == opcode ? Flags.TAGGED : Flags.MSG);
                break;
            case FrameDescriptor.OPCODE_FIN:
                awaited.add(peer, endpoint, cookie, answer, frameFlags,
                    (frameFlags & FrameDescriptor.FLAG_TAGGED) != 0 ? Flags.TAGGED : Flags.MSG);
                break;
            case FrameDescriptor.OPCODE_RMA_ACK:
            case FrameDescriptor.OPCODE_READ_RESP:
            case FrameDescriptor.OPCODE_ATOMIC_RESP:
                awaited.add(peer, endpoint, cookie, answer, frameFlags, 0);
                break;
            default:
                // CTS: the data chunks name the receiver's (or the write target's) slot, the CTS's data field.
                awaited.add(peer, endpoint, out.data(), answer, 0, 0);
                break;
        }
    }

    boolean blocked(final long peer)
    {
        return !blockedPeers.isEmpty() && blockedPeers.contains(peer);
    }

    /**
     * Remember, for the rest of this flush, a peer whose ring is full: later frames to it wait (they keep their
     * order behind the one that met back-pressure), frames to other peers go on.
     */
    void block(final long peer)
    {
        blockedPeers.add(peer);
    }
}
