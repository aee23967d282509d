/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.bench.ring;

import io.jfabric.ring.CommandHandler;
import io.jfabric.ring.CommandRing;
import io.jfabric.ring.CommandRingDescriptor;
import io.jfabric.ring.CompletionHandler;
import io.jfabric.ring.CompletionRing;
import io.jfabric.ring.CompletionRingDescriptor;
import io.jfabric.ring.ManyToOneCommandRing;
import io.jfabric.ring.OneToOneCommandRing;
import io.jfabric.ring.OneToOneCompletionRing;
import io.jfabric.ring.SharedCompletionRing;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.jctools.queues.MpscArrayQueue;
import org.jctools.queues.SpscArrayQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Burst throughput on one thread: post {@link #BURST} 64-byte commands (claim, write seven longs, commit) then drain
 * them in one call, or write {@link #BURST} completion entries then read them in one call, as the domain agent sees a
 * burst of posts or a CQ reader a burst of completions. One thread means no cache-line transfer between cores, so
 * the result measures each ring's instruction path and is stable on a small shared machine; the cross-thread
 * figures are in {@link CommandRingBenchmark} and {@link CompletionRingBenchmark}. Scores are per command or entry.
 * <p>
 * Threading: single-threaded.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = { RingBenchSupport.OPENS_MISC, RingBenchSupport.OPENS_NIO })
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RingBurstBenchmark
{
    static final int BURST = 32;

    /**
     * The rings under test.
     */
    public enum Impl
    {
        /**
         * jfabric many-to-one command ring / single-reader completion ring.
         */
        JFABRIC,

        /**
         * jfabric one-to-one command ring / shared completion ring.
         */
        JFABRIC_ALT,

        /**
         * Agrona ManyToOneRingBuffer / OneToOneRingBuffer.
         */
        AGRONA,

        /**
         * JCTools MpscArrayQueue / SpscArrayQueue (references, no payload copy).
         */
        JCTOOLS
    }

    @Param
    Impl impl;

    CommandRing commandRing;
    CompletionRing completionRing;
    RingBuffer agronaCommands;
    RingBuffer agronaCompletions;
    MpscArrayQueue<CommandRingBenchmark.Command> mpsc;
    SpscArrayQueue<CompletionRingBenchmark.Entry> spsc;
    final CommandRingBenchmark.Command command = new CommandRingBenchmark.Command();
    final CompletionRingBenchmark.Entry entry = new CompletionRingBenchmark.Entry();
    long sum;
    final CommandHandler commandHandler = this::onCommand;
    final CompletionHandler completionHandler = this::onCompletion;
    final MessageHandler messageHandler = this::onMessage;

    void onCommand(final AtomicBuffer buffer, final int offset, final int slots)
    {
        sum += buffer.getLong(offset) + buffer.getLong(offset + 48);
    }

    void onCompletion(final AtomicBuffer buffer, final int offset)
    {
        sum += buffer.getLong(offset) + buffer.getLong(offset + 40);
    }

    void onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        sum += buffer.getLong(index) + buffer.getLong(index + 40);
    }

    /**
     * Create the rings under test.
     */
    @Setup
    public void setup()
    {
        final int slots = RingBenchSupport.SLOTS;
        switch (impl)
        {
            case JFABRIC:
                commandRing = new ManyToOneCommandRing(
                    RingBenchSupport.aligned(CommandRingDescriptor.requiredLength(slots)));
                completionRing = new OneToOneCompletionRing(
                    RingBenchSupport.aligned(CompletionRingDescriptor.requiredLength(slots)));
                break;
            case JFABRIC_ALT:
                commandRing = new OneToOneCommandRing(
                    RingBenchSupport.aligned(CommandRingDescriptor.requiredLength(slots)));
                completionRing = new SharedCompletionRing(
                    RingBenchSupport.aligned(CompletionRingDescriptor.sharedRequiredLength(slots)));
                break;
            case AGRONA:
                agronaCommands = new ManyToOneRingBuffer(RingBenchSupport.agronaRingBuffer(slots * 64));
                agronaCompletions = new OneToOneRingBuffer(RingBenchSupport.agronaRingBuffer(slots * 128));
                break;
            case JCTOOLS:
                mpsc = new MpscArrayQueue<>(slots);
                spsc = new SpscArrayQueue<>(slots);
                break;
            default:
                throw new IllegalStateException("unknown impl " + impl);
        }
    }

    /**
     * Post a burst of commands and drain them.
     *
     * @return a value derived from the commands, for the blackhole.
     */
    @Benchmark
    @OperationsPerInvocation(BURST)
    public long commandBurst()
    {
        switch (impl)
        {
            case JFABRIC:
            case JFABRIC_ALT:
            {
                final CommandRing ring = commandRing;
                final AtomicBuffer buffer = ring.buffer();
                for (int i = 0; i < BURST; i++)
                {
                    final int index = ring.tryClaim(1);
                    CommandRingBenchmark.writeBody(buffer, index, i);
                    ring.commit(index);
                }
                int drained = 0;
                while (drained < BURST)
                {
                    drained += ring.drain(commandHandler, BURST - drained);
                }
                break;
            }
            case AGRONA:
            {
                final RingBuffer ring = agronaCommands;
                final AtomicBuffer buffer = ring.buffer();
                for (int i = 0; i < BURST; i++)
                {
                    final int index = ring.tryClaim(1, RingBenchSupport.COMMAND_BODY_LENGTH);
                    CommandRingBenchmark.writeBody(buffer, index, i);
                    ring.commit(index);
                }
                int drained = 0;
                while (drained < BURST)
                {
                    drained += ring.read(messageHandler, BURST - drained);
                }
                break;
            }
            case JCTOOLS:
            {
                for (int i = 0; i < BURST; i++)
                {
                    mpsc.offer(command);
                }
                for (int i = 0; i < BURST; i++)
                {
                    final CommandRingBenchmark.Command polled = mpsc.relaxedPoll();
                    sum += polled.opcode + polled.data;
                }
                break;
            }
            default:
                throw new IllegalStateException("unknown impl " + impl);
        }
        return sum;
    }

    /**
     * Write a burst of completion entries and read them.
     *
     * @return a value derived from the entries, for the blackhole.
     */
    @Benchmark
    @OperationsPerInvocation(BURST)
    public long completionBurst()
    {
        switch (impl)
        {
            case JFABRIC:
            case JFABRIC_ALT:
            {
                final CompletionRing ring = completionRing;
                for (int i = 0; i < BURST; i++)
                {
                    ring.write(i, 2, 3, 4, 5, 6);
                }
                int read = 0;
                while (read < BURST)
                {
                    read += ring.read(completionHandler, BURST - read);
                }
                break;
            }
            case AGRONA:
            {
                final RingBuffer ring = agronaCompletions;
                final AtomicBuffer buffer = ring.buffer();
                for (int i = 0; i < BURST; i++)
                {
                    final int index = ring.tryClaim(1, RingBenchSupport.ENTRY_LENGTH);
                    buffer.putLong(index, i);
                    buffer.putLong(index + 8, 2);
                    buffer.putLong(index + 16, 3);
                    buffer.putLong(index + 24, 4);
                    buffer.putLong(index + 32, 5);
                    buffer.putLong(index + 40, 6);
                    buffer.putInt(index + 48, 0);
                    buffer.putInt(index + 52, 0);
                    buffer.putLong(index + 56, 0);
                    ring.commit(index);
                }
                int read = 0;
                while (read < BURST)
                {
                    read += ring.read(messageHandler, BURST - read);
                }
                break;
            }
            case JCTOOLS:
            {
                for (int i = 0; i < BURST; i++)
                {
                    spsc.offer(entry);
                }
                for (int i = 0; i < BURST; i++)
                {
                    final CompletionRingBenchmark.Entry polled = spsc.relaxedPoll();
                    sum += polled.context + polled.tag;
                }
                break;
            }
            default:
                throw new IllegalStateException("unknown impl " + impl);
        }
        return sum;
    }
}
