/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.bench.ring;

import io.jfabric.ring.CompletionHandler;
import io.jfabric.ring.CompletionRing;
import io.jfabric.ring.CompletionRingDescriptor;
import io.jfabric.ring.OneToOneCompletionRing;
import io.jfabric.ring.SharedCompletionRing;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.jctools.queues.SpscArrayQueue;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Completion ring throughput, one producer (the agent) and one reader: jfabric {@link OneToOneCompletionRing} and
 * {@link SharedCompletionRing} against Agrona {@link OneToOneRingBuffer} and JCTools {@link SpscArrayQueue}.
 * <p>
 * Payload: 64-byte entries; the producer writes six longs and two ints and a long (the full entry) for jfabric, and
 * eight longs into a claimed 64-byte Agrona record; the reader reads context and tag. JCTools carries references, so
 * its producer offers a pre-allocated entry object (no bytes move through the queue, which favours it).
 * Read the {@code entries} counter: entries consumed per second.
 * <p>
 * Threading: JMH group threads; one producer and one reader.
 */
@State(Scope.Group)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = { RingBenchSupport.OPENS_MISC, RingBenchSupport.OPENS_NIO })
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CompletionRingBenchmark
{
    /**
     * The ring under test.
     */
    public enum Impl
    {
        /**
         * jfabric single-reader completion ring.
         */
        JFABRIC,

        /**
         * jfabric shared (multi-reader) completion ring, used by one reader.
         */
        JFABRIC_SHARED,

        /**
         * Agrona OneToOneRingBuffer.
         */
        AGRONA,

        /**
         * JCTools SpscArrayQueue.
         */
        JCTOOLS
    }

    /**
     * An entry object for the reference queue.
     */
    static final class Entry
    {
        long context = 1;
        long flags = 2;
        long length = 3;
        long address = 4;
        long data = 5;
        long tag = 6;
    }

    @Param
    Impl impl;

    CompletionRing ring;
    OneToOneRingBuffer agrona;
    SpscArrayQueue<Entry> queue;
    Entry entry;

    /**
     * Per-thread counters JMH reports as rates.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Counters
    {
        /**
         * Entries read.
         */
        public long entries;

        /**
         * Writes refused because the ring was full.
         */
        public long refused;

        /**
         * Reset per iteration.
         */
        @Setup(Level.Iteration)
        public void reset()
        {
            entries = 0;
            refused = 0;
        }
    }

    /**
     * Reader-side handlers, created once.
     */
    @State(Scope.Thread)
    public static class ReaderState
    {
        long sum;
        CompletionHandler completionHandler;
        MessageHandler messageHandler;

        /**
         * Create the handlers.
         */
        @Setup
        public void setup()
        {
            completionHandler = this::onCompletion;
            messageHandler = this::onMessage;
        }

        void onCompletion(final AtomicBuffer buffer, final int offset)
        {
            sum += buffer.getLong(offset + CompletionRingDescriptor.CONTEXT_OFFSET) +
                buffer.getLong(offset + CompletionRingDescriptor.TAG_OFFSET);
        }

        void onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            sum += buffer.getLong(index) + buffer.getLong(index + 40);
        }
    }

    /**
     * Create the ring under test.
     */
    @Setup
    public void setup()
    {
        final int entries = RingBenchSupport.SLOTS;
        switch (impl)
        {
            case JFABRIC:
                ring = new OneToOneCompletionRing(
                    RingBenchSupport.aligned(CompletionRingDescriptor.requiredLength(entries)));
                break;
            case JFABRIC_SHARED:
                ring = new SharedCompletionRing(
                    RingBenchSupport.aligned(CompletionRingDescriptor.sharedRequiredLength(entries)));
                break;
            case AGRONA:
                // Agrona records are 8-byte header + 64-byte body, aligned to 8: 72 bytes each, so give it the same
                // number of records' worth of space rounded to a power of two.
                agrona = new OneToOneRingBuffer(RingBenchSupport.agronaRingBuffer(entries * 128));
                break;
            case JCTOOLS:
                queue = new SpscArrayQueue<>(entries);
                entry = new Entry();
                break;
            default:
                throw new IllegalStateException("unknown impl " + impl);
        }
    }

    /**
     * The producer: one write attempt.
     *
     * @param counters per-thread counters.
     */
    @Benchmark
    @Group("spsc")
    @GroupThreads(1)
    public void write(final Counters counters)
    {
        final long n = counters.refused;
        switch (impl)
        {
            case JFABRIC:
            case JFABRIC_SHARED:
                if (ring.write(n, 2, 3, 4, 5, 6) < 0)
                {
                    counters.refused++;
                }
                break;
            case AGRONA:
            {
                final OneToOneRingBuffer agrona = this.agrona;
                final int index = agrona.tryClaim(1, RingBenchSupport.ENTRY_LENGTH);
                if (index < 0)
                {
                    counters.refused++;
                    return;
                }
                final AtomicBuffer buffer = agrona.buffer();
                buffer.putLong(index, n);
                buffer.putLong(index + 8, 2);
                buffer.putLong(index + 16, 3);
                buffer.putLong(index + 24, 4);
                buffer.putLong(index + 32, 5);
                buffer.putLong(index + 40, 6);
                buffer.putInt(index + 48, 0);
                buffer.putInt(index + 52, 0);
                buffer.putLong(index + 56, 0);
                agrona.commit(index);
                break;
            }
            case JCTOOLS:
                if (!queue.offer(entry))
                {
                    counters.refused++;
                }
                break;
            default:
                throw new IllegalStateException("unknown impl " + impl);
        }
    }

    /**
     * The reader: one bounded read.
     *
     * @param counters per-thread counters.
     * @param state    handlers.
     */
    @Benchmark
    @Group("spsc")
    @GroupThreads(1)
    public void read(final Counters counters, final ReaderState state)
    {
        switch (impl)
        {
            case JFABRIC:
            case JFABRIC_SHARED:
                counters.entries += Math.max(0, ring.read(state.completionHandler, RingBenchSupport.BATCH));
                break;
            case AGRONA:
                counters.entries += agrona.read(state.messageHandler, RingBenchSupport.BATCH);
                break;
            case JCTOOLS:
            {
                final SpscArrayQueue<Entry> queue = this.queue;
                int count = 0;
                Entry polled;
                while (count < RingBenchSupport.BATCH && null != (polled = queue.relaxedPoll()))
                {
                    state.sum += polled.context + polled.tag;
                    count++;
                }
                counters.entries += count;
                break;
            }
            default:
                throw new IllegalStateException("unknown impl " + impl);
        }
    }
}
