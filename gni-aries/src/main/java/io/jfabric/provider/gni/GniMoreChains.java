package io.jfabric.provider.gni;

import java.util.Arrays;

/**
 * {@code FI_MORE} for RMA (fi_gni(7) "Additional Features", GNI.md 2.3): writes and reads posted with {@code FI_MORE}
 * are held per endpoint, in posting order, and go out together as chained FMA posts ({@code GNI_CtPostFma}, one
 * chain per VC, one CQ event for the chain) when the endpoint's next call without {@code FI_MORE} arrives. Only what
 * one FMA post can carry is held: a single local segment below {@code GNI_RMA_RDMA_THRESHOLD}, for a read a 4-byte
 * aligned remote range and length, one-sided (scalable keys), on a connected VC, without {@code FI_FENCE}; anything
 * else is posted at once (after the held ones), as upstream drops the flag for a fence, remote CQ data or a VC not
 * yet connected. The list links the operations through {@link GniOp#chainNext}.
 * <p>
 * Threading: the owning domain agent's thread only.
 */
final class GniMoreChains
{
    private final int[] head = new int[GniName.MAX_ENDPOINTS];
    private final int[] tail = new int[GniName.MAX_ENDPOINTS];
    private int holding;

    GniMoreChains()
    {
        Arrays.fill(head, -1);
        Arrays.fill(tail, -1);
    }

    /**
     * @return true when some endpoint holds operations (one read on the submit path when none does).
     */
    boolean any()
    {
        return holding > 0;
    }

    /**
     * @param endpoint an endpoint index.
     * @return true when the endpoint holds operations.
     */
    boolean holds(final int endpoint)
    {
        return holding > 0 && endpoint >= 0 && endpoint < head.length && head[endpoint] >= 0;
    }

    /**
     * Hold {@code op} at the end of its endpoint's chain.
     *
     * @param op  the operation (its endpoint set).
     * @param ops the back-end's operations by id.
     */
    void hold(final GniOp op, final GniOp[] ops)
    {
        final int endpoint = op.endpoint;
        op.state = GniOp.HELD;
        op.chainNext = -1;
        if (head[endpoint] < 0)
        {
            head[endpoint] = op.id;
            holding++;
        }
        else
        {
            ops[tail[endpoint]].chainNext = op.id;
        }
        tail[endpoint] = op.id;
    }

    /**
     * Take an endpoint's held operations.
     *
     * @param endpoint the endpoint's index.
     * @return the id of the first (the rest follow through {@link GniOp#chainNext}), or -1 when none.
     */
    int take(final int endpoint)
    {
        if (!holds(endpoint))
        {
            return -1;
        }
        final int first = head[endpoint];
        head[endpoint] = -1;
        tail[endpoint] = -1;
        holding--;
        return first;
    }
}
