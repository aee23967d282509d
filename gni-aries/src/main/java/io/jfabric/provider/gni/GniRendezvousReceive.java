package io.jfabric.provider.gni;

import io.jfabric.Errno;
import io.jfabric.aries.GniNic;
import io.jfabric.aries.GniRc;
import io.jfabric.aries.MemHandle;
import io.jfabric.aries.PostDescriptor;
import io.jfabric.aries.TransactionKind;
import io.jfabric.spi.OperationContext;
import io.jfabric.spi.RendezvousPull;
import io.jfabric.spi.TransportCounters;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.nio.ByteBuffer;

/**
 * The receive side of gni's rendezvous (GNI.md §2.4): a START (tag 19, {@link GniRendezvousStart}) names the sender's
 * registered source pieces (one buffer, or each buffer of an iov send), the message's length and, for one piece, the
 * bytes of its unaligned head and tail words. Each START is announced to the runtime at once
 * ({@link OperationContext#arrive}, with {@code store}), in mailbox order with the eager messages: a posted receive
 * that matches names its buffer at once ({@link #pull}); otherwise the runtime stores the arrival without its
 * payload and names the buffer when a later receive or a claim matches it, or ends it without a pull
 * ({@link #discard}: {@code FI_DISCARD}, the endpoint's close). A named destination (one buffer at any offset, an
 * iov of several, cut where a receive truncates) is pulled in matching order with no staging buffer
 * ({@link GniPullPlan}): the 4-aligned middle of every cut between pieces and segments with one BTE GET straight into
 * the segment (registered with the NIC for the pull), every word straddling two pieces or two segments or holding the
 * truncation point with one FMA GET into this side's bounce area and copied out, the head and tail bytes from the
 * START. The pull ends with {@link OperationContext#arrivalDone} (the receive's completion, or its error when a GET
 * failed) and a FIN (tag 20) with the status to the sender, whose operation completes on it. STARTs are held in a
 * pool of {@value #PULLS} records: with none free, the mailbox waits.
 * <p>
 * An endpoint that closes ({@link #endpointClosing}) stops the pulls into its receives before its close returns: the
 * segments of the one in flight are deregistered, so the NIC writes nothing more into them (the GET fails), queued
 * ones are never posted; each ends {@code FI_ECONNREFUSED} for its sender.
 * <p>
 * Threading: the domain agent's thread only (the back-end's).
 */
final class GniRendezvousReceive
{
    static final int PULLS = 256;
    /** Post ids of the pulls' GETs: this base, the pull's generation (8 bits) times {@link #POSTS}, the GET's index. */
    static final long PULL_POST_ID = 0x7FFF_0000L;
    private static final int POSTS = GniPullPlan.MAX_GETS + GniPullPlan.MAX_WORDS;
    private static final int GENERATIONS = 256;
    private static final int START_LENGTH = GniRendezvousStart.MAX_LENGTH;
    private static final int SEGMENTS = GniPullPlan.MAX_PIECES;
    private static final int NONE = -1;

    private final GniBackend backend;
    private final GniNic nic;
    // Records of STARTs (announced, stored by the runtime, or queued to be pulled), with a free stack.
    private final UnsafeBuffer starts = new UnsafeBuffer(ByteBuffer.allocateDirect(PULLS * START_LENGTH));
    private final GniVc[] startVc = new GniVc[PULLS];
    /** Per record: the runtime's handle of the matched receive, or {@link #NONE}. */
    private final int[] handle = new int[PULLS];
    // Per record: the destination segments of the matched receive.
    private final long[] segmentAddress = new long[PULLS * SEGMENTS];
    private final long[] segmentLength = new long[PULLS * SEGMENTS];
    private final int[] segmentCount = new int[PULLS];
    /** Per record: in use (announced and not yet ended). */
    private final boolean[] live = new boolean[PULLS];
    /** Per record: its endpoint closed after the match: nothing is pulled into it. */
    private final boolean[] stopped = new boolean[PULLS];
    private final int[] free = new int[PULLS];
    private int freeCount;
    // The records to pull, in order: a ring of record indices.
    private final int[] queue = new int[PULLS];
    private int head;
    private int tail;
    // The head record's pull.
    private final GniPullPlan plan = new GniPullPlan();
    private final MemHandle[] segmentHandle = new MemHandle[SEGMENTS];
    private final boolean[] segmentRegistered = new boolean[SEGMENTS];
    private final PostDescriptor[] descriptors = new PostDescriptor[POSTS];
    private UnsafeBuffer bounce;
    private final MemHandle bounceHandle = new MemHandle();
    private int generation;
    private boolean planned;
    private int nextPost;
    private int outstanding;
    private int status;
    private int failures;
    private OperationContext context;
    private AtomicCounter pullCounter;
    private AtomicCounter piecesCounter;
    private AtomicCounter wordsCounter;
    private GniDirectCopy directCopy;

    GniRendezvousReceive(final GniBackend backend, final GniNic nic)
    {
        this.backend = backend;
        this.nic = nic;
        for (int i = 0; i < PULLS; i++)
        {
            free[i] = PULLS - 1 - i;
        }
        freeCount = PULLS;
        for (int i = 0; i < SEGMENTS; i++)
        {
            segmentHandle[i] = new MemHandle();
        }
        for (int i = 0; i < POSTS; i++)
        {
            descriptors[i] = new PostDescriptor();
        }
        if (!newBounce())
        {
            throw new io.jfabric.FabricException(Errno.ENOMEM, "gni: cannot register the rendezvous bounce area");
        }
    }

    private boolean newBounce()
    {
        bounce = new UnsafeBuffer(BufferUtil.allocateDirectAligned(MemHandle.PAGE_SIZE, MemHandle.PAGE_SIZE));
        return GniRc.SUCCESS == nic.memRegister(bounce, 0, bounce.capacity(), null, GniNic.MEM_READWRITE, 0,
            bounceHandle);
    }

    /**
     * Set once when the domain opens: the on-node direct copy tried before a pull's GETs ({@code GNI_XPMEM_ENABLE}).
     */
    void directCopy(final GniDirectCopy copy)
    {
        directCopy = copy;
    }

    void open(final OperationContext context)
    {
        this.context = context;
    }

    /**
     * @return whether a post id is one of a pull's GETs.
     */
    static boolean owns(final long postId)
    {
        return postId >= PULL_POST_ID && postId < PULL_POST_ID + (long) GENERATIONS * POSTS;
    }

    /**
     * @return whether a GET belongs to the pull in progress (not to one abandoned before it ended).
     */
    private boolean current(final PostDescriptor d)
    {
        return planned && (d.postId - PULL_POST_ID) / POSTS == (generation & (GENERATIONS - 1));
    }

    /**
     * Count in the process's counters file: {@code gni rendezvous pulls into the receive buffer} (every pull: its
     * GETs land in the receive's own buffers), {@code gni rendezvous pulls of several pieces} (an iov on either side
     * or a truncating receive: more than one GET, or a bounced word) and {@code gni rendezvous words bounced}.
     */
    void registerCounters(final TransportCounters counters)
    {
        pullCounter = counters.newCounter("gni rendezvous pulls into the receive buffer");
        piecesCounter = counters.newCounter("gni rendezvous pulls of several pieces");
        wordsCounter = counters.newCounter("gni rendezvous words bounced");
    }

    /**
     * A START from {@code vc}'s mailbox: announced to the runtime, which matches it now (then {@link #pull} queues
     * it), stores it without its payload, or has no room.
     *
     * @return false to leave it in the mailbox (no free record, the receive CQ or the unexpected store full).
     */
    boolean onStart(final GniVc vc, final DirectBuffer m, final int o)
    {
        if (0 == freeCount)
        {
            return false;
        }
        final int record = free[--freeCount];
        handle[record] = NONE;
        segmentCount[record] = 0;
        stopped[record] = false;
        live[record] = true;
        final int length = Math.min(GniRendezvousStart.length(GniRendezvousStart.pieces(m, o)), m.capacity() - o);
        starts.setMemory(record * START_LENGTH, START_LENGTH, (byte) 0);
        starts.putBytes(record * START_LENGTH, m, o, length);
        startVc[record] = vc;
        final int bits = m.getInt(o + 8);
        final int rc = context.arrive(m.getInt(o + 4), backend.sourceKey(vc, m.getInt(o)),
            0 != (bits & GniBackend.BIT_TAGGED), m.getLong(o + 16), m.getLong(o + 24),
            0 != (bits & GniBackend.BIT_DATA), m.getLong(o + 32), record, true);
        if (OperationContext.BUSY == rc || -Errno.EAGAIN.value() == rc)
        {
            release(record);
            return false;
        }
        if (rc < 0)
        {
            // The endpoint is not open: the sender completes with that error.
            backend.answerFin(vc, m.getInt(o + GniRendezvousStart.OP_ID), -rc);
            release(record);
        }
        return true;
    }

    /**
     * The runtime matched a START (when announced, or later: a receive or a claim matched it stored): keep its
     * destination and queue its GETs.
     *
     * @return 0, or {@code -EINVAL} for an id that names no record waiting for it or more than
     * {@value GniPullPlan#MAX_PIECES} segments.
     */
    int pull(final RendezvousPull destination)
    {
        final long arrival = destination.arrival();
        final int record = (int) arrival;
        final int count = destination.segmentCount();
        if (arrival < 0 || arrival >= PULLS || !live[record] || NONE != handle[record] || count > SEGMENTS)
        {
            return -Errno.EINVAL.value();
        }
        handle[record] = destination.handle();
        for (int k = 0; k < count; k++)
        {
            segmentAddress[record * SEGMENTS + k] = destination.segmentAddress(k);
            segmentLength[record * SEGMENTS + k] = destination.segmentLength(k);
        }
        segmentCount[record] = count;
        queue[tail % PULLS] = record;
        tail++;
        return 0;
    }

    /**
     * The runtime will not pull a stored START: it was discarded (errno 0) or its endpoint closed.
     */
    void discard(final long arrival, final int errno)
    {
        final int record = (int) arrival;
        if (arrival < 0 || arrival >= PULLS || !live[record] || NONE != handle[record])
        {
            return;
        }
        final GniVc vc = startVc[record];
        if (null != vc)
        {
            backend.answerFin(vc, starts.getInt(record * START_LENGTH + GniRendezvousStart.OP_ID), errno);
        }
        release(record);
    }

    /**
     * Endpoint {@code endpoint} closes (on the agent thread, before its close returns and its buffers are given
     * back): no byte is written into its receives from now on. The pull in flight into one of them has its
     * segments deregistered, so the NIC drops the rest of its GETs' data (they fail); queued pulls are never
     * posted. Each ends {@code FI_ECONNREFUSED} for its sender once its GETs are over.
     */
    void endpointClosing(final int endpoint)
    {
        for (int i = head; i != tail; i++)
        {
            final int record = queue[i % PULLS];
            if (starts.getInt(record * START_LENGTH + 4) == endpoint)
            {
                stopped[record] = true;
                if (i == head)
                {
                    abandon();
                }
            }
        }
    }

    /**
     * Every START from {@code vc} is cut from it (the VC failed): a queued one fails its receive, a stored one is
     * released when the runtime pulls or discards it.
     */
    void failVc(final GniVc vc)
    {
        for (int r = 0; r < PULLS; r++)
        {
            if (startVc[r] == vc)
            {
                startVc[r] = null;
            }
        }
    }

    /**
     * One GET of the head entry completed.
     */
    void onPosted(final PostDescriptor d, final boolean failed, final int detail)
    {
        if (!current(d))
        {
            // A GET of a pull abandoned before it ended: its bytes were dropped by the NIC.
            return;
        }
        outstanding--;
        if (failed && 0 == status)
        {
            // The sender's NIC refusing the source's handle: the sender revoked it, its endpoint closed.
            status = GniRc.INVALID_PARAM == detail ? Errno.ECONNREFUSED.value() : Errno.ECANCELED.value();
        }
    }

    /**
     * Post a failed GET of the head entry again when its endpoint allows it and its budget is not spent.
     */
    boolean retransmit(final PostDescriptor d)
    {
        if (head == tail || !current(d))
        {
            return false;
        }
        final int record = queue[head % PULLS];
        final GniVc vc = startVc[record];
        final int endpoint = starts.getInt(record * START_LENGTH + 4);
        return null != vc && !stopped[record] && 0 == status && backend.mayRetransmit(endpoint, ++failures) &&
            backend.repost(vc, d, failures);
    }

    /**
     * Serve the head of the queue: plan its GETs, post them (as the TX CQ has room), then finish it once they are
     * done.
     *
     * @return work done.
     */
    int progress()
    {
        if (head == tail)
        {
            return 0;
        }
        final int record = queue[head % PULLS];
        final GniVc vc = startVc[record];
        if (null == vc)
        {
            // Its VC failed: nothing more can be pulled; the matched receive fails.
            abandon();
            context.arrivalDone(handle[record], Errno.EIO.value());
            advance(record);
            return 1;
        }
        if (stopped[record] && !planned)
        {
            // Its endpoint closed before the pull began: nothing is registered or posted.
            finish(vc, record, Errno.ECONNREFUSED.value());
            return 1;
        }
        if (!planned && null != directCopy && directCopy.copy(vc, starts, record * START_LENGTH, segmentAddress,
            segmentLength, record * SEGMENTS, segmentCount[record]))
        {
            // Every byte came straight from the sender's shared pool: no GET, the FIN as after them.
            finish(vc, record, 0);
            return 1;
        }
        if (!planned)
        {
            final int rc = plan(record);
            if (0 != rc)
            {
                finish(vc, record, rc);
                return 1;
            }
        }
        int work = 0;
        final int posts = plan.gets() + plan.words();
        while (nextPost < posts && 0 == status && !stopped[record])
        {
            final int rc = backend.post(vc, describe(record, nextPost), failures);
            if (GniRc.ERROR_RESOURCE == rc)
            {
                // The TX CQ is full: the rest go in a later cycle.
                break;
            }
            work++;
            if (GniRc.SUCCESS != rc)
            {
                status = Errno.ECANCELED.value();
                break;
            }
            nextPost++;
            outstanding++;
        }
        if (stopped[record])
        {
            abandon();
            finish(vc, record, Errno.ECONNREFUSED.value());
            return work + 1;
        }
        if (outstanding > 0 || (nextPost < posts && 0 == status))
        {
            return work;
        }
        if (0 != status)
        {
            finish(vc, record, status);
            return work + 1;
        }
        place(record);
        finish(vc, record, 0);
        return work + 1;
    }

    private int plan(final int record)
    {
        planned = true;
        nextPost = 0;
        outstanding = 0;
        status = 0;
        failures = 0;
        final int at = record * START_LENGTH;
        final long n = starts.getLong(at + 32);
        plan.reset(n);
        final int pieces = GniRendezvousStart.pieces(starts, at);
        for (int j = 0; j < pieces; j++)
        {
            plan.piece(GniRendezvousStart.address(starts, at, j), GniRendezvousStart.length(starts, at, j, n));
        }
        for (int k = 0; k < segmentCount[record]; k++)
        {
            plan.segment(segmentAddress[record * SEGMENTS + k], segmentLength[record * SEGMENTS + k]);
        }
        if (!plan.plan())
        {
            return Errno.EINVAL.value();
        }
        for (int k = 0; k < plan.segments(); k++)
        {
            if (plan.segmentPulled(k))
            {
                if (GniRc.SUCCESS != nic.memRegister(plan.segmentAddress(k), plan.segmentLength(k), null,
                    GniNic.MEM_READWRITE, 0, segmentHandle[k]))
                {
                    return Errno.ENOMEM.value();
                }
                segmentRegistered[k] = true;
            }
        }
        return 0;
    }

    private PostDescriptor describe(final int record, final int index)
    {
        final int at = record * START_LENGTH;
        final PostDescriptor d = descriptors[index].reset();
        d.postId = PULL_POST_ID + (long) (generation & (GENERATIONS - 1)) * POSTS + index;
        if (index < plan.gets())
        {
            final int piece = plan.getPiece(index);
            d.type = TransactionKind.RDMA_GET;
            d.localAddr = plan.getLocal(index);
            d.localMemHandle.set(segmentHandle[plan.getSegment(index)]);
            d.remoteAddr = plan.getRemote(index);
            d.remoteMemHandle.set(GniRendezvousStart.handle1(starts, at, piece),
                GniRendezvousStart.handle2(starts, at, piece));
            d.length = plan.getLength(index);
        }
        else
        {
            // A word straddling two pieces or segments, or holding the truncation point: into the bounce area.
            final int w = index - plan.gets();
            final int piece = plan.wordPiece(w);
            d.type = TransactionKind.FMA_GET;
            d.localAddr = bounce.addressOffset() + 4L * w;
            d.localMemHandle.set(bounceHandle);
            d.remoteAddr = plan.wordRemote(w);
            d.remoteMemHandle.set(GniRendezvousStart.handle1(starts, at, piece),
                GniRendezvousStart.handle2(starts, at, piece));
            d.length = 4;
        }
        return d;
    }

    /**
     * The GETs are done: the bounced words' bytes and the START's head and tail bytes go to their segments.
     */
    private void place(final int record)
    {
        final int at = record * START_LENGTH;
        for (int c = 0; c < plan.copies(); c++)
        {
            UnsafeApi.copyMemory(bounce.addressOffset() + 4L * plan.copyWord(c) + plan.copyFrom(c), plan.copyTo(c),
                plan.copyLength(c));
        }
        final long length = plan.length();
        final long headEnd = Math.min(plan.headEnd(), length);
        for (long i = 0; i < headEnd; i++)
        {
            UnsafeApi.putByte(plan.localOf(i), starts.getByte(at + GniRendezvousStart.HEAD + (int) i));
        }
        for (long i = plan.tailStart(); i < length; i++)
        {
            UnsafeApi.putByte(plan.localOf(i),
                starts.getByte(at + GniRendezvousStart.TAIL + (int) (i - plan.tailStart())));
        }
        if (null != pullCounter)
        {
            pullCounter.incrementRelease();
            if (plan.gets() > 1 || plan.words() > 0)
            {
                piecesCounter.incrementRelease();
                wordsCounter.getAndAddRelease(plan.words());
            }
        }
    }

    /**
     * End the head entry with {@code errno} (0: its bytes are in place): its matched receive completes, the sender
     * gets the FIN.
     */
    private void finish(final GniVc vc, final int record, final int errno)
    {
        deregisterSegments();
        int fin = errno;
        final int rc = context.arrivalDone(handle[record], errno);
        if (0 == fin && rc < 0)
        {
            // The receiving endpoint closed meanwhile: the sender is told so.
            fin = -rc;
        }
        backend.answerFin(vc, starts.getInt(record * START_LENGTH + GniRendezvousStart.OP_ID), fin);
        advance(record);
    }

    /**
     * Give up the head pull's GETs still in flight: its segments and the bounce area are deregistered, so the NIC
     * writes nothing more into either (what is still coming is dropped, the GETs fail); their completions name this
     * pull's generation and are ignored; their descriptors and the bounce area are replaced (allocation on this
     * failure path only: a close with a pull in flight, a failed VC).
     */
    private void abandon()
    {
        deregisterSegments();
        if (outstanding > 0)
        {
            for (int i = 0; i < nextPost; i++)
            {
                descriptors[i] = new PostDescriptor();
            }
            nic.memDeregister(bounceHandle);
            newBounce();
            outstanding = 0;
        }
    }

    private void deregisterSegments()
    {
        for (int k = 0; k < SEGMENTS; k++)
        {
            if (segmentRegistered[k])
            {
                nic.memDeregister(segmentHandle[k]);
                segmentRegistered[k] = false;
            }
        }
    }

    private void advance(final int record)
    {
        release(record);
        head++;
        generation++;
        planned = false;
        nextPost = 0;
        outstanding = 0;
        status = 0;
    }

    private void release(final int record)
    {
        startVc[record] = null;
        handle[record] = NONE;
        live[record] = false;
        stopped[record] = false;
        free[freeCount++] = record;
    }
}
