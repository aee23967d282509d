package io.jfabric.bench.runtime;

import io.jfabric.Progress;
import org.HdrHistogram.Histogram;

/**
 * HdrHistogram latency harness for the inproc tagged ping-pong driven from one thread (the two-thread form is
 * {@code jfabric pingpong -p inproc}): warm-up, then {@code iterations} timed round
 * trips; prints the RTT percentiles in nanoseconds.
 * <p>
 * Usage: {@code InprocPingPongHarness [MANUAL|AUTO] [idle] [size] [iterations] [warmup]}.
 */
public final class InprocPingPongHarness
{
    private InprocPingPongHarness()
    {
    }

    /**
     * Run it.
     *
     * @param args progress, idle strategy, size, iterations, warm-up iterations.
     */
    public static void main(final String[] args)
    {
        final Progress progress = args.length > 0 ? Progress.valueOf(args[0]) : Progress.MANUAL;
        final String idle = args.length > 1 ? args[1] : "backoff";
        final int size = args.length > 2 ? Integer.parseInt(args[2]) : 64;
        final int iterations = args.length > 3 ? Integer.parseInt(args[3]) : 1_000_000;
        final int warmup = args.length > 4 ? Integer.parseInt(args[4]) : 200_000;
        final Histogram histogram = new Histogram(60_000_000_000L, 3);
        try (InprocPingPong pingPong = new InprocPingPong(progress, idle, size))
        {
            for (int i = 0; i < warmup; i++)
            {
                pingPong.roundTrip();
            }
            for (int i = 0; i < iterations; i++)
            {
                final long start = System.nanoTime();
                pingPong.roundTrip();
                histogram.recordValue(System.nanoTime() - start);
            }
        }
        System.out.printf("inproc tagged ping-pong %s idle=%s size=%d iterations=%d%n", progress, idle, size,
            iterations);
        System.out.printf("RTT ns: p50=%d p90=%d p99=%d p99.9=%d p99.99=%d max=%d mean=%.1f%n",
            histogram.getValueAtPercentile(50), histogram.getValueAtPercentile(90),
            histogram.getValueAtPercentile(99), histogram.getValueAtPercentile(99.9),
            histogram.getValueAtPercentile(99.99), histogram.getMaxValue(), histogram.getMean());
    }
}
