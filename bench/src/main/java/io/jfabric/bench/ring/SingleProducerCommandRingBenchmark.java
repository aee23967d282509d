/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.bench.ring;

import io.jfabric.ring.CommandHandler;
import io.jfabric.ring.CommandRing;
import io.jfabric.ring.CommandRingDescriptor;
import io.jfabric.ring.ManyToOneCommandRing;
import io.jfabric.ring.OneToOneCommandRing;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
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
 * Whether the single-producer command ring earns its place: jfabric {@link OneToOneCommandRing} against
 * {@link ManyToOneCommandRing} used by one producer, and Agrona {@link OneToOneRingBuffer}, one producer and one
 * consumer, same 64-byte commands as {@link CommandRingBenchmark}. Read the {@code drained} counter.
 * <p>
 * Threading: JMH group threads; one producer and one consumer.
 */
@State(Scope.Group)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = { RingBenchSupport.OPENS_MISC, RingBenchSupport.OPENS_NIO })
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SingleProducerCommandRingBenchmark
{
    /**
     * The ring under test.
     */
    public enum Impl
    {
        /**
         * jfabric one-to-one command ring.
         */
        JFABRIC_SPSC,

        /**
         * jfabric many-to-one command ring with one producer.
         */
        JFABRIC_MPSC,

        /**
         * Agrona OneToOneRingBuffer.
         */
        AGRONA_SPSC
    }

    @Param
    Impl impl;

    CommandRing ring;
    OneToOneRingBuffer agrona;

    /**
     * Per-thread counters JMH reports as rates.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Counters
    {
        /**
         * Commands consumed.
         */
        public long drained;

        /**
         * Claims refused because the ring was full.
         */
        public long refused;

        /**
         * Reset per iteration.
         */
        @Setup(Level.Iteration)
        public void reset()
        {
            drained = 0;
            refused = 0;
        }
    }

    /**
     * Consumer-side handlers, created once.
     */
    @State(Scope.Thread)
    public static class ConsumerState
    {
        long sum;
        CommandHandler commandHandler;
        MessageHandler messageHandler;

        /**
         * Create the handlers.
         */
        @Setup
        public void setup()
        {
            commandHandler = this::onCommand;
            messageHandler = this::onMessage;
        }

        void onCommand(final AtomicBuffer buffer, final int offset, final int slots)
        {
            sum += buffer.getLong(offset) + buffer.getLong(offset + 48);
        }

        void onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            sum += buffer.getLong(index) + buffer.getLong(index + 48);
        }
    }

    /**
     * Create the ring under test.
     */
    @Setup
    public void setup()
    {
        final int length = CommandRingDescriptor.requiredLength(RingBenchSupport.SLOTS);
        switch (impl)
        {
            case JFABRIC_SPSC:
                ring = new OneToOneCommandRing(RingBenchSupport.aligned(length));
                break;
            case JFABRIC_MPSC:
                ring = new ManyToOneCommandRing(RingBenchSupport.aligned(length));
                break;
            case AGRONA_SPSC:
                agrona = new OneToOneRingBuffer(RingBenchSupport.agronaRingBuffer(RingBenchSupport.SLOTS * 64));
                break;
            default:
                throw new IllegalStateException("unknown impl " + impl);
        }
    }

    /**
     * The producer: one claim-write-commit attempt.
     *
     * @param counters per-thread counters.
     */
    @Benchmark
    @Group("p1")
    @GroupThreads(1)
    public void produce(final Counters counters)
    {
        if (null != ring)
        {
            final CommandRing ring = this.ring;
            final int index = ring.tryClaim(1);
            if (index < 0)
            {
                counters.refused++;
                return;
            }
            CommandRingBenchmark.writeBody(ring.buffer(), index, index);
            ring.commit(index);
        }
        else
        {
            final OneToOneRingBuffer agrona = this.agrona;
            final int index = agrona.tryClaim(1, RingBenchSupport.COMMAND_BODY_LENGTH);
            if (index < 0)
            {
                counters.refused++;
                return;
            }
            CommandRingBenchmark.writeBody(agrona.buffer(), index, index);
            agrona.commit(index);
        }
    }

    /**
     * The consumer: one bounded drain.
     *
     * @param counters per-thread counters.
     * @param state    handlers.
     */
    @Benchmark
    @Group("p1")
    @GroupThreads(1)
    public void consume(final Counters counters, final ConsumerState state)
    {
        counters.drained += null != ring ?
            ring.drain(state.commandHandler, RingBenchSupport.BATCH) :
            agrona.read(state.messageHandler, RingBenchSupport.BATCH);
    }
}
