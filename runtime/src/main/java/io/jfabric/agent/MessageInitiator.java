package io.jfabric.agent;

import io.jfabric.Flags;
import io.jfabric.ring.CompletionRing;
import io.jfabric.spi.DomainTransport;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Part of the domain agent: the initiator. Decodes a send-ring command (send, tsend, RMA write and read,
 * atomic), spends the peer's credit for a message, and encodes its request frame: eager with the payload, or a
 * rendezvous / streamed request with segment lists; completes at once what needs no answer.
 * <p>
 * Threading: single-threaded, owned by its domain agent's duty cycle ({@link DomainAgent}); package-private.
 */
final class MessageInitiator
{
    private final DomainTransport transport;
    private final AtomicReferenceArray<EndpointState> endpoints;
    private final int eagerThreshold;
    private final int chunk;
    /** Largest RMA write sent in one frame (with room for a remote list); larger writes are streamed. */
    private final int writeFrameLimit;
    private final CommandFlyweight sendCommand = new CommandFlyweight();
    private final UnsafeBuffer header =
        new UnsafeBuffer(ByteBuffer.allocateDirect(FrameDescriptor.RMA_HEADER_LENGTH + DomainAgent.REMOTE_LIST_MAX));
    /** Encodes this part's frames into {@link #header}. */
    private final FrameFlyweight out = new FrameFlyweight().wrapForEncode(header, 0);
    private final UnsafeBuffer payloadView = new UnsafeBuffer(0, 0);
    /** Payload of streamed requests (RTS, WRITE_RTS, streamed READ_REQ): a segment list and a remote list. */
    private final UnsafeBuffer lists =
        new UnsafeBuffer(ByteBuffer.allocateDirect(DomainAgent.SEGMENT_LIST_MAX + DomainAgent.REMOTE_LIST_MAX));
    private final UnsafeBuffer gather;
    /** Decodes send-ring commands. */
    final ControlledMessageHandler sendHandler = this::onSendCommand;
    FrameOutbox outbox;
    CreditFlow flow;

    MessageInitiator(
        final DomainTransport transport,
        final AtomicReferenceArray<EndpointState> endpoints,
        final int eagerThreshold,
        final int chunk,
        final int writeFrameLimit,
        final int gatherCapacity)
    {
        this.transport = transport;
        this.endpoints = endpoints;
        this.eagerThreshold = eagerThreshold;
        this.chunk = chunk;
        this.writeFrameLimit = writeFrameLimit;
        // Gathers eager iov sends, small iov writes and atomic operands, compare values and a result list.
        this.gather = new UnsafeBuffer(ByteBuffer.allocateDirect(gatherCapacity));
    }

    ControlledMessageHandler.Action onSendCommand(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final CommandFlyweight snd = sendCommand.wrap(buffer, index);
        final EndpointState ep = endpoints.get(snd.endpoint());
        if (null == ep)
        {
            return ControlledMessageHandler.Action.CONTINUE;
        }
        final long flags = snd.flags();
        final long context = snd.context();
        final CompletionRing cq = ep.txCq;
        final boolean wantCompletion = null != cq && (flags & Flags.INJECT) == 0 &&
            (!ep.txSelective || (flags & Flags.COMPLETION) != 0);
        final boolean atomic = CommandDescriptor.OP_ATOMIC == msgTypeId;
        final boolean write = CommandDescriptor.OP_WRITE == msgTypeId;
        final boolean read = CommandDescriptor.OP_READ == msgTypeId;
        final boolean rma = write || read || atomic;
        final boolean delivery = (flags & Flags.DELIVERY_COMPLETE) != 0 && (flags & Flags.INJECT) == 0 && !rma;
        // Flow control: a send spends a credit of its peer endpoint; without one it waits in the peer's FIFO (in
        // order, behind the sends already waiting there), and nothing else waits for it.
        // A datagram endpoint's send spends none: a datagram lost on the way would never give its credit back.
        final boolean charged = !ep.datagram &&
            (CommandDescriptor.OP_SEND == msgTypeId || CommandDescriptor.OP_TSEND == msgTypeId);
        PeerAccount account = null;
        long charge = 0;
        if (charged || ep.deferredSends > 0)
        {
            account = flow.outboundAccount(ep, snd.peer());
            final boolean fenced = (flags & Flags.FENCE) != 0;
            if (!flow.flushingDeferred() && account.deferredCount > 0 && (charged || fenced ||
                account.fencedDeferred > 0))
            {
                return flow.defer(ep, account, msgTypeId, buffer, index, length, fenced);
            }
            if (charged)
            {
                final long bytes = snd.length();
                // A rendezvous request stores no payload at the receiver: it costs a message, no bytes.
                charge = (flags & CommandDescriptor.FLAG_INLINE) == 0 && bytes > eagerThreshold ? 0 : bytes;
                if (account.sent - account.acked >= flow.credits() || account.sentBytes - account.ackedBytes + charge >
                    flow.creditBytes())
                {
                    return flow.flushingDeferred() ? ControlledMessageHandler.Action.ABORT :
                        flow.defer(ep, account, msgTypeId, buffer, index, length, fenced);
                }
            }
        }
        if (wantCompletion && (!cq.hasSpace() || !cq.hasErrorSpace()))
        {
            return ControlledMessageHandler.Action.ABORT;
        }
        // FI_FENCE: wait until every earlier operation of this endpoint that needs a target answer has it.
        if ((flags & Flags.FENCE) != 0 && ep.outstanding > 0)
        {
            return ControlledMessageHandler.Action.ABORT;
        }

        final int count = snd.count();
        final boolean inline = (flags & CommandDescriptor.FLAG_INLINE) != 0;
        final boolean iov = (flags & CommandDescriptor.FLAG_IOV) != 0;
        final boolean remoteIov = (flags & CommandDescriptor.FLAG_RMA_IOV) != 0;
        final long total = snd.length();
        // Streamed: the data stays in the application's buffers and moves in RDATA chunks once the peer has answered
        // (a rendezvous send, an RMA write larger than one frame) or once the target has checked it (an RMA read
        // larger than one frame, or with several local buffers or remote ranges).
        final boolean streamed = write ? !inline && (total > writeFrameLimit || (iov && total > gather.capacity())) :
            (read ? iov || remoteIov || total > chunk : !atomic && !inline && total > eagerThreshold);
        // The request window: a request the target answers as soon as it takes it (RMA, atomic, eager
        // delivery-complete send) goes only while fewer than flow.requests() of this endpoint's requests to that peer
        // await theirs; else it waits in the peer's FIFO (RMA and atomics as barriers, so their order holds). The peer
        // thus never owes us more answers or streams than the window, even when its own ring stays full (RUNTIME.md
        // "Flow control"). A rendezvous send is answered only once matched: its message credit bounds it instead, so
        // that a receiver may take many of them in any order.
        final boolean awaits = rma || (delivery && !streamed);
        if (awaits)
        {
            if (null == account)
            {
                account = flow.outboundAccount(ep, snd.peer());
            }
            if (account.awaiting >= flow.requests())
            {
                return flow.flushingDeferred() ? ControlledMessageHandler.Action.ABORT :
                    flow.defer(ep, account, msgTypeId, buffer, index, length, !charged || (flags & Flags.FENCE) != 0);
            }
        }

        final UnsafeBuffer h = header;
        DirectBuffer payload = null;
        int payloadOffset = 0;
        int payloadLength = 0;
        long frameFlags = 0;
        int headerLength = rma || streamed ? FrameDescriptor.RMA_HEADER_LENGTH : FrameDescriptor.HEADER_LENGTH;
        long extAddress = remoteIov ? remoteEntry(buffer, index, 0) : snd.remoteAddress();
        final long extKey = remoteIov ? remoteEntry(buffer, index, 2) : snd.rmaKey();
        if (streamed)
        {
            // Only the lists travel now: our segments, and for RMA the remote ranges.
            int end = putSegments(lists, 0, buffer, index, flags, count, total);
            if (rma)
            {
                end = putRemoteList(lists, end, buffer, index, flags, total);
            }
            else
            {
                extAddress = FrameLists.segmentAddress(lists, 0, 0);
            }
            payload = lists;
            payloadLength = end;
            frameFlags = read ? FrameDescriptor.FLAG_STREAM : 0;
        }
        else if (atomic)
        {
            // Operands, then (compare family) the compare values, then (iov form) the result segments, gathered.
            final long code = snd.atomicCode();
            final boolean compare = (code >>> 16) == 2;
            final int operands = (int) total;
            final UnsafeBuffer g = gather;
            if (inline)
            {
                g.putBytes(0, buffer, snd.atomicBodyOffset(), operands);
            }
            else if (iov)
            {
                gatherList(g, 0, buffer, index, snd.address());
            }
            else if (operands > 0 && 0 != snd.address())
            {
                UnsafeApi.copyMemory(snd.address(), g.addressOffset(), operands);
            }
            int end = operands;
            if (compare)
            {
                if (iov)
                {
                    gatherList(g, end, buffer, index, snd.compareAddress());
                }
                else
                {
                    UnsafeApi.copyMemory(snd.compareAddress(),
                        g.addressOffset() + end, operands);
                }
                end += operands;
            }
            final long resultList = snd.resultAddress();
            if (iov && (code >>> 16) != 0 && 0 != resultList)
            {
                final int list = index + (int) resultList;
                final int bytes = FrameLists.segmentListLength(buffer, list);
                g.putBytes(end, buffer, list, bytes);
                g.putLong(end, (bytes - FrameDescriptor.LIST_COUNT_LENGTH) / FrameDescriptor.SEGMENT_LENGTH);
                end += bytes;
                frameFlags = FrameDescriptor.FLAG_RESULT_IOV;
            }
            payload = g;
            payloadLength = end;
        }
        else if (inline)
        {
            payload = buffer;
            payloadOffset = snd.bodyOffset();
            payloadLength = count;
        }
        else if (iov)
        {
            int gathered = 0;
            final UnsafeBuffer g = gather;
            for (int i = 0; i < count; i++)
            {
                final int len = (int) snd.iovLength(i);
                UnsafeApi.copyMemory(snd.iovAddress(i), g.addressOffset() + gathered, len);
                gathered += len;
            }
            payload = g;
            payloadLength = gathered;
        }
        else if (!read)
        {
            payloadLength = (int) total;
            payloadView.wrap(snd.address(), payloadLength);
            payload = payloadView;
        }
        if (rma && !streamed && remoteIov)
        {
            // One frame to several remote ranges: the remote list rides after the RMA extension.
            headerLength = putRemoteList(h, FrameDescriptor.RMA_HEADER_LENGTH, buffer, index, flags, total);
            frameFlags |= FrameDescriptor.FLAG_REMOTE_IOV;
        }

        final long peer = snd.peer();
        final long kind;
        final byte opcode;
        switch (msgTypeId)
        {
            case CommandDescriptor.OP_TSEND:
                kind = Flags.TAGGED;
                opcode = streamed ? FrameDescriptor.OPCODE_RTS : FrameDescriptor.OPCODE_TAGGED;
                break;
            case CommandDescriptor.OP_WRITE:
                kind = Flags.RMA | Flags.WRITE;
                opcode = streamed ? FrameDescriptor.OPCODE_WRITE_RTS : FrameDescriptor.OPCODE_WRITE;
                break;
            case CommandDescriptor.OP_READ:
                kind = Flags.RMA | Flags.READ;
                opcode = FrameDescriptor.OPCODE_READ_REQ;
                break;
            case CommandDescriptor.OP_ATOMIC:
                kind = (snd.atomicCode() >>> 16) == 0 ?
                    Flags.ATOMIC | Flags.WRITE : Flags.ATOMIC | Flags.READ;
                opcode = FrameDescriptor.OPCODE_ATOMIC;
                break;
            default:
                kind = Flags.MSG;
                opcode = streamed ? FrameDescriptor.OPCODE_RTS : FrameDescriptor.OPCODE_MSG;
                break;
        }
        out.version(FrameDescriptor.VERSION);
        out.opcode(opcode);
        out.dstEndpoint(transport.endpointIndex(peer));
        out.srcKey(transport.localKey(ep.index));
        out.tag(atomic ?
            (iov ? 0 : snd.resultAddress()) :
            (rma ? 0 : snd.tag()));
        out.data(read ?
            snd.address() : snd.data());
        out.length(total);
        out.flags(frameFlags |
            ((flags & Flags.REMOTE_CQ_DATA) != 0 ? FrameDescriptor.FLAG_REMOTE_CQ_DATA : 0) |
            (delivery ? FrameDescriptor.FLAG_ACK_REQUESTED : 0) |
            (wantCompletion ? FrameDescriptor.FLAG_WANT_COMPLETION : 0) |
            (atomic && (kind & Flags.READ) != 0 ? FrameDescriptor.FLAG_FETCHING : 0) |
            (streamed && Flags.TAGGED == kind ? FrameDescriptor.FLAG_TAGGED : 0));
        // A pinned operation's answer brings its pin slot back (PinTable.finish gives the context).
        final int pin = snd.pin();
        out.cookie(pin >= 0 ? PinTable.cookie(pin) : PinTable.unpinnedCookie(context));
        out.sequence(outbox.sequence());
        if (FrameDescriptor.RMA_HEADER_LENGTH <= headerLength)
        {
            out.rmaAddress(extAddress);
            out.rmaKey(rma ? extKey : 0);
        }

        final int sent = outbox.offer(peer, ep.index, h, headerLength, payload, payloadOffset, payloadLength,
            ep.datagram);
        if (0 == sent)
        {
            // The peer's ring is full (it is not reading): the operation waits in that peer's FIFO and the send ring
            // goes on for the others. An RMA or atomic waiting there is a barrier: later operations to that peer wait
            // behind it, so RMA order (FI_ORDER_RAW/WAR/WAW) holds.
            if (flow.flushingDeferred())
            {
                return ControlledMessageHandler.Action.ABORT;
            }
            return flow.defer(ep, null != account ? account : flow.outboundAccount(ep, peer), msgTypeId, buffer,
                index, length,
                !charged || (flags & Flags.FENCE) != 0);
        }
        if (charged && sent > 0)
        {
            account.sent++;
            account.sentBytes += charge;
        }
        if (awaits && sent > 0)
        {
            account.awaiting++;
        }
        if (sent < 0)
        {
            ep.releasePin(pin);
            // Errors are always reported (fi_cq(3)), also without FI_COMPLETION: room was checked above when a
            // completion was wanted; a silent operation's error takes the room the error queue has.
            final CounterCell counter = txCounter(ep, kind);
            if (null != counter)
            {
                counter.addError(1);
            }
            if (null != cq && (wantCompletion || cq.hasErrorSpace()))
            {
                cq.writeError(context, kind | (rma ? 0 : Flags.SEND), 0, 0, 0, 0, 0, -sent, 0,
                    DomainAgent.ADDR_NOTAVAIL);
            }
            return ControlledMessageHandler.Action.CONTINUE;
        }
        // RMA completes on the target's answer (RMA_ACK, READ_RESP or the last read chunk), a delivery-complete send
        // on its ACK, a rendezvous send on its FIN.
        if (delivery || rma || streamed)
        {
            ep.outstanding++;
        }
        else
        {
            // The payload was copied into the frame: the buffer is free.
            ep.releasePin(pin);
            if (null != ep.sendCounter)
            {
                ep.sendCounter.add(1);
            }
            if (wantCompletion)
            {
                cq.write(context, Flags.SEND | kind, 0, 0, 0, 0, DomainAgent.ADDR_NOTAVAIL);
            }
        }
        return ControlledMessageHandler.Action.CONTINUE;
    }

    /**
     * Field {@code field} (0 address, 1 length, 2 key) of the first entry of a command's remote list.
     */
    private long remoteEntry(final DirectBuffer command, final int index, final int field)
    {
        final int list = index + (int) sendCommand.remoteListOffset();
        return 0 == field ? FrameLists.remoteAddress(command, list, 0) :
            (1 == field ? FrameLists.remoteLength(command, list, 0) : FrameLists.remoteKey(command, list, 0));
    }

    /**
     * Write a command's local buffers as a segment list at {@code at}.
     *
     * @return the offset after the list.
     */
    private int putSegments(
        final MutableDirectBuffer to,
        final int at,
        final DirectBuffer command,
        final int index,
        final long flags,
        final int count,
        final long total)
    {
        if ((flags & CommandDescriptor.FLAG_IOV) != 0)
        {
            final int n = Math.max(0, Math.min(DomainAgent.MAX_IOV, count));
            to.putLong(at, n);
            to.putBytes(at + FrameDescriptor.LIST_COUNT_LENGTH, command, index + CommandDescriptor.HEADER_LENGTH,
                n * CommandDescriptor.IOV_ENTRY_LENGTH);
            return at + FrameDescriptor.LIST_COUNT_LENGTH + n * FrameDescriptor.SEGMENT_LENGTH;
        }
        to.putLong(at, 1);
        to.putLong(at + 8, sendCommand.address());
        to.putLong(at + 16, total);
        return at + FrameDescriptor.LIST_COUNT_LENGTH + FrameDescriptor.SEGMENT_LENGTH;
    }

    /**
     * Write a command's remote ranges as a remote list at {@code at}: its list with {@code FLAG_RMA_IOV}, else
     * the one range (tag = remote address, ignore = key) of {@code total} bytes.
     *
     * @return the offset after the list.
     */
    private int putRemoteList(
        final MutableDirectBuffer to,
        final int at,
        final DirectBuffer command,
        final int index,
        final long flags,
        final long total)
    {
        if ((flags & CommandDescriptor.FLAG_RMA_IOV) != 0)
        {
            final int list = index + (int) sendCommand.remoteListOffset();
            final int n = FrameLists.count(command, list);
            to.putLong(at, n);
            to.putBytes(at + FrameDescriptor.LIST_COUNT_LENGTH, command, list + FrameDescriptor.LIST_COUNT_LENGTH,
                n * CommandDescriptor.REMOTE_ENTRY_LENGTH);
            return at + FrameDescriptor.LIST_COUNT_LENGTH + n * FrameDescriptor.REMOTE_ENTRY_LENGTH;
        }
        to.putLong(at, 1);
        to.putLong(at + 8, sendCommand.remoteAddress());
        to.putLong(at + 16, total);
        to.putLong(at + 24, sendCommand.rmaKey());
        return at + FrameDescriptor.LIST_COUNT_LENGTH + FrameDescriptor.REMOTE_ENTRY_LENGTH;
    }

    /**
     * Copy the buffers of the command's segment list at record offset {@code listOffset} (0: none) into
     * {@code to} from {@code at}, in order.
     */
    private static void gatherList(
        final UnsafeBuffer to, final int at, final DirectBuffer command, final int index, final long listOffset)
    {
        if (0 == listOffset)
        {
            return;
        }
        final int list = index + (int) listOffset;
        final int n = FrameLists.count(command, list);
        long done = 0;
        for (int k = 0; k < n; k++)
        {
            final long len = FrameLists.segmentLength(command, list, k);
            UnsafeApi.copyMemory(FrameLists.segmentAddress(command, list, k), to.addressOffset() + at + done, len);
            done += len;
        }
    }

    private static CounterCell txCounter(final EndpointState ep, final long kind)
    {
        if ((kind & Flags.READ) != 0)
        {
            return ep.readCounter;
        }
        return (kind & Flags.WRITE) != 0 ? ep.writeCounter : ep.sendCounter;
    }
}
