package io.jfabric.bench.gni;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * {@link GniVsShmPingPongBenchmark}'s round trip measured in CPU time of the driving thread, next to the wall time: on
 * a shared host, where other processes take the cores away, the wall time of a one-thread ping-pong says more about
 * the scheduler than about the code, while the thread's CPU time per round trip stays comparable between runs. The
 * same setup, driving and checks as the JMH benchmark (it calls its methods).
 * <p>
 * Usage (from a built tree, in the JVM options the benchmark's fork uses):
 * <pre>
 * java --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
 *     --add-opens=java.base/java.nio=ALL-UNNAMED -Djfabric.gni.wire=shm -cp bench/target/benchmarks.jar \
 *     io.jfabric.bench.gni.GniCpuPerRoundTrip PROVIDER SIZE ROUND_TRIPS ROUNDS
 * </pre>
 * It runs {@code ROUND_TRIPS} warm-up round trips, then {@code ROUNDS} rounds of {@code ROUND_TRIPS}, and prints per
 * round the wall, thread-CPU and process-CPU nanoseconds per round trip, and the lowest thread-CPU figure.
 * <p>
 * Threading: one thread (plus gni's NIC engine thread, counted in the process figure).
 */
public final class GniCpuPerRoundTrip
{
    private GniCpuPerRoundTrip()
    {
    }

    /**
     * Run it.
     *
     * @param args provider ({@code gni} or {@code shm}), message size, round trips per round, rounds.
     */
    public static void main(final String[] args)
    {
        if (4 != args.length)
        {
            System.err.println("usage: GniCpuPerRoundTrip PROVIDER SIZE ROUND_TRIPS ROUNDS");
            System.exit(2);
        }
        final GniVsShmPingPongBenchmark pair = new GniVsShmPingPongBenchmark();
        pair.provider = args[0];
        pair.size = Integer.parseInt(args[1]);
        final int n = Integer.parseInt(args[2]);
        final int rounds = Integer.parseInt(args[3]);
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        pair.setup();
        try
        {
            for (int i = 0; i < n; i++)
            {
                pair.roundTrip();
            }
            final StringBuilder line = new StringBuilder();
            double best = Double.MAX_VALUE;
            for (int r = 0; r < rounds; r++)
            {
                final long wall = System.nanoTime();
                final long cpu = threads.getCurrentThreadCpuTime();
                final long process = os.getProcessCpuTime();
                for (int i = 0; i < n; i++)
                {
                    pair.roundTrip();
                }
                final double threadNs = (double) (threads.getCurrentThreadCpuTime() - cpu) / n;
                best = Math.min(best, threadNs);
                final double wallNs = (double) (System.nanoTime() - wall) / n;
                final double processNs = (double) (os.getProcessCpuTime() - process) / n;
                line.append(String.format(" [wall %.0f thread %.0f process %.0f]", wallNs, threadNs, processNs));
            }
            System.out.printf("%s %d B: thread-CPU ns per round trip, lowest %.0f;%s%n", pair.provider, pair.size,
                best, line);
        }
        finally
        {
            pair.tearDown();
        }
    }
}
