package io.jfabric.bench.runtime;

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
 * The aeron provider's data path, one operation per invocation ({@link DataPathPair} over {@code aeron}: two domains
 * of one fabric through the fabric's embedded media driver, on UDP loopback ({@code transport=udp},
 * {@code jfabric.aeron.ipc=false}) or over {@code aeron:ipc} ({@code transport=ipc}, the domains find each other
 * on their driver), MANUAL progress driven by the benchmark thread). Run with {@code -prof gc}:
 * {@code gc.alloc.rate.norm} counts every allocation in the JVM per operation, the media driver's thread included,
 * and should be 0 (JMH's own bookkeeping shows as at most ~0.01 B/op). The
 * times are round trips through the driver and the loopback interface, not a latency benchmark (use
 * {@code jfabric bench -p aeron} for that, bench/aeron-compare.sh).
 * <p>
 * Threading: one benchmark thread; the driver's own thread beside it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class AeronDataPathBenchmark
{
    /**
     * {@code udp}: the domains reach each other by UDP loopback; {@code ipc}: over {@code aeron:ipc}.
     */
    @Param({"udp", "ipc"})
    public String transport;

    private DataPathPair pair;

    /**
     * Open the pair (and its fabric's embedded driver).
     */
    @Setup
    public void setup()
    {
        System.setProperty("jfabric.aeron.ipc", Boolean.toString("ipc".equals(transport)));
        pair = new DataPathPair("aeron");
    }

    /**
     * Close it (the driver's directory is deleted).
     */
    @TearDown
    public void tearDown()
    {
        pair.close();
    }

    /**
     * @return see {@link DataPathPair#tsendTrecv()}.
     */
    @Benchmark
    public long tsendTrecv()
    {
        return pair.tsendTrecv();
    }

    /**
     * @return see {@link DataPathPair#sendRecv()}.
     */
    @Benchmark
    public long sendRecv()
    {
        return pair.sendRecv();
    }

    /**
     * @return see {@link DataPathPair#tinject()}.
     */
    @Benchmark
    public long tinject()
    {
        return pair.tinject();
    }

    /**
     * @return see {@link DataPathPair#write()}.
     */
    @Benchmark
    public long write()
    {
        return pair.write();
    }

    /**
     * @return see {@link DataPathPair#read()}.
     */
    @Benchmark
    public long read()
    {
        return pair.read();
    }

    /**
     * @return see {@link DataPathPair#fetchAtomicSum()}.
     */
    @Benchmark
    public long fetchAtomicSum()
    {
        return pair.fetchAtomicSum();
    }
}
