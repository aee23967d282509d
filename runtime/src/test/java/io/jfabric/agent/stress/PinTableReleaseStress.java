package io.jfabric.agent.stress;

import io.jfabric.agent.PinTable;
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
 * The agent releases a finished operation's slot (an ordered store) while a posting thread pins the next one in a
 * table of one slot: the poster either finds the table full or gets the slot, and then its own context, not the
 * finished operation's. r1: the poster's slot (-1 = full); r2: the context in the slot after both.
 */
@JCStressTest
@Description("Pin table: a release racing a pin never loses the new pin nor mixes contexts")
@Outcome(id = "-1, 7", expect = ACCEPTABLE, desc = "the pin came first: table full, old context kept")
@Outcome(id = "0, 9", expect = ACCEPTABLE, desc = "the release came first: the new operation owns the slot")
@Outcome(expect = FORBIDDEN, desc = "the slot handed out while pinned, or the new context lost")
@State
public class PinTableReleaseStress
{
    private final PinTable table = new PinTable(1);
    private final int finished;

    /**
     * A posted operation already pinned with context 7.
     */
    public PinTableReleaseStress()
    {
        finished = table.pin(new Object(), PinTable.NONE);
        table.context(finished, 7);
    }

    /**
     * The agent completes the operation.
     */
    @Actor
    public void agent()
    {
        table.release(finished);
    }

    /**
     * A posting thread pins the next operation with context 9.
     *
     * @param r result.
     */
    @Actor
    public void poster(final JJ_Result r)
    {
        final int slot = table.pin(new Object(), PinTable.NONE);
        if (slot >= 0)
        {
            table.context(slot, 9);
        }
        r.r1 = slot;
    }

    /**
     * Reads what the slot holds.
     *
     * @param r result.
     */
    @Arbiter
    public void check(final JJ_Result r)
    {
        r.r2 = table.context(0);
    }
}
