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
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Two producers race to claim single- and multi-slot commands across the wrap point of a many-to-one command ring;
 * the arbiter drains. r1: commands delivered, r2: lost, duplicated, reordered or torn commands.
 */
@JCStressTest
@Description("Two producers claim across the wrap: no command lost, duplicated or torn, order kept per producer")
@Outcome(id = "4, 0", expect = ACCEPTABLE, desc = "every command delivered once, intact, in producer order")
@Outcome(expect = FORBIDDEN, desc = "a command was lost, duplicated, reordered or torn")
@State
public class ManyToOneCommandRingProducersStress
{
    private static final int[][] SLOTS = { { 1, 2 }, { 2, 1 } };

    private final CommandRing ring = StressRings.manyToOne(13);
    private int failedClaims;

    /**
     * Producer 0.
     */
    @Actor
    public void producer0()
    {
        claim(0);
    }

    /**
     * Producer 1.
     */
    @Actor
    public void producer1()
    {
        claim(1);
    }

    private void claim(final int producer)
    {
        for (int seq = 0; seq < SLOTS[producer].length; seq++)
        {
            if (!StressRings.post(ring, producer, seq, SLOTS[producer][seq], false))
            {
                synchronized (this)
                {
                    failedClaims++;
                }
            }
        }
    }

    /**
     * Drains and checks what the producers posted.
     *
     * @param r result.
     */
    @Arbiter
    public void check(final II_Result r)
    {
        final StressRings.CommandChecker checker = new StressRings.CommandChecker(SLOTS);
        checker.drainAll(ring);
        r.r1 = checker.delivered;
        r.r2 = checker.errors + failedClaims + (checker.next[0] != 2 ? 1 : 0) + (checker.next[1] != 2 ? 1 : 0) +
            ring.size();
    }
}
