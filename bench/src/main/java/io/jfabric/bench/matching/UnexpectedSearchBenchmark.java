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
 * Unexpected-queue search against its depth: {@code depth} unexpected messages with distinct tags are queued;
 * each operation posts a receive whose tag names a message at a random position (found and removed) and
 * re-queues an arrival with that tag, so the depth stays constant. One operation = one search hit.
 * <p>
 * Threading: single-threaded, as the domain agent.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class UnexpectedSearchBenchmark
{
    private static final int SEQUENCE = 1 << 14;

    @Param({"LIST", "INDEX"})
    private TagStorage storage;

    @Param({"1", "16", "256", "1024", "4096"})
    private int depth;

    @Param({"ANY_SOURCE", "DIRECTED"})
    private String source;

    private final MatchResult result = new MatchResult();
    private MatchingEngine engine;
    private long[] tags;
    private long receiveSource;
    private int cursor;

    /**
     * Queue {@code depth} unexpected messages and draw the receive tag sequence.
     */
    @Setup
    public void setup()
    {
        engine = new MatchingEngine(new MatchingContext()
            .tagStorage(storage).rxSize(16).unexpectedEntries(depth + 1).unexpectedBytes(Long.MAX_VALUE));
        receiveSource = "DIRECTED".equals(source) ? 3 : MatchFlags.ADDR_UNSPEC;
        for (int t = 0; t < depth; t++)
        {
            engine.onArrival(3, true, t, 8, 0, t, result);
        }
        final SplittableRandom random = new SplittableRandom(42);
        tags = new long[SEQUENCE];
        for (int i = 0; i < SEQUENCE; i++)
        {
            tags[i] = random.nextInt(depth);
        }
    }

    /**
     * One receive that finds its message in the unexpected queue, and the arrival that re-queues it.
     *
     * @return the found message's payload handle.
     */
    @Benchmark
    public long searchAndRequeue()
    {
        final long tag = tags[cursor++ & (SEQUENCE - 1)];
        engine.postReceive(true, receiveSource, tag, 0, tag, 0, 64, 0, result);
        final long payload = result.payloadHandle();
        engine.onArrival(3, true, tag, 8, 0, tag, result);
        return payload;
    }
}
