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
 * The agent publishes three completions while an application thread reads (the tail's release store against the
 * reader's acquire load); the arbiter reads the rest. r1: entries read exactly once, in order, with every field of
 * the entry; r2: errors (torn, stale, duplicated or out of order).
 */
@JCStressTest
@Description("Runtime completion ring: agent writes, a reader reads concurrently, entries whole and in order")
@Outcome(id = "3, 0", expect = ACCEPTABLE, desc = "every entry read exactly once, whole, in order")
@Outcome(expect = FORBIDDEN, desc = "an entry lost, read twice, out of order or torn")
@State
public class CompletionRingProducerReaderStress
{
    private static final int ENTRIES = 3;

    private final CompletionRing ring = new CompletionRing(2);
    private final StressCompletions.Checker reader = new StressCompletions.Checker();

    /**
     * The agent.
     */
    @Actor
    public void agent()
    {
        for (int n = 0; n < ENTRIES; n++)
        {
            StressCompletions.write(ring, n, false);
        }
    }

    /**
     * An application thread reading the CQ twice.
     */
    @Actor
    public void reader()
    {
        reader.readSome(ring, 2);
        reader.readSome(ring, 2);
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
        rest.last = reader.last;
        rest.readAll(ring);
        int once = 0;
        int errors = reader.errors + rest.errors;
        for (int n = 0; n < ENTRIES; n++)
        {
            if (1 == reader.timesSeen[n] + rest.timesSeen[n])
            {
                once++;
            }
            else
            {
                errors++;
            }
        }
        r.r1 = once;
        r.r2 = errors + (int) ring.available();
    }
}
