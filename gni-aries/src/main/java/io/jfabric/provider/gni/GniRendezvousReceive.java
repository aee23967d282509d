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
 * address, length and the unaligned head and tail bytes. The START is announced to the runtime at once
 * ({@link OperationContext#arrive}); when a posted receive matches, the runtime names its buffer
 * ({@link #pull}) and the 4-aligned middle is pulled with one BTE GET straight into it (the receive's slice
 * registered with the NIC for the pull), the head and tail bytes are put from the START, and the pull ends with
 * {@link OperationContext#arrivalDone} and a FIN (tag 20) to the sender. A START that matches no posted receive
 * (or one whose destination is an iov of several buffers or smaller than the message) is pulled into the
 * receive-side staging buffer: an unmatched one is then handed whole to the runtime's matching
 * ({@link OperationContext#deliver}), a matched one copied into its destination. STARTs are served one at a time
 * in arrival order; while an unmatched START waits, later ones are not announced (they would overtake it).
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
    private final UnsafeBuffer pulls = new UnsafeBuffer(ByteBuffer.allocateDirect(PULLS * START_LENGTH));
    private final GniVc[] pullVc = new GniVc[PULLS];
    /** Per FIFO entry: the runtime's handle of the matched receive, or {@link #NONE}. */
    private final int[] handle = new int[PULLS];
    /** Per FIFO entry: the destination (one buffer) for a GET straight into it, else 0 (staging). */
    private final long[] direct = new long[PULLS];
    // Per FIFO entry: the destination segments of a matched receive served through staging.
    private final long[] segmentAddress = new long[PULLS * 8];
    private final long[] segmentLength = new long[PULLS * 8];
    private final int[] segmentCount = new int[PULLS];
    private final MemHandle directHandle = new MemHandle();
    private final PostDescriptor descriptor = new PostDescriptor();
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private OperationContext context;
    private int head;
    private int tail;
    /** Unmatched STARTs in the FIFO: while any waits, later STARTs are not announced. */
    private int unmatched;
    /** The FIFO entry {@link #pull} fills (during {@code arrive}). */
    private int announcing = NONE;
    private boolean posted;
    private boolean done;
    private boolean registered;
    private int status;
    private int failures;
    private UnsafeBuffer staging;
    private final MemHandle stagingHandle = new MemHandle();
    private long directPulls;
    private AtomicCounter directCounter;
    private AtomicCounter stagedCounter;

    GniRendezvousReceive(final GniBackend backend, final GniNic nic)
    {
        this.backend = backend;
        this.nic = nic;
    }

    void open(final OperationContext context)
    {
        this.context = context;
    }

    /**
     * Count in the process's counters file: {@code gni rendezvous pulls into the receive buffer} (GETs straight into
     * a matched receive) and {@code gni rendezvous pulls through staging} (GETs into the staging buffer, then copied
     * or handed to the runtime's matching).
     */
    void registerCounters(final TransportCounters counters)
    {
        directCounter = counters.newCounter("gni rendezvous pulls into the receive buffer");
        stagedCounter = counters.newCounter("gni rendezvous pulls through staging");
    }

    /**
     * @return rendezvous messages pulled straight into their receive's buffer since the domain opened.
     */
    long directPulls()
    {
        return directPulls;
    }

    /**
     * A START from {@code vc}'s mailbox.
     *
     * @return false to leave it in the mailbox (the FIFO or the receive CQ is full).
     */
    boolean onStart(final GniVc vc, final DirectBuffer m, final int o)
    {
        if (tail - head >= PULLS)
        {
            return false;
        }
        final int slot = tail % PULLS;
        handle[slot] = NONE;
        direct[slot] = 0;
        segmentCount[slot] = 0;
        if (0 == unmatched)
        {
            final int bits = m.getInt(o + 8);
            announcing = slot;
            final int rc = context.arrive(m.getInt(o + 4), backend.sourceKey(vc, m.getInt(o)),
                0 != (bits & GniBackend.BIT_TAGGED), m.getLong(o + 16), m.getLong(o + 24),
                0 != (bits & GniBackend.BIT_DATA), m.getLong(o + 32), slot, false);
            announcing = NONE;
            if (OperationContext.BUSY == rc)
            {
                return false;
            }
        }
        if (NONE == handle[slot])
        {
            unmatched++;
        }
        pulls.putBytes(slot * START_LENGTH, m, o, START_LENGTH);
        pullVc[slot] = vc;
        tail++;
        return true;
    }

    /**
     * The runtime matched the START being announced: keep its destination.
     *
     * @return 0.
     */
    int pull(final RendezvousPull destination)
    {
        final int slot = announcing;
        if (NONE == slot || (int) destination.arrival() != slot)
        {
            return -Errno.EINVAL.value();
        }
        handle[slot] = destination.handle();
        final int count = destination.segmentCount();
        if (1 == count && destination.length() == destination.messageLength())
        {
            direct[slot] = destination.segmentAddress(0);
            return 0;
        }
        for (int k = 0; k < count; k++)
        {
            segmentAddress[slot * 8 + k] = destination.segmentAddress(k);
            segmentLength[slot * 8 + k] = destination.segmentLength(k);
        }
        segmentCount[slot] = count;
        return 0;
    }

    /**
     * Every START from {@code vc} that waits is dropped (the VC failed): its receive, if matched, fails.
     */
    void failVc(final GniVc vc)
    {
        for (int p = head; p != tail; p++)
        {
            if (pullVc[p % PULLS] == vc)
            {
                pullVc[p % PULLS] = null;
            }
        }
    }

    /**
     * The GET of the head entry completed.
     */
    void onPosted(final boolean failed, final int detail)
    {
        done = true;
        status = failed ? GniFailures.errno(detail) : 0;
    }

    /**
     * Post the failed GET of the head entry again when its endpoint allows it and its budget is not spent.
     */
    boolean retransmit(final PostDescriptor d)
    {
        final int slot = head % PULLS;
        final GniVc vc = pullVc[slot];
        final int endpoint = pulls.getInt(slot * START_LENGTH + 4);
        return null != vc && backend.mayRetransmit(endpoint, ++failures) && backend.repost(vc, d, failures);
    }

    /**
     * Serve the head of the FIFO: post its GET, then finish it once the GET is done.
     *
     * @return work done.
     */
    int progress()
    {
        if (head == tail)
        {
            return 0;
        }
        final int slot = head % PULLS;
        final GniVc vc = pullVc[slot];
        final int at = slot * START_LENGTH;
        if (null == vc)
        {
            // Its VC failed: nothing was posted for it (or the GET failed with the VC); a matched receive fails.
            endDirect();
            if (NONE != handle[slot])
            {
                context.arrivalDone(handle[slot], Errno.EIO.value());
            }
            advance(slot);
            return 1;
        }
        final long a = pulls.getLong(at + 56);
        final long n = pulls.getLong(at + 32);
        final long middleStart = (a + 3) & ~3L;
        final long middleEnd = (a + n) & ~3L;
        final long target = middleEnd > middleStart ? direct[slot] : 0;
        if (!posted)
        {
            final PostDescriptor d = descriptor.reset();
            d.type = TransactionKind.RDMA_GET;
            if (0 != target)
            {
                if (GniRc.SUCCESS != nic.memRegister(target, n, null, GniNic.MEM_READWRITE, 0, directHandle))
                {
                    finish(vc, slot, Errno.ENOMEM.value());
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
                    finish(vc, slot, Errno.ENOMEM.value());
                    return 1;
                }
                d.localAddr = staging.addressOffset() + (middleStart - a);
                d.localMemHandle.set(stagingHandle);
            }
            failures = 0;
            d.remoteAddr = middleStart;
            d.remoteMemHandle.set(pulls.getLong(at + 40), pulls.getLong(at + 48));
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
            finish(vc, slot, status);
            return 1;
        }
        final long into = 0 != target ? target : staging.addressOffset();
        view.wrap(into, (int) n);
        for (int i = 0; i < middleStart - a; i++)
        {
            view.putByte(i, pulls.getByte(at + 68 + i));
        }
        for (int i = 0; i < a + n - middleEnd; i++)
        {
            view.putByte((int) (middleEnd - a) + i, pulls.getByte(at + 72 + i));
        }
        if (0 != target)
        {
            directPulls++;
            if (null != directCounter)
            {
                directCounter.incrementRelease();
            }
            finish(vc, slot, 0);
            return 1;
        }
        if (NONE != handle[slot])
        {
            // Matched, but not one buffer of the message's size: from staging into its segments.
            long from = staging.addressOffset();
            for (int k = 0; k < segmentCount[slot]; k++)
            {
                final long length = segmentLength[slot * 8 + k];
                UnsafeApi.copyMemory(from, segmentAddress[slot * 8 + k], length);
                from += length;
            }
            countStaged();
            finish(vc, slot, 0);
            return 1;
        }
        final int bits = pulls.getInt(at + 8);
        final int rc = context.deliver(pulls.getInt(at + 4), backend.sourceKey(vc, pulls.getInt(at)),
            0 != (bits & GniBackend.BIT_TAGGED), pulls.getLong(at + 16), pulls.getLong(at + 24),
            0 != (bits & GniBackend.BIT_DATA), staging.addressOffset(), n);
        if (OperationContext.BUSY == rc || -Errno.EAGAIN.value() == rc)
        {
            return 0;
        }
        countStaged();
        backend.answerFin(vc, pulls.getInt(at + 64), rc < 0 ? -rc : 0);
        advance(slot);
        return 1;
    }

    private void countStaged()
    {
        if (null != stagedCounter)
        {
            stagedCounter.incrementRelease();
        }
    }

    /**
     * End the head entry with {@code errno} (0: its bytes are in place): its matched receive completes, the sender
     * gets the FIN.
     */
    private void finish(final GniVc vc, final int slot, final int errno)
    {
        endDirect();
        int fin = errno;
        if (NONE != handle[slot])
        {
            final int rc = context.arrivalDone(handle[slot], errno);
            if (0 == fin && rc < 0)
            {
                // The receiving endpoint closed meanwhile: the sender is told so.
                fin = -rc;
            }
        }
        backend.answerFin(vc, pulls.getInt(slot * START_LENGTH + 64), fin);
        advance(slot);
    }

    private void endDirect()
    {
        if (registered)
        {
            nic.memDeregister(directHandle);
            registered = false;
        }
    }

    private void advance(final int slot)
    {
        if (NONE == handle[slot])
        {
            unmatched--;
        }
        pullVc[slot] = null;
        head++;
        posted = false;
        done = false;
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
