package io.jfabric.bench.matching;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import io.jfabric.matching.MatchFlags;
import io.jfabric.matching.MatchResult;
import io.jfabric.matching.MatchingContext;
import io.jfabric.matching.MatchingEngine;
import io.jfabric.matching.TagStorage;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Match rate against a posted-queue depth: {@code depth} any-source receives with distinct tags are posted;
 * each operation is one arrival whose tag names a receive at a random position (matched) plus the re-post of
 * that receive, so the depth stays constant. One operation = one match.
 * <p>
 * EXACT posts receives with {@code ignore == 0}; WILDCARD posts every receive with a non-zero ignore mask
 * (bits the tags do not use), which the index cannot hash.
 * <p>
 * Threading: single-threaded, as the domain agent.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class PostedMatchBenchmark
{
    private static final int SEQUENCE = 1 << 14;
    private static final long WILDCARD_IGNORE = 0xFFFF_0000_0000_0000L;

    @Param({"LIST", "INDEX", "AUTO"})
    private TagStorage storage;

    @Param({"1", "16", "256", "1024", "4096"})
    private int depth;

    @Param({"EXACT", "WILDCARD"})
    private String pattern;

    private final MatchResult result = new MatchResult();
    private MatchingEngine engine;
    private long[] tags;
    private long ignore;
    private int cursor;

    /**
     * Post {@code depth} receives and draw the arrival tag sequence.
     */
    @Setup
    public void setup()
    {
        engine = new MatchingEngine(new MatchingContext()
            .tagStorage(storage).rxSize(depth + 1).tagBuckets(Math.max(16, depth * 2)));
        ignore = "WILDCARD".equals(pattern) ? WILDCARD_IGNORE : 0;
        for (int t = 0; t < depth; t++)
        {
            engine.postReceive(true, MatchFlags.ADDR_UNSPEC, t, ignore, t, 0, 64, 0, result);
        }
        final SplittableRandom random = new SplittableRandom(42);
        tags = new long[SEQUENCE];
        for (int i = 0; i < SEQUENCE; i++)
        {
            tags[i] = random.nextInt(depth);
        }
    }

    /**
     * One arrival matched against the posted queue and the re-post of the matched receive.
     *
     * @return the matched receive's context.
     */
    @Benchmark
    public long matchAndRepost()
    {
        final long tag = tags[cursor++ & (SEQUENCE - 1)];
        engine.onArrival(3, true, tag, 8, 0, tag, result);
        final long context = result.context();
        engine.postReceive(true, MatchFlags.ADDR_UNSPEC, tag, ignore, context, 0, 64, 0, result);
        return context;
    }
}
