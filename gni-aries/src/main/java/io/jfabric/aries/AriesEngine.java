package io.jfabric.aries;

import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.jfabric.aries.AriesFrameDescriptor.ACK;
import static io.jfabric.aries.AriesFrameDescriptor.ADDRESS_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.AMO_REQ;
import static io.jfabric.aries.AriesFrameDescriptor.AMO_RESP;
import static io.jfabric.aries.AriesFrameDescriptor.AUX_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.COOKIE_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.CQWRITE;
import static io.jfabric.aries.AriesFrameDescriptor.CREDIT;
import static io.jfabric.aries.AriesFrameDescriptor.DGRAM_REQ;
import static io.jfabric.aries.AriesFrameDescriptor.DGRAM_RESP;
import static io.jfabric.aries.AriesFrameDescriptor.DST_DEVICE_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.DST_INST_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.FLAGS_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.FLAG_LAST;
import static io.jfabric.aries.AriesFrameDescriptor.FLAG_RECOVERABLE;
import static io.jfabric.aries.AriesFrameDescriptor.GET_DATA;
import static io.jfabric.aries.AriesFrameDescriptor.GET_REQ;
import static io.jfabric.aries.AriesFrameDescriptor.HEADER_LENGTH;
import static io.jfabric.aries.AriesFrameDescriptor.KIND_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.LENGTH_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.MH1_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.MH2_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.NACK;
import static io.jfabric.aries.AriesFrameDescriptor.OP1_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.OP2_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.PTAG_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.PUT;
import static io.jfabric.aries.AriesFrameDescriptor.SMSG;
import static io.jfabric.aries.AriesFrameDescriptor.SRC_DEVICE_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.SRC_INST_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.START_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.STATUS_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.TOTAL_OFFSET;
import static io.jfabric.aries.AriesFrameDescriptor.TXN_OFFSET;

/**
 * The NIC engine of one node: the initiator side of every transaction (frames out, answers in, CQ events) and
 * the target side (datagram matching, mailbox deposits, remote memory access with the protection checks, the AMO
 * unit). Being the only code that touches registered memory on behalf of remote peers, and running one step at a
 * time, it is the serialisation point that makes AMOs atomic with respect to other NIC accesses; AMOs also use
 * compare-and-set on the memory so that they are atomic with respect to host threads' atomics.
 * <p>
 * Threading: not thread-safe; every method runs under the node's lock.
 */
final class AriesEngine implements AriesWire.Handler
{
    private static final int POLL_LIMIT = 64;
    /** A busy node publishes its counters at least when {@code step & PUBLISH_STEPS} is 0 (every 64th step). */
    private static final int PUBLISH_STEPS = 63;

    final AriesNode node;
    private final AriesWire wire;
    private final AriesStats stats;
    private final FaultPlan faults;
    private final int chunk;
    private final TimingModel timing;
    private final List<Transaction> timed = new ArrayList<>();
    private long pipeFreeNs;
    long virtualNs;
    long step;
    private final Int2ObjectHashMap<GniNic> nics = new Int2ObjectHashMap<>();
    private final Long2LongHashMap peers = new Long2LongHashMap(-1);
    /** Changes whenever {@link #peers} loses entries (endpoints' cached peers are then stale). */
    private int peersVersion;
    /**
     * {@link #header} with the wire's headroom in front ({@link AriesWire#headroom()}, zero and never written here), so
     * that a frame built in it is offered as it is.
     */
    private final UnsafeBuffer frame;
    private final int headroom;
    private final UnsafeBuffer header;
    private final UnsafeBuffer memory = new UnsafeBuffer(0, 0);
    /** Set by {@link #checkAccess}: what turns the access's addresses into raw ones (offset form), else 0. */
    private long accessDelta;
    private final UnsafeBuffer payloadView = new UnsafeBuffer(0, 0);
    private final ArrayDeque<Outbound> queue = new ArrayDeque<>();
    private final List<Outbound> deferred = new ArrayList<>();
    private final ArrayDeque<Outbound> outboundPool = new ArrayDeque<>();
    private Transaction[] transactions = new Transaction[0];
    private final ArrayDeque<Transaction> freeTransactions = new ArrayDeque<>();
    private boolean closed;
    /**
     * Set by every release of the node's lock other than an engine step's ({@link AriesNode#unlock()}): a call that
     * may have counted statistics, so the next step publishes them.
     */
    boolean statsTouched;
    /** Statistics changed since the counters were last published. */
    private boolean statsDirty;
    private GniNic lastNic;
    /** The node's statistics as counters in the process's counters file while a NIC is attached, else null. */
    private AriesCounters counters;

    AriesEngine(final AriesNode node, final int chunk)
    {
        this.node = node;
        this.wire = node.wire;
        this.stats = node.stats;
        this.faults = node.faults;
        this.timing = node.timing;
        this.chunk = chunk;
        this.headroom = wire.headroom();
        this.frame = new UnsafeBuffer(ByteBuffer.allocateDirect(headroom + HEADER_LENGTH + SmsgAttr.MAX_SIZE));
        this.header = new UnsafeBuffer(frame, headroom, HEADER_LENGTH + SmsgAttr.MAX_SIZE);
    }

    void attach(final GniNic nic)
    {
        if (null == counters)
        {
            counters = AriesCounters.open(nic.deviceAddress, nic.instId, nic.ptag);
            counters.publish(stats);
        }
        nics.put(nic.instId, nic);
        lastNic = null;
    }

    void detach(final GniNic nic)
    {
        nic.detached = true;
        nics.remove(nic.instId);
        lastNic = null;
        if (nics.isEmpty())
        {
            closeCounters();
        }
    }

    void close()
    {
        closed = true;
        closeCounters();
    }

    /**
     * @return the published counters, or null when no NIC is attached (for tests).
     */
    AriesCounters counters()
    {
        return counters;
    }

    private void closeCounters()
    {
        if (null != counters)
        {
            counters.close();
            counters = null;
        }
    }

    int doWork()
    {
        if (closed)
        {
            return 0;
        }
        step++;
        int work = 0;
        if (!deferred.isEmpty())
        {
            for (int i = 0; i < deferred.size(); )
            {
                final Outbound o = deferred.get(i);
                if (o.releaseStep <= step)
                {
                    deferred.remove(i);
                    queue.add(o);
                    work++;
                }
                else
                {
                    i++;
                }
            }
        }
        work += pump();
        work += wire.poll(this, POLL_LIMIT);
        if (!timed.isEmpty())
        {
            work += releaseTimed(0 == work);
        }
        final AriesCounters counters = this.counters;
        // The statistics moved when the step did work or a call under the node's lock ran since the last step (the
        // posts count there); an idle step changes nothing but the back-pressure count, covered every 64th step.
        statsDirty |= work > 0 || statsTouched || 0 == (step & PUBLISH_STEPS);
        statsTouched = false;
        if (null != counters && statsDirty && (0 == work || 0 == (step & PUBLISH_STEPS)))
        {
            // Published on the first idle step after a change, and at least every 64th step while busy: a reader
            // sees the figures once the node pauses, within 64 steps under load (one comparison per counter per
            // publication, not per step).
            statsDirty = false;
            counters.publish(stats);
        }
        return work;
    }

    /**
     * Publish the timed events that are due, in completion order; when the step was idle, first let the virtual
     * clock jump to the earliest due time.
     */
    private int releaseTimed(final boolean idle)
    {
        final List<Transaction> timed = this.timed;
        if (idle)
        {
            long earliest = Long.MAX_VALUE;
            for (int i = 0, n = timed.size(); i < n; i++)
            {
                earliest = Math.min(earliest, timed.get(i).dueNs);
            }
            virtualNs = Math.max(virtualNs, earliest);
        }
        int released = 0;
        for (int i = 0; i < timed.size(); )
        {
            final Transaction t = timed.get(i);
            if (t.dueNs <= virtualNs)
            {
                timed.remove(i);
                publish(t);
                released++;
            }
            else
            {
                i++;
            }
        }
        return released;
    }

    /**
     * The due time of a transaction's event under the timing model: the engine's pipe moves its bytes after the
     * previous transaction's, then the event follows after the latency.
     */
    private void schedule(final Transaction t, final long bytes)
    {
        if (null != timing)
        {
            final long start = Math.max(virtualNs, pipeFreeNs);
            pipeFreeNs = start + timing.transferNs(bytes);
            t.dueNs = pipeFreeNs + timing.latencyNs(t.kind);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Initiator side

    void post(final GniEp ep, final PostDescriptor descriptor, final boolean chained)
    {
        final long peer = peerOf(ep);
        final Transaction root = allocate();
        root.kind = descriptor.type;
        root.descriptor = descriptor;
        root.ep = ep;
        root.cq = ep.srcCq;
        ep.outstanding++;
        if (!chained)
        {
            start(root, descriptor, peer);
            return;
        }
        stats.chainedPosts++;
        int count = 0;
        for (PostDescriptor d = descriptor; null != d; d = d.next)
        {
            count++;
        }
        root.remaining = count;
        for (PostDescriptor d = descriptor; null != d; d = d.next)
        {
            final Transaction child = allocate();
            child.parent = root;
            child.kind = d.type;
            child.descriptor = d;
            child.ep = ep;
            start(child, d, peer);
        }
    }

    private void start(final Transaction t, final PostDescriptor d, final long peer)
    {
        final GniEp ep = t.ep;
        final GniNic nic = ep.nic;
        stats.posts[t.kind.ordinal()]++;
        t.peer = peer;
        t.localAddr = d.localAddr;
        t.length = d.length;
        t.amoCmd = d.amoCmd;
        schedule(null != t.parent ? t.parent : t, TransactionKind.AMO == t.kind ? AmoCmd.size(d.amoCmd) : d.length);
        if (peer < 0)
        {
            complete(t, true, false, GniRc.NO_MATCH);
            return;
        }
        final FaultPlan.Rule rule = null == faults ? null :
            faults.fire(false, t.kind, node.deviceAddress, ep.remoteDevice, nic.ptag, step);
        if (null != rule)
        {
            switch (rule.action())
            {
                case TRANSIENT_ERROR:
                    complete(t, true, true, GniRc.TRANSACTION_ERROR);
                    return;
                case FATAL_ERROR:
                    complete(t, true, false, GniRc.TRANSACTION_ERROR);
                    return;
                case REORDER:
                    ep.deferredUntil = step + 1;
                    break;
                default:
                    break;
            }
        }
        switch (t.kind)
        {
            case FMA_PUT:
            case RDMA_PUT:
            {
                final Outbound o = takeOutbound();
                encode(o.buffer, PUT, nic, ep.remoteDevice, ep.remoteInst, t.wireId());
                o.buffer.putLong(MH1_OFFSET, d.remoteMemHandle.qword1());
                o.buffer.putLong(MH2_OFFSET, d.remoteMemHandle.qword2());
                o.buffer.putLong(START_OFFSET, d.remoteAddr);
                o.buffer.putLong(TOTAL_OFFSET, d.length);
                o.peer = peer;
                o.ep = ep;
                o.stream = true;
                o.source = d.localAddr;
                o.total = d.length;
                o.transaction = t;
                o.transactionGeneration = t.generation;
                sendStream(o);
                break;
            }
            case FMA_GET:
            case RDMA_GET:
                encode(header, GET_REQ, nic, ep.remoteDevice, ep.remoteInst, t.wireId());
                header.putLong(MH1_OFFSET, d.remoteMemHandle.qword1());
                header.putLong(MH2_OFFSET, d.remoteMemHandle.qword2());
                header.putLong(START_OFFSET, d.remoteAddr);
                header.putLong(TOTAL_OFFSET, d.length);
                sendOrFail(t, peer, ep, HEADER_LENGTH, null, 0, 0, 0);
                break;
            case AMO:
                encode(header, AMO_REQ, nic, ep.remoteDevice, ep.remoteInst, t.wireId());
                header.putLong(MH1_OFFSET, d.remoteMemHandle.qword1());
                header.putLong(MH2_OFFSET, d.remoteMemHandle.qword2());
                header.putLong(START_OFFSET, d.remoteAddr);
                header.putLong(TOTAL_OFFSET, AmoCmd.size(d.amoCmd));
                header.putLong(OP1_OFFSET, d.firstOperand);
                header.putLong(OP2_OFFSET, d.secondOperand);
                header.putLong(AUX_OFFSET, d.amoCmd);
                sendOrFail(t, peer, ep, HEADER_LENGTH, null, 0, 0, 0);
                break;
            case CQWRITE:
                encode(header, CQWRITE, nic, ep.remoteDevice, ep.remoteInst, t.wireId());
                header.putLong(MH1_OFFSET, d.remoteMemHandle.qword1());
                header.putLong(MH2_OFFSET, d.remoteMemHandle.qword2());
                header.putLong(OP1_OFFSET, d.firstOperand);
                header.putLong(OP2_OFFSET, ep.remoteEvent);
                sendOrFail(t, peer, ep, HEADER_LENGTH, null, 0, 0, 0);
                break;
            default:
                complete(t, true, false, GniRc.INVALID_PARAM);
                break;
        }
    }

    int smsgSend(
        final GniEp ep, final DirectBuffer hdr, final int hdrOffset, final int hdrLength, final DirectBuffer data,
        final int dataOffset, final int dataLength, final long msgId, final int tag)
    {
        if (ep.withheldCredits > 0)
        {
            ep.withheldCredits--;
            stats.creditStalls++;
            return GniRc.NOT_DONE;
        }
        if (0 == ep.credits)
        {
            stats.creditStalls++;
            return GniRc.NOT_DONE;
        }
        final GniNic nic = ep.nic;
        final FaultPlan.Rule rule = null == faults ? null :
            faults.fire(false, TransactionKind.SMSG, node.deviceAddress, ep.remoteDevice, nic.ptag, step);
        if (null != rule && FaultPlan.Action.WITHHOLD_CREDITS == rule.action())
        {
            ep.withheldCredits = (int) Math.max(0, rule.param() - 1);
            stats.creditStalls++;
            return GniRc.NOT_DONE;
        }
        if (!ep.srcCq.reserve())
        {
            return GniRc.ERROR_RESOURCE;
        }
        ep.credits--;
        stats.posts[TransactionKind.SMSG.ordinal()]++;
        final Transaction t = allocate();
        t.kind = TransactionKind.SMSG;
        t.ep = ep;
        t.cq = ep.srcCq;
        t.msgId = msgId;
        ep.outstanding++;
        schedule(t, hdrLength + dataLength);
        final long peer = peerOf(ep);
        t.peer = peer;
        if (peer < 0)
        {
            complete(t, true, false, GniRc.NO_MATCH);
            return GniRc.SUCCESS;
        }
        if (null != rule)
        {
            switch (rule.action())
            {
                case TRANSIENT_ERROR:
                    if (rule.param() > nic.maxRetrans)
                    {
                        // uGNI's AUTO_RETRANSMIT budget is spent: only now does the sender see the failure.
                        stats.retransmits += nic.maxRetrans;
                        complete(t, true, true, GniRc.TRANSACTION_ERROR);
                        return GniRc.SUCCESS;
                    }
                    stats.retransmits += rule.param();
                    break;
                case FATAL_ERROR:
                    complete(t, true, false, GniRc.TRANSACTION_ERROR);
                    return GniRc.SUCCESS;
                case REORDER:
                    ep.deferredUntil = step + 1;
                    break;
                default:
                    break;
            }
        }
        encode(header, SMSG, nic, ep.remoteDevice, ep.remoteInst, t.wireId());
        header.putInt(LENGTH_OFFSET, hdrLength + dataLength);
        header.putLong(OP1_OFFSET, hdrLength);
        header.putLong(OP2_OFFSET, ep.remoteEvent);
        header.putLong(AUX_OFFSET, (msgId & 0xFFFF_FFFFL) | ((long) tag << 32));
        if (hdrLength > 0)
        {
            header.putBytes(HEADER_LENGTH, hdr, hdrOffset, hdrLength);
        }
        sendOrFail(t, peer, ep, HEADER_LENGTH + hdrLength, data, dataOffset, dataLength, 0);
        return GniRc.SUCCESS;
    }

    void returnCredit(final GniEp ep)
    {
        // Batched: one frame per quarter mailbox keeps the frame count per message down; a sender that has used
        // every credit still gets them back, since the receiver releases every message it holds.
        if (++ep.creditsToReturn < Math.max(1, ep.mailbox.maxCredit / 4))
        {
            return;
        }
        final long peer = peerOf(ep);
        if (peer < 0)
        {
            return;
        }
        encode(header, CREDIT, ep.nic, ep.remoteDevice, ep.remoteInst, 0);
        header.putLong(OP1_OFFSET, ep.creditsToReturn);
        ep.creditsToReturn = 0;
        send(peer, ep, HEADER_LENGTH, null, 0, 0, 0);
    }

    void postDatagram(final GniEp ep)
    {
        final GniNic nic = ep.nic;
        stats.datagramsPosted++;
        stats.posts[TransactionKind.DATAGRAM.ordinal()]++;
        final List<long[]> held = nic.heldDatagrams;
        for (int i = 0; i < held.size(); i++)
        {
            final long[] request = held.get(i);
            if (!ep.bound || (ep.remoteDevice == (int) request[0] && ep.remoteInst == (int) request[1]))
            {
                final byte[] payload = nic.heldPayloads.get(i);
                held.remove(i);
                nic.heldPayloads.remove(i);
                payloadView.wrap(payload);
                match(ep, (int) request[0], (int) request[1], request[2], payloadView, 0, payload.length);
                return;
            }
        }
        nic.datagramPosts.add(ep);
        if (!ep.bound)
        {
            return;
        }
        final FaultPlan.Rule rule = null == faults ? null :
            faults.fire(false, TransactionKind.DATAGRAM, node.deviceAddress, ep.remoteDevice, nic.ptag, step);
        long release = 0;
        if (null != rule)
        {
            switch (rule.action())
            {
                case DROP_DATAGRAM:
                    return;
                case ERROR_DATAGRAM:
                case FATAL_ERROR:
                case TRANSIENT_ERROR:
                    ep.datagramState = GniEp.POST_STATE_ERROR;
                    nic.datagramPosts.remove(ep);
                    nic.datagramCompleted(ep);
                    return;
                case DELAY_DATAGRAM:
                    release = step + rule.param();
                    break;
                default:
                    break;
            }
        }
        final long peer = peerOf(ep);
        if (peer < 0)
        {
            return;
        }
        encode(header, DGRAM_REQ, nic, ep.remoteDevice, ep.remoteInst, 0);
        header.putInt(LENGTH_OFFSET, ep.datagramInLength);
        header.putLong(AUX_OFFSET, ep.datagramId);
        ep.datagramSentRequest = true;
        send(peer, null, HEADER_LENGTH, ep.datagramIn, 0, ep.datagramInLength, release);
    }

    /**
     * The attached NIC of an inst id (the last one found is kept: a ping-pong's frames all name one), or null.
     */
    private GniNic nic(final int instId)
    {
        final GniNic last = lastNic;
        if (null != last && last.instId == instId)
        {
            return last;
        }
        final GniNic nic = nics.get(instId);
        lastNic = nic;
        return nic;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Frames in

    @Override
    public void onFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        stats.framesReceived++;
        if (length < HEADER_LENGTH || closed)
        {
            return;
        }
        final GniNic nic = nic(buffer.getInt(offset + DST_INST_OFFSET));
        final byte kind = buffer.getByte(offset + KIND_OFFSET);
        if (null == nic || buffer.getInt(offset + DST_DEVICE_OFFSET) != node.deviceAddress)
        {
            if (DGRAM_REQ != kind && DGRAM_RESP != kind && CREDIT != kind && ACK != kind && NACK != kind &&
                GET_DATA != kind && AMO_RESP != kind)
            {
                answer(buffer, offset, NACK, GniRc.INVALID_PARAM, 0, null);
            }
            return;
        }
        switch (kind)
        {
            case DGRAM_REQ:
                onDatagramRequest(nic, buffer, offset);
                break;
            case DGRAM_RESP:
                onDatagramResponse(nic, buffer, offset);
                break;
            case SMSG:
                onSmsg(nic, buffer, offset);
                break;
            case CREDIT:
                onCredit(nic, buffer, offset);
                break;
            case PUT:
                onPut(nic, buffer, offset);
                break;
            case GET_REQ:
                onGetRequest(nic, buffer, offset);
                break;
            case GET_DATA:
                onGetData(buffer, offset);
                break;
            case AMO_REQ:
                onAmo(nic, buffer, offset);
                break;
            case AMO_RESP:
                onAmoResponse(buffer, offset);
                break;
            case CQWRITE:
                onCqWrite(nic, buffer, offset);
                break;
            case ACK:
            {
                final Transaction t = transaction(buffer.getInt(offset + TXN_OFFSET));
                if (null != t)
                {
                    complete(t, false, false, GniRc.SUCCESS);
                }
                break;
            }
            case NACK:
            {
                final Transaction t = transaction(buffer.getInt(offset + TXN_OFFSET));
                if (null != t)
                {
                    complete(t, true, 0 != (buffer.getByte(offset + FLAGS_OFFSET) & FLAG_RECOVERABLE),
                        buffer.getByte(offset + STATUS_OFFSET));
                }
                break;
            }
            default:
                break;
        }
    }

    @Override
    public void onPeerDown(final long peer)
    {
        for (final Transaction t : transactions)
        {
            if (null != t && t.active && t.peer == peer && (null != t.parent || 0 == t.remaining))
            {
                complete(t, true, false, GniRc.TRANSACTION_ERROR);
            }
        }
        peersVersion++;
        final Long2LongHashMap.KeyIterator keys = peers.keySet().iterator();
        while (keys.hasNext())
        {
            final long key = keys.nextValue();
            if (peers.get(key) == peer)
            {
                keys.remove();
            }
        }
    }

    private boolean sameJob(final GniNic nic, final DirectBuffer buffer, final int offset)
    {
        if (nic.ptag == (buffer.getByte(offset + PTAG_OFFSET) & 0xFF) &&
            nic.cookie == buffer.getInt(offset + COOKIE_OFFSET))
        {
            return true;
        }
        // Traffic of another job (ptag or cookie) never matches anything of this domain.
        stats.crossJobDrops++;
        return false;
    }

    private void onDatagramRequest(final GniNic nic, final DirectBuffer buffer, final int offset)
    {
        if (!sameJob(nic, buffer, offset))
        {
            return;
        }
        final int srcDevice = buffer.getInt(offset + SRC_DEVICE_OFFSET);
        final int srcInst = buffer.getInt(offset + SRC_INST_OFFSET);
        final long id = buffer.getLong(offset + AUX_OFFSET);
        final int length = buffer.getInt(offset + LENGTH_OFFSET);
        final List<GniEp> posts = nic.datagramPosts;
        for (int i = 0; i < posts.size(); i++)
        {
            final GniEp ep = posts.get(i);
            if (ep.bound && ep.remoteDevice == srcDevice && ep.remoteInst == srcInst)
            {
                if (ep.datagramSentRequest &&
                    Long.compare(GniEp.key(node.deviceAddress, nic.instId), GniEp.key(srcDevice, srcInst)) > 0)
                {
                    // Both sides sent a request: the lower address answers, this side waits for its answer.
                    return;
                }
                match(ep, srcDevice, srcInst, id, buffer, offset + HEADER_LENGTH, length);
                return;
            }
        }
        for (int i = 0; i < posts.size(); i++)
        {
            final GniEp ep = posts.get(i);
            if (!ep.bound)
            {
                match(ep, srcDevice, srcInst, id, buffer, offset + HEADER_LENGTH, length);
                return;
            }
        }
        final byte[] payload = new byte[length];
        buffer.getBytes(offset + HEADER_LENGTH, payload);
        nic.heldDatagrams.add(new long[]{srcDevice, srcInst, id});
        nic.heldPayloads.add(payload);
    }

    private void match(
        final GniEp ep, final int srcDevice, final int srcInst, final long requestId, final DirectBuffer payload,
        final int payloadOffset, final int payloadLength)
    {
        final GniNic nic = ep.nic;
        deliverDatagram(ep, srcDevice, srcInst, payload, payloadOffset, payloadLength);
        stats.datagramsMatched++;
        final long peer = peerOf(srcDevice, srcInst);
        if (peer < 0)
        {
            return;
        }
        encode(header, DGRAM_RESP, nic, srcDevice, srcInst, 0);
        header.putInt(LENGTH_OFFSET, ep.datagramInLength);
        header.putLong(AUX_OFFSET, requestId);
        send(peer, null, HEADER_LENGTH, ep.datagramIn, 0, ep.datagramInLength, 0);
    }

    private void deliverDatagram(
        final GniEp ep, final int srcDevice, final int srcInst, final DirectBuffer payload, final int payloadOffset,
        final int payloadLength)
    {
        final int length = Math.min(payloadLength, ep.datagramOutCapacity);
        if (length > 0 && null != ep.datagramOut)
        {
            ep.datagramOut.putBytes(ep.datagramOutOffset, payload, payloadOffset, length);
        }
        ep.datagramOutLength = length;
        ep.datagramRemoteDevice = srcDevice;
        ep.datagramRemoteInst = srcInst;
        ep.datagramState = GniEp.POST_STATE_COMPLETED;
        ep.nic.datagramPosts.remove(ep);
        ep.nic.datagramCompleted(ep);
    }

    private void onDatagramResponse(final GniNic nic, final DirectBuffer buffer, final int offset)
    {
        if (!sameJob(nic, buffer, offset))
        {
            return;
        }
        final int srcDevice = buffer.getInt(offset + SRC_DEVICE_OFFSET);
        final int srcInst = buffer.getInt(offset + SRC_INST_OFFSET);
        final long id = buffer.getLong(offset + AUX_OFFSET);
        final List<GniEp> posts = nic.datagramPosts;
        for (int i = 0; i < posts.size(); i++)
        {
            final GniEp ep = posts.get(i);
            if (ep.bound && ep.remoteDevice == srcDevice && ep.remoteInst == srcInst && ep.datagramId == id)
            {
                deliverDatagram(ep, srcDevice, srcInst, buffer, offset + HEADER_LENGTH,
                    buffer.getInt(offset + LENGTH_OFFSET));
                return;
            }
        }
    }

    private void onSmsg(final GniNic nic, final DirectBuffer buffer, final int offset)
    {
        if (!sameJob(nic, buffer, offset))
        {
            answer(buffer, offset, NACK, GniRc.PERMISSION_ERROR, 0, nic);
            return;
        }
        final int srcDevice = buffer.getInt(offset + SRC_DEVICE_OFFSET);
        final int srcInst = buffer.getInt(offset + SRC_INST_OFFSET);
        final GniEp ep = nic.smsgEp(GniEp.key(srcDevice, srcInst));
        final int length = buffer.getInt(offset + LENGTH_OFFSET);
        if (null == ep)
        {
            answer(buffer, offset, NACK, GniRc.INVALID_STATE, 0, nic);
            return;
        }
        final Mailbox mailbox = ep.mailbox;
        if (mailbox.full() || length > mailbox.msgMaxSize)
        {
            answer(buffer, offset, NACK, GniRc.ERROR_RESOURCE, 0, nic);
            return;
        }
        final FaultPlan.Rule rule = null == faults ? null :
            faults.fire(true, TransactionKind.SMSG, srcDevice, node.deviceAddress, nic.ptag, step);
        long visibleAt = 0;
        if (null != rule)
        {
            if (FaultPlan.Action.SHRINK_CQ == rule.action())
            {
                mailbox.rxCq.shrink((int) rule.param());
            }
            else if (FaultPlan.Action.CQE_BEFORE_DATA == rule.action())
            {
                visibleAt = step + 1;
            }
        }
        final long sequence = mailbox.tail;
        final int slot = mailbox.slot(sequence);
        mailbox.slots.putBytes(mailbox.slotOffset(slot), buffer, offset + HEADER_LENGTH, length);
        mailbox.lengths[slot] = length;
        final long aux = buffer.getLong(offset + AUX_OFFSET);
        mailbox.tags[slot] = (int) (aux >>> 32);
        mailbox.visibleAtStep[slot] = visibleAt;
        mailbox.tail = sequence + 1;
        mailbox.rxCq.push(GniCqEntry.encode(
            GniCqEntry.TYPE_SMSG, buffer.getLong(offset + OP2_OFFSET), aux & 0xFFFF_FFFFL, true, false, false));
        // The mailbox's endpoint is bound to the sender: its cached wire peer saves the lookup.
        answer(peerOf(ep), buffer, offset, ACK, GniRc.SUCCESS, 0);
    }

    private void onCredit(final GniNic nic, final DirectBuffer buffer, final int offset)
    {
        final GniEp ep = nic.smsgEp(
            GniEp.key(buffer.getInt(offset + SRC_DEVICE_OFFSET), buffer.getInt(offset + SRC_INST_OFFSET)));
        if (null != ep)
        {
            ep.credits += (int) buffer.getLong(offset + OP1_OFFSET);
        }
    }

    /**
     * The target-side protection check of every remote memory access (GNI.md §5.2). For an index-only vMDH handle
     * ({@link MemHandle#vmdh}) the addresses are offsets into the slot's registered range: {@link #accessDelta} is
     * then set to the range's start (0 otherwise), the range's exact bounds apply (a read may cover the last word),
     * and {@link GniNic#MEM_NO_REMOTE_READ} refuses reads.
     *
     * @return {@link GniRc#SUCCESS} or the reason for the NACK.
     */
    private int checkAccess(
        final GniNic nic, final DirectBuffer buffer, final int offset, final long address, final long length,
        final boolean read, final boolean write)
    {
        accessDelta = 0;
        if (!sameJob(nic, buffer, offset))
        {
            return GniRc.PERMISSION_ERROR;
        }
        final long q1 = buffer.getLong(offset + MH1_OFFSET);
        final long q2 = buffer.getLong(offset + MH2_OFFSET);
        if (!MemHandle.checkValid(q1, q2))
        {
            return GniRc.INVALID_PARAM;
        }
        // The registration is this NIC's, so its owner ptag is the domain's, checked by sameJob above.
        final Registration registration = nic.registration(q1, q2);
        if (null == registration)
        {
            return GniRc.INVALID_PARAM;
        }
        if (read && registration.noRead)
        {
            return GniRc.PERMISSION_ERROR;
        }
        final long at;
        if (MemHandle.indexOnly(q1, q2))
        {
            // A GET moves whole 4-byte words: it may cover the range's last word.
            final long limit = read && !write ? (registration.length + 3) & ~3L : registration.length;
            if (length < 0 || address < 0 || address + length > limit)
            {
                return GniRc.PERMISSION_ERROR;
            }
            accessDelta = registration.start;
            at = address + registration.start;
        }
        else
        {
            at = address;
            if (length < 0 || address < registration.base || address + length > registration.end())
            {
                return GniRc.INVALID_PARAM;
            }
        }
        if (!registration.pagesLive(at, length))
        {
            return GniRc.INVALID_STATE;
        }
        if (write && registration.readOnly)
        {
            return GniRc.PERMISSION_ERROR;
        }
        return GniRc.SUCCESS;
    }

    private void onPut(final GniNic nic, final DirectBuffer buffer, final int offset)
    {
        final long start = buffer.getLong(offset + START_OFFSET);
        final long total = buffer.getLong(offset + TOTAL_OFFSET);
        final long address = buffer.getLong(offset + ADDRESS_OFFSET);
        final int length = buffer.getInt(offset + LENGTH_OFFSET);
        final boolean last = 0 != (buffer.getByte(offset + FLAGS_OFFSET) & FLAG_LAST);
        int rc = checkAccess(nic, buffer, offset, start, total, false, true);
        if (GniRc.SUCCESS == rc && (address < start || address + length > start + total))
        {
            rc = GniRc.INVALID_PARAM;
        }
        if (GniRc.SUCCESS != rc)
        {
            // Every frame of the transaction fails the same check; the last one carries the NACK.
            if (last)
            {
                stats.protectionNacks++;
                answer(buffer, offset, NACK, rc, 0, nic);
            }
            return;
        }
        if (length > 0)
        {
            memory.wrap(address + accessDelta, length);
            memory.putBytes(0, buffer, offset + HEADER_LENGTH, length);
        }
        if (last)
        {
            answer(buffer, offset, ACK, GniRc.SUCCESS, 0, nic);
        }
    }

    private void onGetRequest(final GniNic nic, final DirectBuffer buffer, final int offset)
    {
        final long start = buffer.getLong(offset + START_OFFSET);
        final long total = buffer.getLong(offset + TOTAL_OFFSET);
        final int rc = checkAccess(nic, buffer, offset, start, total, true, false);
        final long delta = accessDelta;
        if (GniRc.SUCCESS != rc)
        {
            stats.protectionNacks++;
            answer(buffer, offset, NACK, rc, 0, nic);
            return;
        }
        final long peer = peerOf(buffer.getInt(offset + SRC_DEVICE_OFFSET), buffer.getInt(offset + SRC_INST_OFFSET));
        if (peer < 0)
        {
            return;
        }
        final Outbound o = takeOutbound();
        final UnsafeBuffer out = o.buffer;
        encode(out, GET_DATA, nic, buffer.getInt(offset + SRC_DEVICE_OFFSET),
            buffer.getInt(offset + SRC_INST_OFFSET), buffer.getInt(offset + TXN_OFFSET));
        out.putLong(START_OFFSET, start);
        out.putLong(TOTAL_OFFSET, total);
        o.peer = peer;
        o.stream = true;
        o.source = start + delta;
        o.total = total;
        o.sourceNic = nic;
        o.sourceHandle1 = buffer.getLong(offset + MH1_OFFSET);
        o.sourceHandle2 = buffer.getLong(offset + MH2_OFFSET);
        o.sourceGeneration = nic.registration(o.sourceHandle1, o.sourceHandle2).generation;
        sendStream(o);
    }

    private void onGetData(final DirectBuffer buffer, final int offset)
    {
        final Transaction t = transaction(buffer.getInt(offset + TXN_OFFSET));
        if (null == t)
        {
            return;
        }
        final long chunkOffset = buffer.getLong(offset + ADDRESS_OFFSET) - buffer.getLong(offset + START_OFFSET);
        final int length = buffer.getInt(offset + LENGTH_OFFSET);
        if (chunkOffset < 0 || chunkOffset + length > t.length)
        {
            return;
        }
        final MemHandle local = t.descriptor.localMemHandle;
        if (null == t.ep.nic.registration(local.qword1(), local.qword2()))
        {
            // The local memory the GET lands in was deregistered meanwhile: its translation is gone, nothing more is
            // written; the GET fails (not recoverable).
            stats.localProtectionFaults++;
            complete(t, true, false, GniRc.PERMISSION_ERROR);
            return;
        }
        if (length > 0)
        {
            memory.wrap(t.localAddr + chunkOffset, length);
            memory.putBytes(0, buffer, offset + HEADER_LENGTH, length);
        }
        if (0 != (buffer.getByte(offset + FLAGS_OFFSET) & FLAG_LAST))
        {
            complete(t, false, false, GniRc.SUCCESS);
        }
    }

    private void onAmo(final GniNic nic, final DirectBuffer buffer, final int offset)
    {
        final int cmd = (int) buffer.getLong(offset + AUX_OFFSET);
        final long address = buffer.getLong(offset + START_OFFSET);
        if (!AmoCmd.valid(cmd))
        {
            answer(buffer, offset, NACK, GniRc.INVALID_PARAM, 0, nic);
            return;
        }
        final int size = AmoCmd.size(cmd);
        int rc = checkAccess(nic, buffer, offset, address, size, AmoCmd.fetching(cmd), true);
        if (GniRc.SUCCESS == rc && 0 != ((address + accessDelta) & (size - 1)))
        {
            rc = GniRc.ALIGNMENT_ERROR;
        }
        if (GniRc.SUCCESS != rc)
        {
            stats.protectionNacks++;
            answer(buffer, offset, NACK, rc, 0, nic);
            return;
        }
        final long op1 = buffer.getLong(offset + OP1_OFFSET);
        final long op2 = buffer.getLong(offset + OP2_OFFSET);
        memory.wrap(address + accessDelta, size);
        long old;
        if (4 == size)
        {
            int current;
            do
            {
                current = memory.getIntVolatile(0);
            }
            while (!memory.compareAndSetInt(0, current, (int) AmoCmd.apply(cmd, current, op1, op2)));
            old = current & 0xFFFF_FFFFL;
        }
        else
        {
            long current;
            do
            {
                current = memory.getLongVolatile(0);
            }
            while (!memory.compareAndSetLong(0, current, AmoCmd.apply(cmd, current, op1, op2)));
            old = current;
        }
        answer(buffer, offset, AMO_RESP, GniRc.SUCCESS, old, nic);
    }

    private void onAmoResponse(final DirectBuffer buffer, final int offset)
    {
        final Transaction t = transaction(buffer.getInt(offset + TXN_OFFSET));
        if (null == t)
        {
            return;
        }
        if (AmoCmd.fetching(t.amoCmd))
        {
            final long old = buffer.getLong(offset + OP1_OFFSET);
            if (4 == AmoCmd.size(t.amoCmd))
            {
                memory.wrap(t.localAddr, 4);
                memory.putInt(0, (int) old);
            }
            else
            {
                memory.wrap(t.localAddr, 8);
                memory.putLong(0, old);
            }
        }
        complete(t, false, false, GniRc.SUCCESS);
    }

    private void onCqWrite(final GniNic nic, final DirectBuffer buffer, final int offset)
    {
        int rc = GniRc.SUCCESS;
        Registration registration = null;
        if (!sameJob(nic, buffer, offset))
        {
            rc = GniRc.PERMISSION_ERROR;
        }
        else
        {
            final long q1 = buffer.getLong(offset + MH1_OFFSET);
            final long q2 = buffer.getLong(offset + MH2_OFFSET);
            registration = MemHandle.checkValid(q1, q2) ? nic.registration(q1, q2) : null;
            if (null == registration || null == registration.dstCq)
            {
                rc = GniRc.INVALID_PARAM;
            }
        }
        if (GniRc.SUCCESS != rc)
        {
            stats.protectionNacks++;
            answer(buffer, offset, NACK, rc, 0, nic);
            return;
        }
        registration.dstCq.push(GniCqEntry.encode(GniCqEntry.TYPE_POST, buffer.getLong(offset + OP2_OFFSET),
            buffer.getLong(offset + OP1_OFFSET), true, false, false));
        answer(buffer, offset, ACK, GniRc.SUCCESS, 0, nic);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Completion

    private void complete(final Transaction t, final boolean error, final boolean recoverable, final int detail)
    {
        if (!t.active || t.counted)
        {
            // Finished already (its event may be waiting for the virtual clock).
            return;
        }
        final Transaction parent = t.parent;
        if (null != parent)
        {
            if (error && !parent.failed)
            {
                parent.failed = true;
                parent.recoverable = recoverable;
                parent.detail = detail;
            }
            free(t);
            if (0 == --parent.remaining)
            {
                finish(parent);
            }
            return;
        }
        if (error)
        {
            t.failed = true;
            t.recoverable = recoverable;
            t.detail = detail;
        }
        finish(t);
    }

    private void finish(final Transaction t)
    {
        if (null != timing && t.dueNs > virtualNs)
        {
            // The event waits for the virtual clock; the transaction stays outstanding until then.
            t.counted = true;
            timed.add(t);
            return;
        }
        publish(t);
    }

    private void publish(final Transaction t)
    {
        final GniEp ep = t.ep;
        ep.outstanding--;
        if (t.failed)
        {
            stats.transactionErrors++;
        }
        if (TransactionKind.SMSG == t.kind)
        {
            if (t.failed)
            {
                // The message never reached the mailbox: its credit is not consumed.
                ep.credits++;
            }
            t.cq.pushReserved(GniCqEntry.encode(
                GniCqEntry.TYPE_SMSG, ep.localEvent, t.msgId, false, t.failed, t.recoverable), null);
        }
        else
        {
            final PostDescriptor d = t.descriptor;
            d.status = t.failed ? GniRc.TRANSACTION_ERROR : GniRc.SUCCESS;
            d.errorDetail = t.failed ? t.detail : GniRc.SUCCESS;
            t.cq.pushReserved(GniCqEntry.encode(
                GniCqEntry.TYPE_POST, ep.localEvent, d.postId, false, t.failed, t.recoverable), d);
        }
        free(t);
    }

    private Transaction allocate()
    {
        Transaction t = freeTransactions.poll();
        if (null == t)
        {
            final int slot = transactions.length;
            if (slot > Transaction.SLOT_MASK)
            {
                throw new GniException(GniRc.ERROR_NOMEM, "transaction table full");
            }
            transactions = Arrays.copyOf(transactions, Math.max(64, slot * 2));
            for (int i = slot; i < transactions.length; i++)
            {
                transactions[i] = new Transaction(i);
                transactions[i].reset();
                if (i != slot)
                {
                    freeTransactions.add(transactions[i]);
                }
            }
            t = transactions[slot];
        }
        t.active = true;
        return t;
    }

    private void free(final Transaction t)
    {
        t.reset();
        freeTransactions.add(t);
    }

    private Transaction transaction(final int wireId)
    {
        final int slot = wireId & Transaction.SLOT_MASK;
        if (slot >= transactions.length)
        {
            return null;
        }
        final Transaction t = transactions[slot];
        return t.active && t.wireId() == wireId ? t : null;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Frames out

    /**
     * The bound remote of {@code ep} as a wire peer, cached on the endpoint until the peer table changes (a peer
     * down), so that a post does not look it up by address each time.
     */
    private long peerOf(final GniEp ep)
    {
        if (ep.peerVersion == peersVersion)
        {
            return ep.peer;
        }
        final long peer = peerOf(ep.remoteDevice, ep.remoteInst);
        if (peer >= 0)
        {
            ep.peer = peer;
            ep.peerVersion = peersVersion;
        }
        return peer;
    }

    long peerOf(final int device, final int inst)
    {
        final long key = GniEp.key(device, inst);
        long peer = peers.get(key);
        if (peer < 0)
        {
            final byte[] address = node.directory.lookup(device, inst);
            if (null == address)
            {
                return -1;
            }
            peer = wire.resolve(address);
            if (peer >= 0)
            {
                peers.put(key, peer);
            }
        }
        return peer;
    }

    private void encode(
        final UnsafeBuffer out, final byte kind, final GniNic nic, final int dstDevice, final int dstInst,
        final int txn)
    {
        out.setMemory(0, HEADER_LENGTH, (byte) 0);
        out.putByte(KIND_OFFSET, kind);
        out.putByte(PTAG_OFFSET, (byte) nic.ptag);
        out.putInt(COOKIE_OFFSET, nic.cookie);
        out.putInt(SRC_DEVICE_OFFSET, node.deviceAddress);
        out.putInt(SRC_INST_OFFSET, nic.instId);
        out.putInt(DST_DEVICE_OFFSET, dstDevice);
        out.putInt(DST_INST_OFFSET, dstInst);
        out.putInt(TXN_OFFSET, txn);
    }

    /**
     * Answer a request frame: ACK, NACK (status = reason) or AMO_RESP (value).
     */
    private void answer(
        final DirectBuffer request, final int offset, final byte kind, final int status, final long value,
        final GniNic nic)
    {
        answer(peerOf(request.getInt(offset + SRC_DEVICE_OFFSET), request.getInt(offset + SRC_INST_OFFSET)), request,
            offset, kind, status, value);
    }

    /**
     * {@link #answer(DirectBuffer, int, byte, int, long, GniNic)} to a peer already known (a mailbox's sender).
     */
    private void answer(
        final long peer, final DirectBuffer request, final int offset, final byte kind, final int status,
        final long value)
    {
        if (peer < 0)
        {
            return;
        }
        final int srcDevice = request.getInt(offset + SRC_DEVICE_OFFSET);
        final int srcInst = request.getInt(offset + SRC_INST_OFFSET);
        header.setMemory(0, HEADER_LENGTH, (byte) 0);
        header.putByte(KIND_OFFSET, kind);
        header.putByte(STATUS_OFFSET, (byte) status);
        header.putByte(PTAG_OFFSET, request.getByte(offset + PTAG_OFFSET));
        header.putInt(COOKIE_OFFSET, request.getInt(offset + COOKIE_OFFSET));
        header.putInt(SRC_DEVICE_OFFSET, node.deviceAddress);
        header.putInt(SRC_INST_OFFSET, request.getInt(offset + DST_INST_OFFSET));
        header.putInt(DST_DEVICE_OFFSET, srcDevice);
        header.putInt(DST_INST_OFFSET, srcInst);
        header.putInt(TXN_OFFSET, request.getInt(offset + TXN_OFFSET));
        header.putLong(OP1_OFFSET, value);
        send(peer, null, HEADER_LENGTH, null, 0, 0, 0);
    }

    private void sendOrFail(
        final Transaction t, final long peer, final GniEp ep, final int headerLength, final DirectBuffer payload,
        final int payloadOffset, final int payloadLength, final long release)
    {
        if (send(peer, ep, headerLength, payload, payloadOffset, payloadLength, release) < 0)
        {
            complete(t, true, false, GniRc.TRANSACTION_ERROR);
        }
    }

    /**
     * Send {@link #header} (and a payload) now, or queue a copy: behind earlier queued frames (order), for a
     * fault's delay, or on back-pressure.
     *
     * @return 1 sent, 0 queued, negative errno when the wire cannot reach the peer.
     */
    private int send(
        final long peer, final GniEp ep, final int headerLength, final DirectBuffer payload, final int payloadOffset,
        final int payloadLength, final long release)
    {
        final long hold = Math.max(release, null == ep ? 0 : ep.deferredUntil);
        if (hold <= step && queue.isEmpty())
        {
            final int rc = wire.offer(peer, frame, headroom, headerLength, payload, payloadOffset, payloadLength);
            if (rc > 0)
            {
                stats.framesSent++;
                return 1;
            }
            if (rc < 0)
            {
                return rc;
            }
            stats.backPressured++;
        }
        final Outbound o = takeOutbound();
        o.ensureCapacity(headerLength + payloadLength);
        o.buffer.putBytes(0, header, 0, headerLength);
        if (payloadLength > 0)
        {
            o.buffer.putBytes(headerLength, payload, payloadOffset, payloadLength);
        }
        o.length = headerLength + payloadLength;
        o.peer = peer;
        o.ep = ep;
        enqueue(o, hold);
        return 0;
    }

    private void sendStream(final Outbound o)
    {
        final long hold = null == o.ep ? 0 : o.ep.deferredUntil;
        if (hold <= step && queue.isEmpty() && 0 != pumpStream(o))
        {
            releaseOutbound(o);
            return;
        }
        enqueue(o, hold);
    }

    private void enqueue(final Outbound o, final long hold)
    {
        if (hold > step)
        {
            o.releaseStep = hold;
            deferred.add(o);
        }
        else
        {
            queue.add(o);
        }
    }

    private int pump()
    {
        int work = 0;
        Outbound o;
        while (null != (o = queue.peek()))
        {
            if (o.stream)
            {
                if (0 == pumpStream(o))
                {
                    break;
                }
            }
            else
            {
                final int rc = wire.offer(o.peer, o.buffer, 0, o.length, null, 0, 0);
                if (0 == rc)
                {
                    stats.backPressured++;
                    break;
                }
                if (rc > 0)
                {
                    stats.framesSent++;
                }
            }
            queue.poll();
            releaseOutbound(o);
            work++;
        }
        return work;
    }

    /**
     * Cut a stream into frames until done or the wire pushes back.
     *
     * @return 1 when finished (sent, or abandoned because its transaction ended), 0 on back-pressure.
     */
    private int pumpStream(final Outbound o)
    {
        final Transaction t = o.transaction;
        final UnsafeBuffer out = o.buffer;
        final long start = out.getLong(START_OFFSET);
        do
        {
            if (null != t && (!t.active || t.generation != o.transactionGeneration))
            {
                return 1;
            }
            if (null != o.sourceNic && !sourceLive(o))
            {
                // The registration a GET reads through was deregistered mid-stream: nothing more is read from it,
                // the initiator's GET fails (NACK, not recoverable).
                abortGetStream(o);
                return 1;
            }
            final int length = (int) Math.min(chunk, o.total - o.sent);
            out.putLong(ADDRESS_OFFSET, start + o.sent);
            out.putInt(LENGTH_OFFSET, length);
            out.putByte(FLAGS_OFFSET, o.sent + length == o.total ? FLAG_LAST : 0);
            if (length > 0)
            {
                payloadView.wrap(o.source + o.sent, length);
            }
            final int rc = wire.offer(o.peer, out, 0, HEADER_LENGTH, length > 0 ? payloadView : null, 0, length);
            if (0 == rc)
            {
                stats.backPressured++;
                return 0;
            }
            if (rc < 0)
            {
                if (null != t)
                {
                    complete(t, true, false, GniRc.TRANSACTION_ERROR);
                }
                return 1;
            }
            stats.framesSent++;
            o.sent += length;
        }
        while (o.sent < o.total);
        return 1;
    }

    /**
     * Is the registration a GET stream began on still there? An index-only vMDH handle resolves to whatever
     * registration holds the slot now, so the generation seen at the stream's start must match too: a region
     * registered under the same key after the close is never read through the old stream.
     */
    private static boolean sourceLive(final Outbound o)
    {
        final Registration registration = o.sourceNic.registration(o.sourceHandle1, o.sourceHandle2);
        return null != registration && registration.generation == o.sourceGeneration;
    }

    private void abortGetStream(final Outbound o)
    {
        stats.protectionNacks++;
        header.putBytes(0, o.buffer, 0, HEADER_LENGTH);
        header.putByte(KIND_OFFSET, NACK);
        header.putByte(STATUS_OFFSET, (byte) GniRc.INVALID_PARAM);
        header.putByte(FLAGS_OFFSET, (byte) 0);
        send(o.peer, null, HEADER_LENGTH, null, 0, 0, 0);
    }

    private Outbound takeOutbound()
    {
        final Outbound o = outboundPool.poll();
        if (null != o)
        {
            return o;
        }
        final Outbound created = new Outbound();
        created.reset();
        created.ensureCapacity(HEADER_LENGTH + 256);
        return created;
    }

    private void releaseOutbound(final Outbound o)
    {
        o.reset();
        outboundPool.add(o);
    }
}
