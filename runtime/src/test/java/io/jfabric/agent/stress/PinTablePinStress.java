package io.jfabric.agent.stress;

import io.jfabric.agent.PinTable;
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
 * Two posting threads pin a buffer each in a table of two slots (FI_THREAD_SAFE posts): each gets its own slot and
 * both stay pinned. r1, r2: the slots; r3: slots pinned afterwards.
 */
@JCStressTest
@Description("Pin table: concurrent pins never share a slot")
@Outcome(id = {"0, 1, 2", "1, 0, 2"}, expect = ACCEPTABLE, desc = "a slot each")
@Outcome(expect = FORBIDDEN, desc = "a slot handed out twice, or a pin lost")
@State
public class PinTablePinStress
{
    private final PinTable table = new PinTable(2);
    private final Object first = new Object();
    private final Object second = new Object();

    /**
     * One posting thread.
     *
     * @param r result.
     */
    @Actor
    public void poster1(final III_Result r)
    {
        r.r1 = table.pin(first, PinTable.NONE);
    }

    /**
     * Another posting thread.
     *
     * @param r result.
     */
    @Actor
    public void poster2(final III_Result r)
    {
        r.r2 = table.pin(second, PinTable.NONE);
    }

    /**
     * Counts the pinned slots.
     *
     * @param r result.
     */
    @Arbiter
    public void check(final III_Result r)
    {
        r.r3 = table.pinned();
    }
}
