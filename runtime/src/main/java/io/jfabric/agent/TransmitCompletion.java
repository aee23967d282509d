package io.jfabric.agent;

import io.jfabric.Flags;
import io.jfabric.ring.CompletionRing;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

/**
 * Part of the domain agent: completes an initiator's operation when its answer arrives (ACK, FIN, RMA_ACK,
 * READ_RESP, ATOMIC_RESP) or fails it (an error status, or its peer reported down), releasing its pins.
 * <p>
 * Threading: single-threaded, owned by its domain agent's duty cycle ({@link DomainAgent}); package-private.
 */
final class TransmitCompletion
{
    private final FrameFlyweight in;
    private final RemoteRanges remoteRanges;

    TransmitCompletion(final FrameFlyweight in, final RemoteRanges remoteRanges)
    {
        this.in = in;
        this.remoteRanges = remoteRanges;
    }

    /**
     * The answer to an RMA or atomic request (RMA_ACK, READ_RESP, ATOMIC_RESP), or the failure of one whose target
     * was reported down ({@code status} != 0, {@code buffer} null): copies read results, completes the operation.
     *
     * @return false to retry later when the CQ is full.
     */
    boolean onRmaAnswer(
        final byte opcode,
        final EndpointState ep,
        final long frameFlags,
        final long cookie,
        final int status,
        final DirectBuffer buffer,
        final int offset,
        final long length)
    {
        final boolean read = FrameDescriptor.OPCODE_RMA_ACK != opcode;
        final CompletionRing cq = ep.txCq;
        final boolean complete = null != cq && (frameFlags & FrameDescriptor.FLAG_WANT_COMPLETION) != 0;
        if ((complete && (!cq.hasSpace() || !cq.hasErrorSpace())) ||
            (null != cq && 0 != status && !cq.hasErrorSpace()))
        {
            return false;
        }
        ep.outstanding--;
        final long kind = FrameDescriptor.OPCODE_ATOMIC_RESP == opcode ?
            ((frameFlags & FrameDescriptor.FLAG_FETCHING) != 0 ?
            Flags.ATOMIC | Flags.READ : Flags.ATOMIC | Flags.WRITE) :
            (read ? Flags.RMA | Flags.READ : Flags.RMA | Flags.WRITE);
        if (read && 0 == status && length > 0)
        {
            final long results = in.payloadAddress();
            if ((frameFlags & FrameDescriptor.FLAG_RESULT_IOV) != 0)
            {
                // The result segments follow the old values.
                final int list = in.payloadOffset() + (int) length;
                final int count = FrameLists.readSegments(buffer, list, remoteRanges.address, remoteRanges.length, 0);
                FrameLists.scatter(results, length, remoteRanges.address, remoteRanges.length, 0, count);
            }
            else
            {
                UnsafeApi.copyMemory(results, in.tag(), length);
            }
        }
        final CounterCell counter = (kind & Flags.READ) != 0 ? ep.readCounter : ep.writeCounter;
        final long context = ep.finishPinned(cookie);
        if (0 == status)
        {
            if (null != counter)
            {
                counter.add(1);
            }
            if (complete)
            {
                cq.write(context, kind, 0, 0, 0, 0, DomainAgent.ADDR_NOTAVAIL);
            }
        }
        else
        {
            if (null != counter)
            {
                counter.addError(1);
            }
            if (null != cq)
            {
                // Errors are always reported, also for operations posted without FI_COMPLETION (fi_cq(3)).
                cq.writeError(context, kind, 0, 0, 0, 0, 0, status, 0, DomainAgent.ADDR_NOTAVAIL);
            }
        }
        return true;
    }

    /**
     * The answer to a send that waited for one: the ACK of a delivery-complete send or the FIN of a rendezvous
     * send. Status 0 completes the send; another fails it ({@link #failTransmit}).
     *
     * @param ep         the sending endpoint.
     * @param frameFlags the answer's flags (want completion).
     * @param cookie     the echoed cookie.
     * @param kind       the completion kind ({@code FI_MSG} or {@code FI_TAGGED}).
     * @param status     0, or the errno the target answered.
     * @return false to retry later when the CQ is full.
     */
    boolean onSendAnswer(
        final EndpointState ep, final long frameFlags, final long cookie, final long kind, final long status)
    {
        if (0 != status)
        {
            return failTransmit(ep, cookie, Flags.SEND | kind, status);
        }
        final CompletionRing cq = ep.txCq;
        final boolean complete = null != cq && (frameFlags & FrameDescriptor.FLAG_WANT_COMPLETION) != 0;
        if (complete && !cq.hasSpace())
        {
            return false;
        }
        ep.outstanding--;
        final long context = ep.finishPinned(cookie);
        if (null != ep.sendCounter)
        {
            ep.sendCounter.add(1);
        }
        if (complete)
        {
            cq.write(context, Flags.SEND | kind, 0, 0, 0, 0, DomainAgent.ADDR_NOTAVAIL);
        }
        return true;
    }

    /**
     * A delivery-complete send or a rendezvous send failed (an error status in the target's ACK or FIN, or its
     * peer reported down): the send completes with that error.
     *
     * @return false to retry later when the CQ's error queue is full.
     */
    boolean failTransmit(final EndpointState ep, final long cookie, final long kind, final long status)
    {
        final CompletionRing cq = ep.txCq;
        if (null != cq && !cq.hasErrorSpace())
        {
            return false;
        }
        ep.outstanding--;
        final long context = ep.finishPinned(cookie);
        if (null != ep.sendCounter)
        {
            ep.sendCounter.addError(1);
        }
        if (null != cq)
        {
            // Errors are always reported, also for sends posted without FI_COMPLETION (selective completion).
            cq.writeError(context, kind, 0, 0, 0, 0, 0, (int) status, 0, DomainAgent.ADDR_NOTAVAIL);
        }
        return true;
    }
}
