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
 * The agent counts a success and an error while an application adds to both counts ({@code fi_cntr_add},
 * {@code fi_cntr_adderr}): no increment is lost. r1: value, r2: error count.
 */
@JCStressTest
@Description("Counter cell: concurrent adds from the agent and an application are never lost")
@Outcome(id = "2, 2", expect = ACCEPTABLE, desc = "every add counted")
@Outcome(expect = FORBIDDEN, desc = "an add lost")
@State
public class CounterCellStress
{
    private final CounterCell cell = new CounterCell();

    /**
     * The agent: one completion, one error.
     */
    @Actor
    public void agent()
    {
        cell.add(1);
        cell.addError(1);
    }

    /**
     * An application: fi_cntr_adderr and fi_cntr_add.
     */
    @Actor
    public void application()
    {
        cell.addError(1);
        cell.add(1);
    }

    /**
     * Reads both counts.
     *
     * @param r result.
     */
    @Arbiter
    public void check(final JJ_Result r)
    {
        r.r1 = cell.value();
        r.r2 = cell.error();
    }
}
