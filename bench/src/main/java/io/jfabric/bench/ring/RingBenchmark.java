/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.bench.ring;

import io.jfabric.ring.CommandQueue;
import io.jfabric.ring.CompletionRing;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The product's two rings ({@code ringbuffers}), measured as the runtime uses them: {@link CommandQueue} with the
 * runtime's 80-byte command header (ten longs written, two read back) claimed, written, committed and drained with
 * the controlled read the agent uses; {@link CompletionRing} with seven-long entries (context, flags, len, buf, data,
 * tag, source) written after {@code hasSpace()} as the agent does, and read under the CQ's read guard into an entry
 * object, as {@code CompletionQueue.read} does.
 * <p>
 * Cross-thread groups ({@code commands}, {@code completions}): read the {@code drained} / {@code entries} counter
 * (items consumed per second). Single-thread bursts ({@code commandBurst}, {@code completionBurst}): 32 items per
 * operation, the score is per item. The choice of these two rings over the module's former slot and 64-byte-entry
 * rings was measured with this benchmark's earlier form ({@code RingChoiceBenchmark}, see {@code bench/README.md}).
 * <p>
 * Threading: JMH group threads (one producer, one consumer) or one thread.
 */
@State(Scope.Group)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = { RingBenchSupport.OPENS_MISC, RingBenchSupport.OPENS_NIO })
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RingBenchmark
{
    static final int BURST = 32;
    static final int COMMAND_LENGTH = 80;
    static final int OPCODE = 2;
    static final int CQ_SIZE = 2048;

    /**
     * A CQ entry as the application sees it.
     */
    static final class Entry
    {
        long context;
        long flags;
        long len;
        long buf;
        long data;
        long tag;
        long src;
    }

    /**
     * Per-thread counters JMH reports as rates.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Counters
    {
        /**
         * Commands drained.
         */
        public long drained;

        /**
         * Completion entries read.
         */
        public long entries;

        /**
         * Claims or writes refused because the ring was full.
         */
        public long refused;

        /**
         * Reset per iteration.
         */
        @Setup(Level.Iteration)
        public void reset()
        {
            drained = 0;
            entries = 0;
            refused = 0;
        }
    }

    /**
     * The consumer's side: handlers and the entry they copy into.
     */
    @State(Scope.Thread)
    public static class Reader implements CompletionRing.CompletionSink
    {
        final Entry entry = new Entry();
        long sum;
        ControlledMessageHandler commandHandler;

        /**
         * Create the handlers.
         */
        @Setup
        public void setup()
        {
            commandHandler = this::onCommand;
        }

        ControlledMessageHandler.Action onCommand(
            final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            sum += buffer.getLong(index + 16) + buffer.getLong(index + 48) + msgTypeId + length;
            return ControlledMessageHandler.Action.CONTINUE;
        }

        @Override
        public void onCompletion(
            final int index,
            final long context,
            final long flags,
            final long len,
            final long buf,
            final long data,
            final long tag,
            final long src)
        {
            final Entry e = entry;
            e.context = context;
            e.flags = flags;
            e.len = len;
            e.buf = buf;
            e.data = data;
            e.tag = tag;
            e.src = src;
            sum += context;
        }

        @Override
        public void onError(
            final long context,
            final long flags,
            final long len,
            final long buf,
            final long data,
            final long tag,
            final long olen,
            final int err,
            final int provErrno,
            final long src)
        {
            sum += err;
        }
    }

    CommandQueue commands;
    CompletionRing cq;

    /**
     * Create the rings: 256 KiB of command ring, a CQ of {@value #CQ_SIZE} entries.
     */
    @Setup
    public void setup()
    {
        commands = new CommandQueue(RingBenchSupport.SLOTS * 64);
        cq = new CompletionRing(CQ_SIZE);
    }

    static boolean post(final CommandQueue queue, final long n)
    {
        final int index = queue.tryClaim(OPCODE, COMMAND_LENGTH);
        if (index < 0)
        {
            return false;
        }
        final AtomicBuffer buffer = queue.buffer();
        for (int k = 0; k < COMMAND_LENGTH; k += 8)
        {
            buffer.putLong(index + k, n + k);
        }
        queue.commit(index);
        return true;
    }

    boolean complete(final long n)
    {
        final CompletionRing cq = this.cq;
        return cq.hasSpace() && cq.write(n, 2, 3, 4, 5, 6, 7);
    }

    int read(final Reader reader, final int limit)
    {
        final CompletionRing cq = this.cq;
        if (!cq.tryLockRead())
        {
            return 0;
        }
        try
        {
            return cq.readInto(reader, limit);
        }
        finally
        {
            cq.unlockRead();
        }
    }

    /**
     * Command producer: one claim, write, commit.
     *
     * @param counters per-thread counters.
     */
    @Benchmark
    @Group("commands")
    @GroupThreads(1)
    public void post(final Counters counters)
    {
        if (!post(commands, counters.refused))
        {
            counters.refused++;
        }
    }

    /**
     * Command consumer: one controlled read of up to 64 commands.
     *
     * @param counters per-thread counters.
     * @param reader   handlers.
     */
    @Benchmark
    @Group("commands")
    @GroupThreads(1)
    public void drain(final Counters counters, final Reader reader)
    {
        counters.drained += commands.controlledRead(reader.commandHandler, RingBenchSupport.BATCH);
    }

    /**
     * Completion producer: one write attempt (the ring is asked for space first, as the agent does).
     *
     * @param counters per-thread counters.
     */
    @Benchmark
    @Group("completions")
    @GroupThreads(1)
    public void write(final Counters counters)
    {
        if (!complete(counters.refused))
        {
            counters.refused++;
        }
    }

    /**
     * Completion reader: one guarded read of up to 64 entries.
     *
     * @param counters per-thread counters.
     * @param reader   the sink.
     */
    @Benchmark
    @Group("completions")
    @GroupThreads(1)
    public void readEntries(final Counters counters, final Reader reader)
    {
        counters.entries += read(reader, RingBenchSupport.BATCH);
    }

    /**
     * One thread: post {@value #BURST} commands, then drain them.
     *
     * @param reader handlers.
     * @return a value for the blackhole.
     */
    @Benchmark
    @Group("commandBurst")
    @GroupThreads(1)
    @OperationsPerInvocation(BURST)
    public long commandBurst(final Reader reader)
    {
        final CommandQueue queue = commands;
        for (int i = 0; i < BURST; i++)
        {
            post(queue, i);
        }
        int drained = 0;
        while (drained < BURST)
        {
            drained += queue.controlledRead(reader.commandHandler, BURST - drained);
        }
        return reader.sum;
    }

    /**
     * One thread: write {@value #BURST} completions, then read them in guarded reads of up to 16.
     *
     * @param reader the sink.
     * @return a value for the blackhole.
     */
    @Benchmark
    @Group("completionBurst")
    @GroupThreads(1)
    @OperationsPerInvocation(BURST)
    public long completionBurst(final Reader reader)
    {
        for (int i = 0; i < BURST; i++)
        {
            complete(i);
        }
        int read = 0;
        while (read < BURST)
        {
            read += read(reader, 16);
        }
        return reader.sum;
    }
}
