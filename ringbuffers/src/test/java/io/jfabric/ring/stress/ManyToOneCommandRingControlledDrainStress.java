/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring.stress;

import io.jfabric.ring.CommandRing;
import io.jfabric.ring.CommandRingDescriptor;
import io.jfabric.ring.ControlledCommandHandler;
import org.agrona.concurrent.AtomicBuffer;
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
 * A producer posts three commands (one aborted by the producer) across the wrap of a many-to-one command ring while
 * the consumer runs controlled drains that leave every command in place (ABORT) the first time they see it and
 * consume it the next time, as the domain agent does under back-pressure; the arbiter drains the rest the same way.
 * r1: commands consumed by the racing drains, r2: commands consumed in all, r3: errors (a command lost, consumed
 * twice, out of order, torn or changed between its hand-overs, or the producer's aborted one handed over).
 */
@JCStressTest
@Description("Controlled drain with ABORT against a committing producer: each command consumed once, whole, in order")
@Outcome(id = {"0, 2, 0", "1, 2, 0", "2, 2, 0"}, expect = ACCEPTABLE, desc = "every command consumed exactly once")
@Outcome(expect = FORBIDDEN, desc = "a command lost, duplicated, reordered, torn, or an aborted one delivered")
@State
public class ManyToOneCommandRingControlledDrainStress
{
    private static final int[][] SLOTS = { { 2, 1 } };

    private final CommandRing ring = StressRings.manyToOne(13);
    private final StressRings.CommandChecker checker = new StressRings.CommandChecker(SLOTS);
    private final AbortOnce handler = new AbortOnce(checker);
    private int racing;
    private int failedClaims;

    /**
     * Producer: a 2-slot command that wraps, an aborted 2-slot command, then a 1-slot command.
     */
    @Actor
    public void producer()
    {
        if (!StressRings.post(ring, 0, 0, 2, false))
        {
            failedClaims++;
        }
        if (!StressRings.post(ring, 0, 7, 2, true))
        {
            failedClaims++;
        }
        if (!StressRings.post(ring, 0, 1, 1, false))
        {
            failedClaims++;
        }
    }

    /**
     * Consumer: three controlled drains.
     */
    @Actor
    public void consumer()
    {
        racing += ring.controlledDrain(handler, 10);
        racing += ring.controlledDrain(handler, 10);
        racing += ring.controlledDrain(handler, 10);
    }

    /**
     * Drains the rest the same way and checks.
     *
     * @param r result.
     */
    @Arbiter
    public void check(final III_Result r)
    {
        for (int i = 0; i < 8; i++)
        {
            ring.controlledDrain(handler, 10);
        }
        r.r1 = racing;
        r.r2 = checker.delivered;
        r.r3 = checker.errors + handler.errors + failedClaims + (checker.next[0] != 2 ? 1 : 0) + ring.size();
    }

    /**
     * Leaves each command in place the first time (checking its body), consumes it through the checker the next.
     */
    static final class AbortOnce implements ControlledCommandHandler
    {
        private final StressRings.CommandChecker checker;
        private final boolean[] abortedOnce = new boolean[16];
        int errors;

        AbortOnce(final StressRings.CommandChecker checker)
        {
            this.checker = checker;
        }

        public Action onCommand(final AtomicBuffer buffer, final int offset, final int slots)
        {
            final long first = buffer.getLong(offset);
            final int producer = (int) (first >>> 48);
            final int seq = (int) ((first >>> 16) & 0xFFFF);
            if (0 != producer || seq >= abortedOnce.length)
            {
                errors++;
                return Action.CONTINUE;
            }
            if (!abortedOnce[seq])
            {
                abortedOnce[seq] = true;
                for (int i = 0; i < CommandRingDescriptor.bodyLength(slots); i += 8)
                {
                    if (buffer.getLong(offset + i) != StressRings.word(producer, seq, i >> 3))
                    {
                        errors++;
                    }
                }
                return Action.ABORT;
            }
            checker.onCommand(buffer, offset, slots);
            return Action.CONTINUE;
        }
    }
}
