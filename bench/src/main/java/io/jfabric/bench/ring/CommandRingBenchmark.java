/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.bench.ring;

import io.jfabric.ring.CommandHandler;
import io.jfabric.ring.CommandRingDescriptor;
import io.jfabric.ring.ManyToOneCommandRing;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.jctools.queues.MpscArrayQueue;
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
 * Many-producer command ring throughput: jfabric {@link ManyToOneCommandRing} against Agrona
 * {@link ManyToOneRingBuffer} and JCTools {@link MpscArrayQueue}, with 1 ({@code p1}) and 2 ({@code p2}) producer
 * threads and one consumer thread draining in batches of {@link RingBenchSupport#BATCH}.
 * <p>
 * Payload: each command is one 64-byte slot; the producer writes seven longs (56 body bytes) in place for jfabric and
 * Agrona (claim, write, commit) and the consumer reads two of them. JCTools queues carry references, so its producer
 * offers a pre-allocated command object and the consumer reads two of its fields: it moves no bytes through the
 * queue, which favours it.
 * <p>
 * Read the {@code drained} counter: commands consumed per second (the ring's throughput). {@code claimed} counts
 * successful producer claims, {@code refused} claims that found the ring full.
 * <p>
 * Threading: JMH group threads; one consumer per group.
 */
@State(Scope.Group)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = { RingBenchSupport.OPENS_MISC, RingBenchSupport.OPENS_NIO })
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CommandRingBenchmark
{
    /**
     * The ring under test.
     */
    public enum Impl
    {
        /**
         * jfabric many-to-one command ring.
         */
        JFABRIC,

        /**
         * Agrona ManyToOneRingBuffer.
         */
        AGRONA,

        /**
         * JCTools MpscArrayQueue.
         */
        JCTOOLS
    }

    /**
     * A command object for the reference queue.
     */
    static final class Command
    {
        long opcode = 1;
        long address = 0x1000;
        long length = 64;
        long tag = 7;
        long context = 9;
        long flags = 3;
        long data = 5;
    }

    @Param
    Impl impl;

    ManyToOneCommandRing ring;
    ManyToOneRingBuffer agrona;
    MpscArrayQueue<Command> queue;
    Command command;

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
         * Claims that succeeded.
         */
        public long claimed;

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
            claimed = 0;
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
        switch (impl)
        {
            case JFABRIC:
                ring = new ManyToOneCommandRing(
                    RingBenchSupport.aligned(CommandRingDescriptor.requiredLength(RingBenchSupport.SLOTS)));
                break;
            case AGRONA:
                agrona = new ManyToOneRingBuffer(RingBenchSupport.agronaRingBuffer(RingBenchSupport.SLOTS * 64));
                break;
            case JCTOOLS:
                queue = new MpscArrayQueue<>(RingBenchSupport.SLOTS);
                command = new Command();
                break;
            default:
                throw new IllegalStateException("unknown impl " + impl);
        }
    }

    final boolean produce(final long value)
    {
        switch (impl)
        {
            case JFABRIC:
            {
                final ManyToOneCommandRing ring = this.ring;
                final int index = ring.tryClaim(1);
                if (index < 0)
                {
                    return false;
                }
                final AtomicBuffer buffer = ring.buffer();
                writeBody(buffer, index, value);
                ring.commit(index);
                return true;
            }
            case AGRONA:
            {
                final ManyToOneRingBuffer agrona = this.agrona;
                final int index = agrona.tryClaim(1, RingBenchSupport.COMMAND_BODY_LENGTH);
                if (index < 0)
                {
                    return false;
                }
                writeBody(agrona.buffer(), index, value);
                agrona.commit(index);
                return true;
            }
            case JCTOOLS:
                return queue.offer(command);
            default:
                throw new IllegalStateException("unknown impl " + impl);
        }
    }

    static void writeBody(final AtomicBuffer buffer, final int index, final long value)
    {
        buffer.putLong(index, value);
        buffer.putLong(index + 8, 0x1000);
        buffer.putLong(index + 16, 64);
        buffer.putLong(index + 24, 7);
        buffer.putLong(index + 32, 9);
        buffer.putLong(index + 40, 3);
        buffer.putLong(index + 48, 5);
    }

    final int consume(final ConsumerState state)
    {
        switch (impl)
        {
            case JFABRIC:
                return ring.drain(state.commandHandler, RingBenchSupport.BATCH);
            case AGRONA:
                return agrona.read(state.messageHandler, RingBenchSupport.BATCH);
            case JCTOOLS:
            {
                final MpscArrayQueue<Command> queue = this.queue;
                int count = 0;
                Command polled;
                while (count < RingBenchSupport.BATCH && null != (polled = queue.relaxedPoll()))
                {
                    state.sum += polled.opcode + polled.data;
                    count++;
                }
                return count;
            }
            default:
                throw new IllegalStateException("unknown impl " + impl);
        }
    }

    /**
     * One producer: one claim-write-commit attempt.
     *
     * @param counters per-thread counters.
     */
    @Benchmark
    @Group("p1")
    @GroupThreads(1)
    public void p1Produce(final Counters counters)
    {
        if (produce(counters.claimed))
        {
            counters.claimed++;
        }
        else
        {
            counters.refused++;
        }
    }

    /**
     * The consumer of the one-producer group: one bounded drain.
     *
     * @param counters per-thread counters.
     * @param state    handlers.
     */
    @Benchmark
    @Group("p1")
    @GroupThreads(1)
    public void p1Consume(final Counters counters, final ConsumerState state)
    {
        counters.drained += consume(state);
    }

    /**
     * Two producers: one claim-write-commit attempt each.
     *
     * @param counters per-thread counters.
     */
    @Benchmark
    @Group("p2")
    @GroupThreads(2)
    public void p2Produce(final Counters counters)
    {
        if (produce(counters.claimed))
        {
            counters.claimed++;
        }
        else
        {
            counters.refused++;
        }
    }

    /**
     * The consumer of the two-producer group: one bounded drain.
     *
     * @param counters per-thread counters.
     * @param state    handlers.
     */
    @Benchmark
    @Group("p2")
    @GroupThreads(1)
    public void p2Consume(final Counters counters, final ConsumerState state)
    {
        counters.drained += consume(state);
    }
}
