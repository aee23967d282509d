package io.jfabric.provider.gni;

import io.jfabric.aries.GniEp;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * A virtual connection to one peer NIC (GNI.md §2.2): a GNI endpoint bound to the peer, its SMSG mailbox, the
 * connect state, the operations waiting for the connection or for credits, and the control messages waiting for
 * credits. One VC per pair of NICs (every endpoint pair of two domains shares it; each message names its source and
 * destination endpoints), which is what lets the emulated NIC key the mailbox by the peer's address.
 * <p>
 * Threading: the owning domain agent's thread only.
 */
final class GniVc
{
    static final int NONE = 0;
    static final int CONNECTING = 1;
    static final int CONNECTED = 2;
    static final int ERROR = 3;

    private static final int QUEUE = 4096;
    private static final int CONTROL_BYTES = 64 * 1024;

    final int id;
    final int peerDevice;
    final int peerInst;
    final GniEp ep;
    final UnsafeBuffer datagramIn = new UnsafeBuffer(ByteBuffer.allocateDirect(GniEp.DATAGRAM_MAX_SIZE));
    final UnsafeBuffer datagramOut = new UnsafeBuffer(ByteBuffer.allocateDirect(GniEp.DATAGRAM_MAX_SIZE));
    /** Control messages waiting for credits: records of tag (4), length (4), bytes, 8-aligned. */
    final UnsafeBuffer control = new UnsafeBuffer(ByteBuffer.allocateDirect(CONTROL_BYTES));
    int controlHead;
    int controlTail;
    int state = NONE;
    int peerVcId = -1;
    long connectDeadlineNs;
    boolean datagramPosted;
    /** Operations of this VC waiting for an answer from the peer (FIN, MR answer, RMA ack). */
    int awaiting;
    long lastHeardNs;
    /** A message was taken since the last keep-alive check (which then reads the clock once for all VCs). */
    boolean heard;
    /** An RX CQ event named this VC (or it just connected): its mailbox is polled until it answers empty. */
    boolean rxReady;
    long lastPingNs;
    /** The peer's closed endpoints, as its last EP_STATE said (GniEndpointStates). */
    final long[] peerClosed = new long[GniName.MAX_ENDPOINTS / 64];
    /** The peer's endpoints' caps, as its last EP_CAPS said (GniPeerCaps): one entry per endpoint index. */
    final byte[] peerCaps = new byte[GniPeerCaps.BYTES];
    /** The peer's EP_CAPS came: RMA and atomics to it may start (before, they wait on the VC). */
    boolean peerCapsKnown;
    private final int[] queue = new int[QUEUE];
    private int head;
    private int tail;

    GniVc(final int id, final int peerDevice, final int peerInst, final GniEp ep)
    {
        this.id = id;
        this.peerDevice = peerDevice;
        this.peerInst = peerInst;
        this.ep = ep;
    }

    boolean queueEmpty()
    {
        return head == tail;
    }

    boolean enqueue(final int op)
    {
        if (tail - head >= QUEUE)
        {
            return false;
        }
        queue[tail++ & (QUEUE - 1)] = op;
        return true;
    }

    int peek()
    {
        return queue[head & (QUEUE - 1)];
    }

    int poll()
    {
        return queue[head++ & (QUEUE - 1)];
    }

    boolean controlEmpty()
    {
        return controlHead == controlTail;
    }

    /**
     * Queue a control message (tag, bytes) behind the others.
     *
     * @return false when the control queue is full.
     */
    boolean queueControl(final int tag, final UnsafeBuffer bytes, final int length)
    {
        final int record = (8 + length + 7) & ~7;
        if (controlTail + record > CONTROL_BYTES)
        {
            if (controlHead != controlTail)
            {
                // Compact: move what is left to the start.
                control.putBytes(0, control, controlHead, controlTail - controlHead);
                controlTail -= controlHead;
                controlHead = 0;
            }
            else
            {
                controlHead = 0;
                controlTail = 0;
            }
            if (controlTail + record > CONTROL_BYTES)
            {
                return false;
            }
        }
        control.putInt(controlTail, tag);
        control.putInt(controlTail + 4, length);
        control.putBytes(controlTail + 8, bytes, 0, length);
        controlTail += record;
        return true;
    }

    @Override
    public String toString()
    {
        return "GniVc{" + id + " -> dev=0x" + Integer.toHexString(peerDevice) + " inst=" + peerInst + ", state=" +
            state + "}";
    }
}
