package io.jfabric.provider.gni;

import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.aries.AmoCmd;
import io.jfabric.aries.AriesNode;
import io.jfabric.aries.GniCq;
import io.jfabric.aries.GniCqEntry;
import io.jfabric.aries.GniEp;
import io.jfabric.aries.GniNic;
import io.jfabric.aries.GniRc;
import io.jfabric.aries.MemHandle;
import io.jfabric.aries.PostDescriptor;
import io.jfabric.aries.SmsgAttr;
import io.jfabric.aries.TransactionKind;
import io.jfabric.spi.OperationBackend;
import io.jfabric.spi.OperationCommand;
import io.jfabric.spi.OperationContext;
import io.jfabric.spi.RendezvousPull;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * The gni provider's protocol over the emulated NIC (GNI.md §2.2-2.6), as the domain's operation-level back-end:
 * <ul>
 *     <li><b>Lazy VC connect</b>: the first operation to a peer NIC creates its VC (a GNI endpoint bound to the peer,
 *     SMSG initialised) and posts a CONN_REQ datagram; the peer's wildcard datagram takes it, answers with a CONN_RESP
 *     datagram and is connected; a simultaneous connect (two bound datagrams swapped) connects both. The call never
 *     blocks: operations wait on the VC. A connect that does not finish within {@code jfabric.gni.connectTimeoutMs}
 *     fails them with {@code FI_ETIMEDOUT}.</li>
 *     <li><b>Messages</b>: eager SMSG (tag 10, a 40-byte header) when header and payload fit the peer's mailbox slot
 *     (16344 B with the default 16384-byte slot, whatever the 16384-byte rendezvous threshold says: GNI.md §2.4's
 *     clamp); above it a rendezvous START (tag 19) naming the registered source, the receiver pulls the 4-aligned
 *     middle with a BTE GET, takes the unaligned head and tail bytes from the START, and answers with a FIN (tag
 *     20), on which the sender completes. Eager sends complete on their local SMSG event (in the peer's mailbox).</li>
 *     <li><b>RMA and atomics</b>: the initiator asks the target for a NIC handle of the key's range (MR query, tag 24:
 *     the target checks it with the runtime's registry and registers the pages with its NIC for the operation), then
 *     moves the data itself: FMA below the RDMA threshold (8192 B), BTE at or above; unaligned GETs as upstream
 *     (below 60 B one GET of the covering words into a bounce buffer; from 60 B the aligned middle straight into the
 *     user's buffer and the head and tail words through the bounce buffer). Atomics are one AMO of the NIC's unit.
 *     Then an RMA done (tag 21) lets the target publish its remote events and deregister; its ack (tag 22)
 *     completes the operation. RMA and atomics wait for the peer's caps and are gated by them, and a one-sided one
 *     to a target without {@code FI_RMA_EVENT} completes on its NIC event ({@link GniPeerCaps}).</li>
 *     <li><b>Failures</b>: a transaction error (peer gone, protection) fails the operation with {@code FI_ECANCELED}
 *     and, on a control message, the VC: every operation waiting on it fails with {@code FI_EIO}, and later ones at
 *     once. A VC with operations waiting for answers sends a keep-alive every {@value #PING_INTERVAL_MS} ms of
 *     silence, so that a dead peer turns into error completions instead of a hang.</li>
 * </ul>
 * The emulated NIC engine of the domain's node is stepped in every duty cycle.
 * <p>
 * Threading: the domain agent's thread only (see {@link OperationBackend}).
 */
final class GniBackend implements OperationBackend
{
    static final int TAG_EAGER = 10;
    static final int TAG_RNDZV_START = 19;
    static final int TAG_RNDZV_FIN = 20;
    static final int TAG_RMA_DONE = 21;
    static final int TAG_RMA_ACK = 22;
    static final int TAG_MR_QUERY = 24;
    static final int TAG_MR_ANSWER = 25;
    static final int TAG_PING = 26;
    /** The sender's closed endpoints ({@link GniEndpointStates}). */
    static final int TAG_EP_STATE = 27;
    /** The sender's endpoints' caps ({@link GniPeerCaps}). */
    static final int TAG_EP_CAPS = 28;

    /** Bytes of the eager header: source and destination endpoint, bits, tag, data, length. */
    static final int EAGER_HEADER = 40;
    /** {@code GNI_MSG_RENDEZVOUS_THRESHOLD} default. */
    static final int RENDEZVOUS_THRESHOLD = 16384;
    /** {@code GNI_RMA_RDMA_THRESHOLD} default. */
    static final int RDMA_THRESHOLD = 8192;
    /** Unaligned GETs below this go through the bounce buffer whole (upstream's INDIRECT). */
    static final int CHAINED_THRESHOLD = 60;
    static final long PING_INTERVAL_MS = 100;

    private static final int MAX_OPS = 4096;
    private static final int MAX_VCS = 1024;
    private static final int BOUNCE_SLOT = 128;
    private static final int INLINE_OFFSET = 64;
    private static final long CONTROL_MSG_ID = 0x8000_0000L;
    private static final int WILDCARDS = 2;
    private static final long WILDCARD_ID = 0x4000_0000L;
    private static final long VC_DATAGRAM_ID = 0x2000_0000L;
    private static final int DG_NONE = 0;
    private static final int DG_REQ = 1;
    private static final int DG_RESP = 2;
    static final int BIT_TAGGED = 1;
    static final int BIT_DATA = 2;
    /** Eager with FI_DELIVERY_COMPLETE: the receiver answers with a FIN once the runtime took the message. */
    private static final int BIT_ACK = 4;
    private static final int KIND_WRITE = 1;
    private static final int KIND_READ = 2;
    private static final int KIND_FAILED = 0x80;
    /** The target endpoint has FI_RMA_EVENT (as its caps said): it counts the access. */
    private static final int KIND_EVENT = 0x40;
    private static final int COMPLETION_RETRY = MAX_OPS;
    /** {@code GNI_MAX_RETRANSMITS}' default (GNI.md 2.12). */
    static final int MAX_RETRANSMITS_DEFAULT = 5;

    private final GniDomainTransport transport;
    private final GniNic nic;
    // Allocated with the domain's first endpoint, from the domain's options then (allocateNic, GniNicGeometry).
    private GniCq txCq;
    private GniCq rxCq;
    private final SmsgAttr smsgAttr = new SmsgAttr();
    private int eagerLimit;
    private long connectTimeoutNs;
    private volatile boolean nicAllocated;
    private final GniOp[] ops = new GniOp[MAX_OPS];
    private final GniVc[] vcs = new GniVc[MAX_VCS];
    private int vcCount;
    private final Long2ObjectHashMap<GniVc> vcByPeer = new Long2ObjectHashMap<>();
    private long lastVcKey;
    private GniVc lastVc;
    private final GniEp[] wildcards = new GniEp[WILDCARDS];
    private final UnsafeBuffer[] wildcardOut = new UnsafeBuffer[WILDCARDS];
    private final UnsafeBuffer datagramScratch = new UnsafeBuffer(ByteBuffer.allocateDirect(GniEp.DATAGRAM_MAX_SIZE));
    private final UnsafeBuffer header = new UnsafeBuffer(ByteBuffer.allocateDirect(GniRendezvousStart.MAX_LENGTH));
    private final UnsafeBuffer gather = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64 * 1024, 64));
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer bounce;
    private final MemHandle bounceHandle = new MemHandle();
    private final GniSplitRead splitRead = new GniSplitRead();
    private final GniTargetAccesses accesses = new GniTargetAccesses();
    private final GniMrCache mrCache;
    private final GniRegionTable regions;
    private final GniErrorInjector injector = new GniErrorInjector();
    private final GniEndpointStates endpointStates = new GniEndpointStates();
    private final GniPeerCaps peerCaps = new GniPeerCaps();
    /** The TX CQ's descriptors: GNI_TX_CQ_SIZE of them, posts queued when none is free. */
    private final GniTxDescriptors txds = new GniTxDescriptors();
    private final GniMoreChains chains = new GniMoreChains();
    private final GniEagerProgress eagerProgress;
    private final GniProviderRegistrations providerRegistrations;
    /** The receive side of rendezvous: STARTs announced to the runtime, GETs into the matched buffers. */
    private final GniRendezvousReceive rendezvousReceive;
    private final int[] retryOp = new int[COMPLETION_RETRY];
    private final int[] retryErrno = new int[COMPLETION_RETRY];
    private final int[] retryProvErrno = new int[COMPLETION_RETRY];
    private int retryHead;
    private int retryTail;
    private OperationContext context;
    // Provider retransmission (GNI.md 2.3): recoverable GET/PUT failures of RDM endpoints, never DGRAM or atomics.
    private final boolean[] dgram = new boolean[GniName.MAX_ENDPOINTS];
    private long retransmits;
    private long cycles;
    private boolean rxScanAll;
    private boolean closed;

    GniBackend(final GniDomainTransport transport, final GniNic nic)
    {
        this.transport = transport;
        this.nic = nic;
        this.mrCache = transport.mrCache();
        this.regions = new GniRegionTable(nic);
        this.providerRegistrations = new GniProviderRegistrations(transport.scalable(), transport.cookie());
        this.rendezvousReceive = new GniRendezvousReceive(this, nic);
        this.eagerProgress = new GniEagerProgress(transport.autoProgress());
        for (int i = 0; i < MAX_OPS; i++)
        {
            ops[i] = new GniOp(i);
        }
        bounce = new UnsafeBuffer(BufferUtil.allocateDirectAligned(MAX_OPS * BOUNCE_SLOT, MemHandle.PAGE_SIZE));
        check(nic.memRegister(bounce, 0, bounce.capacity(), null, GniNic.MEM_READWRITE, 0, bounceHandle), "bounce");
    }

    /**
     * Allocate the NIC's CQs, mailbox geometry and datagram endpoints from the domain's options as they are now
     * (upstream's {@code gnix_nic_alloc} at the first {@code fi_endpoint}; GniNicGeometry): once, when the domain's
     * first endpoint opens, on the opening thread; the agent touches none of it before {@code nicAllocated}.
     */
    synchronized void allocateNic(final GniNicGeometry geometry)
    {
        if (nicAllocated)
        {
            return;
        }
        // The TX CQ (source CQ of every post and SMSG send) as large as the descriptor pool (GniTxDescriptors).
        txds.capacity(geometry.txCqSize);
        txCq = nic.cqCreate(geometry.txCqSize);
        rxCq = nic.cqCreate(geometry.rxCqSize);
        smsgAttr.rxCq = rxCq;
        smsgAttr.maxCredit = geometry.mboxMaxCredit;
        smsgAttr.msgMaxSize = geometry.mboxMsgMaxSize;
        eagerLimit = smsgAttr.msgMaxSize - EAGER_HEADER;
        connectTimeoutNs = geometry.connectTimeoutNs;
        eagerProgress.eagerAutoProgress(geometry.eagerAutoProgress);
        for (int i = 0; i < WILDCARDS; i++)
        {
            wildcards[i] = nic.epCreate(txCq);
            wildcardOut[i] = new UnsafeBuffer(ByteBuffer.allocateDirect(GniEp.DATAGRAM_MAX_SIZE));
            postWildcard(i);
        }
        nicAllocated = true;
    }

    private static void check(final int rc, final String what)
    {
        if (GniRc.SUCCESS != rc)
        {
            throw new io.jfabric.FabricException(Errno.ENOMEM, "gni: " + what + ": " + GniRc.name(rc));
        }
    }

    /**
     * @return the largest eager message (header and payload fit the peer's mailbox slot).
     */
    /** GNI_RMA_RDMA_THRESHOLD (domain ops, read at every RMA): BTE at or above it. */
    private boolean rdma(final long length)
    {
        return length >= transport.ops().rdmaThreshold();
    }

    boolean endpointEnabled(final int endpoint)
    {
        final OperationContext c = context;
        return null != c && c.endpointOpen(endpoint);
    }

    int eagerLimit()
    {
        // GNI_MSG_RENDEZVOUS_THRESHOLD (domain ops, read at every send): len >= threshold goes by rendezvous; an
        // empty message stays eager. Before the NIC exists: the slot its allocation would give now.
        final int slot = nicAllocated ? eagerLimit :
            (int) transport.ops().get(GniOps.GNI_MBOX_MSG_MAX_SIZE) - EAGER_HEADER;
        return Math.max(0, Math.min(slot, transport.ops().rendezvousThreshold() - 1));
    }

    @Override
    public void open(final OperationContext context)
    {
        this.context = context;
        rendezvousReceive.open(context);
    }

    @Override
    public int pull(final RendezvousPull destination)
    {
        return rendezvousReceive.pull(destination);
    }

    @Override
    public void discard(final long arrival, final int errno)
    {
        rendezvousReceive.discard(arrival, errno);
    }

    /**
     * {@inheritDoc} gni revokes the NIC registrations of the endpoint's rendezvous sources still waiting for their
     * FIN: a receiver's GET of one is refused by this NIC from now on (its receive fails with
     * {@code FI_ECONNREFUSED}), and nothing reads the buffers the application may free once the close returns; the
     * endpoint's operations still queued on a VC end without being sent.
     */
    @Override
    public void endpointClosing(final int endpoint)
    {
        dropHeld(endpoint);
        // Nothing lands in the endpoint's receives after its close: their GETs are stopped (GniRendezvousReceive).
        rendezvousReceive.endpointClosing(endpoint);
        for (final GniOp op : ops)
        {
            if (GniOp.WAIT_FIN == op.state && op.endpoint == endpoint && op.registered)
            {
                releaseLocal(op);
            }
            else if (GniOp.QUEUED == op.state && op.endpoint == endpoint)
            {
                op.endpointClosed = true;
            }
        }
    }

    /**
     * @return the receive side of rendezvous (its counters are registered with the domain's).
     */
    GniRendezvousReceive rendezvousReceive()
    {
        return rendezvousReceive;
    }

    @Override
    public boolean countsApplicationProgress()
    {
        // GniEagerProgress: eager messages wait for the application's progress calls under AUTO.
        return true;
    }

    // ---- initiator ------------------------------------------------------------------------------------------------

    @Override
    public int submit(final OperationCommand command)
    {
        final GniOp op = ops[command.operation()];
        final int opcode = command.opcode();
        if (0 == (command.flags() & Flags.MORE))
        {
            // A call without FI_MORE sends what its endpoint held back first (GNI.md 2.3).
            flushHeld(command.endpoint());
        }
        op.opcode = opcode;
        op.endpoint = command.endpoint();
        op.chainNext = -1;
        op.failures = 0;
        op.peer = command.peer();
        op.flags = command.flags();
        op.tag = command.tag();
        op.data = command.data();
        op.length = command.length();
        op.status = 0;
        op.registered = false;
        op.endpointClosed = false;
        op.handleCount = 0;
        op.outstanding = 0;
        op.headCopyLength = 0;
        op.tailCopyLength = 0;
        op.splitCopies = 0;
        op.direct = false;
        op.provErrno = 0;
        final int segments = command.segmentCount(OperationCommand.LOCAL);
        if (segments > GniOp.MAX_SEGMENTS)
        {
            return -Errno.EINVAL.value();
        }
        op.segments = segments;
        for (int i = 0; i < segments; i++)
        {
            op.segmentAddress[i] = command.segmentAddress(OperationCommand.LOCAL, i);
            op.segmentLength[i] = command.segmentLength(OperationCommand.LOCAL, i);
        }
        if (0 != (op.flags & OperationCommand.INLINE))
        {
            final long inlineBytes = 1 == segments ? op.segmentLength[0] : 0;
            if (inlineBytes > INLINE_OFFSET)
            {
                return -Errno.EMSGSIZE.value();
            }
            final int at = op.id * BOUNCE_SLOT + INLINE_OFFSET;
            if (inlineBytes > 0)
            {
                view.wrap(op.segmentAddress[0], (int) inlineBytes);
                bounce.putBytes(at, view, 0, (int) inlineBytes);
            }
            op.segmentAddress[0] = bounce.addressOffset() + at;
        }
        if (OperationCommand.WRITE == opcode || OperationCommand.READ == opcode || OperationCommand.ATOMIC == opcode)
        {
            if (1 != command.remoteCount())
            {
                return -Errno.EINVAL.value();
            }
            op.remoteAddress = command.remoteAddress(0);
            op.remoteKey = command.remoteKey(0);
            if (OperationCommand.ATOMIC == opcode)
            {
                final int rc = prepareAtomic(op, command);
                if (rc < 0)
                {
                    return rc;
                }
            }
        }
        else if (OperationCommand.SEND != opcode && OperationCommand.TAGGED_SEND != opcode)
        {
            return -Errno.ENOSYS.value();
        }
        final GniVc vc = vcFor(GniName.device(op.peer), GniName.instId(op.peer));
        if (null == vc)
        {
            return -Errno.ENOSPC.value();
        }
        if (GniVc.ERROR == vc.state)
        {
            return -Errno.EIO.value();
        }
        if (direct(op) && GniEndpointStates.closed(vc.peerClosed, GniName.endpoint(op.peer)))
        {
            // The peer said the endpoint is closed: refused here, its memory untouched (the runtime's rule).
            return -Errno.ECONNREFUSED.value();
        }
        op.vc = vc;
        op.state = GniOp.QUEUED;
        if (OperationCommand.SEND != opcode && OperationCommand.TAGGED_SEND != opcode && vc.peerCapsKnown &&
            refusedByCaps(op))
        {
            failRefused(op);
            return ACCEPTED;
        }
        // Before the peer's caps came (GniPeerCaps) a one-sided operation waits on the VC like the others.
        if (direct(op) && vc.peerCapsKnown)
        {
            // One-sided (GNI.md 2.5): the GNI endpoint is bound, so FMA/BTE go out before the VC's handshake ends;
            // only the RMA done message (remote events) waits for it.
            op.direct = true;
            final int reserved = providerRegistrations.reserve(op, GniProviderRegistrations.need(op));
            if (GniProviderRegistrations.TAKEN != reserved)
            {
                // No provider registration left now (BUSY: the command waits at the head of the ring) or ever.
                op.state = GniOp.FREE;
                op.vc = null;
                return GniProviderRegistrations.WAIT == reserved ? BUSY : reserved;
            }
            if (GniVc.NONE == vc.state)
            {
                connect(vc);
            }
            if (chainable(op, vc))
            {
                hold(op);
                return ACCEPTED;
            }
            flushHeld(op.endpoint);
            startDirect(op);
            return ACCEPTED;
        }
        flushHeld(op.endpoint);
        if (GniVc.CONNECTED == vc.state && vc.queueEmpty() && start(op))
        {
            return ACCEPTED;
        }
        if (!vc.enqueue(op.id))
        {
            op.state = GniOp.FREE;
            return BUSY;
        }
        if (GniVc.NONE == vc.state)
        {
            connect(vc);
        }
        return ACCEPTED;
    }

    private int prepareAtomic(final GniOp op, final OperationCommand command)
    {
        op.atomicKind = command.atomicKind();
        op.atomicDatatype = command.atomicDatatype();
        // native_amo (GniEpOps) rides an MSWAP; its note is taken here, whatever becomes of the operation.
        final boolean nativeAmo = io.jfabric.AtomicOp.MSWAP.value() == command.atomicOp() &&
            transport.nativeAmos().take(op.endpoint, command.context()) > 0;
        op.atomicWrite = nativeAmo || OperationCommand.ATOMIC_BASE == op.atomicKind;
        final int cmd = GniAtomics.command(op.atomicKind, command.atomicOp(), op.atomicDatatype);
        if (cmd < 0)
        {
            return -Errno.EOPNOTSUPP.value();
        }
        final int size = AmoCmd.size(cmd);
        if (op.length != size)
        {
            return -Errno.EINVAL.value();
        }
        if (0 != (op.remoteAddress & (size - 1)))
        {
            return -Errno.EINVAL.value();
        }
        final boolean read = io.jfabric.AtomicOp.ATOMIC_READ.value() == command.atomicOp();
        long operand = 0;
        if (!read && op.segments > 0)
        {
            view.wrap(op.segmentAddress[0], size);
            operand = 4 == size ? view.getInt(0) & 0xFFFF_FFFFL : view.getLong(0);
        }
        long compare = 0;
        if (OperationCommand.ATOMIC_COMPARE == op.atomicKind && command.segmentCount(OperationCommand.COMPARE) > 0)
        {
            view.wrap(command.segmentAddress(OperationCommand.COMPARE, 0), size);
            compare = 4 == size ? view.getInt(0) & 0xFFFF_FFFFL : view.getLong(0);
        }
        op.resultAddress = command.segmentCount(OperationCommand.RESULT) > 0 ?
            command.segmentAddress(OperationCommand.RESULT, 0) : 0;
        if (read)
        {
            op.operand = -1L;
            op.compare = 0;
        }
        else if (io.jfabric.AtomicOp.MSWAP.value() == command.atomicOp())
        {
            // FAX(~mask, value & mask): the compare buffer holds the mask; native_amo (GniEpOps): FAX(op1, op2) as
            // given, op1 in the compare buffer.
            op.operand = nativeAmo ? compare : ~compare;
            op.compare = nativeAmo ? operand : operand & compare;
        }
        else if (io.jfabric.AtomicOp.CSWAP.value() == command.atomicOp())
        {
            op.operand = compare;
            op.compare = operand;
        }
        else
        {
            op.operand = operand;
            op.compare = 0;
        }
        op.atomicCmd = cmd;
        return 0;
    }

    /**
     * Start an operation on a connected VC.
     *
     * @return true when it went (or failed for good), false when it must wait (no credit).
     */
    private boolean start(final GniOp op)
    {
        if (op.endpointClosed)
        {
            finish(op, Errno.ECONNREFUSED.value());
            return true;
        }
        switch (op.opcode)
        {
            case OperationCommand.SEND:
            case OperationCommand.TAGGED_SEND:
                return op.length <= eagerLimit() ? sendEager(op) : sendRendezvous(op);
            default:
                return startRma(op);
        }
    }

    /**
     * Start an RMA or atomic that waited on its VC (for the connection, the peer's caps, credits): refused by the
     * caps, one-sided in scalable mode (never held for FI_MORE: upstream drops the flag before the VC connects),
     * else by an MR query.
     *
     * @return false while it must wait.
     */
    private boolean startRma(final GniOp op)
    {
        if (!op.vc.peerCapsKnown)
        {
            return false;
        }
        if (refusedByCaps(op))
        {
            failRefused(op);
            return true;
        }
        if (!direct(op))
        {
            return sendMrQuery(op);
        }
        final int reserved = providerRegistrations.reserve(op, GniProviderRegistrations.need(op));
        if (GniProviderRegistrations.WAIT == reserved)
        {
            return false;
        }
        if (reserved < 0)
        {
            finish(op, -reserved);
            return true;
        }
        op.direct = true;
        startDirect(op);
        return true;
    }

    /** The target endpoint's entry in the peer's caps table (GniPeerCaps). */
    private static int peerEntry(final GniOp op)
    {
        final int endpoint = GniName.endpoint(op.peer);
        return endpoint >= 0 && endpoint < GniPeerCaps.BYTES ? op.vc.peerCaps[endpoint] & 0xFF : 0;
    }

    /** Upstream's gnix_ops_allowed for RMA and atomics by the endpoint's and the peer's caps (GniPeerCaps). */
    private boolean refusedByCaps(final GniOp op)
    {
        if (OperationCommand.ATOMIC == op.opcode)
        {
            return !GniPeerCaps.atomicAllowed(peerCaps.local(op.endpoint), peerEntry(op), op.atomicWrite);
        }
        return (OperationCommand.WRITE == op.opcode || OperationCommand.READ == op.opcode) &&
            !GniPeerCaps.rmaAllowed(peerCaps.local(op.endpoint), peerEntry(op), OperationCommand.WRITE == op.opcode);
    }

    private void failRefused(final GniOp op)
    {
        // Upstream's __gnix_rma_post_err_no_retrans: err FI_EOPNOTSUPP, prov_errno of GNI_RC_TRANSACTION_ERROR.
        op.provErrno = Errno.ECANCELED.negated();
        finish(op, Errno.EOPNOTSUPP.value());
    }

    /** After a one-sided transfer: the event message when the target has FI_RMA_EVENT, else done (GniPeerCaps). */
    private void rmaDoneOrFinish(final GniOp op)
    {
        if (GniPeerCaps.rmaEvent(peerEntry(op)))
        {
            sendRmaDone(op, 0);
        }
        else
        {
            finish(op, 0);
        }
    }

    private void putMessageHeader(final GniOp op)
    {
        header.putInt(0, op.endpoint);
        header.putInt(4, GniName.endpoint(op.peer));
        int bits = OperationCommand.TAGGED_SEND == op.opcode ? BIT_TAGGED : 0;
        bits |= 0 != (op.flags & Flags.REMOTE_CQ_DATA) ? BIT_DATA : 0;
        bits |= 0 != (op.flags & Flags.DELIVERY_COMPLETE) ? BIT_ACK : 0;
        header.putInt(8, bits);
        header.putInt(12, op.id);
        header.putLong(16, op.tag);
        header.putLong(24, op.data);
        header.putLong(32, op.length);
    }

    private boolean sendEager(final GniOp op)
    {
        putMessageHeader(op);
        final DirectBuffer payload;
        final int length = (int) op.length;
        if (0 == length)
        {
            payload = null;
        }
        else if (1 == op.segments)
        {
            view.wrap(op.segmentAddress[0], length);
            payload = view;
        }
        else
        {
            int at = 0;
            for (int i = 0; i < op.segments; i++)
            {
                final int n = (int) op.segmentLength[i];
                if (n > 0)
                {
                    view.wrap(op.segmentAddress[i], n);
                    gather.putBytes(at, view, 0, n);
                    at += n;
                }
            }
            payload = gather;
        }
        final boolean ack = 0 != (op.flags & Flags.DELIVERY_COMPLETE);
        if (injector.injectSmsg(transport.ops().get(GniOps.GNI_ERR_INJECT_COUNT), maxRetransmits()))
        {
            // GNI.md 2.3: an injected SMSG failure; SMSGs are never retransmitted by the provider.
            op.provErrno = Errno.ECANCELED.negated();
            finish(op, Errno.ECANCELED.value());
            return true;
        }
        final int rc = smsgSend(op.vc.ep,
            header, 0, EAGER_HEADER, payload, 0, length, ack ? CONTROL_MSG_ID : op.id, TAG_EAGER);
        if (GniRc.NOT_DONE == rc)
        {
            return false;
        }
        if (GniRc.SUCCESS != rc)
        {
            finish(op, GniRc.toErrno(rc).value());
            return true;
        }
        if (ack)
        {
            op.state = GniOp.WAIT_FIN;
            op.vc.awaiting++;
        }
        else
        {
            op.state = GniOp.WAIT_SMSG;
        }
        return true;
    }

    private boolean sendRendezvous(final GniOp op)
    {
        if (!op.registered && !reserveProviderRegistrations(op))
        {
            return GniOp.FREE == op.state;
        }
        // Each buffer registered as it is, an iov send's too: no gather copy (GniRendezvousStart).
        if (!op.registered && GniRendezvousStart.register(op, nic) < 0)
        {
            releaseLocal(op);
            finish(op, Errno.ENOMEM.value());
            return true;
        }
        putMessageHeader(op);
        final int length = GniRendezvousStart.write(header, op);
        final int rc = smsgSend(op.vc.ep, header, 0, length, null, 0, 0, CONTROL_MSG_ID, TAG_RNDZV_START);
        if (GniRc.NOT_DONE == rc)
        {
            return false;
        }
        if (GniRc.SUCCESS != rc)
        {
            finish(op, Errno.EIO.value());
            return true;
        }
        op.state = GniOp.WAIT_FIN;
        op.vc.awaiting++;
        return true;
    }

    /**
     * RMA and atomics of a scalable domain go straight to the target's vMDH slot named by the key
     * ({@link GniRegionTable}); a write with remote CQ data still asks first, as the target must reserve the room of
     * its {@code FI_REMOTE_WRITE} entry before any byte moves (the runtime's rule), and basic keys (the runtime's
     * 1, 2, 3, ...) carry no NIC handle.
     */
    private boolean direct(final GniOp op)
    {
        return transport.scalable() && OperationCommand.SEND != op.opcode &&
            OperationCommand.TAGGED_SEND != op.opcode &&
            !(OperationCommand.WRITE == op.opcode && 0 != (op.flags & Flags.REMOTE_CQ_DATA));
    }

    /**
     * Whether a one-sided RMA joins its endpoint's {@code FI_MORE} chain ({@link GniMoreChains}): flagged, not
     * fenced, a connected VC, one local segment one FMA post carries, a read's remote range 4-byte aligned.
     */
    private boolean chainable(final GniOp op, final GniVc vc)
    {
        final boolean write = OperationCommand.WRITE == op.opcode;
        return 0 != (op.flags & Flags.MORE) && 0 == (op.flags & Flags.FENCE) && GniVc.CONNECTED == vc.state &&
            vc.peerCapsKnown && !GniPeerCaps.rmaEvent(peerEntry(op)) &&
            (write || OperationCommand.READ == op.opcode) && 1 == op.segments && op.length > 0 &&
            !rdma(op.length) && (write || (0 == (op.remoteAddress & 3) && 0 == (op.length & 3)));
    }

    private void hold(final GniOp op)
    {
        op.targetReg = -1;
        op.targetRaw = op.remoteAddress;
        if (!GniRegionTable.peerHandle(op.targetHandle, op.remoteKey))
        {
            finish(op, Errno.EINVAL.value());
            return;
        }
        chains.hold(op, ops);
    }

    /**
     * Post what endpoint {@code endpoint} holds ({@code FI_MORE}): one chained FMA post per run of operations to the
     * same VC, in posting order; the chain completes by its head's CQ event ({@link #onPosted}).
     */
    private void flushHeld(final int endpoint)
    {
        int id = chains.take(endpoint);
        while (id >= 0)
        {
            final GniVc vc = ops[id].vc;
            GniOp head = null;
            GniOp last = null;
            while (id >= 0 && ops[id].vc == vc)
            {
                final GniOp op = ops[id];
                id = op.chainNext;
                op.chainNext = -1;
                final long n = op.length;
                if (GniRc.SUCCESS != registerLocal(op, 0, op.segmentAddress[0], n))
                {
                    releaseLocal(op);
                    finish(op, Errno.EIO.value());
                    continue;
                }
                final PostDescriptor d = op.post(0);
                final boolean write = OperationCommand.WRITE == op.opcode;
                d.type = write ? TransactionKind.FMA_PUT : TransactionKind.FMA_GET;
                d.localAddr = op.segmentAddress[0];
                d.localMemHandle.set(op.handles[0]);
                d.remoteAddr = op.targetRaw;
                d.remoteMemHandle.set(op.targetHandle);
                d.length = n;
                d.postId = postId(op, 0);
                op.outstanding = 1;
                op.state = GniOp.WAIT_POSTS;
                if (null == head)
                {
                    head = op;
                }
                else
                {
                    last.posts[0].next = d;
                    last.chainNext = op.id;
                }
                last = op;
            }
            if (null != head)
            {
                final int rc = postOrQueue(vc, head, 0);
                if (GniRc.SUCCESS != rc)
                {
                    final int errno = GniRc.ALIGNMENT_ERROR == rc || GniRc.INVALID_PARAM == rc ?
                        Errno.EINVAL.value() : Errno.EIO.value();
                    for (GniOp op = head; null != op; )
                    {
                        final int next = op.chainNext;
                        op.chainNext = -1;
                        releaseLocal(op);
                        finish(op, errno);
                        op = next < 0 ? null : ops[next];
                    }
                }
            }
        }
    }

    @Override
    public void flush(final int endpoint)
    {
        flushHeld(endpoint);
    }

    private void dropHeld(final int endpoint)
    {
        // FI_MORE operations held for a closing endpoint never went out: dropped (the runtime drops their completions).
        int id = chains.take(endpoint);
        while (id >= 0)
        {
            final GniOp op = ops[id];
            id = op.chainNext;
            op.chainNext = -1;
            finish(op, Errno.ECANCELED.value());
        }
    }

    private void startDirect(final GniOp op)
    {
        op.targetReg = -1;
        op.targetRaw = op.remoteAddress;
        if (!GniRegionTable.peerHandle(op.targetHandle, op.remoteKey))
        {
            finish(op, Errno.EINVAL.value());
            return;
        }
        if (0 == op.length)
        {
            rmaDoneOrFinish(op);
            return;
        }
        final int rc = OperationCommand.WRITE == op.opcode ? postWrite(op) :
            OperationCommand.READ == op.opcode ? postRead(op) : postAtomic(op);
        if (GniRc.SUCCESS != rc)
        {
            releaseLocal(op);
            if (0 == op.outstanding)
            {
                finish(op, GniRc.ALIGNMENT_ERROR == rc || GniRc.INVALID_PARAM == rc ?
                    Errno.EINVAL.value() : Errno.EIO.value());
                return;
            }
            op.status = Errno.EINVAL.value();
        }
        op.state = GniOp.WAIT_POSTS;
    }

    /**
     * @return true when the operation holds its provider registrations; false when it waits, or failed with
     * {@code ENOKEY} (then it is finished).
     */
    private boolean reserveProviderRegistrations(final GniOp op)
    {
        final int reserved = providerRegistrations.reserve(op, GniProviderRegistrations.need(op));
        if (reserved < 0)
        {
            finish(op, -reserved);
        }
        return GniProviderRegistrations.TAKEN == reserved;
    }

    private boolean sendMrQuery(final GniOp op)
    {
        if (!reserveProviderRegistrations(op))
        {
            return GniOp.FREE == op.state;
        }
        header.putInt(0, op.id);
        header.putInt(4, GniName.endpoint(op.peer));
        header.putLong(8, op.remoteKey);
        header.putLong(16, op.remoteAddress);
        header.putLong(24, op.length);
        final long access;
        if (OperationCommand.WRITE == op.opcode)
        {
            access = Flags.REMOTE_WRITE;
        }
        else if (OperationCommand.READ == op.opcode)
        {
            access = Flags.REMOTE_READ;
        }
        else
        {
            access = OperationCommand.ATOMIC_BASE == op.atomicKind ? Flags.REMOTE_WRITE :
                Flags.REMOTE_WRITE | Flags.REMOTE_READ;
        }
        header.putLong(32, access);
        header.putInt(40, OperationCommand.WRITE == op.opcode && 0 != (op.flags & Flags.REMOTE_CQ_DATA) ? 1 : 0);
        header.putInt(44, 0);
        final int rc = smsgSend(op.vc.ep, header, 0, 48, null, 0, 0, CONTROL_MSG_ID, TAG_MR_QUERY);
        if (GniRc.NOT_DONE == rc)
        {
            return false;
        }
        if (GniRc.SUCCESS != rc)
        {
            finish(op, Errno.EIO.value());
            return true;
        }
        op.state = GniOp.WAIT_MR;
        op.vc.awaiting++;
        return true;
    }

    private void onMrAnswer(final GniVc vc, final DirectBuffer m, final int o)
    {
        final GniOp op = awaited(m.getInt(o), vc, GniOp.WAIT_MR);
        if (null == op)
        {
            return;
        }
        vc.awaiting--;
        final int status = m.getInt(o + 4);
        if (0 != status)
        {
            finish(op, status);
            return;
        }
        op.targetReg = m.getInt(o + 8);
        op.targetHandle.set(m.getLong(o + 16), m.getLong(o + 24));
        op.targetRaw = m.getLong(o + 32);
        if (0 == op.length)
        {
            sendRmaDone(op, 0);
            return;
        }
        final int rc = OperationCommand.WRITE == op.opcode ? postWrite(op) :
            OperationCommand.READ == op.opcode ? postRead(op) : postAtomic(op);
        if (GniRc.SUCCESS != rc)
        {
            releaseLocal(op);
            sendRmaDone(op, GniRc.ALIGNMENT_ERROR == rc || GniRc.INVALID_PARAM == rc ?
                Errno.EINVAL.value() : Errno.EIO.value());
            return;
        }
        op.state = GniOp.WAIT_POSTS;
    }

    private int registerLocal(final GniOp op, final int index, final long address, final long length)
    {
        final int rc = nic.memRegister(address, length, null, GniNic.MEM_READWRITE, 0, op.handle(index));
        if (GniRc.SUCCESS == rc)
        {
            op.handleCount = index + 1;
        }
        return rc;
    }

    private int postWrite(final GniOp op)
    {
        long remote = op.targetRaw;
        for (int i = 0; i < op.segments; i++)
        {
            final long n = op.segmentLength[i];
            if (0 == n)
            {
                continue;
            }
            int rc = registerLocal(op, i, op.segmentAddress[i], n);
            if (GniRc.SUCCESS != rc)
            {
                return rc;
            }
            final PostDescriptor d = op.post(i);
            final boolean rdma = rdma(n);
            d.type = rdma ? TransactionKind.RDMA_PUT : TransactionKind.FMA_PUT;
            d.localAddr = op.segmentAddress[i];
            d.localMemHandle.set(op.handles[i]);
            d.remoteAddr = remote;
            d.remoteMemHandle.set(op.targetHandle);
            d.length = n;
            d.postId = postId(op, i);
            rc = postOrQueue(op.vc, op, i);
            if (GniRc.SUCCESS != rc)
            {
                return rc;
            }
            op.outstanding++;
            remote += n;
        }
        return 0 == op.outstanding ? GniRc.INVALID_PARAM : GniRc.SUCCESS;
    }

    private static long postId(final GniOp op, final int index)
    {
        return ((long) op.id << 8) | index;
    }

    private int postGet(final GniOp op, final int index, final long local, final MemHandle localHandle,
        final long remote, final long length, final boolean rdma)
    {
        final PostDescriptor d = op.post(index);
        d.type = rdma ? TransactionKind.RDMA_GET : TransactionKind.FMA_GET;
        d.localAddr = local;
        d.localMemHandle.set(localHandle);
        d.remoteAddr = remote;
        d.remoteMemHandle.set(op.targetHandle);
        d.length = length;
        d.postId = postId(op, index);
        final int rc = postOrQueue(op.vc, op, index);
        if (GniRc.SUCCESS == rc)
        {
            op.outstanding++;
        }
        return rc;
    }

    private int postRead(final GniOp op)
    {
        if (1 != op.segments)
        {
            // fi_gni: one remote range per read (RMA iov 1); a read into several local buffers is split into
            // aligned middles and bounced head/tail words (GniSplitRead).
            return postReadSegments(op);
        }
        final long local = op.segmentAddress[0];
        final long n = op.length;
        final long r = op.targetRaw;
        final long bounceBase = bounce.addressOffset() + (long) op.id * BOUNCE_SLOT;
        if (0 == (r & 3) && 0 == (n & 3))
        {
            final int rc = registerLocal(op, 0, local, n);
            return GniRc.SUCCESS != rc ? rc : postGet(op, 0, local, op.handles[0], r, n, rdma(n));
        }
        if (n < CHAINED_THRESHOLD)
        {
            // INDIRECT: the covering words into the bounce buffer, then the bytes out of it.
            final long start = r & ~3L;
            final long end = (r + n + 3) & ~3L;
            op.headCopyTo = local;
            op.headCopyFrom = (int) (r - start);
            op.headCopyLength = (int) n;
            return postGet(op, 0, bounceBase, bounceHandle, start, end - start, false);
        }
        // CHAINED: head word and tail word through the bounce buffer, the aligned middle straight in.
        final long middleStart = (r + 3) & ~3L;
        final long middleEnd = (r + n) & ~3L;
        int rc = registerLocal(op, 0, local, n);
        if (GniRc.SUCCESS != rc)
        {
            return rc;
        }
        if (middleStart != r)
        {
            op.headCopyTo = local;
            op.headCopyFrom = (int) (r - (r & ~3L));
            op.headCopyLength = (int) (middleStart - r);
            rc = postGet(op, 0, bounceBase, bounceHandle, r & ~3L, 4, false);
            if (GniRc.SUCCESS != rc)
            {
                return rc;
            }
        }
        if (middleEnd > middleStart)
        {
            final long len = middleEnd - middleStart;
            rc = postGet(op, 1, local + (middleStart - r), op.handles[0], middleStart, len, rdma(len));
            if (GniRc.SUCCESS != rc)
            {
                return rc;
            }
        }
        if (middleEnd != r + n)
        {
            op.tailCopyTo = local + (middleEnd - r);
            op.tailCopyFrom = 4;
            op.tailCopyLength = (int) (r + n - middleEnd);
            rc = postGet(op, 2, bounceBase + 4, bounceHandle, middleEnd, 4, false);
        }
        return rc;
    }

    private int postReadSegments(final GniOp op)
    {
        final long bounceBase = bounce.addressOffset() + (long) op.id * BOUNCE_SLOT;
        final int gets = splitRead.plan(op);
        for (int k = 0; k < gets; k++)
        {
            final int segment = splitRead.segment(k);
            final long length = splitRead.length(k);
            int rc;
            if (segment < 0)
            {
                rc = postGet(op, splitRead.postIndex(k), bounceBase + splitRead.local(k), bounceHandle,
                    splitRead.remote(k), length, false);
            }
            else
            {
                rc = registerLocal(op, segment, op.segmentAddress[segment], op.segmentLength[segment]);
                if (GniRc.SUCCESS == rc)
                {
                    rc = postGet(op, splitRead.postIndex(k), splitRead.local(k), op.handles[segment],
                        splitRead.remote(k), length, rdma(length));
                }
            }
            if (GniRc.SUCCESS != rc)
            {
                return rc;
            }
        }
        return GniRc.SUCCESS;
    }

    private int postAtomic(final GniOp op)
    {
        final PostDescriptor d = op.post(0);
        final int size = AmoCmd.size(op.atomicCmd);
        d.type = TransactionKind.AMO;
        d.localAddr = bounce.addressOffset() + (long) op.id * BOUNCE_SLOT;
        d.localMemHandle.set(bounceHandle);
        d.remoteAddr = op.targetRaw;
        d.remoteMemHandle.set(op.targetHandle);
        d.length = size;
        d.amoCmd = op.atomicCmd;
        d.firstOperand = op.operand;
        d.secondOperand = op.compare;
        d.postId = postId(op, 0);
        if (0 != op.resultAddress)
        {
            op.headCopyTo = op.resultAddress;
            op.headCopyFrom = 0;
            op.headCopyLength = size;
        }
        final int rc = postOrQueue(op.vc, op, 0);
        if (GniRc.SUCCESS == rc)
        {
            op.outstanding++;
        }
        return rc;
    }

    /**
     * Post an operation's transfer ({@code op.posts[index]}) now, or queue it for a TX descriptor when none is free
     * or others wait ({@link GniTxDescriptors}): posted by a later TX CQ pass ({@link #postQueued}), counted
     * outstanding meanwhile.
     *
     * @return {@link GniRc#SUCCESS} when posted or queued, else the NIC's refusal.
     */
    private int postOrQueue(final GniVc vc, final GniOp op, final int index)
    {
        if (txds.mayPost())
        {
            final int rc = post(vc, op.posts[index], op.failures);
            if (GniRc.ERROR_RESOURCE != rc)
            {
                return rc;
            }
        }
        txds.enqueue(op, index);
        return GniRc.SUCCESS;
    }

    /**
     * Post the queued transfers as TX descriptors are free, in order; one the NIC refuses fails its operation (as
     * the refusal at the first post would have: EINVAL for a bad alignment or parameter, else EIO).
     */
    private int postQueued()
    {
        int work = 0;
        while (txds.readyToPost())
        {
            final int entry = txds.peek();
            final GniOp op = ops[entry >>> 8];
            final int rc = post(op.vc, op.posts[entry & 0xFF], op.failures);
            if (GniRc.ERROR_RESOURCE == rc)
            {
                break;
            }
            txds.poll(op);
            work++;
            if (GniRc.SUCCESS != rc)
            {
                final int errno = GniRc.ALIGNMENT_ERROR == rc || GniRc.INVALID_PARAM == rc ?
                    Errno.EINVAL.value() : Errno.EIO.value();
                for (GniOp o = op; null != o; )
                {
                    final int next = o.chainNext;
                    o.chainNext = -1;
                    o.status = 0 == o.status ? errno : o.status;
                    onPostDone(o, false, 0);
                    o = next < 0 ? null : ops[next];
                }
            }
        }
        return work;
    }

    /**
     * Post a transfer to the NIC with a TX descriptor of the pool ({@link GniTxDescriptors}), or fail it without
     * posting when {@code GNI_ERR_INJECT_COUNT} says so ({@link GniErrorInjector}: returned first by the next TX CQ
     * pass as a recoverable transaction error, its descriptor with it).
     *
     * @return {@link GniRc#ERROR_RESOURCE} when no descriptor is free, else as the NIC's post.
     */
    int post(final GniVc vc, final PostDescriptor d, final int failures)
    {
        if (!txds.take())
        {
            return GniRc.ERROR_RESOURCE;
        }
        final int rc = postNow(vc, d, failures);
        if (GniRc.SUCCESS != rc)
        {
            txds.give();
        }
        return rc;
    }

    private int postNow(final GniVc vc, final PostDescriptor d, final int failures)
    {
        if (injector.inject(failures, transport.ops().get(GniOps.GNI_ERR_INJECT_COUNT)))
        {
            injector.add(d);
            return GniRc.SUCCESS;
        }
        if (null != d.next)
        {
            // The head of an FI_MORE chain (flushHeld): one chained FMA post, one event.
            return vc.ep.ctPostFma(d);
        }
        final boolean rdma = TransactionKind.RDMA_GET == d.type || TransactionKind.RDMA_PUT == d.type;
        return rdma ? vc.ep.postRdma(d) : vc.ep.postFma(d);
    }

    private void onPostDone(final GniOp op, final boolean failed, final int detail)
    {
        if (GniOp.WAIT_POSTS != op.state)
        {
            return;
        }
        if (failed && 0 == op.status)
        {
            // A transaction error (GNI.md 1.10): prov_errno -FI_ECANCELED; err says why where the target NIC said
            // (a protection NACK: the key's slot is empty or closed, the rights or the range do not allow it).
            op.status = GniFailures.errno(detail);
            op.provErrno = Errno.ECANCELED.negated();
        }
        if (--op.outstanding > 0)
        {
            return;
        }
        releaseLocal(op);
        if (op.direct && 0 != op.status)
        {
            // Nothing was reserved at the target: the failure completes at once, no RMA done.
            finish(op, op.status);
            return;
        }
        if (0 == op.status)
        {
            final int at = op.id * BOUNCE_SLOT;
            if (op.headCopyLength > 0)
            {
                view.wrap(op.headCopyTo, op.headCopyLength);
                view.putBytes(0, bounce, at + op.headCopyFrom, op.headCopyLength);
            }
            if (op.tailCopyLength > 0)
            {
                view.wrap(op.tailCopyTo, op.tailCopyLength);
                view.putBytes(0, bounce, at + op.tailCopyFrom, op.tailCopyLength);
            }
            GniSplitRead.copyOut(op, bounce, at, view);
            if (op.direct)
            {
                // One-sided and done (the NIC's global event: the data is in place): the target hears of it only
                // with FI_RMA_EVENT.
                rmaDoneOrFinish(op);
                return;
            }
        }
        sendRmaDone(op, op.status);
    }

    private void releaseLocal(final GniOp op)
    {
        for (int i = 0; i < op.handleCount; i++)
        {
            if (null != op.handles[i] && 0 != op.handles[i].qword2())
            {
                nic.memDeregister(op.handles[i]);
                op.handles[i].set(0, 0);
            }
        }
        op.handleCount = 0;
        op.registered = false;
    }

    private void sendRmaDone(final GniOp op, final int status)
    {
        op.status = status;
        header.putInt(0, op.id);
        header.putInt(4, GniName.endpoint(op.peer));
        header.putInt(8, op.targetReg);
        int kind;
        if (OperationCommand.WRITE == op.opcode)
        {
            kind = KIND_WRITE;
        }
        else if (OperationCommand.READ == op.opcode)
        {
            kind = KIND_READ;
        }
        else
        {
            kind = OperationCommand.ATOMIC_BASE == op.atomicKind ? KIND_WRITE : KIND_READ | KIND_WRITE;
        }
        kind |= GniPeerCaps.rmaEvent(peerEntry(op)) ? KIND_EVENT : 0;
        header.putInt(12, 0 != status ? kind | KIND_FAILED : kind);
        header.putLong(16, op.length);
        header.putLong(24, op.data);
        header.putInt(32, OperationCommand.WRITE == op.opcode && 0 != (op.flags & Flags.REMOTE_CQ_DATA) ? 1 : 0);
        header.putInt(36, 0);
        op.state = GniOp.WAIT_ACK;
        op.vc.awaiting++;
        sendControl(op.vc, TAG_RMA_DONE, header, 40);
    }

    private void onRmaAck(final GniVc vc, final DirectBuffer m, final int o)
    {
        final GniOp op = awaited(m.getInt(o), vc, GniOp.WAIT_ACK);
        if (null != op)
        {
            vc.awaiting--;
            final int status = m.getInt(o + 4);
            finish(op, 0 != status ? status : op.status);
        }
    }

    private void onFin(final GniVc vc, final DirectBuffer m, final int o)
    {
        final GniOp op = awaited(m.getInt(o), vc, GniOp.WAIT_FIN);
        if (null != op)
        {
            vc.awaiting--;
            releaseLocal(op);
            final int status = m.getInt(o + 4);
            // The receiver's GET failed (a transaction error there): prov_errno as upstream's, -FI_ECANCELED.
            op.provErrno = Errno.ECANCELED.value() == status ? Errno.ECANCELED.negated() : 0;
            finish(op, status);
        }
    }

    private GniOp awaited(final int id, final GniVc vc, final int state)
    {
        if (id < 0 || id >= MAX_OPS)
        {
            return null;
        }
        final GniOp op = ops[id];
        return op.state == state && op.vc == vc ? op : null;
    }

    private void finish(final GniOp op, final int errno)
    {
        if (op.queuedPosts > 0)
        {
            // Ended before its queued posts went (its VC failed): they never go.
            txds.drop(op);
        }
        providerRegistrations.release(op);
        op.state = GniOp.FREE;
        op.vc = null;
        final int provErrno = 0 == errno ? 0 : op.provErrno;
        final int rc = 0 == errno ? context.complete(op.id) : context.fail(op.id, errno, provErrno);
        if (OperationContext.BUSY == rc)
        {
            retryOp[retryTail % COMPLETION_RETRY] = op.id;
            retryErrno[retryTail % COMPLETION_RETRY] = errno;
            retryProvErrno[retryTail % COMPLETION_RETRY] = provErrno;
            retryTail++;
        }
    }

    private int retryCompletions()
    {
        int work = 0;
        while (retryHead != retryTail)
        {
            final int i = retryHead % COMPLETION_RETRY;
            final int rc = 0 == retryErrno[i] ? context.complete(retryOp[i]) :
                context.fail(retryOp[i], retryErrno[i], retryProvErrno[i]);
            if (OperationContext.BUSY == rc)
            {
                break;
            }
            retryHead++;
            work++;
        }
        return work;
    }

    /**
     * An SMSG send with a TX descriptor ({@link GniTxDescriptors}): without one it answers {@link GniRc#NOT_DONE},
     * and the message waits as for a credit.
     */
    private int smsgSend(
        final GniEp ep, final DirectBuffer header, final int headerOffset, final int headerLength,
        final DirectBuffer data, final int dataOffset, final int dataLength, final long msgId, final int tag)
    {
        if (!txds.take())
        {
            return GniRc.NOT_DONE;
        }
        final int rc = ep.smsgSendWTag(header, headerOffset, headerLength, data, dataOffset, dataLength, msgId, tag);
        if (GniRc.SUCCESS != rc)
        {
            txds.give();
        }
        return rc;
    }

    private void sendControl(final GniVc vc, final int tag, final UnsafeBuffer bytes, final int length)
    {
        if (GniVc.ERROR == vc.state)
        {
            return;
        }
        if (GniVc.NONE == vc.state)
        {
            // A direct RMA's done message to a peer whose connect failed before: try again.
            connect(vc);
        }
        if (vc.controlEmpty() && GniVc.CONNECTED == vc.state)
        {
            final int rc = smsgSend(vc.ep, bytes, 0, length, null, 0, 0, CONTROL_MSG_ID, tag);
            if (GniRc.SUCCESS == rc)
            {
                return;
            }
            if (GniRc.NOT_DONE != rc)
            {
                failVc(vc);
                return;
            }
        }
        if (!vc.queueControl(tag, bytes, length))
        {
            failVc(vc);
        }
    }

    private int flushControl(final GniVc vc)
    {
        int work = 0;
        while (!vc.controlEmpty() && GniVc.CONNECTED == vc.state)
        {
            final int at = vc.controlHead;
            final int tag = vc.control.getInt(at);
            final int length = vc.control.getInt(at + 4);
            final int rc = smsgSend(vc.ep, vc.control, at + 8, length, null, 0, 0, CONTROL_MSG_ID, tag);
            if (GniRc.NOT_DONE == rc)
            {
                break;
            }
            if (GniRc.SUCCESS != rc)
            {
                failVc(vc);
                break;
            }
            vc.controlHead += (8 + length + 7) & ~7;
            work++;
        }
        return work;
    }

    // ---- VCs and connection set-up ----------------------------------------------------------------------------------

    private GniVc vcFor(final int device, final int inst)
    {
        final long key = ((long) inst << 32) | (device & 0xFFFF_FFFFL);
        if (key == lastVcKey && null != lastVc)
        {
            return lastVc;
        }
        GniVc vc = vcByPeer.get(key);
        if (null == vc)
        {
            if (vcCount >= MAX_VCS)
            {
                return null;
            }
            final GniEp ep = nic.epCreate(txCq);
            if (GniRc.SUCCESS != ep.bind(device, inst))
            {
                return null;
            }
            vc = new GniVc(vcCount, device, inst, ep);
            // The peer's mailbox geometry is the provider's default, as ours: checked in the handshake.
            if (GniRc.SUCCESS != ep.smsgInit(smsgAttr, smsgAttr))
            {
                return null;
            }
            vcs[vcCount++] = vc;
            vcByPeer.put(key, vc);
        }
        // VCs are never removed: the last one found answers the next operation to the same peer without a lookup.
        lastVcKey = key;
        lastVc = vc;
        return vc;
    }

    private void connect(final GniVc vc)
    {
        vc.state = GniVc.CONNECTING;
        vc.connectDeadlineNs = System.nanoTime() + connectTimeoutNs;
        postVcDatagram(vc, DG_REQ);
    }

    private void postVcDatagram(final GniVc vc, final int type)
    {
        final UnsafeBuffer in = vc.datagramIn;
        in.putInt(0, type);
        in.putInt(4, vc.id);
        in.putInt(8, smsgAttr.maxCredit);
        in.putInt(12, smsgAttr.msgMaxSize);
        in.putInt(16, transport.cookie());
        vc.datagramOut.putInt(0, DG_NONE);
        final int rc = vc.ep.postDataWId(in, 0, 20, vc.datagramOut, 0, 20, VC_DATAGRAM_ID + vc.id);
        vc.datagramPosted = GniRc.SUCCESS == rc;
    }

    private void postWildcard(final int index)
    {
        datagramScratch.putInt(0, DG_NONE);
        wildcardOut[index].putInt(0, DG_NONE);
        wildcards[index].postDataWId(datagramScratch, 0, 4, wildcardOut[index], 0, 20, WILDCARD_ID + index);
    }

    private int pollDatagrams()
    {
        int work = 0;
        while (GniRc.SUCCESS == nic.postDataProbeById())
        {
            work++;
            final long id = nic.probedId();
            final int device = nic.probedRemoteDeviceAddress();
            final int inst = nic.probedRemoteInstId();
            if (id >= WILDCARD_ID && id < WILDCARD_ID + WILDCARDS)
            {
                final int index = (int) (id - WILDCARD_ID);
                final GniEp ep = wildcards[index];
                if (GniRc.SUCCESS == ep.postDataTestById(id) && GniEp.POST_STATE_COMPLETED == ep.postState())
                {
                    onDatagram(ep.postDataRemoteDeviceAddress(), ep.postDataRemoteInstId(), wildcardOut[index]);
                }
                postWildcard(index);
            }
            else if (id >= VC_DATAGRAM_ID && id < VC_DATAGRAM_ID + MAX_VCS)
            {
                final GniVc vc = vcs[(int) (id - VC_DATAGRAM_ID)];
                if (null == vc || GniRc.SUCCESS != vc.ep.postDataTestById(id))
                {
                    continue;
                }
                vc.datagramPosted = false;
                if (GniEp.POST_STATE_COMPLETED == vc.ep.postState())
                {
                    onDatagram(vc.peerDevice, vc.peerInst, vc.datagramOut);
                }
                else if (GniVc.CONNECTING == vc.state)
                {
                    failConnect(vc, Errno.ETIMEDOUT.value());
                }
            }
            else if (device < 0 && inst < 0)
            {
                break;
            }
        }
        return work;
    }

    private void onDatagram(final int device, final int inst, final UnsafeBuffer out)
    {
        final int type = out.getInt(0);
        if (DG_REQ != type && DG_RESP != type)
        {
            return;
        }
        final GniVc vc = vcFor(device, inst);
        if (null == vc || GniVc.CONNECTED == vc.state)
        {
            return;
        }
        if (out.getInt(8) != smsgAttr.maxCredit || out.getInt(12) != smsgAttr.msgMaxSize ||
            out.getInt(16) != transport.cookie())
        {
            failConnect(vc, Errno.ECONNREFUSED.value());
            return;
        }
        vc.peerVcId = out.getInt(4);
        vc.ep.setEventData(vc.id, vc.peerVcId);
        if (DG_REQ == type && GniVc.NONE == vc.state)
        {
            // Passive side: answer, and the VC is usable at once (the initiator's mailbox exists).
            if (vc.datagramPosted)
            {
                vc.ep.postDataCancelById(VC_DATAGRAM_ID + vc.id);
                vc.ep.postDataTestById(VC_DATAGRAM_ID + vc.id);
            }
            postVcDatagram(vc, DG_RESP);
        }
        vc.state = GniVc.CONNECTED;
        vc.lastHeardNs = System.nanoTime();
        if (endpointStates.anyClosed())
        {
            sendEndpointStates(vc);
        }
        sendPeerCaps(vc);
        // Messages may have reached its mailbox before the handshake finished here: look.
        vc.rxReady = true;
        drainQueue(vc);
    }

    private void failConnect(final GniVc vc, final int errno)
    {
        if (vc.datagramPosted)
        {
            vc.ep.postDataCancelById(VC_DATAGRAM_ID + vc.id);
            vc.ep.postDataTestById(VC_DATAGRAM_ID + vc.id);
            vc.datagramPosted = false;
        }
        vc.state = GniVc.NONE;
        // GNI.md 5.6-3: err FI_ETIMEDOUT with the datagram's status in prov_errno (GNI_RC_TIMEOUT: -FI_ETIMEDOUT).
        final int provErrno = Errno.ETIMEDOUT.value() == errno ? Errno.ETIMEDOUT.negated() : 0;
        while (!vc.queueEmpty())
        {
            final GniOp op = ops[vc.poll()];
            op.provErrno = provErrno;
            finish(op, errno);
        }
        // Direct RMA whose transfer is done waits for the handshake only to send its RMA done: it fails too.
        vc.controlHead = vc.controlTail;
        for (final GniOp op : ops)
        {
            if (op.vc == vc && GniOp.WAIT_ACK == op.state)
            {
                vc.awaiting--;
                op.provErrno = provErrno;
                finish(op, errno);
            }
        }
    }

    private void failVc(final GniVc vc)
    {
        if (GniVc.ERROR == vc.state)
        {
            return;
        }
        if (GniVc.CONNECTED == vc.state)
        {
            // Answers already in the mailbox (a FIN, an RMA ack sent before the peer went) complete their
            // operations first; only what still waits fails.
            pollMailbox(vc);
        }
        vc.state = GniVc.ERROR;
        // The VC failed on a transaction error of a control message: err EIO, prov_errno that error's -FI_ECANCELED.
        while (!vc.queueEmpty())
        {
            final GniOp op = ops[vc.poll()];
            op.provErrno = Errno.ECANCELED.negated();
            finish(op, Errno.EIO.value());
        }
        for (final GniOp op : ops)
        {
            if (op.vc == vc && GniOp.FREE != op.state)
            {
                releaseLocal(op);
                op.provErrno = Errno.ECANCELED.negated();
                finish(op, Errno.EIO.value());
            }
        }
        vc.awaiting = 0;
        rendezvousReceive.failVc(vc);
    }

    private int drainQueue(final GniVc vc)
    {
        int work = 0;
        while (GniVc.CONNECTED == vc.state && !vc.queueEmpty())
        {
            final GniOp op = ops[vc.peek()];
            if (!start(op))
            {
                break;
            }
            vc.poll();
            work++;
        }
        return work;
    }

    private int checkVcs(final long now)
    {
        int work = 0;
        for (int i = 0; i < vcCount; i++)
        {
            final GniVc vc = vcs[i];
            if (vc.heard)
            {
                vc.heard = false;
                vc.lastHeardNs = now;
            }
            if (GniVc.CONNECTING == vc.state && now - vc.connectDeadlineNs > 0)
            {
                failConnect(vc, Errno.ETIMEDOUT.value());
                work++;
            }
            else if (GniVc.CONNECTED == vc.state && vc.awaiting > 0 &&
                now - vc.lastHeardNs > PING_INTERVAL_MS * 1_000_000L &&
                now - vc.lastPingNs > PING_INTERVAL_MS * 1_000_000L)
            {
                vc.lastPingNs = now;
                header.putLong(0, now);
                sendControl(vc, TAG_PING, header, 8);
                work++;
            }
        }
        return work;
    }

    // ---- target side and arrivals -------------------------------------------------------------------------------

    /**
     * Take the VC's mailbox messages in order.
     */
    private int pollMailbox(final GniVc vc)
    {
        int work = 0;
        while (GniVc.CONNECTED == vc.state)
        {
            if (GniRc.SUCCESS != vc.ep.smsgGetNextWTag(GniEp.SMSG_ANY_TAG))
            {
                // Empty (or the next message not visible yet: the periodic scan finds it).
                vc.rxReady = false;
                break;
            }
            final DirectBuffer m = vc.ep.smsgMessage();
            if (!dispatch(vc, vc.ep.smsgTag(), m, 0, m.capacity()))
            {
                // Left for a later cycle: the VC stays ready.
                vc.rxReady = true;
                break;
            }
            vc.ep.smsgRelease();
            vc.heard = true;
            work++;
        }
        return work;
    }

    /**
     * @return true when the message was consumed (release it), false to leave it for a later cycle.
     */
    private boolean dispatch(final GniVc vc, final int tag, final DirectBuffer m, final int o, final int length)
    {
        switch (tag)
        {
            case TAG_EAGER:
                // Left in the mailbox while upstream's AUTO rule holds eager messages (GniEagerProgress).
                return !eagerProgress.held() && onEager(vc, m, o, length);
            case TAG_RNDZV_START:
                return rendezvousReceive.onStart(vc, m, o);
            case TAG_RNDZV_FIN:
                onFin(vc, m, o);
                return true;
            case TAG_MR_QUERY:
                return onMrQuery(vc, m, o);
            case TAG_MR_ANSWER:
                onMrAnswer(vc, m, o);
                return true;
            case TAG_RMA_DONE:
                onRmaDone(vc, m, o);
                return true;
            case TAG_RMA_ACK:
                onRmaAck(vc, m, o);
                return true;
            case TAG_EP_STATE:
                GniEndpointStates.read(m, o, vc.peerClosed);
                return true;
            case TAG_EP_CAPS:
                GniPeerCaps.read(m, o, vc.peerCaps);
                vc.peerCapsKnown = true;
                return true;
            default:
                return true;
        }
    }

    long sourceKey(final GniVc vc, final int endpoint)
    {
        return GniName.key(vc.peerDevice, vc.peerInst, endpoint);
    }

    private boolean onEager(final GniVc vc, final DirectBuffer m, final int o, final int length)
    {
        final int bits = m.getInt(o + 8);
        final long n = m.getLong(o + 32);
        final int rc = context.deliver(m.getInt(o + 4), sourceKey(vc, m.getInt(o)), 0 != (bits & BIT_TAGGED),
            m.getLong(o + 16), m.getLong(o + 24), 0 != (bits & BIT_DATA), m.addressOffset() + o + EAGER_HEADER,
            Math.min(n, length - EAGER_HEADER));
        if (OperationContext.BUSY == rc || -Errno.EAGAIN.value() == rc)
        {
            return false;
        }
        if (0 != (bits & BIT_ACK))
        {
            answerFin(vc, m.getInt(o + 12), rc < 0 ? -rc : 0);
        }
        return true;
    }

    void answerFin(final GniVc vc, final int opId, final int status)
    {
        header.putInt(0, opId);
        header.putInt(4, status);
        sendControl(vc, TAG_RNDZV_FIN, header, 8);
    }

    private boolean onMrQuery(final GniVc vc, final DirectBuffer m, final int o)
    {
        final int opId = m.getInt(o);
        final int endpoint = m.getInt(o + 4);
        final long key = m.getLong(o + 8);
        final long address = m.getLong(o + 16);
        final long length = m.getLong(o + 24);
        final long access = m.getLong(o + 32);
        final boolean withData = 0 != m.getInt(o + 40);
        int status = 0;
        int reg = -1;
        long raw = 0;
        if (!context.endpointOpen(endpoint))
        {
            status = Errno.ECONNREFUSED.value();
        }
        else
        {
            raw = context.verifyRemote(key, address, length, access);
            if (raw < 0)
            {
                status = (int) -raw;
            }
            else if (length > 0)
            {
                if (withData)
                {
                    final int rc = context.reserveRemoteData(endpoint);
                    if (rc < 0)
                    {
                        status = -rc;
                    }
                }
                if (0 == status)
                {
                    final int flags = 0 == (access & Flags.REMOTE_WRITE) ? GniNic.MEM_READ_ONLY : GniNic.MEM_READWRITE;
                    reg = mrCache.acquire(raw, length, flags);
                    if (reg < 0)
                    {
                        if (withData)
                        {
                            context.releaseRemoteData(endpoint);
                        }
                        if (-Errno.EAGAIN.value() == reg)
                        {
                            return false;
                        }
                        status = -reg;
                        reg = -1;
                    }
                    else
                    {
                        accesses.begin(reg, key);
                    }
                }
            }
            else if (withData)
            {
                final int rc = context.reserveRemoteData(endpoint);
                status = rc < 0 ? -rc : 0;
            }
        }
        header.putInt(0, opId);
        header.putInt(4, status);
        header.putInt(8, reg);
        header.putInt(12, 0);
        header.putLong(16, reg >= 0 ? mrCache.handle(reg).qword1() : 0);
        header.putLong(24, reg >= 0 ? mrCache.handle(reg).qword2() : 0);
        header.putLong(32, raw);
        sendControl(vc, TAG_MR_ANSWER, header, 40);
        return true;
    }

    private void onRmaDone(final GniVc vc, final DirectBuffer m, final int o)
    {
        final int opId = m.getInt(o);
        final int endpoint = m.getInt(o + 4);
        final int reg = m.getInt(o + 8);
        final int kind = m.getInt(o + 12);
        final long length = m.getLong(o + 16);
        final long data = m.getLong(o + 24);
        final boolean withData = 0 != m.getInt(o + 32);
        // The region closed while the access was in flight: its registration was revoked, it fails with EINVAL.
        final boolean revoked = accesses.end(reg);
        mrCache.release(reg);
        if (revoked || 0 != (kind & KIND_FAILED))
        {
            if (withData)
            {
                context.releaseRemoteData(endpoint);
            }
        }
        else if (0 != (kind & KIND_EVENT))
        {
            // The initiator saw FI_RMA_EVENT in this endpoint's caps: its counters count (upstream's rule).
            if (0 != (kind & KIND_WRITE))
            {
                context.remoteWriteDone(endpoint, length, withData, data);
            }
            if (0 != (kind & KIND_READ))
            {
                context.remoteReadDone(endpoint);
            }
        }
        else if (withData)
        {
            // Remote CQ data without FI_RMA_EVENT: the entry (the runtime's writedata rule), no count.
            context.remoteDataDone(endpoint, length, data);
        }
        header.putInt(0, opId);
        header.putInt(4, revoked ? Errno.EINVAL.value() : 0);
        sendControl(vc, TAG_RMA_ACK, header, 8);
    }

    // ---- endpoint states -------------------------------------------------------------------------------------------

    GniEndpointStates endpointStates()
    {
        return endpointStates;
    }

    private void sendEndpointStates(final GniVc vc)
    {
        endpointStates.write(header, 0);
        sendControl(vc, TAG_EP_STATE, header, GniEndpointStates.BYTES);
    }

    /**
     * @return the TX descriptor pool (its counters are registered with the domain's).
     */
    GniTxDescriptors txDescriptors()
    {
        return txds;
    }

    GniPeerCaps peerCaps()
    {
        return peerCaps;
    }

    private void sendPeerCaps(final GniVc vc)
    {
        peerCaps.write(header, 0);
        sendControl(vc, TAG_EP_CAPS, header, GniPeerCaps.BYTES);
    }

    private int broadcastPeerCaps()
    {
        if (!peerCaps.takeChanged())
        {
            return 0;
        }
        for (int i = 0; i < vcCount; i++)
        {
            if (GniVc.CONNECTED == vcs[i].state)
            {
                sendPeerCaps(vcs[i]);
            }
        }
        return 1;
    }

    private int broadcastEndpointStates()
    {
        if (!endpointStates.takeChanged())
        {
            return 0;
        }
        for (int i = 0; i < vcCount; i++)
        {
            if (GniVc.CONNECTED == vcs[i].state)
            {
                sendEndpointStates(vcs[i]);
            }
        }
        return 1;
    }

    // ---- regions ---------------------------------------------------------------------------------------------------

    @Override
    public int regionRegistered(final long key, final long address, final long length, final long access)
    {
        return transport.scalable() ? regions.register(key, address, length, access) : 0;
    }

    /**
     * A region closed. Two kinds of NIC registration serve a key here, never the same one: the vMDH slot of a
     * scalable region ({@link GniRegionTable}: direct RMA and atomics name it by the key) and the MR cache entries the
     * MR query lent to accesses still in flight ({@link GniTargetAccesses}: basic mode, and a scalable write with
     * remote CQ data). Both are deregistered now, each once: the slot here (a GET streaming from it stops at its next
     * frame, the next PUT or AMO is refused), each access's entry by {@link GniMrCache#revoke} (freed, not
     * deregistered again, when its RMA done comes; that access then ends {@code EINVAL}).
     */
    @Override
    public void regionClosed(final long key)
    {
        regions.close(key);
        accesses.regionClosed(key, mrCache);
    }

    GniRegionTable regions()
    {
        return regions;
    }

    // ---- completions ----------------------------------------------------------------------------------------------

    private int pollTxCq()
    {
        int work = 0;
        // Injected failures first, as upstream's __nic_get_completed_txd.
        PostDescriptor injected;
        while (null != (injected = injector.poll()))
        {
            work++;
            txds.give();
            onPosted(injected, true, true, GniRc.TRANSACTION_ERROR);
        }
        while (true)
        {
            final int rc = txCq.getEvent();
            if (GniRc.SUCCESS != rc && GniRc.TRANSACTION_ERROR != rc)
            {
                break;
            }
            work++;
            // Each TX CQ event frees the descriptor its post or SMSG send held.
            txds.give();
            final long event = txCq.event();
            final boolean failed = GniRc.TRANSACTION_ERROR == rc;
            if (GniCqEntry.TYPE_SMSG == GniCqEntry.type(event))
            {
                final long msgId = GniCqEntry.msgId(event);
                if (msgId < MAX_OPS)
                {
                    final GniOp op = ops[(int) msgId];
                    if (GniOp.WAIT_SMSG == op.state)
                    {
                        op.provErrno = failed ? Errno.ECANCELED.negated() : 0;
                        finish(op, failed ? Errno.ECANCELED.value() : 0);
                    }
                }
                if (failed)
                {
                    final int vcId = GniCqEntry.instId(event);
                    if (vcId >= 0 && vcId < vcCount)
                    {
                        failVc(vcs[vcId]);
                    }
                }
                continue;
            }
            final PostDescriptor d = txCq.getCompleted(event);
            if (null != d)
            {
                onPosted(d, failed, GniCqEntry.recoverable(event), d.errorDetail);
            }
        }
        return work + postQueued();
    }

    private void onPosted(final PostDescriptor d, final boolean failed, final boolean recoverable, final int detail)
    {
        if (failed && recoverable && retransmit(d))
        {
            return;
        }
        if (GniRendezvousReceive.owns(d.postId))
        {
            rendezvousReceive.onPosted(d, failed, detail);
            return;
        }
        final int id = (int) (d.postId >>> 8);
        if (id >= 0 && id < MAX_OPS)
        {
            // A chained post (FI_MORE) completes every operation of its chain with the head's event.
            GniOp op = ops[id];
            while (true)
            {
                final int next = op.chainNext;
                op.chainNext = -1;
                onPostDone(op, failed, detail);
                if (next < 0)
                {
                    break;
                }
                op = ops[next];
            }
        }
    }

    /**
     * Post a failed transfer again (upstream's replay, GNI.md 2.3) when the failure is recoverable, the request's
     * endpoint is RDM, it is no atomic, and it failed fewer than {@code GNI_MAX_RETRANSMITS} times.
     */
    private boolean retransmit(final PostDescriptor d)
    {
        if (GniRendezvousReceive.owns(d.postId))
        {
            return rendezvousReceive.retransmit(d);
        }
        final int id = (int) (d.postId >>> 8);
        if (id < 0 || id >= MAX_OPS)
        {
            return false;
        }
        final GniOp op = ops[id];
        return GniOp.WAIT_POSTS == op.state && OperationCommand.ATOMIC != op.opcode && null != op.vc &&
            op.endpoint >= 0 && op.endpoint < dgram.length && !dgram[op.endpoint] &&
            ++op.failures <= maxRetransmits() && repost(op.vc, d, op.failures);
    }

    boolean repost(final GniVc vc, final PostDescriptor d, final int failures)
    {
        if (GniRc.SUCCESS == post(vc, d, failures))
        {
            retransmits++;
            return true;
        }
        return false;
    }

    /**
     * @return whether a transfer of endpoint {@code endpoint} that failed {@code failures} times is posted again
     * (RDM only, within {@code GNI_MAX_RETRANSMITS}).
     */
    boolean mayRetransmit(final int endpoint, final int failures)
    {
        return endpoint >= 0 && endpoint < dgram.length && !dgram[endpoint] && failures <= maxRetransmits();
    }

    /**
     * An endpoint opens: DGRAM endpoints are never retransmitted for.
     *
     * @param endpoint its index.
     * @param isDgram  whether it is {@code FI_EP_DGRAM}.
     */
    void endpointType(final int endpoint, final boolean isDgram)
    {
        dgram[endpoint] = isDgram;
    }

    /**
     * @return {@code GNI_MAX_RETRANSMITS} (domain ops, read at each failure): failures of one request retransmitted.
     */
    private long maxRetransmits()
    {
        return transport.ops().get(GniOps.GNI_MAX_RETRANSMITS);
    }

    /**
     * @return the provider registrations of the domain's key in use now and at most at once.
     */
    GniProviderRegistrations providerRegistrations()
    {
        return providerRegistrations;
    }

    /**
     * @return failures injected by {@code GNI_ERR_INJECT_COUNT} since the domain opened.
     */
    long injectedErrors()
    {
        return injector.count();
    }

    /**
     * @return transfers posted again since the domain opened.
     */
    long retransmits()
    {
        return retransmits;
    }

    /**
     * Read the RX CQ: each mailbox event names the VC whose mailbox got a message (the sender's remote event data is
     * our VC id, set in the handshake), so that only those mailboxes are polled, as upstream schedules a VC per RX
     * CQE. An overrun (events lost) or an event naming no VC makes the next poll scan every mailbox.
     */
    private int pollRxCq()
    {
        int work = 0;
        int rc;
        while (GniRc.NOT_DONE != (rc = rxCq.getEvent()))
        {
            work++;
            final int vcId = GniRc.ERROR_RESOURCE == rc ? -1 : GniCqEntry.instId(rxCq.event());
            if (vcId >= 0 && vcId < vcCount)
            {
                vcs[vcId].rxReady = true;
            }
            else
            {
                rxScanAll = true;
            }
        }
        return work;
    }

    @Override
    public int doWork()
    {
        if (closed || !nicAllocated)
        {
            // No NIC before the first endpoint: nothing of this domain can move.
            return 0;
        }
        // One acquisition of the node's lock for the whole pass (engine step, CQ events, mailbox messages, posts)
        // instead of one per NIC call (bench/README.md, "gni against shm").
        final AriesNode node = transport.node();
        node.enterBatch();
        try
        {
            return progress(node);
        }
        finally
        {
            node.exitBatch();
        }
    }

    private int progress(final AriesNode node)
    {
        eagerProgress.onDutyCycle(context);
        int work = node.doWork();
        work += retryCompletions();
        work += pollTxCq();
        work += pollRxCq();
        // Every 64th cycle every mailbox is looked at anyway (a lock-free empty check each), which covers a message
        // whose event came before its data (CQE_BEFORE_DATA) and any event that named the wrong VC.
        final boolean scanAll = rxScanAll || 63 == (cycles & 63);
        rxScanAll = false;
        for (int i = 0; i < vcCount; i++)
        {
            final GniVc vc = vcs[i];
            if (GniVc.CONNECTED == vc.state)
            {
                work += flushControl(vc);
                if (scanAll || vc.rxReady)
                {
                    work += pollMailbox(vc);
                }
                work += drainQueue(vc);
            }
        }
        work += rendezvousReceive.progress();
        work += mrCache.doWork();
        work += broadcastEndpointStates();
        work += broadcastPeerCaps();
        if (0 == (++cycles & 63))
        {
            work += pollDatagrams();
            work += checkVcs(System.nanoTime());
        }
        else if (0 == work)
        {
            work += pollDatagrams();
        }
        return work;
    }

    /**
     * Close: nothing more runs.
     */
    void close()
    {
        closed = true;
        mrCache.close();
    }
}
