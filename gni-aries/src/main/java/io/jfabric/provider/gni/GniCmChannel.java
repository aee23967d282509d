package io.jfabric.provider.gni;

import io.jfabric.Errno;
import io.jfabric.aries.AriesNode;
import io.jfabric.aries.Cdm;
import io.jfabric.aries.GniCq;
import io.jfabric.aries.GniEp;
import io.jfabric.aries.GniException;
import io.jfabric.aries.GniNic;
import io.jfabric.aries.GniRc;
import io.jfabric.spi.FrameHandler;
import io.jfabric.spi.TransportEventHandler;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Connection management of {@code FI_EP_MSG} endpoints over the emulated datagram service (GNI.md §5.6-8; upstream
 * used TCP sockets for this exchange): the runtime's CM frames (connect request, accept, reject, shutdown; opaque to
 * this class) travel as datagrams between the domains' CM NICs. Each domain's node gets a second CDM, inst id
 * {@link #CM_INST}, whose NIC posts {@link #WILDCARDS} wildcard datagrams. A frame is cut into pieces of at most
 * {@link #PIECE} bytes, all posted at once, each on a bound datagram endpoint of its own (one {@code offer}, one duty
 * cycle, sends the whole frame: control progress is AUTO even when a client's data progress is MANUAL); the receiver
 * places each piece by its index and hands the whole frame to the runtime's frame handler. A bound datagram nobody
 * takes within the connect timeout ({@code jfabric.gni.connectTimeoutMs}: a passive endpoint that closed, a node that
 * is gone) is cancelled and
 * the peer's domain reported down with {@code ECONNREFUSED}, which the runtime turns into the connecting endpoint's
 * {@code ECONNREFUSED} event.
 * <p>
 * Datagram layout (little endian): type {@link #DG_CM} (int), frame id (int), piece index (short), piece count
 * (short), frame length (int), then the piece.
 * <p>
 * Threading: the domain agent's thread only (offer, poll, pollEvents). Control path: it allocates.
 */
final class GniCmChannel implements AutoCloseable
{
    /** The CM NIC's inst id on every gni node (the data path's CDM is inst 1). */
    static final int CM_INST = 2;
    /** The data path's CDM inst id: a peer's domain is reported down under its data key. */
    static final int DATA_INST = 1;
    /** Wildcard datagrams of the CM NIC (upstream's 4 per CM NIC, GNI.md §1.4). */
    static final int WILDCARDS = 4;
    /** Largest CM frame: the runtime's header, the address length and address, 256 B of connection data. */
    static final int MAX_FRAME = 1024;

    private static final int DG_CM = 0x434D;
    private static final int HEADER = 16;
    private static final int PIECE = GniEp.DATAGRAM_MAX_SIZE - HEADER;
    private static final long WILDCARD_ID = 1L << 40;
    private static final long BOUND_ID = 2L << 40;

    private final Cdm cdm;
    private final GniNic nic;
    private final GniCq cq;
    private final long timeoutNs;
    private final GniEp[] wildcards = new GniEp[WILDCARDS];
    private final UnsafeBuffer[] wildcardOut = new UnsafeBuffer[WILDCARDS];
    private final UnsafeBuffer none = new UnsafeBuffer(ByteBuffer.allocateDirect(HEADER));
    private final UnsafeBuffer piece = new UnsafeBuffer(ByteBuffer.allocateDirect(GniEp.DATAGRAM_MAX_SIZE));
    private final Long2ObjectHashMap<Peer> peers = new Long2ObjectHashMap<>();
    private final List<Slot> slots = new ArrayList<>();
    private final ArrayDeque<long[]> down = new ArrayDeque<>();
    private final ArrayDeque<byte[]> arrived = new ArrayDeque<>();
    private final UnsafeBuffer frameView = new UnsafeBuffer(0, 0);
    private int nextFrameId;

    /** One peer CM NIC: what arrives from it, pieces that found no free datagram slot yet. */
    private static final class Peer
    {
        final long key;
        final int device;
        final ArrayDeque<byte[]> pieces = new ArrayDeque<>();
        final Long2ObjectHashMap<Partial> partials = new Long2ObjectHashMap<>();

        Peer(final long key, final int device)
        {
            this.key = key;
            this.device = device;
        }
    }

    /** A bound datagram endpoint to one peer's CM NIC: one piece in flight at a time. */
    private static final class Slot
    {
        final Peer peer;
        final GniEp ep;
        final long id;
        final UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(GniEp.DATAGRAM_MAX_SIZE));
        boolean posted;
        long postedAtNs;

        Slot(final Peer peer, final GniEp ep, final long id)
        {
            this.peer = peer;
            this.ep = ep;
            this.id = id;
        }
    }

    /** A frame being put together: pieces may arrive in any order. */
    private static final class Partial
    {
        final byte[] frame;
        final int count;
        int received;

        Partial(final int length, final int count)
        {
            this.frame = new byte[length];
            this.count = count;
        }
    }

    private GniCmChannel(final Cdm cdm, final GniNic nic, final long timeoutNs)
    {
        this.cdm = cdm;
        this.nic = nic;
        this.timeoutNs = timeoutNs;
        this.cq = nic.cqCreate(64);
        none.putInt(0, 0);
        for (int i = 0; i < WILDCARDS; i++)
        {
            wildcards[i] = nic.epCreate(cq);
            wildcardOut[i] = new UnsafeBuffer(ByteBuffer.allocateDirect(GniEp.DATAGRAM_MAX_SIZE));
            postWildcard(i);
        }
    }

    /**
     * The CM NIC of a node: a CDM of the domain's job with inst id {@link #CM_INST}.
     *
     * @param node   the domain's node.
     * @param ptag   the job's ptag.
     * @param cookie the job's cookie.
     * @return the channel.
     * @throws GniException when the CDM cannot be made.
     */
    static GniCmChannel open(final AriesNode node, final int ptag, final int cookie)
    {
        final Cdm cdm = node.cdmCreate(CM_INST, ptag, cookie, Cdm.MODE_ERR_NO_KILL);
        try
        {
            return new GniCmChannel(cdm, cdm.attach(0), GniConfiguration.connectTimeoutNs());
        }
        catch (final RuntimeException ex)
        {
            cdm.destroy();
            throw ex;
        }
    }

    private void postWildcard(final int index)
    {
        wildcardOut[index].putInt(0, 0);
        wildcards[index].postDataWId(none, 0, 4, wildcardOut[index], 0, GniEp.DATAGRAM_MAX_SIZE, WILDCARD_ID + index);
    }

    /**
     * Queue one frame (header then payload) for the CM NIC of {@code peerKey}'s node.
     *
     * @return 1 (queued), or {@code -EMSGSIZE} for a frame above {@link #MAX_FRAME}.
     */
    int offer(
        final long peerKey, final DirectBuffer header, final int headerOffset, final int headerLength,
        final DirectBuffer payload, final int payloadOffset, final int payloadLength)
    {
        final int length = headerLength + payloadLength;
        if (length > MAX_FRAME)
        {
            return -Errno.EMSGSIZE.value();
        }
        final Peer peer = peer(peerKey);
        if (null == peer)
        {
            return -Errno.EHOSTUNREACH.value();
        }
        final byte[] frame = new byte[length];
        header.getBytes(headerOffset, frame, 0, headerLength);
        if (payloadLength > 0)
        {
            payload.getBytes(payloadOffset, frame, headerLength, payloadLength);
        }
        final int frameId = ++nextFrameId;
        final int count = Math.max(1, (length + PIECE - 1) / PIECE);
        for (int i = 0; i < count; i++)
        {
            final int from = i * PIECE;
            final int n = Math.min(PIECE, length - from);
            final byte[] p = new byte[HEADER + n];
            final UnsafeBuffer b = new UnsafeBuffer(p);
            b.putInt(0, DG_CM);
            b.putInt(4, frameId);
            b.putShort(8, (short) i);
            b.putShort(10, (short) count);
            b.putInt(12, length);
            b.putBytes(HEADER, frame, from, n);
            peer.pieces.add(p);
        }
        sendNext(peer);
        return 1;
    }

    private Peer peer(final long peerKey)
    {
        final int device = GniName.device(peerKey);
        Peer peer = peers.get(device & 0xFFFF_FFFFL);
        if (null == peer)
        {
            peer = new Peer(peerKey, device);
            peers.put(device & 0xFFFF_FFFFL, peer);
        }
        return peer;
    }

    private void sendNext(final Peer peer)
    {
        byte[] p;
        while (null != (p = peer.pieces.peek()))
        {
            final Slot slot = freeSlot(peer);
            if (null == slot)
            {
                return;
            }
            piece.putBytes(0, p);
            slot.out.putInt(0, 0);
            if (GniRc.SUCCESS != slot.ep.postDataWId(piece, 0, p.length, slot.out, 0, GniEp.DATAGRAM_MAX_SIZE, slot.id))
            {
                return;
            }
            slot.posted = true;
            slot.postedAtNs = System.nanoTime();
            peer.pieces.poll();
        }
    }

    private Slot freeSlot(final Peer peer)
    {
        for (int i = 0; i < slots.size(); i++)
        {
            final Slot slot = slots.get(i);
            if (slot.peer == peer && !slot.posted)
            {
                return slot;
            }
        }
        final GniEp ep = nic.epCreate(cq);
        if (GniRc.SUCCESS != ep.bind(peer.device, CM_INST))
        {
            return null;
        }
        final Slot slot = new Slot(peer, ep, BOUND_ID + slots.size());
        slots.add(slot);
        return slot;
    }

    /**
     * Take the datagrams that completed, hand each whole frame to {@code handler}, send the next pieces, and time out
     * pieces nobody takes.
     *
     * @param handler the runtime's frame handler.
     * @param limit   most frames this call.
     * @return work done.
     */
    int poll(final FrameHandler handler, final int limit)
    {
        int work = 0;
        while (GniRc.SUCCESS == nic.postDataProbeById())
        {
            work++;
            final long id = nic.probedId();
            if (id >= WILDCARD_ID && id < WILDCARD_ID + WILDCARDS)
            {
                final int index = (int) (id - WILDCARD_ID);
                final GniEp ep = wildcards[index];
                if (GniRc.SUCCESS == ep.postDataTestById(id) && GniEp.POST_STATE_COMPLETED == ep.postState())
                {
                    onPiece(ep.postDataRemoteDeviceAddress(), wildcardOut[index], ep.postDataReceivedLength());
                }
                postWildcard(index);
            }
            else if (id >= BOUND_ID && id < BOUND_ID + slots.size())
            {
                final Slot slot = slots.get((int) (id - BOUND_ID));
                if (GniRc.SUCCESS != slot.ep.postDataTestById(id))
                {
                    continue;
                }
                slot.posted = false;
                if (GniEp.POST_STATE_COMPLETED == slot.ep.postState())
                {
                    // Two bound datagrams swapped (both sides sending): the peer's piece is in ours.
                    onPiece(slot.peer.device, slot.out, slot.ep.postDataReceivedLength());
                    sendNext(slot.peer);
                }
                else
                {
                    unreachable(slot.peer);
                }
            }
            else
            {
                break;
            }
        }
        // The clock is read only while a bound datagram waits (it is a system call on some hosts: not every cycle).
        long now = 0;
        for (int i = 0; i < slots.size(); i++)
        {
            final Slot slot = slots.get(i);
            if (slot.posted && 0 == now)
            {
                now = System.nanoTime();
            }
            if (slot.posted && now - slot.postedAtNs > timeoutNs)
            {
                slot.ep.postDataCancelById(slot.id);
                slot.ep.postDataTestById(slot.id);
                slot.posted = false;
                unreachable(slot.peer);
                work++;
            }
        }
        int frames = 0;
        byte[] frame;
        while (frames < limit && null != (frame = arrived.peek()))
        {
            frameView.wrap(frame);
            if (!handler.onFrame(frameView, 0, frame.length))
            {
                break;
            }
            arrived.poll();
            frames++;
        }
        return work + frames;
    }

    private void unreachable(final Peer peer)
    {
        peer.pieces.clear();
        down.add(new long[] {peer.key, Errno.ECONNREFUSED.value()});
    }

    private void onPiece(final int device, final UnsafeBuffer in, final int received)
    {
        if (received < HEADER || DG_CM != in.getInt(0))
        {
            return;
        }
        final Peer peer = peer(GniName.key(device, DATA_INST, 0));
        if (null == peer)
        {
            return;
        }
        final int frameId = in.getInt(4);
        final int index = in.getShort(8);
        final int count = in.getShort(10);
        final int length = in.getInt(12);
        if (length <= 0 || length > MAX_FRAME || index < 0 || index >= count)
        {
            return;
        }
        final long partialKey = frameId & 0xFFFF_FFFFL;
        Partial partial = peer.partials.get(partialKey);
        if (null == partial)
        {
            partial = new Partial(length, count);
            peer.partials.put(partialKey, partial);
        }
        final int from = index * PIECE;
        if (partial.count != count || partial.frame.length != length || from >= length)
        {
            peer.partials.remove(partialKey);
            return;
        }
        in.getBytes(HEADER, partial.frame, from, Math.min(received - HEADER, length - from));
        if (++partial.received == count)
        {
            peer.partials.remove(partialKey);
            arrived.add(partial.frame);
        }
    }

    /**
     * Peers whose CM NIC did not take a datagram within the timeout, as peer-down events.
     *
     * @param handler the runtime's event handler.
     * @param limit   most events.
     * @return events delivered.
     */
    int pollEvents(final TransportEventHandler handler, final int limit)
    {
        int n = 0;
        long[] event;
        while (n < limit && null != (event = down.poll()))
        {
            handler.onPeerDown(event[0], (int) event[1]);
            n++;
        }
        return n;
    }

    @Override
    public void close()
    {
        for (int i = 0; i < WILDCARDS; i++)
        {
            wildcards[i].postDataCancelById(WILDCARD_ID + i);
            wildcards[i].postDataTestById(WILDCARD_ID + i);
        }
        for (final Slot slot : slots)
        {
            if (slot.posted)
            {
                slot.ep.postDataCancelById(slot.id);
                slot.ep.postDataTestById(slot.id);
            }
        }
        cdm.destroy();
    }
}
