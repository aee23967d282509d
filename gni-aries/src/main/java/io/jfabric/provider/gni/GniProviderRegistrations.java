package io.jfabric.provider.gni;

import io.jfabric.Errno;
import io.jfabric.spi.OperationCommand;

/**
 * The provider registration limit of a scalable domain's authorization key ({@code GNIX_PROV_KEY_LIMIT}, default 64,
 * fi_gni(7): "the provider may make registrations which consume some of the registrations set aside for the
 * provider"; GNI.md §2.8), enforced: every registration the provider makes for an operation — the source of a
 * rendezvous send, the local buffers of an RMA — takes one of the key's provider registrations from the operation's
 * start until it completes. An operation that would pass the limit waits (at the head of its VC's queue, or at the
 * head of the send ring) until earlier ones give theirs back; one that needs more than the limit can ever give fails
 * with {@code FI_ENOKEY} (upstream's answer when no provider key is left, {@code src/gnix_mr.c:269-274}). Basic-mode
 * domains have no such limit. The limit is the key's, frozen at its first use ({@code EAGAIN} after, GniAuthKeys),
 * and counted per domain (an emulated node, where upstream partitions a node's keys among its ranks). The bounce
 * areas a domain registers when it opens are its NIC's, not counted (as upstream's mailbox memory).
 * <p>
 * Threading: the domain agent's thread only.
 */
final class GniProviderRegistrations
{
    /** {@link #reserve}: taken. */
    static final int TAKEN = 1;
    /** {@link #reserve}: not now, wait. */
    static final int WAIT = 0;

    private final long limit;
    private long inUse;
    private long peak;

    /**
     * @param scalable whether the domain registers in scalable mode.
     * @param cookie   its authorization key's cookie.
     */
    GniProviderRegistrations(final boolean scalable, final int cookie)
    {
        limit = scalable ? GniAuthKeys.limit(cookie, GniOps.GNIX_PROV_KEY_LIMIT) : -1;
    }

    /**
     * @param op an operation about to start.
     * @return the provider registrations it makes: its local segments for an RMA, its non-empty buffers for a
     * rendezvous send, 0 else.
     */
    static int need(final GniOp op)
    {
        switch (op.opcode)
        {
            case OperationCommand.WRITE:
            case OperationCommand.READ:
                return op.segments;
            case OperationCommand.SEND:
            case OperationCommand.TAGGED_SEND:
                // A rendezvous source: each non-empty buffer registered as it is (GniRendezvousStart).
                return op.registered ? 0 : pieces(op);
            default:
                return 0;
        }
    }

    private static int pieces(final GniOp op)
    {
        int pieces = 0;
        for (int i = 0; i < op.segments; i++)
        {
            pieces += op.segmentLength[i] > 0 ? 1 : 0;
        }
        return pieces;
    }

    /**
     * Take what {@code op} needs, once.
     *
     * @param op   the operation.
     * @param need {@link #need}.
     * @return {@link #TAKEN}, {@link #WAIT}, or {@code -ENOKEY} when the limit can never hold it.
     */
    int reserve(final GniOp op, final int need)
    {
        if (limit < 0 || 0 == need || op.provReserved > 0)
        {
            return TAKEN;
        }
        if (need > limit)
        {
            return Errno.ENOKEY.negated();
        }
        if (inUse + need > limit)
        {
            return WAIT;
        }
        inUse += need;
        peak = Math.max(peak, inUse);
        op.provReserved = need;
        return TAKEN;
    }

    /**
     * The operation ended: its registrations are given back.
     *
     * @param op the operation.
     */
    void release(final GniOp op)
    {
        inUse -= op.provReserved;
        op.provReserved = 0;
    }

    /**
     * @return provider registrations in use now.
     */
    long inUse()
    {
        return inUse;
    }

    /**
     * @return the most in use at once since the domain opened.
     */
    long peak()
    {
        return peak;
    }
}
