package io.jfabric.agent;

import io.jfabric.Errno;
import io.jfabric.FabricException;

/**
 * Property names and defaults of the runtime's flow control (see {@code runtime/RUNTIME.md}, "Flow control").
 * <p>
 * The rule: a receiving endpoint grants each sending endpoint {@link #credits()} messages and
 * {@link #creditBytes(int)} bytes of eager payload. A send (eager or rendezvous request) spends one credit (and its
 * payload bytes) at the sender's agent; the receiver gives the credit back (a {@link FrameDescriptor#OPCODE_CREDIT}
 * answer, batched) once the message has matched a receive or left its unexpected store. A sender without credit
 * for a peer parks the send, in order, until credit comes back; sends to other peers and every RMA and atomic go
 * on. The receiver therefore never has to leave a request at the head of its inbound ring: whatever a well-behaved
 * sender sends fits in the store its credits allow.
 * <p>
 * Each value is read when a domain (credits) or an endpoint (store bounds) is opened, so a property set before the
 * open applies to it. Threading: stateless, any thread. A value that is not a number is
 * {@code FabricException(EINVAL)} naming the property, from the open that reads it.
 */
public final class FlowControl
{
    /** Messages one sending endpoint may have charged at one receiving endpoint. */
    public static final String CREDITS_PROP = "jfabric.flow.credits";
    /** Default of {@link #CREDITS_PROP}: enough for 64k small unexpected messages from one peer. */
    public static final int CREDITS_DEFAULT = 65536;
    /** Eager payload bytes one sending endpoint may have charged at one receiving endpoint. */
    public static final String CREDIT_BYTES_PROP = "jfabric.flow.creditBytes";
    /** Default of {@link #CREDIT_BYTES_PROP}: 16 MiB. */
    public static final long CREDIT_BYTES_DEFAULT = 16L << 20;
    /** Most unexpected messages one receiving endpoint stores, from all its peers together. */
    public static final String UNEXPECTED_ENTRIES_PROP = "jfabric.flow.unexpectedEntries";
    /** Default of {@link #UNEXPECTED_ENTRIES_PROP}. */
    public static final int UNEXPECTED_ENTRIES_DEFAULT = 1 << 18;
    /** Most bytes of unexpected eager payload one receiving endpoint stores, from all its peers together. */
    public static final String UNEXPECTED_BYTES_PROP = "jfabric.flow.unexpectedBytes";
    /** Default of {@link #UNEXPECTED_BYTES_PROP}: 64 MiB. */
    public static final long UNEXPECTED_BYTES_DEFAULT = 64L << 20;

    /**
     * Requests that wait for an answer (RMA, atomics, eager delivery-complete sends) one endpoint may have
     * outstanding at one peer endpoint.
     */
    public static final String REQUESTS_PROP = "jfabric.flow.requests";
    /** Default of {@link #REQUESTS_PROP}. */
    public static final int REQUESTS_DEFAULT = 256;

    /**
     * Requests awaiting an answer one peer endpoint may have outstanding at one endpoint of this domain, counted at
     * the target ({@link #peerOwed()}).
     */
    public static final String PEER_OWED_PROP = "jfabric.flow.peerOwed";
    /** Default of {@link #PEER_OWED_PROP}: four times the default window. */
    public static final int PEER_OWED_DEFAULT = 1024;

    private FlowControl()
    {
    }

    /**
     * @return {@link #CREDITS_PROP}, at least 2.
     */
    public static int credits()
    {
        return (int) Math.max(2, Math.min(Integer.MAX_VALUE, longProperty(CREDITS_PROP, CREDITS_DEFAULT)));
    }

    /**
     * @param eagerThreshold the transport's eager threshold: the grant is at least twice the largest eager payload,
     *                       so that credit always comes back before a sender can be stuck on bytes alone.
     * @return {@link #CREDIT_BYTES_PROP}.
     */
    public static long creditBytes(final int eagerThreshold)
    {
        return Math.max(2L * Math.max(1, eagerThreshold), longProperty(CREDIT_BYTES_PROP, CREDIT_BYTES_DEFAULT));
    }

    /**
     * The request window: an endpoint sends a peer endpoint a request that waits for an answer only while fewer than
     * this many of its requests to that peer await theirs; the next one waits in the peer's FIFO. The peer therefore
     * never owes one of our endpoints more answers (or streams) than this, whatever state its own ring is in.
     *
     * @return {@link #REQUESTS_PROP}, at least 1.
     */
    public static int requests()
    {
        return (int) Math.max(1, Math.min(1 << 20, longProperty(REQUESTS_PROP, REQUESTS_DEFAULT)));
    }

    /**
     * The target side of the request window: requests awaiting this domain's answer (RMA, atomics, eager
     * delivery-complete sends) one peer endpoint may have outstanding at one endpoint of ours; beyond it the peer
     * ignores its window and its further requests are dropped (counted, reported on the domain's EQ). It must be
     * at least the peers' {@link #REQUESTS_PROP}.
     *
     * @return {@link #PEER_OWED_PROP}, at least 1.
     */
    public static int peerOwed()
    {
        return (int) Math.max(1, Math.min(1 << 20, longProperty(PEER_OWED_PROP, PEER_OWED_DEFAULT)));
    }

    /**
     * @return {@link #UNEXPECTED_ENTRIES_PROP}, at least 1.
     */
    public static int unexpectedEntries()
    {
        return (int) Math.max(1, Math.min(1 << 26, longProperty(UNEXPECTED_ENTRIES_PROP, UNEXPECTED_ENTRIES_DEFAULT)));
    }

    /**
     * @return {@link #UNEXPECTED_BYTES_PROP}, at least 1.
     */
    public static long unexpectedBytes()
    {
        return Math.max(1, longProperty(UNEXPECTED_BYTES_PROP, UNEXPECTED_BYTES_DEFAULT));
    }

    private static long longProperty(final String name, final long defaultValue)
    {
        final String value = System.getProperty(name);
        if (null == value || value.isEmpty())
        {
            return defaultValue;
        }
        try
        {
            return Long.parseLong(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new FabricException(Errno.EINVAL, "-D" + name + "='" + value + "' is not a number", ex);
        }
    }
}
