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
 * Two application threads read one CQ ({@code FI_THREAD_SAFE}) holding four completions and one error entry; the
 * read guard serialises them. r1: entries read exactly once, r2: errors (lost, twice, torn).
 */
@JCStressTest
@Description("Runtime completion ring, two readers through the read guard: each entry read exactly once")
@Outcome(id = "5, 0", expect = ACCEPTABLE, desc = "every entry read exactly once")
@Outcome(expect = FORBIDDEN, desc = "an entry lost, read twice or torn")
@State
public class CompletionRingReadersStress
{
    private static final int ENTRIES = 5;

    private final CompletionRing ring = new CompletionRing(4);
    private final StressCompletions.Checker reader0 = new StressCompletions.Checker();
    private final StressCompletions.Checker reader1 = new StressCompletions.Checker();

    /**
     * Fills the ring (entry 2 is an error entry).
     */
    public CompletionRingReadersStress()
    {
        for (int n = 0; n < ENTRIES; n++)
        {
            StressCompletions.write(ring, n, 2 == n);
        }
    }

    /**
     * Reader 0.
     */
    @Actor
    public void reader0()
    {
        reader0.readSome(ring, 1);
        reader0.readSome(ring, 2);
    }

    /**
     * Reader 1.
     */
    @Actor
    public void reader1()
    {
        reader1.readSome(ring, 2);
        reader1.readSome(ring, 1);
    }

    /**
     * Reads the rest and checks.
     *
     * @param r result.
     */
    @Arbiter
    public void check(final II_Result r)
    {
        final StressCompletions.Checker rest = new StressCompletions.Checker();
        rest.readAll(ring);
        int once = 0;
        int errors = reader0.errors + reader1.errors + rest.errors;
        for (int n = 0; n < ENTRIES; n++)
        {
            if (1 == reader0.timesSeen[n] + reader1.timesSeen[n] + rest.timesSeen[n])
            {
                once++;
            }
            else
            {
                errors++;
            }
        }
        r.r1 = once;
        r.r2 = errors + (int) ring.available() + (ring.hasError() ? 1 : 0);
    }
}
