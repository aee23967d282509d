package io.jfabric.loadtest;

import io.jfabric.AddressVector;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import org.agrona.BitUtil;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * A jfabric pair in this process: a measuring side and an answering side, each with its own fabric, domain,
 * completion queue and RDM endpoint (as {@code jfabric pingpong} runs them), for one {@link OpClass}.
 * <ul>
 *     <li>{@code msg}/{@code tagged}: the measuring side keeps {@link #window()} receives posted; the answering
 *     side (a thread of its own) echoes every message back from the buffer it arrived in and reposts that receive
 *     once the echo left. Sends below the inject size go by {@code fi_inject}, larger ones by {@code fi_send}.
 *     Messages of 8 bytes or more carry their sequence number; smaller ones are matched in arrival order.</li>
 *     <li>{@code msg}/{@code tagged} one way ({@link #openOneWay}, {@code jfabric bench -m stream}): the measuring
 *     side only sends; the answering side keeps {@link #window()} receives posted, reposts each one as it completes,
 *     checks that messages of 8 bytes or more arrive in the order sent (anything else fails the run with
 *     {@code -ENOMSG}) and publishes how many arrived. An operation completes when the answering side has received
 *     it (messages arrive in order, so the k-th arrival completes the k-th send).</li>
 *     <li>{@code write}/{@code read}/{@code atomic}: the answering side registers {@code window × size} bytes
 *     (remote read and write) and only runs its domain (its duty cycle, with manual progress); each operation
 *     targets its own slot and completes at the measuring side with the sequence number as its context.</li>
 * </ul>
 * Data path (start, poll): no allocation; back-pressure ({@code -EAGAIN}) is returned as 0. Threading: one thread
 * drives {@link #start}/{@link #poll}; the answering side runs on the thread {@code jfabric-loadtest-answer}.
 */
public final class FabricTarget implements LoadTarget
{
    /** The tag of every load-test message in tagged mode. */
    public static final long TAG = 0x4c54;
    /** The key the answering side registers its memory with. */
    public static final long MR_KEY = 0x4a46_4c54L;
    private static final long RECV_BIT = 1L << 62;
    private static final long SEND_BIT = 1L << 61;
    private static final long SLOT_MASK = (1L << 32) - 1;
    private static final int CACHE_LINE = 64;
    private static final int EAGAIN = Errno.EAGAIN.negated();
    private static final int EAVAIL = Errno.EAVAIL.negated();
    /** One way, manual progress: duty cycles one poll runs at most while they find work. */
    private static final int MAX_STREAM_CYCLES = 32;

    private final String label;
    private final OpClass op;
    private final int size;
    private final int window;
    private final long timeoutNs;
    private final Side measuring;
    private final Side answering;
    private final MemoryRegion region;
    private final Thread answerThread;
    private final IdleStrategy answerIdle;
    /**
     * Over a network (aeron): one duty cycle per poll of the measuring side and per idle round of the answering side
     * (a CQ read that finds the queue empty with manual progress runs one; an explicit {@code progress()} before it
     * made two), as Aeron's pair polls once per round.
     */
    private final boolean oneCycle;
    private final CompletionEntry entry = new CompletionEntry();
    private final CompletionEntry answerEntry = new CompletionEntry();
    private final CompletionErrorEntry errorEntry = new CompletionErrorEntry();
    private final boolean oneWay;
    private long arrivalSeq;
    /** One way: arrivals reported to the rig so far (the measuring thread). */
    private long reported;
    /** One way: messages the answering side received (written by it only). */
    private volatile long received;
    private volatile boolean stopped;
    private volatile int answerError;

    private FabricTarget(
        final Info info, final OpClass op, final int size, final int window, final String idle, final long timeoutMs,
        final boolean oneWay)
    {
        if (oneWay && !op.echoed())
        {
            throw new IllegalArgumentException("one way: msg or tagged only, not " + op.label());
        }
        this.op = op;
        this.oneWay = oneWay;
        this.size = OpClass.ATOMIC == op ? Long.BYTES : size;
        this.window = window;
        this.timeoutNs = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        this.label = info.fabricAttr().provName() + " " + op.label() + (oneWay ? " one-way" : "");
        final int slot = slotSize(this.size);
        final boolean shared = op.echoed();
        Side a = null;
        Side b = null;
        MemoryRegion mr = null;
        try
        {
            a = new Side(info, idle, op, window, slot, shared);
            b = new Side(info, idle, op, window, slot, shared);
            a.peer = a.av.insert(b.ep.name());
            b.peer = b.av.insert(a.ep.name());
            if (!op.echoed())
            {
                mr = b.domain.registerMemory(b.buffer, 0, window * slot, Flags.REMOTE_READ | Flags.REMOTE_WRITE,
                    MR_KEY);
            }
        }
        catch (final RuntimeException ex)
        {
            closeQuietly(mr);
            if (null != a)
            {
                a.close();
            }
            if (null != b)
            {
                b.close();
            }
            throw ex;
        }
        this.measuring = a;
        this.answering = b;
        this.region = mr;
        this.answerIdle = PingpongEndpoint.waitStrategy(idle, PingpongEndpoint.overNetwork(info));
        this.oneCycle = PingpongEndpoint.overNetwork(info);
        if (op.echoed())
        {
            for (int s = 0; s < window; s++)
            {
                if (!oneWay)
                {
                    checkPosted(measuring.postRecv(s, this.size), "measuring side's receive");
                }
                checkPosted(postInitial(answering, s), "answering side's receive");
            }
        }
        answerThread = new Thread(this::answer, "jfabric-loadtest-answer");
        answerThread.setDaemon(true);
        answerThread.start();
    }

    /**
     * Open a pair and start its answering side.
     *
     * @param info      the info (from {@link FabricInfos#resolve}); its caps must include {@link OpClass#caps()}.
     * @param op        what is timed.
     * @param size      message size in bytes (atomics: always 8).
     * @param window    operations in flight at most (rounded up to a power of two).
     * @param idle      idle strategy of the AUTO progress threads and of the answering side
     *                  ({@code backoff}, {@code spin}, {@code yield}).
     * @param timeoutMs the longest the answering side retries a back-pressured echo.
     * @return the pair.
     * @throws FabricException when the provider refuses an object.
     */
    public static FabricTarget open(
        final Info info, final OpClass op, final int size, final int window, final String idle, final long timeoutMs)
    {
        if (size < 0 || size > info.epAttr().maxMsgSize())
        {
            throw new FabricException(Errno.EMSGSIZE, "size " + size + " is outside 0.." +
                info.epAttr().maxMsgSize() + " (" + info.fabricAttr().provName() + "'s max_msg_size)");
        }
        return new FabricTarget(info, op, size, BitUtil.findNextPositivePowerOfTwo(Math.max(1, window)), idle,
            timeoutMs, false);
    }

    /**
     * Open a one-way pair (msg or tagged): the measuring side streams, the answering side counts what arrived.
     *
     * @param info      the info (from {@link FabricInfos#resolve}); its caps must include {@link OpClass#caps()}.
     * @param op        {@link OpClass#MSG} or {@link OpClass#TAGGED}.
     * @param size      message size in bytes.
     * @param window    messages sent and not yet received at most, and receives the answering side keeps posted
     *                  (rounded up to a power of two).
     * @param idle      idle strategy of the AUTO progress threads and of the answering side.
     * @param timeoutMs the longest the initial receives may wait for room in the command ring.
     * @return the pair.
     * @throws FabricException when the provider refuses an object.
     * @throws IllegalArgumentException when {@code op} is not a message class.
     */
    public static FabricTarget openOneWay(
        final Info info, final OpClass op, final int size, final int window, final String idle, final long timeoutMs)
    {
        if (size < 0 || size > info.epAttr().maxMsgSize())
        {
            throw new FabricException(Errno.EMSGSIZE, "size " + size + " is outside 0.." +
                info.epAttr().maxMsgSize() + " (" + info.fabricAttr().provName() + "'s max_msg_size)");
        }
        return new FabricTarget(info, op, size, BitUtil.findNextPositivePowerOfTwo(Math.max(1, window)), idle,
            timeoutMs, true);
    }

    /**
     * Post a receive of the answering side before its thread runs: a full command ring (a large window) is drained by
     * running the domain (manual progress) or by waiting for its progress thread, within the timeout.
     */
    private int postInitial(final Side s, final int slot)
    {
        final long deadline = System.nanoTime() + timeoutNs;
        int rc;
        while (EAGAIN == (rc = s.postRecv(slot, size)) && System.nanoTime() - deadline < 0)
        {
            if (s.manual)
            {
                s.domain.progress();
            }
            else
            {
                Thread.yield();
            }
        }
        return rc;
    }

    private static int slotSize(final int size)
    {
        return BitUtil.align(Math.max(Long.BYTES, size), CACHE_LINE);
    }

    private static void checkPosted(final int rc, final String what)
    {
        if (0 != rc)
        {
            throw new FabricException(Errno.of(-rc), what + " could not be posted: " + Errno.strerror(-rc));
        }
    }

    @Override
    public String label()
    {
        return label;
    }

    @Override
    public int size()
    {
        return size;
    }

    @Override
    public int window()
    {
        return window;
    }

    @Override
    public int start(final long seq)
    {
        if (stopped)
        {
            return Errno.ECANCELED.negated();
        }
        final Side s = measuring;
        final int slot = (int) (seq & (window - 1));
        final int tx = s.txOffset(slot);
        final int rc;
        switch (op)
        {
            case MSG:
            case TAGGED:
                if (size >= Long.BYTES)
                {
                    s.buffer.putLong(tx, seq);
                }
                rc = s.send(tx, size, SEND_BIT | slot);
                break;
            case RMA_WRITE:
                rc = s.ep.write(s.buffer, tx, size, s.peer, (long) slot * s.slot, MR_KEY, seq);
                break;
            case RMA_READ:
                rc = s.ep.read(s.buffer, s.rxOffset(slot), size, s.peer, (long) slot * s.slot, MR_KEY, seq);
                break;
            default:
                s.buffer.putLong(tx, 1);
                rc = s.ep.fetchAtomic(s.buffer, tx, 1, s.buffer, s.rxOffset(slot), s.peer, (long) slot * s.slot,
                    MR_KEY, AtomicDatatype.UINT64, AtomicOp.SUM, seq);
                break;
        }
        if (0 == rc)
        {
            return 1;
        }
        return EAGAIN == rc ? 0 : rc;
    }

    @Override
    public int poll(final CompletionHandler handler)
    {
        final int failed = answerError;
        if (0 != failed)
        {
            return -failed;
        }
        if (stopped)
        {
            return Errno.ECANCELED.negated();
        }
        final Side s = measuring;
        if (oneWay)
        {
            return pollOneWay(s, handler);
        }
        if (s.manual && !oneCycle)
        {
            s.domain.progress();
        }
        final CompletionEntry e = entry;
        final boolean echoed = op.echoed();
        int completed = 0;
        int rc;
        while (1 == (rc = s.cq.read(e)))
        {
            final long context = e.context();
            if (!echoed)
            {
                completed++;
                handler.onComplete(context, System.nanoTime());
            }
            else if (0 != (context & RECV_BIT))
            {
                final long now = System.nanoTime();
                final int slot = (int) (context & SLOT_MASK);
                final long seq = size >= Long.BYTES ? s.buffer.getLong(s.rxOffset(slot)) : arrivalSeq;
                arrivalSeq++;
                final int posted = s.postRecv(slot, size);
                if (0 != posted)
                {
                    return posted;
                }
                completed++;
                handler.onComplete(seq, now);
            }
            // else: a send's completion; its slot is reused once the echo arrived
        }
        if (EAVAIL == rc)
        {
            return readError(s.cq);
        }
        return completed;
    }

    /**
     * One way: the measuring side's CQ holds only send completions (none for injects); an operation completes when
     * the answering side counted it.
     */
    private int pollOneWay(final Side s, final CompletionHandler handler)
    {
        if (s.manual)
        {
            // A burst leaves up to a window of sends in the command ring and a duty cycle takes 64 of them: run the
            // domain while it has work (bounded), as a streaming application would, instead of idling with sends
            // still queued (the rig idles on no completion).
            for (int cycles = 0; cycles < MAX_STREAM_CYCLES && s.domain.progress() > 0; cycles++)
            {
                // the duty cycle did the work
            }
        }
        final CompletionEntry e = entry;
        int rc;
        while (1 == (rc = s.cq.read(e)))
        {
            // a send's completion: its buffer slot is reused once the message was received
        }
        if (EAVAIL == rc)
        {
            return readError(s.cq);
        }
        final long arrived = received;
        final long from = reported;
        if (arrived == from)
        {
            return 0;
        }
        final long now = System.nanoTime();
        for (long seq = from; seq < arrived; seq++)
        {
            handler.onComplete(seq, now);
        }
        reported = arrived;
        return (int) (arrived - from);
    }

    private int readError(final CompletionQueue cq)
    {
        if (1 == cq.readErr(errorEntry))
        {
            return -Math.max(1, errorEntry.err());
        }
        return Errno.EIO.negated();
    }

    /**
     * The answering side's loop: echo messages (msg, tagged) or only run the domain (one-sided operations).
     */
    private void answer()
    {
        final Side s = answering;
        final IdleStrategy idle = answerIdle;
        final boolean echoed = op.echoed();
        final CompletionEntry e = answerEntry;
        int rounds = 0;
        while (!stopped)
        {
            int work = s.manual ? s.domain.progress() : 0;
            // One cycle: read when the duty cycle did work (or once in 8 rounds), not a second cycle per round.
            if (echoed && (!oneCycle || !s.manual || work > 0 || 0 == (++rounds & 7)))
            {
                int rc;
                while (1 == (rc = s.cq.read(e)))
                {
                    work++;
                    final int failed = oneWay ? onArrival(s, e.context()) :
                        onAnswerCompletion(s, e.context(), (int) e.len());
                    if (0 != failed)
                    {
                        answerError = -failed;
                        return;
                    }
                }
                if (EAVAIL == rc)
                {
                    answerError = -readError(s.cq);
                    return;
                }
                if (oneWay && arrivalSeq != received)
                {
                    received = arrivalSeq;
                }
            }
            idle.idle(work);
        }
    }

    /**
     * One way, on the answering side: a message arrived; check its order, repost its receive and count it.
     */
    private int onArrival(final Side s, final long context)
    {
        if (0 == (context & RECV_BIT))
        {
            return 0;
        }
        final int slot = (int) (context & SLOT_MASK);
        if (size >= Long.BYTES && s.buffer.getLong(s.rxOffset(slot)) != arrivalSeq)
        {
            return Errno.ENOMSG.negated();
        }
        arrivalSeq++;
        return s.postRecv(slot, size);
    }

    private int onAnswerCompletion(final Side s, final long context, final int length)
    {
        final int slot = (int) (context & SLOT_MASK);
        if (0 != (context & RECV_BIT))
        {
            final int offset = s.rxOffset(slot);
            final boolean inject = length < s.injectSize;
            final long deadline = System.nanoTime() + timeoutNs;
            int rc;
            while (EAGAIN == (rc = s.send(offset, length, SEND_BIT | slot)))
            {
                if (stopped)
                {
                    return Errno.ECANCELED.negated();
                }
                if (System.nanoTime() - deadline > 0)
                {
                    return Errno.ETIMEDOUT.negated();
                }
                if (s.manual)
                {
                    s.domain.progress();
                }
                Thread.onSpinWait();
            }
            if (0 != rc)
            {
                return rc;
            }
            // an inject copied the payload: the buffer is free at once; a send frees it on its completion
            return inject ? s.postRecv(slot, size) : 0;
        }
        return 0 != (context & SEND_BIT) ? s.postRecv(slot, size) : 0;
    }

    @Override
    public void abort()
    {
        stopped = true;
    }

    @Override
    public void close()
    {
        stopped = true;
        try
        {
            answerThread.join(TimeUnit.NANOSECONDS.toMillis(timeoutNs) + 1_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        measuring.close();
        closeQuietly(region);
        answering.close();
    }

    private static void closeQuietly(final AutoCloseable... resources)
    {
        for (final AutoCloseable r : resources)
        {
            if (null != r)
            {
                try
                {
                    r.close();
                }
                catch (final Exception ignore)
                {
                    // tearing down after a failure: an object may refuse (EBUSY); nothing to add
                }
            }
        }
    }

    /**
     * One side's objects and its buffer: {@code window} transmit slots, then {@code window} receive slots.
     */
    private static final class Side
    {
        private final Fabric fabric;
        private final Domain domain;
        private final AddressVector av;
        private final CompletionQueue cq;
        private final Endpoint ep;
        private final UnsafeBuffer buffer;
        private final boolean tagged;
        private final boolean manual;
        private final int injectSize;
        private final int window;
        private final int slot;
        private long peer = AddressVector.ADDR_UNSPEC;

        Side(final Info info, final String idle, final OpClass op, final int window, final int slot,
            final boolean shared)
        {
            this.tagged = OpClass.TAGGED == op;
            this.window = window;
            this.slot = slot;
            this.injectSize = (int) Math.min(Integer.MAX_VALUE, info.txAttr().injectSize());
            fabric = Fabric.open(info);
            Domain d = null;
            AddressVector v = null;
            CompletionQueue q = null;
            try
            {
                d = fabric.domain(info, idle);
                v = d.addressVector(AvType.TABLE, 1);
                q = d.completionQueue(4 * window + 64, tagged ? CqFormat.TAGGED : CqFormat.MSG);
                ep = d.endpoint(info).bind(v, 0).bind(q, Flags.TRANSMIT).bind(q, Flags.RECV).enable();
            }
            catch (final RuntimeException ex)
            {
                closeQuietly(q, v, d, fabric);
                throw ex;
            }
            domain = d;
            av = v;
            cq = q;
            manual = d.manualProgress();
            buffer = buffer(d, 2 * window * slot, shared);
        }

        private static UnsafeBuffer buffer(final Domain domain, final int capacity, final boolean shared)
        {
            if (shared)
            {
                try
                {
                    // shm moves large messages from its pool with a single copy
                    return new UnsafeBuffer(domain.allocateShared(capacity));
                }
                catch (final FabricException ex)
                {
                    // EOPNOTSUPP (no pool) or ENOMEM: plain direct memory below
                }
            }
            return new UnsafeBuffer(ByteBuffer.allocateDirect(capacity));
        }

        int txOffset(final int index)
        {
            return index * slot;
        }

        int rxOffset(final int index)
        {
            return (window + index) * slot;
        }

        int postRecv(final int index, final int length)
        {
            final int offset = rxOffset(index);
            final long context = RECV_BIT | index;
            return tagged ? ep.trecv(buffer, offset, length, AddressVector.ADDR_UNSPEC, TAG, 0, context) :
                ep.recv(buffer, offset, length, AddressVector.ADDR_UNSPEC, context);
        }

        int send(final int offset, final int length, final long context)
        {
            if (length < injectSize)
            {
                return tagged ? ep.tinject(buffer, offset, length, peer, TAG) : ep.inject(buffer, offset, length, peer);
            }
            return tagged ? ep.tsend(buffer, offset, length, peer, TAG, context) :
                ep.send(buffer, offset, length, peer, context);
        }

        void close()
        {
            closeQuietly(ep, cq, av, domain, fabric);
        }
    }
}
