package io.jfabric.ring.stress;

import io.jfabric.ring.CompletionRing;
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
 * Resource management: two posting threads race for the last reservation of a CQ of size 2 (one already taken).
 * r1, r2: whether each poster got a slot; r3: reservations the arbiter can still take. Exactly one poster wins and
 * the budget is never exceeded.
 */
@JCStressTest
@Description("Runtime completion ring reservations (CAS): never more than the CQ size outstanding")
@Outcome(id = {"1, 0, 0", "0, 1, 0"}, expect = ACCEPTABLE, desc = "exactly one poster got the last slot")
@Outcome(expect = FORBIDDEN, desc = "both or neither got it, or the budget is off")
@State
public class CompletionRingReserveStress
{
    private final CompletionRing ring = new CompletionRing(2);

    /**
     * One reservation already outstanding.
     */
    public CompletionRingReserveStress()
    {
        ring.reserve();
    }

    /**
     * Poster 0.
     *
     * @param r result.
     */
    @Actor
    public void poster0(final III_Result r)
    {
        r.r1 = ring.reserve() ? 1 : 0;
    }

    /**
     * Poster 1.
     *
     * @param r result.
     */
    @Actor
    public void poster1(final III_Result r)
    {
        r.r2 = ring.reserve() ? 1 : 0;
    }

    /**
     * Counts what the arbiter can still reserve.
     *
     * @param r result.
     */
    @Arbiter
    public void check(final III_Result r)
    {
        int more = 0;
        while (more < 4 && ring.reserve())
        {
            more++;
        }
        r.r3 = more;
    }
}
