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
 * One producer claims and aborts a multi-slot command and then commits one, while another producer commits a
 * multi-slot command; the arbiter drains and then runs a full lap more, which would expose a header word left dirty
 * by the aborted body. r1: commands delivered, r2: errors.
 */
@JCStressTest
@Description("Claim/abort interleaved with another producer's claim/commit: aborted commands never delivered")
@Outcome(id = "18, 0", expect = ACCEPTABLE, desc = "both committed commands and the following lap delivered")
@Outcome(expect = FORBIDDEN, desc = "an aborted command delivered, a committed one lost, or a torn command")
@State
public class ManyToOneCommandRingAbortStress
{
    private static final int[][] SLOTS = { { 1 }, { 2 }, { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 } };

    private final CommandRing ring = StressRings.manyToOne(12);
    private int failedClaims;

    /**
     * Producer 0: claim and abort 2 slots, then commit 1 slot.
     */
    @Actor
    public void abortThenCommit()
    {
        final boolean aborted = StressRings.post(ring, 0, 9, 2, true);
        final boolean committed = StressRings.post(ring, 0, 0, 1, false);
        if (!aborted || !committed)
        {
            synchronized (this)
            {
                failedClaims++;
            }
        }
    }

    /**
     * Producer 1: commit 2 slots.
     */
    @Actor
    public void commit()
    {
        if (!StressRings.post(ring, 1, 0, 2, false))
        {
            synchronized (this)
            {
                failedClaims++;
            }
        }
    }

    /**
     * Drains, runs one more lap of single-slot commands, and checks.
     *
     * @param r result.
     */
    @Arbiter
    public void check(final II_Result r)
    {
        final StressRings.CommandChecker checker = new StressRings.CommandChecker(SLOTS);
        checker.drainAll(ring);
        for (int seq = 0; seq < 16; seq++)
        {
            if (!StressRings.post(ring, 2, seq, 1, false))
            {
                failedClaims++;
            }
            checker.drainAll(ring);
        }
        r.r1 = checker.delivered;
        r.r2 = checker.errors + failedClaims + (checker.next[0] != 1 ? 1 : 0) + (checker.next[1] != 1 ? 1 : 0) +
            (checker.next[2] != 16 ? 1 : 0) + ring.size();
    }
}
