package io.jfabric.fault;

import io.jfabric.Errno;
import io.jfabric.ForwardingDomainTransport;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.FrameHandler;
import io.jfabric.spi.TransportEventHandler;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@link DomainTransport} for tests that wraps a real one (inproc's) and applies a {@link FaultPlan} to the frames
 * its domain offers: it fails, drops, delays, reorders or stalls them, or answers for a peer that is down, and
 * records what it did in the plan's {@link FaultTrace}. Frames are opaque: a held frame is a copy of its header and
 * payload bytes, passed on to the wrapped transport unchanged. Held frames go on at the start of this domain's
 * {@link #poll} (one poll is one duty cycle of its agent), so delays are counted in duty cycles, not time, and a
 * run is the same for the same seed whatever the machine's speed.
 * <p>
 * The plan acts on the outbound side only (what this domain offers); inbound frames are the wrapped transport's.
 * A test that wants both directions opens both domains on this provider, each with its own plan.
 * <p>
 * Threading: {@link #offer} and {@link #poll} on the domain agent's thread (one thread at a time), as the SPI says;
 * the rest delegates.
 */
final class FaultLoopbackTransport extends ForwardingDomainTransport
{
    private final FaultPlan plan;
    private final FaultTrace trace;
    private final ArrayDeque<Held> delayed = new ArrayDeque<>();
    private final List<Held> window = new ArrayList<>();
    private final ArrayDeque<Held> releasing = new ArrayDeque<>();
    private final Map<Long, byte[]> addresses = new HashMap<>();
    private final Set<Long> reportedDown = new HashSet<>();
    private int nextFrame;
    private long polls;
    private long windowSince;

    /**
     * A held frame: its destination, its bytes and the duty cycle it may go on at.
     */
    private record Held(long peerKey, int lane, int frameIndex, byte[] header, byte[] payload, long dueAt)
    {
    }

    FaultLoopbackTransport(final DomainTransport inner, final FaultPlan plan)
    {
        super(inner);
        this.plan = plan;
        this.trace = plan.trace();
    }

    @Override
    public int pollEvents(final TransportEventHandler handler, final int limit)
    {
        // A peer the plan takes down is reported once (as a real transport's liveness check would), so that the
        // agent fails what it awaits from it; it may be reported again after a restore and a new takeDown.
        int events = 0;
        for (final Map.Entry<Long, byte[]> known : addresses.entrySet())
        {
            final long peerKey = known.getKey();
            final Errno down = plan.downErrno(known.getValue());
            if (null == down)
            {
                reportedDown.remove(peerKey);
            }
            else if (events < limit && reportedDown.add(peerKey))
            {
                handler.onPeerDown(peerKey, down.value());
                events++;
            }
        }
        return events + inner.pollEvents(handler, limit - events);
    }

    @Override
    public int offer(
        final long peerKey,
        final int lane,
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        final byte[] peerAddress = addressOf(peerKey);
        final int frameBytes = headerLength + payloadLength;
        final Errno down = plan.downErrno(peerAddress);
        if (null != down)
        {
            final int index = nextFrame++;
            trace.countOffer(false);
            trace.add(new FaultTrace.Entry(index, FaultPlan.Kind.PEER_DOWN, frameBytes, down, 0));
            return down.negated();
        }
        if (plan.stalled(peerAddress))
        {
            return 0;
        }
        final int index = nextFrame;
        final Errno failure = plan.failureOf(index);
        if (null != failure)
        {
            nextFrame++;
            trace.countOffer(false);
            trace.add(new FaultTrace.Entry(index, FaultPlan.Kind.FAIL, frameBytes, failure, 0));
            return failure.negated();
        }
        if (plan.dropped(index))
        {
            nextFrame++;
            trace.countOffer(false);
            trace.add(new FaultTrace.Entry(index, FaultPlan.Kind.DROP, frameBytes, null, 0));
            return 1;
        }
        if (plan.inReorderWindow(index))
        {
            nextFrame++;
            trace.countOffer(false);
            if (window.isEmpty())
            {
                windowSince = polls;
            }
            window.add(copy(peerKey, lane, index, header, headerOffset, headerLength, payload, payloadOffset,
                payloadLength, polls));
            return 1;
        }
        final int delay = plan.delayPolls();
        if (delay > 0 || !delayed.isEmpty() || !releasing.isEmpty())
        {
            // Behind a held frame every later frame waits too: a delay adds latency, never reorders.
            nextFrame++;
            trace.countOffer(0 == delay);
            if (delay > 0)
            {
                trace.add(new FaultTrace.Entry(index, FaultPlan.Kind.DELAY, frameBytes, null, delay));
            }
            delayed.add(copy(peerKey, lane, index, header, headerOffset, headerLength, payload, payloadOffset,
                payloadLength, polls + delay));
            return 1;
        }
        final int sent = inner.offer(peerKey, lane, header, headerOffset, headerLength, payload, payloadOffset,
            payloadLength);
        if (0 != sent)
        {
            nextFrame++;
            trace.countOffer(true);
            for (int copy = plan.forgedCopies(); copy > 0 && sent > 0; copy--)
            {
                inner.offer(peerKey, lane, header, headerOffset, headerLength, payload, payloadOffset, payloadLength);
            }
        }
        return sent;
    }

    @Override
    public int poll(final FrameHandler handler, final int limit)
    {
        polls++;
        final int released = release();
        return released + inner.poll(handler, limit);
    }

    private int release()
    {
        if (!window.isEmpty() &&
            (window.size() >= plan.reorderCount() || polls - windowSince >= plan.reorderMaxPolls()))
        {
            plan.shuffle(window);
            for (int position = 0; position < window.size(); position++)
            {
                final Held h = window.get(position);
                trace.add(new FaultTrace.Entry(h.frameIndex(), FaultPlan.Kind.REORDER,
                    h.header().length + h.payload().length, null, position));
                releasing.add(h);
            }
            window.clear();
        }
        int released = 0;
        // The shuffled window goes first (its frames were offered before anything delayed behind them).
        released += drain(releasing, false);
        if (releasing.isEmpty())
        {
            released += drain(delayed, true);
        }
        return released;
    }

    private int drain(final ArrayDeque<Held> queue, final boolean onlyDue)
    {
        int released = 0;
        Held h;
        while (null != (h = queue.peekFirst()) && (!onlyDue || h.dueAt() <= polls))
        {
            final UnsafeBuffer headerBuffer = new UnsafeBuffer(h.header());
            final UnsafeBuffer payloadBuffer = 0 == h.payload().length ? null : new UnsafeBuffer(h.payload());
            final int sent = inner.offer(h.peerKey(), h.lane(), headerBuffer, 0, h.header().length, payloadBuffer, 0,
                h.payload().length);
            if (0 == sent)
            {
                break;
            }
            if (sent < 0)
            {
                // The agent was told "sent": a held frame the real transport refuses is lost, and said so.
                trace.add(new FaultTrace.Entry(h.frameIndex(), FaultPlan.Kind.DROP,
                    h.header().length + h.payload().length, Errno.of(-sent), 0));
            }
            queue.pollFirst();
            released++;
        }
        return released;
    }

    private byte[] addressOf(final long peerKey)
    {
        byte[] address = addresses.get(peerKey);
        if (null == address)
        {
            address = inner.address(peerKey);
            addresses.put(peerKey, address);
        }
        return address;
    }

    private static Held copy(
        final long peerKey,
        final int lane,
        final int frameIndex,
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength,
        final long dueAt)
    {
        final byte[] h = new byte[headerLength];
        header.getBytes(headerOffset, h);
        final byte[] p = new byte[payloadLength];
        if (payloadLength > 0)
        {
            payload.getBytes(payloadOffset, p);
        }
        return new Held(peerKey, lane, frameIndex, h, p, dueAt);
    }
}
