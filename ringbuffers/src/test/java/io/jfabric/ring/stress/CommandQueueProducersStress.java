/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring.stress;

import io.jfabric.ring.CommandQueue;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Two application threads post two commands each (claim CAS, plain writes, release commit) across the ring's wrap
 * point; the second then reads as the agent (controlled read) while the first may still be posting; the arbiter reads
 * the rest. Two actors, so that it runs in the build's two-CPU short mode. r1: commands delivered, r2: errors (torn,
 * lost, duplicated, a producer's order broken, a refused claim, something left).
 */
@JCStressTest
@Description("Command queue: two producers and the consumer concurrently, every command whole and once, in order")
@Outcome(id = "4, 0", expect = ACCEPTABLE, desc = "every command delivered once, whole, in its producer's order")
@Outcome(expect = FORBIDDEN, desc = "a command lost, repeated, torn or out of its producer's order")
@State
public class CommandQueueProducersStress
{
    private final CommandQueue queue = StressCommands.queue(23);
    private final StressCommands.Checker consumer = new StressCommands.Checker(0);
    private volatile int refused;

    /**
     * Producer 0.
     */
    @Actor
    public void producer0()
    {
        post(0);
    }

    /**
     * Producer 1, then the agent reading twice.
     */
    @Actor
    public void producer1ThenAgent()
    {
        post(1);
        queue.controlledRead(consumer, 2);
        queue.controlledRead(consumer, 2);
    }

    private void post(final int producer)
    {
        for (int seq = 0; seq < 2; seq++)
        {
            if (!StressCommands.post(queue, producer, seq))
            {
                synchronized (this)
                {
                    refused++;
                }
            }
        }
    }

    /**
     * Reads the rest and checks.
     *
     * @param r result.
     */
    @Arbiter
    public void check(final II_Result r)
    {
        consumer.readAll(queue);
        r.r1 = consumer.delivered;
        r.r2 = consumer.errors + refused + (2 != consumer.next[0] ? 1 : 0) + (2 != consumer.next[1] ? 1 : 0) +
            (queue.producerPosition() != queue.consumerPosition() ? 1 : 0);
    }
}
