package io.jfabric.provider.gni;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Which endpoints of a domain were closed (and not opened again), told to the peers' VCs so that one-sided RMA and
 * atomics to a closed endpoint fail at the initiator with {@code FI_ECONNREFUSED} and the target's memory untouched,
 * as the runtime's own protocol refuses them (upstream tears the closed endpoint's VCs down, and a transfer on them
 * fails). The target sends its set ({@code EP_STATE}, {@value #BYTES} bytes, one bit per endpoint index) on a VC when
 * it connects, if any endpoint is closed, and to every connected VC when an endpoint closes or opens again; SMSG order
 * per VC puts it before any answer that follows (a FIN refusing a message to the same endpoint, for instance). An
 * operation posted before the set arrived goes out as usual: the same race as upstream's close against an RMA in
 * flight. The reverse race exists too: an index reused by a new endpoint is cleared at its peers only when the update
 * arrives, so a one-sided RMA posted to the new endpoint before that is refused ({@code FI_ECONNREFUSED}).
 * <p>
 * Threading: {@link #closed(int)} and {@link #opened(int)} on the threads that close and open endpoints; the rest on
 * the domain agent's thread.
 */
final class GniEndpointStates
{
    /** Bytes of an {@code EP_STATE} message. */
    static final int BYTES = GniName.MAX_ENDPOINTS / 8;

    private static final int WORDS = GniName.MAX_ENDPOINTS / 64;

    private final AtomicLongArray closedSet = new AtomicLongArray(WORDS);
    private volatile boolean changed;

    /**
     * An endpoint of this domain closed.
     *
     * @param endpoint its index.
     */
    void closed(final int endpoint)
    {
        set(endpoint, true);
    }

    /**
     * An endpoint of this domain opened (an index closed before is in use again).
     *
     * @param endpoint its index.
     */
    void opened(final int endpoint)
    {
        set(endpoint, false);
    }

    private void set(final int endpoint, final boolean closed)
    {
        if (endpoint < 0 || endpoint >= GniName.MAX_ENDPOINTS)
        {
            return;
        }
        final long bit = 1L << (endpoint & 63);
        final int word = endpoint >>> 6;
        long old;
        do
        {
            old = closedSet.get(word);
        }
        while (!closedSet.compareAndSet(word, old, closed ? old | bit : old & ~bit));
        if (closed || 0 != (old & bit))
        {
            changed = true;
        }
    }

    /**
     * @return whether the set changed since the last call (then broadcast it).
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
     * @return whether any endpoint is closed now.
     */
    boolean anyClosed()
    {
        for (int i = 0; i < WORDS; i++)
        {
            if (0 != closedSet.get(i))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Write the set as an {@code EP_STATE} message.
     *
     * @param out    the buffer.
     * @param offset where.
     */
    void write(final MutableDirectBuffer out, final int offset)
    {
        for (int i = 0; i < WORDS; i++)
        {
            out.putLong(offset + i * 8, closedSet.get(i));
        }
    }

    /**
     * Read a peer's {@code EP_STATE} into its VC's copy.
     *
     * @param in     the message.
     * @param offset where.
     * @param peer   the VC's copy, one bit per endpoint index.
     */
    static void read(final DirectBuffer in, final int offset, final long[] peer)
    {
        for (int i = 0; i < WORDS; i++)
        {
            peer[i] = in.getLong(offset + i * 8);
        }
    }

    /**
     * @param peer     a VC's copy of its peer's set.
     * @param endpoint the peer's endpoint index.
     * @return whether the peer said that endpoint is closed.
     */
    static boolean closed(final long[] peer, final int endpoint)
    {
        return endpoint >= 0 && endpoint < GniName.MAX_ENDPOINTS &&
            0 != (peer[endpoint >>> 6] & (1L << (endpoint & 63)));
    }
}
