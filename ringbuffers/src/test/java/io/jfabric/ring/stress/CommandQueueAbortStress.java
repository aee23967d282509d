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
 * The agent leaves the first command it sees in place ({@code ABORT}: it cannot take it yet, a full CQ) while an
 * application thread posts three; the agent reads again, then the arbiter reads the rest. The aborted command must
 * come again, whole, before the ones behind it. r1: commands delivered, r2: errors.
 */
@JCStressTest
@Description("Command queue: a command left in place by ABORT is delivered later, once, whole and in order")
@Outcome(id = "3, 0", expect = ACCEPTABLE, desc = "every command delivered once, in order")
@Outcome(expect = FORBIDDEN, desc = "the aborted command lost or repeated, or a command torn or out of order")
@State
public class CommandQueueAbortStress
{
    private final CommandQueue queue = StressCommands.queue(29);
    private final StressCommands.Checker consumer = new StressCommands.Checker(1);
    private int refused;

    /**
     * The application thread.
     */
    @Actor
    public void producer()
    {
        for (int seq = 0; seq < 3; seq++)
        {
            if (!StressCommands.post(queue, 0, seq))
            {
                refused++;
            }
        }
    }

    /**
     * The agent: a read that aborts the first command it meets, then another read.
     */
    @Actor
    public void agent()
    {
        queue.controlledRead(consumer, 3);
        queue.controlledRead(consumer, 3);
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
        r.r2 = consumer.errors + refused + consumer.aborts + (3 != consumer.next[0] ? 1 : 0) +
            (queue.producerPosition() != queue.consumerPosition() ? 1 : 0);
    }
}
