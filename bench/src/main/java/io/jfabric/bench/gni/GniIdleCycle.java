package io.jfabric.bench.gni;

import io.jfabric.Domain;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The idle duty cycle of a domain of {@link GniVsShmPingPongBenchmark}'s warmed-up pair: thread-CPU nanoseconds of one
 * {@code Domain.progress()} that finds nothing to do, for {@code gni} against {@code shm}. A round trip runs several
 * such cycles (bench/README.md, "gni against shm"), and this figure, unlike the round trip's, hardly moves with the
 * host's load: a tight loop of one thread with nothing to wait for.
 * <p>
 * Usage (from a built tree, in the JVM options the benchmark's fork uses):
 * <pre>
 * java --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
 *     --add-opens=java.base/java.nio=ALL-UNNAMED -Djfabric.gni.wire=shm -cp bench/target/benchmarks.jar \
 *     io.jfabric.bench.gni.GniIdleCycle PROVIDER CYCLES
 * </pre>
 * It runs 200,000 round trips (warm-up), then 5 rounds of {@code CYCLES} idle cycles of domain A, and prints each
 * round's nanoseconds per cycle and the lowest.
 * <p>
 * Threading: one thread (plus gni's NIC engine thread, which stays out while the domain's cycle steps the node).
 */
public final class GniIdleCycle
{
    private static final int WARM_UP_ROUND_TRIPS = 200_000;
    private static final int ROUNDS = 5;

    private GniIdleCycle()
    {
    }

    /**
     * Run it.
     *
     * @param args provider ({@code gni} or {@code shm}), idle cycles per round.
     */
    public static void main(final String[] args)
    {
        if (2 != args.length)
        {
            System.err.println("usage: GniIdleCycle PROVIDER CYCLES");
            System.exit(2);
        }
        final GniVsShmPingPongBenchmark pair = new GniVsShmPingPongBenchmark();
        pair.provider = args[0];
        pair.size = 64;
        final int cycles = Integer.parseInt(args[1]);
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        pair.setup();
        try
        {
            for (int i = 0; i < WARM_UP_ROUND_TRIPS; i++)
            {
                pair.roundTrip();
            }
            final Domain domain = pair.domainA();
            final StringBuilder line = new StringBuilder();
            double best = Double.MAX_VALUE;
            for (int r = 0; r < ROUNDS; r++)
            {
                final long cpu = threads.getCurrentThreadCpuTime();
                for (int i = 0; i < cycles; i++)
                {
                    domain.progress();
                }
                final double ns = (double) (threads.getCurrentThreadCpuTime() - cpu) / cycles;
                best = Math.min(best, ns);
                line.append(String.format(" %.1f", ns));
            }
            System.out.printf("%s idle duty cycle: thread-CPU ns, lowest %.1f;%s%n", pair.provider, best, line);
        }
        finally
        {
            pair.tearDown();
        }
    }
}
