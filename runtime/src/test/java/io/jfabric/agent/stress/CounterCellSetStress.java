package io.jfabric.agent.stress;

import io.jfabric.agent.CounterCell;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The agent counts a completion while the application sets the counter ({@code fi_cntr_set}) and reads it back:
 * the add lands before or after the set, never inside it. r1: what the application read after its set, r2: the
 * final value.
 */
@JCStressTest
@Description("Counter cell: fi_cntr_set against the agent's add is one order or the other")
@Outcome(id = "10, 10", expect = ACCEPTABLE, desc = "the add before the set")
@Outcome(id = {"10, 11", "11, 11"}, expect = ACCEPTABLE, desc = "the add after the set (before or after the read)")
@Outcome(expect = FORBIDDEN, desc = "a value neither order produces")
@State
public class CounterCellSetStress
{
    private final CounterCell cell = new CounterCell();

    /**
     * The agent.
     */
    @Actor
    public void agent()
    {
        cell.add(1);
    }

    /**
     * fi_cntr_set, then fi_cntr_read.
     *
     * @param r result.
     */
    @Actor
    public void application(final JJ_Result r)
    {
        cell.set(10);
        r.r1 = cell.value();
    }

    /**
     * The final value.
     *
     * @param r result.
     */
    @Arbiter
    public void check(final JJ_Result r)
    {
        r.r2 = cell.value();
    }
}
