package io.jfabric.aries;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded, deterministic plan of faults for one node's NIC engine (GNI.md §5.4). Rules select transactions by
 * kind, source and destination device address and ptag, fire on the nth match, on every kth match or with a
 * probability drawn from the plan's seed, and apply one {@link Action}. Every fault applied is appended to a
 * {@link #trace()} a failing test can print.
 * <p>
 * Initiator-side actions are decided when a transaction is posted (or a datagram sent); target-side actions
 * ({@link Action#SHRINK_CQ}, {@link Action#CQE_BEFORE_DATA}) when its frame arrives.
 * <p>
 * Threading: not thread-safe; owned by the node it is given to (consulted under the node's lock).
 */
public final class FaultPlan
{
    /**
     * What a fired rule does.
     */
    public enum Action
    {
        /** Fail the transaction with a recoverable TRANSACTION_ERROR; SMSG: {@code param} transmission failures,
         * absorbed by uGNI's retransmits while {@code param <= maxRetrans}. */
        TRANSIENT_ERROR(false),
        /** Fail the transaction with a non-recoverable TRANSACTION_ERROR. */
        FATAL_ERROR(false),
        /** Lose the datagram: the post stays PENDING. */
        DROP_DATAGRAM(false),
        /** Hold the datagram for {@code param} engine steps before it is sent. */
        DELAY_DATAGRAM(false),
        /** Complete the datagram post in state ERROR. */
        ERROR_DATAGRAM(false),
        /** Answer this and the next {@code param - 1} SMSG sends of the endpoint with NOT_DONE (no credit). */
        WITHHOLD_CREDITS(false),
        /** Shrink the CQ that receives the target-side event to {@code param} entries (forces an overrun). */
        SHRINK_CQ(true),
        /** Publish the remote SMSG event one engine step before the message becomes visible to GetNext. */
        CQE_BEFORE_DATA(true),
        /** Hold the transaction's frames (and its endpoint's later ones) one engine step, so that frames of other
         * endpoints overtake them. */
        REORDER(false);

        private final boolean targetSide;

        Action(final boolean targetSide)
        {
            this.targetSide = targetSide;
        }

        /**
         * @return true when the action is decided where the frame arrives.
         */
        public boolean targetSide()
        {
            return targetSide;
        }
    }

    /**
     * One rule: a selector, a trigger and an action. Fluent; unset selectors match anything.
     */
    public static final class Rule
    {
        private final TransactionKind kind;
        private final Action action;
        private final long param;
        private int srcDevice = -1;
        private int dstDevice = -1;
        private int ptag = -1;
        private long nth;
        private long everyK;
        private double probability = -1;
        private long matches;

        private Rule(final TransactionKind kind, final Action action, final long param)
        {
            this.kind = kind;
            this.action = action;
            this.param = param;
        }

        /**
         * @param device source device address to match.
         * @return this.
         */
        public Rule from(final int device)
        {
            srcDevice = device;
            return this;
        }

        /**
         * @param device destination device address to match.
         * @return this.
         */
        public Rule to(final int device)
        {
            dstDevice = device;
            return this;
        }

        /**
         * @param ptag ptag to match.
         * @return this.
         */
        public Rule ptag(final int ptag)
        {
            this.ptag = ptag;
            return this;
        }

        /**
         * Fire once, on the nth matching transaction (1-based).
         *
         * @param n the occurrence.
         * @return this.
         */
        public Rule nth(final long n)
        {
            nth = n;
            return this;
        }

        /**
         * Fire on every kth matching transaction (k, 2k, ...).
         *
         * @param k the period.
         * @return this.
         */
        public Rule everyK(final long k)
        {
            everyK = k;
            return this;
        }

        /**
         * Fire with probability {@code p}, drawn from the plan's seeded generator.
         *
         * @param p from 0 to 1.
         * @return this.
         */
        public Rule probability(final double p)
        {
            probability = p;
            return this;
        }

        /**
         * @return the action.
         */
        public Action action()
        {
            return action;
        }

        /**
         * @return the action's parameter.
         */
        public long param()
        {
            return param;
        }

        @Override
        public String toString()
        {
            return action + "(" + param + ") on " + (null == kind ? "ANY" : kind) +
                (srcDevice >= 0 ? " from " + srcDevice : "") + (dstDevice >= 0 ? " to " + dstDevice : "") +
                (ptag >= 0 ? " ptag " + ptag : "") + (nth > 0 ? " nth " + nth : "") +
                (everyK > 0 ? " every " + everyK : "") + (probability >= 0 ? " p " + probability : "");
        }
    }

    private final long seed;
    private final SplittableRandom random;
    private final List<Rule> rules = new ArrayList<>();
    private final List<String> trace = new ArrayList<>();

    private FaultPlan(final long seed)
    {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
    }

    /**
     * An empty plan whose probabilities draw from {@code seed}.
     *
     * @param seed the seed.
     * @return the plan.
     */
    public static FaultPlan seeded(final long seed)
    {
        return new FaultPlan(seed);
    }

    /**
     * A rule for transactions of {@code kind} (null: any kind).
     *
     * @param kind   the kind.
     * @param action what to do.
     * @param param  the action's parameter (times, steps, entries; ignored by the others).
     * @return the rule, to refine and {@link #add}.
     */
    public static Rule on(final TransactionKind kind, final Action action, final long param)
    {
        return new Rule(kind, action, param);
    }

    /**
     * Add a rule. Every rule counts the transactions it selects (its nth / every-k count), whichever rule fires;
     * when several fire for one transaction, the first added wins.
     *
     * @param rule the rule.
     * @return this.
     */
    public FaultPlan add(final Rule rule)
    {
        rules.add(rule);
        return this;
    }

    /**
     * @return the seed.
     */
    public long seed()
    {
        return seed;
    }

    /**
     * @return the faults applied so far, oldest first, one line each.
     */
    public List<String> trace()
    {
        return Collections.unmodifiableList(trace);
    }

    /**
     * Find the rule that fires for a transaction, counting the match of every rule that selects it.
     * Allocation-free unless a rule fires (the trace line).
     */
    Rule fire(
        final boolean targetSide, final TransactionKind kind, final int src, final int dst, final int ptag,
        final long step)
    {
        final List<Rule> rules = this.rules;
        Rule fired = null;
        long firedCount = 0;
        for (int i = 0, n = rules.size(); i < n; i++)
        {
            final Rule rule = rules.get(i);
            if (rule.action.targetSide != targetSide ||
                (null != rule.kind && rule.kind != kind) ||
                (rule.srcDevice >= 0 && rule.srcDevice != src) ||
                (rule.dstDevice >= 0 && rule.dstDevice != dst) ||
                (rule.ptag >= 0 && rule.ptag != ptag))
            {
                continue;
            }
            final long count = ++rule.matches;
            final boolean fires;
            if (rule.nth > 0)
            {
                fires = count == rule.nth;
            }
            else if (rule.everyK > 0)
            {
                fires = 0 == count % rule.everyK;
            }
            else if (rule.probability >= 0)
            {
                fires = random.nextDouble() < rule.probability;
            }
            else
            {
                fires = true;
            }
            if (fires && null == fired)
            {
                fired = rule;
                firedCount = count;
            }
        }
        if (null != fired)
        {
            trace.add("step " + step + ": " + fired.action + "(" + fired.param + ") " + kind + " " +
                Integer.toHexString(src) + "->" + Integer.toHexString(dst) + " ptag " + ptag +
                " match " + firedCount + " [" + fired + "]");
        }
        return fired;
    }
}
