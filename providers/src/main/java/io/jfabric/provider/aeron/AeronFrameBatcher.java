package io.jfabric.provider.aeron;

import io.aeron.ExclusivePublication;
import io.aeron.ReservedValueSupplier;
import io.aeron.logbuffer.ControlledFragmentHandler;
import io.aeron.logbuffer.Header;
import io.jfabric.spi.DomainTransport;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;

/**
 * Gathers the small frames a duty cycle offers to one peer on one lane into one Aeron message (a batch), sent at the
 * end of the cycle ({@link DomainTransport#flush}), when the batch is full, or before a larger frame to the same
 * publication. A batch of one frame leaves as that frame alone (exactly what an unbatched offer sends), so a
 * ping-pong's frames go out as before; a stream of small frames shares Aeron's 32-byte data header and its 32-byte
 * alignment among many frames and needs fewer datagrams, sends and receives in the drivers (bench/README.md, "aeron
 * message rate").
 * <p>
 * Wire format of a batch (Aeron reserved value {@link #BATCH}, never fragmented: at most one MTU's payload): records
 * of {@code [int frame length, int 0, frame, padding to 8 bytes]}, in the order offered. The receiver delivers its
 * frames one by one ({@link #deliver}); when the runtime cannot take one (the fragment is aborted and comes again)
 * it resumes after the frames already delivered, so none is delivered twice.
 * <p>
 * Order: frames of one peer and lane leave in the order offered (a frame that is not batched first sends the batch
 * pending before it); lanes are not ordered with each other (as before). A pending batch is dropped when its peer
 * went down or came back (a new epoch) before it left, as Aeron drops what a closed publication held; a new epoch
 * its publications carry on through (a return mirrored, a resynchronisation: {@link #carryOver}) keeps it.
 * <p>
 * Threading and allocation: the domain agent only. A slot's buffer (one MTU) is allocated at the first batch to a
 * peer's lane, the tables grow when a new peer appears; nothing per frame.
 */
final class AeronFrameBatcher
{
    /** Aeron reserved value of a batch message (data frames carry 0, hellos their own). */
    static final long BATCH = 0x6A66_6261_7463_6821L;
    /** {@link #offer}: not batched, nothing pending before it; the caller offers the frame itself. */
    static final long DIRECT = Long.MIN_VALUE;
    /** {@link #offer}: the frame is in a batch; it leaves at the latest at the end of this duty cycle. */
    static final long ACCEPTED = 1;
    /** Bytes before each frame of a batch: its length and 4 bytes of padding. */
    static final int RECORD_HEADER_LENGTH = 8;
    private static final int ALIGNMENT = 8;
    /** Aeron's data frame header in front of every message. */
    private static final int DATA_HEADER_LENGTH = 32;

    /**
     * What the transport does with a refused offer (its liveness rules).
     */
    @FunctionalInterface
    interface Refusal
    {
        /**
         * @param peer   the peer.
         * @param result the publication's negative result.
         * @return 0 to try again later, or a negative errno when the peer is down (the batch is dropped).
         */
        int refused(AeronPeer peer, long result);
    }

    /**
     * Where {@link #deliver} hands each frame of a batch.
     */
    @FunctionalInterface
    interface FrameSink
    {
        /**
         * @param buffer the batch's buffer.
         * @param offset where the frame starts.
         * @param length the frame's length.
         * @param entry  the sender's peer entry.
         * @return true when taken; false to stop (the batch is aborted and comes again).
         */
        boolean onFrame(DirectBuffer buffer, int offset, int length, int entry);
    }

    private final int capacity;
    private final int maxFrame;
    private final Refusal refusal;
    private final ReservedValueSupplier batchValue = (termBuffer, termOffset, frameLength) -> BATCH;
    // Sending side, per slot (peer entry * 2 + lane).
    private UnsafeBuffer[] buffers = new UnsafeBuffer[16];
    private int[] lengths = new int[16];
    private int[] counts = new int[16];
    private long[] epochs = new long[16];
    private ExclusivePublication[] publications = new ExclusivePublication[16];
    private AeronPeer[] owners = new AeronPeer[16];
    private boolean[] listed = new boolean[16];
    private int[] dirty = new int[16];
    private int dirtyCount;
    // Receiving side, per slot (sender entry * 4 + IPC * 2 + lane): where an aborted batch resumes.
    private long[] resumePosition = new long[16];
    private int[] resumeSession = new int[16];
    private int[] resumeOffset = new int[16];
    private long batchesSent;
    private long framesBatched;

    /**
     * @param mtu     the MTU of the request and answer publications (a batch fits one datagram).
     * @param refusal the transport's handling of a refused offer.
     */
    AeronFrameBatcher(final int mtu, final Refusal refusal)
    {
        this.capacity = mtu - DATA_HEADER_LENGTH;
        // Only frames of up to a quarter of a batch are gathered: larger ones gain little and go as they are.
        this.maxFrame = capacity / 4 - RECORD_HEADER_LENGTH;
        this.refusal = refusal;
    }

    /**
     * Offer a frame to a LIVE peer's request or answer publication.
     *
     * @return {@link #ACCEPTED}, {@link #DIRECT} (offer it yourself), or the publication's negative result of
     * sending the batch pending before it (offer it again later).
     */
    long offer(
        final AeronPeer peer,
        final int lane,
        final ExclusivePublication publication,
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        final int slot = (peer.index << 1) | (lane & 1);
        if (slot >= lengths.length)
        {
            grow(slot);
        }
        final int frameLength = headerLength + payloadLength;
        final int limit = Math.min(capacity, publication.maxPayloadLength());
        final int record = BitUtil.align(RECORD_HEADER_LENGTH + frameLength, ALIGNMENT);
        int pending = lengths[slot];
        if (pending > 0 && (epochs[slot] != peer.epoch || publications[slot] != publication))
        {
            // The peer went down or came back since: what it held is gone with its old epoch.
            drop(slot);
            pending = 0;
        }
        if (frameLength > maxFrame || record > limit)
        {
            if (pending > 0)
            {
                final long result = send(slot);
                if (result < 0)
                {
                    return result;
                }
            }
            return DIRECT;
        }
        if (pending > 0 && pending + record > limit)
        {
            final long result = send(slot);
            if (result < 0)
            {
                return result;
            }
            pending = 0;
        }
        UnsafeBuffer b = buffers[slot];
        if (null == b)
        {
            b = new UnsafeBuffer(new byte[capacity]);
            buffers[slot] = b;
        }
        if (0 == pending)
        {
            publications[slot] = publication;
            owners[slot] = peer;
            epochs[slot] = peer.epoch;
            if (!listed[slot])
            {
                listed[slot] = true;
                if (dirtyCount == dirty.length)
                {
                    dirty = Arrays.copyOf(dirty, 2 * dirty.length);
                }
                dirty[dirtyCount++] = slot;
            }
        }
        b.putInt(pending, frameLength);
        b.putInt(pending + 4, 0);
        b.putBytes(pending + RECORD_HEADER_LENGTH, header, headerOffset, headerLength);
        if (payloadLength > 0)
        {
            b.putBytes(pending + RECORD_HEADER_LENGTH + headerLength, payload, payloadOffset, payloadLength);
        }
        lengths[slot] = pending + record;
        counts[slot]++;
        return ACCEPTED;
    }

    /**
     * Send every pending batch (the end of a duty cycle). A refused one stays for the next call, unless its peer
     * is down.
     *
     * @return batches sent.
     */
    int flush()
    {
        int sent = 0;
        int kept = 0;
        for (int i = 0; i < dirtyCount; i++)
        {
            final int slot = dirty[i];
            if (lengths[slot] > 0)
            {
                final AeronPeer peer = owners[slot];
                if (AeronPeer.DOWN == peer.state || epochs[slot] != peer.epoch)
                {
                    drop(slot);
                }
                else
                {
                    final long result = send(slot);
                    if (result > 0)
                    {
                        sent++;
                    }
                    else if (refusal.refused(peer, result) < 0)
                    {
                        drop(slot);
                    }
                }
            }
            if (lengths[slot] > 0)
            {
                dirty[kept++] = slot;
            }
            else
            {
                listed[slot] = false;
            }
        }
        dirtyCount = kept;
        return sent;
    }

    /**
     * A peer's epoch changed while it stays reachable through the same publications (the transport mirrors its
     * return, or resynchronises it after frames lost in Aeron): its pending batches hold frames the runtime counts as
     * sent, and they leave as they are (before, they were dropped with the old epoch: completed sends lost with no
     * error, and the credit of what they held never came back).
     *
     * @param peer the peer, its epoch already changed.
     * @param from the epoch before.
     */
    void carryOver(final AeronPeer peer, final long from)
    {
        for (int lane = 0; lane < 2; lane++)
        {
            final int slot = (peer.index << 1) | lane;
            if (slot < lengths.length && lengths[slot] > 0 && owners[slot] == peer && epochs[slot] == from)
            {
                epochs[slot] = peer.epoch;
            }
        }
    }

    /**
     * @return frames waiting in batches (tests).
     */
    int pendingFrames()
    {
        int frames = 0;
        for (int i = 0; i < dirtyCount; i++)
        {
            frames += counts[dirty[i]];
        }
        return frames;
    }

    /**
     * @return batch messages of two frames or more sent so far.
     */
    long batchesSent()
    {
        return batchesSent;
    }

    /**
     * @return frames sent in batch messages of two frames or more.
     */
    long framesBatched()
    {
        return framesBatched;
    }

    private long send(final int slot)
    {
        final UnsafeBuffer b = buffers[slot];
        final int count = counts[slot];
        final ExclusivePublication publication = publications[slot];
        final long result = 1 == count ?
            publication.offer(b, RECORD_HEADER_LENGTH, b.getInt(0)) :
            publication.offer(b, 0, lengths[slot], batchValue);
        if (result > 0)
        {
            if (count > 1)
            {
                batchesSent++;
                framesBatched += count;
            }
            owners[slot].notConnectedSinceMs = 0;
            lengths[slot] = 0;
            counts[slot] = 0;
        }
        return result;
    }

    private void drop(final int slot)
    {
        lengths[slot] = 0;
        counts[slot] = 0;
    }

    private void grow(final int slot)
    {
        final int n = BitUtil.findNextPositivePowerOfTwo(slot + 1);
        buffers = Arrays.copyOf(buffers, n);
        lengths = Arrays.copyOf(lengths, n);
        counts = Arrays.copyOf(counts, n);
        epochs = Arrays.copyOf(epochs, n);
        publications = Arrays.copyOf(publications, n);
        owners = Arrays.copyOf(owners, n);
        listed = Arrays.copyOf(listed, n);
    }

    private void growResume(final int slot)
    {
        final int n = BitUtil.findNextPositivePowerOfTwo(slot + 1);
        resumePosition = Arrays.copyOf(resumePosition, n);
        resumeSession = Arrays.copyOf(resumeSession, n);
        resumeOffset = Arrays.copyOf(resumeOffset, n);
    }

    /**
     * Deliver the frames of a batch that arrived from peer {@code entry} on {@code lane} (of the IPC subscriptions
     * or the UDP ones), resuming after those an earlier, aborted delivery of the same message handed over.
     *
     * @return the poll's action: CONTINUE when every frame was taken (or a malformed rest dropped), ABORT when the
     * sink stopped (the message comes again).
     */
    ControlledFragmentHandler.Action deliver(
        final DirectBuffer buffer, final int offset, final int length, final Header header, final int entry,
        final int lane, final boolean ipc, final FrameSink sink)
    {
        final int slot = (entry << 2) | (ipc ? 2 : 0) | (lane & 1);
        if (slot >= resumePosition.length)
        {
            growResume(slot);
        }
        final long position = header.position();
        final int session = header.sessionId();
        int at = 0;
        if (resumePosition[slot] == position && resumeSession[slot] == session)
        {
            at = resumeOffset[slot];
        }
        resumePosition[slot] = 0;
        while (at + RECORD_HEADER_LENGTH <= length)
        {
            final int frameLength = buffer.getInt(offset + at);
            if (frameLength < DomainTransport.MIN_FRAME_LENGTH || at + RECORD_HEADER_LENGTH + frameLength > length)
            {
                return ControlledFragmentHandler.Action.CONTINUE;
            }
            if (!sink.onFrame(buffer, offset + at + RECORD_HEADER_LENGTH, frameLength, entry))
            {
                resumePosition[slot] = position;
                resumeSession[slot] = session;
                resumeOffset[slot] = at;
                return ControlledFragmentHandler.Action.ABORT;
            }
            at += BitUtil.align(RECORD_HEADER_LENGTH + frameLength, ALIGNMENT);
        }
        return ControlledFragmentHandler.Action.CONTINUE;
    }
}
