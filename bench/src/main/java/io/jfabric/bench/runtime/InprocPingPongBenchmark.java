package io.jfabric.bench.runtime;

import io.jfabric.Progress;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Tagged in-process round-trip time over the inproc provider, MANUAL and AUTO progress. Run with
 * {@code -prof gc} to check {@code gc.alloc.rate.norm} = 0 for the whole data path (posts, agent duty cycles,
 * CQ reads).
 * <p>
 * Threading: one benchmark thread (plus the agent threads with AUTO).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class InprocPingPongBenchmark
{
    @Param({"MANUAL", "AUTO"})
    String progress;

    @Param({"64"})
    int size;

    @Param({"backoff"})
    String idle;

    private InprocPingPong pingPong;

    /**
     * Open the endpoints.
     */
    @Setup
    public void setup()
    {
        pingPong = new InprocPingPong(Progress.valueOf(progress), idle, size);
    }

    /**
     * Close them.
     */
    @TearDown
    public void tearDown()
    {
        pingPong.close();
    }

    /**
     * One round trip.
     *
     * @return the first byte of the echoed payload (consumed by JMH).
     */
    @Benchmark
    public long roundTrip()
    {
        return pingPong.roundTrip();
    }
}
