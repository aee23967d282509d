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
 * The receive side of gni's rendezvous (GNI.md §2.4): a START (tag 19) names the sender's registered buffer, its
 * address, length and the unaligned head and tail bytes. Each START is announced to the runtime at once
 * ({@link OperationContext#arrive}, with {@code store}), in mailbox order with the eager messages: a posted receive
 * that matches names its buffer at once ({@link #pull}); otherwise the runtime stores the arrival without its
 * payload and names the buffer when a later receive or a claim matches it, or ends it without a pull
 * ({@link #discard}: {@code FI_DISCARD}, the endpoint's close). A named buffer is pulled in matching order: the
 * 4-aligned middle with one BTE GET straight into it (the receive's buffer registered with the NIC for the pull),
 * the head and tail bytes put from the START; a destination that is not one buffer of the message's size (an iov
 * of several buffers, a truncating receive) is pulled into the receive-side staging buffer and copied. The pull
 * ends with {@link OperationContext#arrivalDone} (the receive's completion, or its error when the GET failed) and a
 * FIN (tag 20) with the status to the sender, whose operation completes on it. STARTs are held in a pool of
 * {@value #PULLS} records: with none free, the mailbox waits.
 * <p>
 * Threading: the domain agent's thread only (the back-end's).
 */
final class GniRendezvousReceive
{
    static final int PULLS = 256;
    static final long PULL_POST_ID = 0x7FFF_0000L;
    private static final int START_LENGTH = GniBackend.START_LENGTH;
    private static final int NONE = -1;

    private final GniBackend backend;
    private final GniNic nic;
    // Records of STARTs (announced, stored by the runtime, or queued to be pulled), with a free stack.
    private final UnsafeBuffer starts = new UnsafeBuffer(ByteBuffer.allocateDirect(PULLS * START_LENGTH));
    private final GniVc[] startVc = new GniVc[PULLS];
    /** Per record: the runtime's handle of the matched receive, or {@link #NONE}. */
    private final int[] handle = new int[PULLS];
    /** Per record: the destination (one buffer) for a GET straight into it, else 0 (staging). */
    private final long[] direct = new long[PULLS];
    // Per record: the destination segments of a matched receive served through staging.
    private final long[] segmentAddress = new long[PULLS * 8];
    private final long[] segmentLength = new long[PULLS * 8];
    private final int[] segmentCount = new int[PULLS];
    /** Per record: in use (announced and not yet ended). */
    private final boolean[] live = new boolean[PULLS];
    private final int[] free = new int[PULLS];
    private int freeCount;
    // The records to pull, in order: a ring of record indices.
    private final int[] queue = new int[PULLS];
    private int head;
    private int tail;
    private final MemHandle directHandle = new MemHandle();
    private final PostDescriptor descriptor = new PostDescriptor();
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private OperationContext context;
    private boolean posted;
    private boolean done;
    private boolean registered;
    private int status;
    private int failures;
    private UnsafeBuffer staging;
    private final MemHandle stagingHandle = new MemHandle();
    private AtomicCounter directCounter;
    private AtomicCounter stagedCounter;

    GniRendezvousReceive(final GniBackend backend, final GniNic nic)
    {
        this.backend = backend;
        this.nic = nic;
        for (int i = 0; i < PULLS; i++)
        {
            free[i] = PULLS - 1 - i;
        }
        freeCount = PULLS;
    }

    void open(final OperationContext context)
    {
        this.context = context;
    }

    /**
     * Count in the process's counters file: {@code gni rendezvous pulls into the receive buffer} (GETs straight into
     * a matched receive) and {@code gni rendezvous pulls through staging} (GETs into the staging buffer, then copied
     * into an iov or a truncating receive).
     */
    void registerCounters(final TransportCounters counters)
    {
        directCounter = counters.newCounter("gni rendezvous pulls into the receive buffer");
        stagedCounter = counters.newCounter("gni rendezvous pulls through staging");
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
        direct[record] = 0;
        segmentCount[record] = 0;
        live[record] = true;
        starts.putBytes(record * START_LENGTH, m, o, START_LENGTH);
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
            backend.answerFin(vc, m.getInt(o + 64), -rc);
            release(record);
        }
        return true;
    }

    /**
     * The runtime matched a START (when announced, or later: a receive or a claim matched it stored): keep its
     * destination and queue its GET.
     *
     * @return 0, or {@code -EINVAL} for an id that names no record waiting for it.
     */
    int pull(final RendezvousPull destination)
    {
        final long arrival = destination.arrival();
        final int record = (int) arrival;
        if (arrival < 0 || arrival >= PULLS || !live[record] || NONE != handle[record])
        {
            return -Errno.EINVAL.value();
        }
        handle[record] = destination.handle();
        final int count = destination.segmentCount();
        if (1 == count && destination.length() == destination.messageLength())
        {
            direct[record] = destination.segmentAddress(0);
        }
        else
        {
            for (int k = 0; k < count; k++)
            {
                segmentAddress[record * 8 + k] = destination.segmentAddress(k);
                segmentLength[record * 8 + k] = destination.segmentLength(k);
            }
            segmentCount[record] = count;
        }
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
            backend.answerFin(vc, starts.getInt(record * START_LENGTH + 64), errno);
        }
        release(record);
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
     * The GET of the head entry completed.
     */
    void onPosted(final boolean failed, final int detail)
    {
        done = true;
        // The sender's NIC refusing the source's handle: the sender revoked it, its endpoint closed.
        status = !failed ? 0 : GniRc.INVALID_PARAM == detail ? Errno.ECONNREFUSED.value() : Errno.ECANCELED.value();
    }

    /**
     * Post the failed GET of the head entry again when its endpoint allows it and its budget is not spent.
     */
    boolean retransmit(final PostDescriptor d)
    {
        if (head == tail)
        {
            return false;
        }
        final int record = queue[head % PULLS];
        final GniVc vc = startVc[record];
        final int endpoint = starts.getInt(record * START_LENGTH + 4);
        return null != vc && backend.mayRetransmit(endpoint, ++failures) && backend.repost(vc, d, failures);
    }

    /**
     * Serve the head of the queue: post its GET, then finish it once the GET is done.
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
        final int at = record * START_LENGTH;
        if (null == vc)
        {
            // Its VC failed: nothing can be pulled; the matched receive fails.
            endDirect();
            context.arrivalDone(handle[record], Errno.EIO.value());
            advance(record);
            return 1;
        }
        final long a = starts.getLong(at + 56);
        final long n = starts.getLong(at + 32);
        final long middleStart = (a + 3) & ~3L;
        final long middleEnd = (a + n) & ~3L;
        final long target = middleEnd > middleStart ? direct[record] : 0;
        if (!posted)
        {
            final PostDescriptor d = descriptor.reset();
            d.type = TransactionKind.RDMA_GET;
            if (0 != target)
            {
                if (GniRc.SUCCESS != nic.memRegister(target, n, null, GniNic.MEM_READWRITE, 0, directHandle))
                {
                    finish(vc, record, Errno.ENOMEM.value());
                    return 1;
                }
                registered = true;
                d.localAddr = target + (middleStart - a);
                d.localMemHandle.set(directHandle);
            }
            else
            {
                if (!ensureStaging(n))
                {
                    finish(vc, record, Errno.ENOMEM.value());
                    return 1;
                }
                d.localAddr = staging.addressOffset() + (middleStart - a);
                d.localMemHandle.set(stagingHandle);
            }
            failures = 0;
            d.remoteAddr = middleStart;
            d.remoteMemHandle.set(starts.getLong(at + 40), starts.getLong(at + 48));
            d.length = middleEnd - middleStart;
            d.postId = PULL_POST_ID;
            final int rc = backend.post(vc, d, failures);
            if (GniRc.ERROR_RESOURCE == rc)
            {
                endDirect();
                return 0;
            }
            posted = true;
            done = GniRc.SUCCESS != rc;
            status = GniRc.SUCCESS != rc ? Errno.ECANCELED.value() : 0;
            return 1;
        }
        if (!done)
        {
            return 0;
        }
        if (0 != status)
        {
            finish(vc, record, status);
            return 1;
        }
        final long into = 0 != target ? target : staging.addressOffset();
        view.wrap(into, (int) n);
        for (int i = 0; i < middleStart - a; i++)
        {
            view.putByte(i, starts.getByte(at + 68 + i));
        }
        for (int i = 0; i < a + n - middleEnd; i++)
        {
            view.putByte((int) (middleEnd - a) + i, starts.getByte(at + 72 + i));
        }
        if (0 != target)
        {
            if (null != directCounter)
            {
                directCounter.incrementRelease();
            }
            finish(vc, record, 0);
            return 1;
        }
        // Not one buffer of the message's size (an iov, a truncating receive): from staging into its segments.
        long from = staging.addressOffset();
        for (int k = 0; k < segmentCount[record]; k++)
        {
            final long length = segmentLength[record * 8 + k];
            UnsafeApi.copyMemory(from, segmentAddress[record * 8 + k], length);
            from += length;
        }
        if (null != stagedCounter)
        {
            stagedCounter.incrementRelease();
        }
        finish(vc, record, 0);
        return 1;
    }

    /**
     * End the head entry with {@code errno} (0: its bytes are in place): its matched receive completes, the sender
     * gets the FIN.
     */
    private void finish(final GniVc vc, final int record, final int errno)
    {
        endDirect();
        int fin = errno;
        final int rc = context.arrivalDone(handle[record], errno);
        if (0 == fin && rc < 0)
        {
            // The receiving endpoint closed meanwhile: the sender is told so.
            fin = -rc;
        }
        backend.answerFin(vc, starts.getInt(record * START_LENGTH + 64), fin);
        advance(record);
    }

    private void endDirect()
    {
        if (registered)
        {
            nic.memDeregister(directHandle);
            registered = false;
        }
    }

    private void advance(final int record)
    {
        release(record);
        head++;
        posted = false;
        done = false;
    }

    private void release(final int record)
    {
        startVc[record] = null;
        handle[record] = NONE;
        live[record] = false;
        free[freeCount++] = record;
    }

    private boolean ensureStaging(final long length)
    {
        if (null != staging && staging.capacity() >= length + 8)
        {
            return true;
        }
        if (length + 8 > GniProvider.MAX_MSG_SIZE + 8)
        {
            return false;
        }
        if (null != staging)
        {
            nic.memDeregister(stagingHandle);
        }
        int capacity = 1 << 20;
        while (capacity < length + 8)
        {
            capacity <<= 1;
        }
        staging = new UnsafeBuffer(BufferUtil.allocateDirectAligned(capacity, MemHandle.PAGE_SIZE));
        return GniRc.SUCCESS == nic.memRegister(staging, 0, capacity, null, GniNic.MEM_READWRITE, 0, stagingHandle);
    }
}
