package io.jfabric.agent.stress;

import io.jfabric.agent.ProgressGuard;
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
 * The {@code FI_PROGRESS_MANUAL} single-runner guard: two application threads try to run a duty cycle, modelled as a
 * plain read-modify-write of the agent's state. r1, r2: whether each thread ran it; r3: the state after both. One
 * thread at a time, and the second sees what the first wrote (no lost update); a thread only skips while the other
 * holds the guard, so at least one runs.
 */
@JCStressTest
@Description("Manual-progress guard: one runner at a time, each runner sees the previous one's writes")
@Outcome(id = "1, 1, 2", expect = ACCEPTABLE, desc = "one after the other")
@Outcome(id = {"1, 0, 1", "0, 1, 1"}, expect = ACCEPTABLE, desc = "one skipped while the other held the guard")
@Outcome(expect = FORBIDDEN, desc = "both inside at once, a lost update, or nobody ran")
@State
public class ProgressGuardStress
{
    private final ProgressGuard guard = new ProgressGuard();
    private int agentState;

    /**
     * Thread 0 drives progress.
     *
     * @param r result.
     */
    @Actor
    public void thread0(final III_Result r)
    {
        if (guard.tryEnter())
        {
            agentState = agentState + 1;
            guard.exit();
            r.r1 = 1;
        }
    }

    /**
     * Thread 1 drives progress.
     *
     * @param r result.
     */
    @Actor
    public void thread1(final III_Result r)
    {
        if (guard.tryEnter())
        {
            agentState = agentState + 1;
            guard.exit();
            r.r2 = 1;
        }
    }

    /**
     * The state after both.
     *
     * @param r result.
     */
    @Arbiter
    public void check(final III_Result r)
    {
        r.r3 = agentState + (guard.isTaken() ? 100 : 0);
    }
}
