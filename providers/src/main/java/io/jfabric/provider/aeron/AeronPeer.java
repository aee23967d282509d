package io.jfabric.provider.aeron;

import io.aeron.ExclusivePublication;
import io.aeron.Image;

/**
 * What one domain knows of one peer domain (a host, port and stream): its two exclusive publications (requests and
 * answers, created at the first send), their state, the peer's incarnation and the inbound sessions its hellos
 * named. Entry 0 is the domain itself.
 * <p>
 * Threading: {@link #index} and {@link #address} are final and published with the peer table; every other field is
 * owned by the domain agent.
 */
final class AeronPeer
{
    /** No publication yet (nothing was sent). */
    static final int NEW = 0;
    /** Publications asked for; waiting for them, their connection and the hellos. */
    static final int CONNECTING = 1;
    /** Connected, hellos sent: frames go. */
    static final int LIVE = 2;
    /** Reported down; offers fail until the publications connect again or a new incarnation says hello. */
    static final int DOWN = 3;

    final int index;
    final AeronAddress address;

    long requestRegistration = -1;
    long answerRegistration = -1;
    ExclusivePublication requests;
    ExclusivePublication answers;
    /** The datagram publication ({@code reliable=false} at the peer's subscription), made at the first datagram. */
    long datagramRegistration = -1;
    ExclusivePublication datagrams;
    int state = NEW;
    /** When CONNECTING began, milliseconds. */
    long connectingSinceMs;
    /** Since when a LIVE peer's offers answer NOT_CONNECTED, milliseconds; 0 while they do not. */
    long notConnectedSinceMs;
    /** Hellos sent in this connection, a bit per lane. */
    int hellosSent;
    /** The errno a DOWN peer's offers fail with. */
    int downErrno;
    /** A DOWN peer's publications were seen not connected since it went down (a reconnect means a new start). */
    boolean sawDisconnect;
    /**
     * A DOWN peer's publications to us (our inbound images) were seen gone since it went down: when they are back
     * and ours are connected it is reachable again, even if ours never reported a disconnection.
     */
    boolean sawInboundLoss;
    /**
     * Its CONNECTING timed out with the publications connected (the hellos could not be offered, e.g. the peer's
     * window stayed full): no disconnection or image loss will mark its return, so the scan tries again.
     */
    boolean helloTimedOut;
    /**
     * Lanes (bits as in {@link #hasInbound}) whose hello was heard again from the same incarnation while LIVE: the
     * peer went down and came back on its side alone; one return is counted once for both lanes.
     */
    int returnLanes;
    /** Changes whenever the peer goes down or comes back (flow control starts over). */
    long epoch;
    /** The incarnation its last hello named; 0 before any. */
    long incarnation;
    /** The inbound session of each lane its hellos named, valid when {@link #hasInbound} has the lane's bit. */
    final int[] inboundSession = new int[2];
    /** How far each lane's inbound session was read (Aeron position), to see an image made again after a gap. */
    final long[] inboundPosition = new long[2];
    /**
     * The image each lane's inbound session was last read from: a frame from another one (Aeron made it again) is
     * checked for a gap before it is delivered.
     */
    final Image[] readImage = new Image[2];
    int hasInbound;
    /** The lanes (bits as in {@link #hasInbound}) whose inbound session is on the IPC subscriptions. */
    int inboundIpc;
    /** Set when the peer listens on this domain's media driver: its publications go over {@code aeron:ipc}. */
    AeronIpcRegistry.Entry ipc;
    /** When the registry may be read again for a new incarnation of this DOWN peer, milliseconds. */
    long nextIpcLookupMs;

    AeronPeer(final int index, final AeronAddress address)
    {
        this.index = index;
        this.address = address;
    }
}
