package io.jfabric.bench.runtime;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * One hot data-path operation per invocation over the inproc provider with MANUAL progress ({@link DataPathPair}):
 * each benchmark posts the operation, drives both domains' agents and reads the completions it produced, so the
 * state stays bounded. Run with {@code -prof gc}: {@code gc.alloc.rate.norm} should be 0 (JMH's own bookkeeping
 * shows as at most ~0.01 B/op at these rates).
 * <p>
 * Threading: one benchmark thread (MANUAL progress: no agent threads).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class DataPathBenchmark
{
    private DataPathPair pair;

    /**
     * Open the pair.
     */
    @Setup
    public void setup()
    {
        pair = new DataPathPair();
    }

    /**
     * Close it.
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
     * @return see {@link DataPathPair#inject()}.
     */
    @Benchmark
    public long inject()
    {
        return pair.inject();
    }

    /**
     * @return see {@link DataPathPair#tsenddata()}.
     */
    @Benchmark
    public long tsenddata()
    {
        return pair.tsenddata();
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
     * @return see {@link DataPathPair#injectWrite()}.
     */
    @Benchmark
    public long injectWrite()
    {
        return pair.injectWrite();
    }

    /**
     * @return see {@link DataPathPair#atomicSum()}.
     */
    @Benchmark
    public long atomicSum()
    {
        return pair.atomicSum();
    }

    /**
     * @return see {@link DataPathPair#fetchAtomicSum()}.
     */
    @Benchmark
    public long fetchAtomicSum()
    {
        return pair.fetchAtomicSum();
    }

    /**
     * @return see {@link DataPathPair#compareAtomicCswap()}.
     */
    @Benchmark
    public long compareAtomicCswap()
    {
        return pair.compareAtomicCswap();
    }

    /**
     * @return see {@link DataPathPair#tsearchMiss()}.
     */
    @Benchmark
    public long tsearchMiss()
    {
        return pair.tsearchMiss();
    }

    /**
     * @return see {@link DataPathPair#tinjectTsearchHitDiscard()}.
     */
    @Benchmark
    public long tinjectTsearchHitDiscard()
    {
        return pair.tinjectTsearchHitDiscard();
    }

    /**
     * @return see {@link DataPathPair#cqReadEmpty()}.
     */
    @Benchmark
    public long cqReadEmpty()
    {
        return pair.cqReadEmpty();
    }

    /**
     * @return see {@link DataPathPair#cancelReadErr()}.
     */
    @Benchmark
    public long cancelReadErr()
    {
        return pair.cancelReadErr();
    }

    /**
     * @return see {@link DataPathPair#counterRead()}.
     */
    @Benchmark
    public long counterRead()
    {
        return pair.counterRead();
    }

    /**
     * @return see {@link DataPathPair#counterAdd()}.
     */
    @Benchmark
    public long counterAdd()
    {
        return pair.counterAdd();
    }
}
