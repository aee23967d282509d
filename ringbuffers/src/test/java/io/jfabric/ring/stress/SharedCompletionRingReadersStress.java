/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring.stress;

import io.jfabric.ring.CompletionRing;
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
 * Two readers share a completion ring holding five entries, one of them an error entry; each reads as a CQ reader
 * would (read, and readError at an error entry); the arbiter reads the rest. r1: entries read exactly once,
 * r2: entries lost, read twice, or torn.
 */
@JCStressTest
@Description("Shared completion ring, two readers: each entry read exactly once, never torn")
@Outcome(id = "5, 0", expect = ACCEPTABLE, desc = "every entry read exactly once")
@Outcome(expect = FORBIDDEN, desc = "an entry lost, read twice or torn")
@State
public class SharedCompletionRingReadersStress
{
    private static final int ENTRIES = 5;

    private final CompletionRing ring = StressRings.sharedCompletion();
    private final StressRings.CompletionChecker checker0 = new StressRings.CompletionChecker();
    private final StressRings.CompletionChecker checker1 = new StressRings.CompletionChecker();

    /**
     * Fills the ring.
     */
    public SharedCompletionRingReadersStress()
    {
        for (int n = 0; n < ENTRIES; n++)
        {
            StressRings.writeEntry(ring, n, 2 == n);
        }
    }

    /**
     * Reader 0.
     */
    @Actor
    public void reader0()
    {
        checker0.readSome(ring, 2);
        checker0.readSome(ring, 2);
    }

    /**
     * Reader 1.
     */
    @Actor
    public void reader1()
    {
        checker1.readSome(ring, 2);
        checker1.readSome(ring, 2);
    }

    /**
     * Reads the rest and checks.
     *
     * @param r result.
     */
    @Arbiter
    public void check(final II_Result r)
    {
        final StressRings.CompletionChecker rest = new StressRings.CompletionChecker();
        rest.readAll(ring);
        int once = 0;
        int errors = checker0.errors + checker1.errors + rest.errors;
        for (int n = 0; n < ENTRIES; n++)
        {
            final int seen = checker0.timesSeen[n] + checker1.timesSeen[n] + rest.timesSeen[n];
            if (1 == seen)
            {
                once++;
            }
            else
            {
                errors++;
            }
        }
        r.r1 = once;
        r.r2 = errors + ring.size();
    }
}
