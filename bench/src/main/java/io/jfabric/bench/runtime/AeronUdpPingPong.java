package io.jfabric.bench.runtime;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import org.HdrHistogram.Histogram;
import org.agrona.BufferUtil;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Aeron's own UDP ping-pong between two processes (two hosts or two network namespaces), as the reference for
 * {@code jfabric pingpong -p aeron} across hosts (bench/aeron-targets.sh): each side embeds a media driver set up as
 * the aeron provider sets up its own (SHARED threading, Agrona's default {@link BackoffIdleStrategy}, sparse term
 * files), one exclusive publication to the other side and one subscription; the application threads idle with the
 * same backoff strategy as {@code jfabric pingpong}'s default. The ping side prints one JSON line with the round
 * trip percentiles in nanoseconds.
 * <pre>
 * pong: java -cp benchmarks.jar io.jfabric.bench.runtime.AeronUdpPingPong pong OWN_HOST:PORT PEER_HOST:PORT COUNT
 * ping: java -cp benchmarks.jar io.jfabric.bench.runtime.AeronUdpPingPong ping OWN_HOST:PORT PEER_HOST:PORT \
 *       SIZE WARMUP ITERATIONS
 * </pre>
 * The pong side exits after echoing COUNT (= WARMUP + ITERATIONS) messages.
 */
public final class AeronUdpPingPong
{
    private static final int STREAM = 1001;
    private static final long CONNECT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    private AeronUdpPingPong()
    {
    }

    /**
     * @param args {@code ping OWN PEER SIZE WARMUP ITERATIONS} or {@code pong OWN PEER COUNT}.
     * @throws Exception on a failure.
     */
    public static void main(final String[] args) throws Exception
    {
        final boolean ping = "ping".equals(args[0]);
        final String dir = System.getProperty("java.io.tmpdir") + File.separator + "jfabric-aeron-pp-" +
            UUID.randomUUID();
        final MediaDriver.Context context = new MediaDriver.Context()
            .aeronDirectoryName(dir)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy())
            .termBufferSparseFile(true)
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true);
        try (MediaDriver driver = MediaDriver.launch(context);
            Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
            Subscription in = aeron.addSubscription("aeron:udp?endpoint=" + args[1], STREAM);
            ExclusivePublication out = aeron.addExclusivePublication("aeron:udp?endpoint=" + args[2], STREAM))
        {
            final IdleStrategy idle = new BackoffIdleStrategy();
            final long deadline = System.nanoTime() + CONNECT_TIMEOUT_NS;
            while (!out.isConnected() || !in.isConnected())
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("not connected within 30 s");
                }
                idle.idle();
            }
            if (ping)
            {
                ping(in, out, idle, Integer.parseInt(args[3]), Integer.parseInt(args[4]), Integer.parseInt(args[5]));
            }
            else
            {
                pong(in, out, idle, Long.parseLong(args[3]));
            }
        }
    }

    private static void pong(
        final Subscription in, final ExclusivePublication out, final IdleStrategy idle, final long count)
    {
        final long[] echoed = new long[1];
        final FragmentHandler echo = new FragmentAssembler((buffer, offset, length, header) ->
        {
            while (out.offer(buffer, offset, length) < 0)
            {
                idle.idle();
            }
            echoed[0]++;
        });
        while (echoed[0] < count)
        {
            idle.idle(in.poll(echo, 16));
        }
        System.out.println("PONG echoed " + echoed[0]);
    }

    private static void ping(
        final Subscription in, final ExclusivePublication out, final IdleStrategy idle, final int size,
        final int warmup, final int iterations)
    {
        final UnsafeBuffer message = new UnsafeBuffer(BufferUtil.allocateDirectAligned(Math.max(8, size), 64));
        final long[] got = new long[1];
        final FragmentHandler onReply = new FragmentAssembler((buffer, offset, length, header) -> got[0]++);
        final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        for (int i = 0; i < warmup + iterations; i++)
        {
            final long start = System.nanoTime();
            message.putLong(0, start);
            while (out.offer(message, 0, size) < 0)
            {
                idle.idle();
            }
            final long expected = got[0] + 1;
            while (got[0] < expected)
            {
                idle.idle(in.poll(onReply, 1));
            }
            if (i >= warmup)
            {
                histogram.recordValue(System.nanoTime() - start);
            }
        }
        System.out.println(String.format(Locale.ROOT,
            "{\"size\":%d,\"iterations\":%d,\"rtt_ns\":{\"p50\":%d,\"p99\":%d,\"p999\":%d,\"max\":%d,\"mean\":%.1f}}",
            size, iterations, histogram.getValueAtPercentile(50), histogram.getValueAtPercentile(99),
            histogram.getValueAtPercentile(99.9), histogram.getMaxValue(), histogram.getMean()));
    }
}
