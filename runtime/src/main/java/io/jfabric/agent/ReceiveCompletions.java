package io.jfabric.agent;

import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.ring.CompletionRing;
import io.jfabric.spi.DomainTransport;

/**
 * Writes the completion of one received message the way the endpoint's provider description and caps ask for it:
 * <ul>
 *     <li>{@code FI_SOURCE | FI_SOURCE_ERR} and a source not in the bound address vector: an error entry
 *     {@code EADDRNOTAVAIL} (len, buf, data and tag as for success, source {@code FI_ADDR_NOTAVAIL}) whose err_data
 *     is the source's address as the transport writes it ({@link DomainTransport#address}), so that the application
 *     can insert it; the receive counter counts an error;</li>
 *     <li>a multi-recv buffer's release reported as a separate entry (the provider's
 *     {@code MultiRecvCompletion.SEPARATE_ENTRY}): the message completes without {@code FI_MULTI_RECV}, then an entry
 *     with the buffer's context, flags {@code FI_MULTI_RECV}, length 0 and buffer 0 follows;</li>
 *     <li>otherwise the plain completion, as before.</li>
 * </ul>
 * The source-error path allocates the address array (an error path: once per such message); the others allocate
 * nothing. The separate multi-recv entry takes the slot the endpoint's receive ring keeps free behind every
 * {@code hasSpace()} answer ({@link CompletionRing#keepHeadroom}, set when such an endpoint is enabled).
 * <p>
 * Not thread-safe: owned by the domain agent.
 */
final class ReceiveCompletions
{
    private static final long ADDR_NOTAVAIL = -1L;

    private final DomainTransport transport;

    ReceiveCompletions(final DomainTransport transport)
    {
        this.transport = transport;
    }

    /**
     * Complete one received message that fitted its buffer (truncation is written by the caller).
     *
     * @param ep        the receiving endpoint.
     * @param silent    no completion entry (selective completion), counters still count.
     * @param context   the receive's context.
     * @param flags     completion flags, {@code FI_MULTI_RECV} when the message released a multi-recv buffer.
     * @param len       bytes delivered.
     * @param buf       where they start.
     * @param data      remote CQ data.
     * @param tag       the tag.
     * @param source    the source fi_addr, {@code FI_ADDR_NOTAVAIL} when not in the AV.
     * @param senderKey the sender's peer key (the transport's), for the source-error err_data.
     */
    void complete(
        final EndpointState ep,
        final boolean silent,
        final long context,
        final long flags,
        final long len,
        final long buf,
        final long data,
        final long tag,
        final long source,
        final long senderKey)
    {
        final CompletionRing cq = ep.rxCq;
        final boolean released = (flags & Flags.MULTI_RECV) != 0;
        final long messageFlags = ep.multiRecvSeparate ? flags & ~Flags.MULTI_RECV : flags;
        if (ep.sourceErr && ADDR_NOTAVAIL == source && senderKey >= 0)
        {
            // fi_cq(3) FI_SOURCE_ERR: the message is delivered, its completion is an error carrying the source.
            if (null != ep.recvCounter)
            {
                ep.recvCounter.addError(1);
            }
            if (null != cq)
            {
                cq.writeError(context, messageFlags, len, buf, data, tag, 0, Errno.EADDRNOTAVAIL.value(), 0,
                    ADDR_NOTAVAIL, transport.address(senderKey));
            }
        }
        else
        {
            if (null != ep.recvCounter)
            {
                ep.recvCounter.add(1);
            }
            if (null != cq && !silent)
            {
                cq.write(context, messageFlags, len, buf, data, tag, source);
            }
        }
        if (released && ep.multiRecvSeparate && null != cq && !silent)
        {
            cq.write(context, Flags.MULTI_RECV, 0, 0, 0, 0, ADDR_NOTAVAIL);
        }
    }
}
