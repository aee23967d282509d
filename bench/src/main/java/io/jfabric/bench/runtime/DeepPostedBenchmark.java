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
 * The cost of matching at depth in the product (issue 16): one 8 B {@code fi_tinject} from A to a tagged receive
 * at B, posted just before it, while {@code depth - 1} older receives with other exact tags stay posted at B
 * ({@link DataPathPair#postIdleReceives}). With {@code list} storage the arrival walks every older receive first;
 * with {@code auto} (the default) the queue is in the hashed index at that depth. The target: depth 1024 costs at
 * most 1.1x depth 1 with the default storage.
 * <p>
 * Each operation is a whole message (post, A's and B's duty cycles, B's completion read), one thread, MANUAL
 * progress, inproc.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class DeepPostedBenchmark
{
    private static final String TAG_STORAGE_PROP = "jfabric.matching.tagStorage";

    @Param({"auto", "list"})
    private String storage;

    @Param({"1", "1024"})
    private int depth;

    private DataPathPair pair;

    /**
     * Open the pair with the storage and leave {@code depth - 1} receives posted.
     */
    @Setup
    public void setup()
    {
        System.setProperty(TAG_STORAGE_PROP, storage);
        pair = new DataPathPair(Math.max(1024, 2 * depth));
        pair.postIdleReceives(depth - 1);
    }

    /**
     * Close it.
     */
    @TearDown
    public void tearDown()
    {
        pair.close();
        System.clearProperty(TAG_STORAGE_PROP);
    }

    /**
     * @return see {@link DataPathPair#tinject()}.
     */
    @Benchmark
    public long tinjectAtDepth()
    {
        return pair.tinject();
    }
}
