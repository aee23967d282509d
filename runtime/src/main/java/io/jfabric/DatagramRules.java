package io.jfabric;

import io.jfabric.spi.DatagramInfo;
import io.jfabric.spi.Operation;

/**
 * The endpoint-type rules of {@code FI_EP_DGRAM} that the API checks (RUNTIME.md, "Datagram endpoints and
 * multicast"): a datagram send never waits for an answer from its target, so completions that need one
 * ({@code FI_DELIVERY_COMPLETE}, {@code FI_COMMIT_COMPLETE}) are refused, in the endpoint's op flags at open and in
 * a msg form's flags at post. The agent's part of the rule (no credit, the unreliable lane, arrivals charged to
 * nobody) is {@code EndpointState.datagram}.
 * <p>
 * Static helpers; allocation-free on the post path.
 */
final class DatagramRules
{
    /** RMA and atomics, every form: the operations from {@code READ} to the last of {@link Operation}. */
    private static final long RMA_AND_ATOMICS =
        (-1L << Operation.READ.ordinal()) & (-1L >>> (64 - Operation.values().length));

    private DatagramRules()
    {
    }

    /**
     * The operations a datagram endpoint refuses with {@code -ENOSYS}: RMA and atomics (fi_endpoint(3): a
     * datagram endpoint offers messages only here).
     *
     * @param type the endpoint's type ({@code UNSPEC} is RDM).
     * @return the refused-operations bits, 0 for other types.
     */
    static long refusedOperations(final EndpointType type)
    {
        return EndpointType.DGRAM == type ? RMA_AND_ATOMICS : 0;
    }

    /**
     * Check a new endpoint's info: a datagram endpoint whose transmit op flags ask for a completion from the target
     * is refused.
     *
     * @param info the endpoint's info.
     * @return the operations the endpoint refuses for its type ({@link #refusedOperations}).
     * @throws FabricException EINVAL.
     */
    static long open(final Info info)
    {
        final EndpointType type = info.epAttr().type();
        if (EndpointType.DGRAM == type && (info.txAttr().opFlags() & DatagramInfo.OP_FLAGS_REFUSED) != 0)
        {
            throw new FabricException(Errno.EINVAL,
                "FI_EP_DGRAM endpoints refuse FI_DELIVERY_COMPLETE and FI_COMMIT_COMPLETE: a datagram waits for no " +
                "answer from its target");
        }
        return refusedOperations(type);
    }

    /**
     * The refusal of a msg form's flags on a datagram endpoint.
     *
     * @param type  the endpoint's type.
     * @param flags the post's flags.
     * @return {@code -EINVAL} for a completion from the target asked of a datagram endpoint, else 0.
     */
    static int refusal(final EndpointType type, final long flags)
    {
        return EndpointType.DGRAM == type && (flags & DatagramInfo.OP_FLAGS_REFUSED) != 0 ?
            Errno.EINVAL.negated() : 0;
    }
}
