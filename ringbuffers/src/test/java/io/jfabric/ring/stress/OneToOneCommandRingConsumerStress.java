/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring.stress;

import io.jfabric.ring.CommandRing;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A producer posts three commands (one aborted) across the wrap of a one-to-one command ring while the consumer
 * drains; the arbiter drains the rest. r1: commands the racing drain saw, r2: commands delivered in all, r3: lost,
 * duplicated, reordered, torn or aborted-but-delivered commands.
 */
@JCStressTest
@Description("Consumer drains while a producer commits and aborts across the wrap: never a half-written command")
@Outcome(id = "0, 2, 0", expect = ACCEPTABLE, desc = "the drain ran before any commit")
@Outcome(id = "1, 2, 0", expect = ACCEPTABLE, desc = "the drain saw the first command")
@Outcome(id = "2, 2, 0", expect = ACCEPTABLE, desc = "the drain saw both commands")
@Outcome(expect = FORBIDDEN, desc = "a command was lost, duplicated, torn, or an aborted one delivered")
@State
public class OneToOneCommandRingConsumerStress
{
    private static final int[][] SLOTS = { { 2, 1 } };

    private final CommandRing ring = StressRings.oneToOne(13);
    private final StressRings.CommandChecker checker = new StressRings.CommandChecker(SLOTS);
    private int racingDrain;
    private int failedClaims;

    /**
     * Producer: a 2-slot command that wraps, an aborted 2-slot command, then a 1-slot command.
     */
    @Actor
    public void producer()
    {
        if (!StressRings.post(ring, 0, 0, 2, false))
        {
            failedClaims++;
        }
        if (!StressRings.post(ring, 0, 7, 2, true))
        {
            failedClaims++;
        }
        if (!StressRings.post(ring, 0, 1, 1, false))
        {
            failedClaims++;
        }
    }

    /**
     * Consumer: one bounded drain.
     */
    @Actor
    public void consumer()
    {
        racingDrain = ring.drain(checker, 10);
    }

    /**
     * Drains the rest and checks.
     *
     * @param r result.
     */
    @Arbiter
    public void check(final III_Result r)
    {
        checker.drainAll(ring);
        r.r1 = racingDrain;
        r.r2 = checker.delivered;
        r.r3 = checker.errors + failedClaims + (checker.next[0] != 2 ? 1 : 0) + ring.size();
    }
}
