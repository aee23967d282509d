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
 * Resource management: a posting thread reserves on a full CQ (size 2) while a reader gives a reservation back. r1:
 * whether the poster got a slot; r2: reservations the arbiter can still take. The release is never lost: the
 * slot goes to the poster or stays for the arbiter.
 */
@JCStressTest
@Description("Runtime completion ring reservations: a release racing a reserve is never lost")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the release came first and the poster took the slot")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the poster came first (full), the released slot is left")
@Outcome(expect = FORBIDDEN, desc = "a reservation lost or the budget exceeded")
@State
public class CompletionRingReleaseStress
{
    private final CompletionRing ring = new CompletionRing(2);

    /**
     * The CQ's budget is used up.
     */
    public CompletionRingReleaseStress()
    {
        ring.reserve();
        ring.reserve();
    }

    /**
     * A poster.
     *
     * @param r result.
     */
    @Actor
    public void poster(final II_Result r)
    {
        r.r1 = ring.reserve() ? 1 : 0;
    }

    /**
     * A reader consumed a completion.
     */
    @Actor
    public void reader()
    {
        ring.release(1);
    }

    /**
     * Counts what the arbiter can still reserve.
     *
     * @param r result.
     */
    @Arbiter
    public void check(final II_Result r)
    {
        int more = 0;
        while (more < 4 && ring.reserve())
        {
            more++;
        }
        r.r2 = more;
    }
}
