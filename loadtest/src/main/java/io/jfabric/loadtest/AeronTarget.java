package io.jfabric.loadtest;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.jfabric.Errno;
import org.agrona.BitUtil;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * An Aeron ping-pong pair in this process, the peer jfabric is compared with: an embedded media driver (shared
 * threading mode, its own directory, deleted on close), a ping publication and subscription on stream 1001 and a
 * pong pair on stream 1002, over IPC ({@code aeron:ipc}) or UDP on the loopback interface. Over UDP the
 * answering side has a driver of its own (in a subdirectory), so that each message passes a sending and a
 * receiving driver as between two hosts and as in the jfabric aeron pair (two fabrics, each with its driver).
 * The answering side (a thread of its own) offers every ping back as a pong; messages arrive in order, so the k-th
 * pong completes the k-th ping. Opened one way ({@link #openOneWay}, {@code jfabric bench -m stream}) the
 * answering side only counts the pings (checking that those of 8 bytes or more arrive in order) and a ping
 * completes when it was received, as in Aeron's throughput samples.
 * <p>
 * Term buffers are 4 MiB (messages up to 512 KiB), so a run maps 12 MiB per publication instead of Aeron's 48 MiB
 * (IPC: 192 MiB) defaults. Data path: no allocation. Threading: one thread drives {@link #start}/{@link #poll}.
 */
public final class AeronTarget implements LoadTarget, FragmentHandler
{
    /** Aeron's transports. */
    public enum Kind
    {
        /** Shared memory between publication and subscription, no driver thread in the data path. */
        IPC("aeron ipc"),
        /** UDP over the loopback interface through the driver's sender and receiver. */
        UDP("aeron udp");

        private final String label;

        Kind(final String label)
        {
            this.label = label;
        }

        /**
         * @return {@code aeron ipc} or {@code aeron udp}.
         */
        public String label()
        {
            return label;
        }
    }

    /**
     * Term buffer length of every publication for messages up to an eighth of it; larger messages get the next power
     * of two of eight times their size ({@link #termLength}), so that 1 MiB goes whole as in the jfabric pairs.
     */
    public static final int TERM_LENGTH = 4 * 1024 * 1024;
    private static final int MAX_TERM_LENGTH = 1 << 30;
    private static final int PING_STREAM = 1001;
    private static final int PONG_STREAM = 1002;
    private static final int FRAGMENT_LIMIT = 16;

    private final Kind kind;
    private final int size;
    private final int window;
    private final long timeoutNs;
    private final File dir;
    private final MediaDriver driver;
    private final Aeron aeron;
    /** UDP: the answering side's own driver and client (as across hosts, and as the jfabric pairs' two fabrics). */
    private final MediaDriver answerDriver;
    private final Aeron answerAeron;
    private final ExclusivePublication ping;
    private final Subscription pong;
    private final ExclusivePublication echo;
    private final Subscription echoSubscription;
    private final UnsafeBuffer buffer;
    private final FragmentAssembler pongAssembler = new FragmentAssembler(this);
    private final FragmentAssembler echoAssembler;
    private final IdleStrategy answerIdle;
    private final Thread answerThread;
    private LoadTarget.CompletionHandler handler;
    private final boolean oneWay;
    private long arrivalSeq;
    private int polled;
    /** One way: pings counted by the answering side (its thread only). */
    private long pings;
    /** One way: pings reported to the rig so far (the measuring thread). */
    private long reported;
    /** One way: what the answering side published of {@link #pings}. */
    private volatile long received;
    private volatile boolean stopped;
    private volatile int answerError;

    private AeronTarget(
        final Kind kind, final int size, final int window, final String idle, final File dir, final long timeoutMs,
        final boolean oneWay)
    {
        this.kind = kind;
        this.oneWay = oneWay;
        this.size = size;
        this.window = window;
        this.timeoutNs = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        this.dir = dir;
        this.buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(Long.BYTES, size)));
        this.answerIdle = PingpongEndpoint.waitStrategy(idle, Kind.UDP == kind);
        final int termLength = termLength(size);
        final MediaDriver.Context ctx = driverContext(dir.getAbsolutePath(), termLength);
        MediaDriver d = null;
        Aeron a = null;
        MediaDriver d2 = null;
        Aeron a2 = null;
        try
        {
            d = MediaDriver.launch(ctx);
            a = Aeron.connect(new Aeron.Context().aeronDirectoryName(dir.getAbsolutePath()));
            if (Kind.UDP == kind)
            {
                final String answerDir = new File(dir, "answer").getAbsolutePath();
                d2 = MediaDriver.launch(driverContext(answerDir, termLength));
                a2 = Aeron.connect(new Aeron.Context().aeronDirectoryName(answerDir));
            }
            final Aeron answering = null == a2 ? a : a2;
            final String pingChannel = channel(kind);
            final String pongChannel = channel(kind);
            ping = a.addExclusivePublication(pingChannel, PING_STREAM);
            echoSubscription = answering.addSubscription(pingChannel, PING_STREAM);
            echo = answering.addExclusivePublication(pongChannel, PONG_STREAM);
            pong = a.addSubscription(pongChannel, PONG_STREAM);
            if (size > ping.maxMessageLength())
            {
                throw new IllegalArgumentException("size " + size + " is above Aeron's max message length " +
                    ping.maxMessageLength() + " (term length " + termLength + ")");
            }
            awaitConnected(timeoutNs);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(a2, d2, a, d);
            IoUtil.delete(dir, true);
            throw ex;
        }
        driver = d;
        aeron = a;
        answerDriver = d2;
        answerAeron = a2;
        echoAssembler = new FragmentAssembler(oneWay ? this::count : this::echo);
        answerThread = new Thread(this::answer, "jfabric-loadtest-aeron-answer");
        answerThread.setDaemon(true);
        answerThread.start();
    }

    private static MediaDriver.Context driverContext(final String dir, final int termLength)
    {
        return new MediaDriver.Context()
            .aeronDirectoryName(dir)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy())
            .ipcTermBufferLength(termLength)
            .publicationTermBufferLength(termLength)
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .warnIfDirectoryExists(false);
    }

    /**
     * Launch a driver in {@code dir} and connect the pair.
     *
     * @param kind      IPC or UDP.
     * @param size      message size in bytes.
     * @param window    operations in flight at most (rounded up to a power of two).
     * @param idle      the answering side's idle strategy ({@code backoff}, {@code spin}, {@code yield}).
     * @param dir       the driver's directory (created, and deleted on close).
     * @param timeoutMs the longest the connection and a back-pressured echo may take.
     * @return the pair.
     * @throws IllegalArgumentException when {@code size} is above the publication's max message length.
     */
    public static AeronTarget open(
        final Kind kind, final int size, final int window, final String idle, final File dir, final long timeoutMs)
    {
        return new AeronTarget(kind, size, BitUtil.findNextPositivePowerOfTwo(Math.max(1, window)), idle, dir,
            timeoutMs, false);
    }

    /**
     * Launch a driver in {@code dir} and connect a one-way pair: pings are counted, not echoed.
     *
     * @param kind      IPC or UDP.
     * @param size      message size in bytes.
     * @param window    pings sent and not yet received at most (rounded up to a power of two).
     * @param idle      the answering side's idle strategy ({@code backoff}, {@code spin}, {@code yield}).
     * @param dir       the driver's directory (created, and deleted on close).
     * @param timeoutMs the longest the connection may take.
     * @return the pair.
     * @throws IllegalArgumentException when {@code size} is above the publication's max message length.
     */
    public static AeronTarget openOneWay(
        final Kind kind, final int size, final int window, final String idle, final File dir, final long timeoutMs)
    {
        return new AeronTarget(kind, size, BitUtil.findNextPositivePowerOfTwo(Math.max(1, window)), idle, dir,
            timeoutMs, true);
    }

    /**
     * @param size the message size.
     * @return {@link #TERM_LENGTH}, or for a message above an eighth of it the next power of two of eight times its
     * size (at most 1 GiB, Aeron's limit).
     */
    static int termLength(final int size)
    {
        final long wanted = 8L * Math.max(1, size);
        return wanted <= TERM_LENGTH ? TERM_LENGTH :
            (int) Math.min(MAX_TERM_LENGTH, BitUtil.findNextPositivePowerOfTwo(wanted));
    }

    private static String channel(final Kind kind)
    {
        if (Kind.IPC == kind)
        {
            return "aeron:ipc";
        }
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            // a free port now; the driver binds it a moment later
            return "aeron:udp?endpoint=127.0.0.1:" + socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private void awaitConnected(final long timeout)
    {
        final long deadline = System.nanoTime() + timeout;
        while (!(ping.isConnected() && echo.isConnected() && pong.isConnected() && echoSubscription.isConnected()))
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException(kind.label() + ": publications not connected within " +
                    TimeUnit.NANOSECONDS.toMillis(timeout) + " ms");
            }
            Thread.yield();
        }
    }

    @Override
    public String label()
    {
        return kind.label() + (oneWay ? " one-way" : "");
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
        if (size >= Long.BYTES)
        {
            buffer.putLong(0, seq);
        }
        final long position = ping.offer(buffer, 0, size);
        if (position > 0)
        {
            return 1;
        }
        if (Publication.BACK_PRESSURED == position || Publication.ADMIN_ACTION == position)
        {
            return 0;
        }
        return Errno.ENOTCONN.negated();
    }

    @Override
    public int poll(final LoadTarget.CompletionHandler handler)
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
        if (oneWay)
        {
            final long arrived = received;
            final long from = reported;
            final long now = System.nanoTime();
            for (long seq = from; seq < arrived; seq++)
            {
                handler.onComplete(seq, now);
            }
            reported = arrived;
            return (int) (arrived - from);
        }
        this.handler = handler;
        polled = 0;
        pong.poll(pongAssembler, FRAGMENT_LIMIT);
        return polled;
    }

    /**
     * One way, on the answering side: a ping arrived; check its order and count it.
     */
    private void count(final DirectBuffer message, final int offset, final int length, final Header header)
    {
        if (length >= Long.BYTES && message.getLong(offset) != pings)
        {
            answerError = Errno.ENOMSG.value();
            stopped = true;
            return;
        }
        pings++;
    }

    /**
     * A pong arrived (the measuring side's thread, inside {@link #poll}).
     *
     * @param message the pong.
     * @param offset  where it starts.
     * @param length  its length.
     * @param header  its header.
     */
    @Override
    public void onFragment(final DirectBuffer message, final int offset, final int length, final Header header)
    {
        final long now = System.nanoTime();
        final long seq = length >= Long.BYTES ? message.getLong(offset) : arrivalSeq;
        arrivalSeq++;
        polled++;
        handler.onComplete(seq, now);
    }

    private void echo(final DirectBuffer message, final int offset, final int length, final Header header)
    {
        final long deadline = System.nanoTime() + timeoutNs;
        long position;
        while ((position = echo.offer(message, offset, length)) < 0)
        {
            if (stopped)
            {
                return;
            }
            if (Publication.BACK_PRESSURED != position && Publication.ADMIN_ACTION != position ||
                System.nanoTime() - deadline > 0)
            {
                answerError = Publication.BACK_PRESSURED == position ? Errno.ETIMEDOUT.value() :
                    Errno.ENOTCONN.value();
                stopped = true;
                return;
            }
            Thread.onSpinWait();
        }
    }

    private void answer()
    {
        final IdleStrategy idle = answerIdle;
        final FragmentAssembler assembler = echoAssembler;
        while (!stopped)
        {
            final int fragments = echoSubscription.poll(assembler, FRAGMENT_LIMIT);
            if (oneWay && pings != received)
            {
                received = pings;
            }
            idle.idle(fragments);
        }
    }

    @Override
    public void abort()
    {
        stopped = true;
    }

    /**
     * Stop the answering thread, close the client and the driver, and delete the driver's directory.
     */
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
        CloseHelper.quietCloseAll(answerAeron, answerDriver, aeron, driver);
        IoUtil.delete(dir, true);
    }
}
