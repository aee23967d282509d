package io.jfabric.provider.gni;

import io.jfabric.Flags;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The capabilities of a domain's endpoints as its peers see them (GNI.md §2.2, §2.5): upstream's VC connect request
 * and response carry the endpoint's caps ({@code peer_caps}), which then gate RMA and atomics
 * ({@code gnix_ops_allowed}) and decide whether an RMA raises events at the target ({@code FI_RMA_EVENT}). A VC here
 * joins two NICs, not two endpoints, so the caps travel per endpoint: each side sends its table ({@code EP_CAPS},
 * {@value #BYTES} bytes, one byte per endpoint index) on a VC as soon as it is connected, before any answer, and to
 * every connected VC when an endpoint opens. An RMA or atomic to the peer waits on the VC until the table came (as
 * upstream's waits for the connect response); the table holds what each endpoint opened with, so the rules below see
 * upstream's values.
 * <p>
 * Upstream's rules, for an RMA in direction {@code FI_READ} or {@code FI_WRITE}:
 * <ul>
 *     <li>the initiator's caps have {@code FI_RMA}, and either that direction or none of the other three
 *     ({@code FI_READ}, {@code FI_WRITE}, {@code FI_REMOTE_READ}, {@code FI_REMOTE_WRITE}: none means all);</li>
 *     <li>the peer's caps have {@code FI_RMA}, and either the matching remote direction ({@code FI_REMOTE_READ} for a
 *     read, {@code FI_REMOTE_WRITE} for a write) or none of the other three;</li>
 *     <li>atomics likewise with {@code FI_ATOMIC}: a non-fetching atomic and every {@code native_amo} in direction
 *     {@code FI_WRITE}, a fetching or compare atomic in direction {@code FI_READ} ({@link #atomicAllowed});</li>
 *     <li>otherwise the operation fails with {@code FI_EOPNOTSUPP} (an error completion, {@code prov_errno}
 *     {@code -FI_ECANCELED}, no retry, nothing moved);</li>
 *     <li>the target counts its {@code FI_REMOTE_WRITE}/{@code FI_REMOTE_READ} counters only when the peer (the
 *     target endpoint) has {@code FI_RMA_EVENT}; without it the initiator sends no event message and a one-sided
 *     RMA completes on its local NIC event.</li>
 * </ul>
 * <p>
 * Threading: {@link #opened} on the threads that open endpoints; the rest on the domain agent's thread.
 */
final class GniPeerCaps
{
    /** Bytes of an {@code EP_CAPS} message. */
    static final int BYTES = GniName.MAX_ENDPOINTS;

    /** The entry names an endpoint that opened (else nothing is known of it). */
    static final int KNOWN = 1;
    private static final int RMA = 2;
    private static final int READ = 4;
    private static final int WRITE = 8;
    private static final int REMOTE_READ = 16;
    private static final int REMOTE_WRITE = 32;
    private static final int RMA_EVENT = 64;
    private static final int ATOMIC = 128;
    private static final int DIRECTIONS = READ | WRITE | REMOTE_READ | REMOTE_WRITE;

    private final AtomicIntegerArray local = new AtomicIntegerArray(GniName.MAX_ENDPOINTS);
    private volatile boolean changed;

    /**
     * An endpoint of this domain opened with {@code caps}: its peers learn them.
     *
     * @param endpoint its index.
     * @param caps     its {@code info.caps}.
     */
    void opened(final int endpoint, final long caps)
    {
        if (endpoint >= 0 && endpoint < GniName.MAX_ENDPOINTS)
        {
            local.set(endpoint, encode(caps));
            changed = true;
        }
    }

    /**
     * @param endpoint an endpoint of this domain.
     * @return its caps as the peers see them ({@link #KNOWN} and the bits), 0 for an index never opened.
     */
    int local(final int endpoint)
    {
        return endpoint >= 0 && endpoint < GniName.MAX_ENDPOINTS ? local.get(endpoint) : 0;
    }

    /**
     * @return whether an endpoint opened since the last call (then send the table to every connected VC).
     */
    boolean takeChanged()
    {
        if (!changed)
        {
            return false;
        }
        changed = false;
        return true;
    }

    /**
     * Write the table as an {@code EP_CAPS} message.
     *
     * @param out    the buffer.
     * @param offset where.
     */
    void write(final MutableDirectBuffer out, final int offset)
    {
        for (int i = 0; i < BYTES; i++)
        {
            out.putByte(offset + i, (byte) local.get(i));
        }
    }

    /**
     * Read a peer's {@code EP_CAPS} into its VC's copy.
     *
     * @param in     the message.
     * @param offset where.
     * @param peer   the VC's copy, one entry per endpoint index.
     */
    static void read(final DirectBuffer in, final int offset, final byte[] peer)
    {
        in.getBytes(offset, peer, 0, BYTES);
    }

    /**
     * @param caps an endpoint's caps.
     * @return the entry a peer keeps of them.
     */
    static int encode(final long caps)
    {
        int bits = KNOWN;
        bits |= 0 != (caps & Flags.RMA) ? RMA : 0;
        bits |= 0 != (caps & Flags.ATOMIC) ? ATOMIC : 0;
        bits |= 0 != (caps & Flags.READ) ? READ : 0;
        bits |= 0 != (caps & Flags.WRITE) ? WRITE : 0;
        bits |= 0 != (caps & Flags.REMOTE_READ) ? REMOTE_READ : 0;
        bits |= 0 != (caps & Flags.REMOTE_WRITE) ? REMOTE_WRITE : 0;
        bits |= 0 != (caps & Flags.RMA_EVENT) ? RMA_EVENT : 0;
        return bits;
    }

    /**
     * Upstream's {@code gnix_ops_allowed} for RMA: the initiator may start it and the peer may be its target.
     *
     * @param own   the initiating endpoint's entry ({@link #encode}).
     * @param peer  the target endpoint's entry; one without {@link #KNOWN} gates nothing (an endpoint the peer has
     *              not told of yet: the runtime's own checks apply).
     * @param write a write, else a read.
     * @return whether it is allowed.
     */
    static boolean rmaAllowed(final int own, final int peer, final boolean write)
    {
        return allowed(RMA, own, peer, write);
    }

    /**
     * Upstream's {@code gnix_ops_allowed} for atomics: the same rule with {@code FI_ATOMIC} in place of
     * {@code FI_RMA}. Upstream flags a non-fetching atomic (and every {@code native_amo}) {@code FI_WRITE}, a
     * fetching or compare one {@code FI_READ}, so a fetching atomic needs the target's {@code FI_REMOTE_READ} only,
     * although it also writes there.
     *
     * @param own   the initiating endpoint's entry ({@link #encode}).
     * @param peer  the target endpoint's entry; one without {@link #KNOWN} gates nothing.
     * @param write a non-fetching atomic or a {@code native_amo}, else a fetching or compare atomic.
     * @return whether it is allowed.
     */
    static boolean atomicAllowed(final int own, final int peer, final boolean write)
    {
        return allowed(ATOMIC, own, peer, write);
    }

    private static boolean allowed(final int primary, final int own, final int peer, final boolean write)
    {
        if (0 != (own & KNOWN) && !allowed(own, primary, write ? WRITE : READ))
        {
            return false;
        }
        return 0 == (peer & KNOWN) || allowed(peer, primary, write ? REMOTE_WRITE : REMOTE_READ);
    }

    private static boolean allowed(final int entry, final int primary, final int direction)
    {
        // The primary cap, and the direction asked or no direction at all (fi_getinfo(3): none means all of them).
        return 0 != (entry & primary) && (0 != (entry & direction) || 0 == (entry & DIRECTIONS & ~direction));
    }

    /**
     * @param peer the target endpoint's entry.
     * @return whether RMA and atomics raise events there ({@code FI_RMA_EVENT}): then the initiator sends the event
     * message after the transfer and completes on its acknowledgement.
     */
    static boolean rmaEvent(final int peer)
    {
        return 0 != (peer & RMA_EVENT);
    }
}
