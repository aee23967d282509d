/*
 * Copyright 2026 jfabric contributors.
 */
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
 * The producer writes two entries into a shared completion ring with one free entry while a reader reads one, so the
 * second write reuses the entry the reader is releasing, and the reader may meet an entry being written. The arbiter
 * reads the rest. r1: entries written (1 if the second write found the ring still full), r2: torn, lost or
 * duplicated entries.
 */
@JCStressTest
@Description("Shared completion ring: producer reuses an entry while a reader releases it; never a half-written entry")
@Outcome(id = "2, 0", expect = ACCEPTABLE, desc = "the reader released an entry before the second write")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the second write found the ring full and was refused")
@Outcome(expect = FORBIDDEN, desc = "a torn, lost or duplicated entry")
@State
public class SharedCompletionRingProducerReaderStress
{
    private final CompletionRing ring;
    private final StressRings.CompletionChecker reader = new StressRings.CompletionChecker();
    private int written;

    /**
     * Fills all but one entry.
     */
    public SharedCompletionRingProducerReaderStress()
    {
        ring = ring();
        for (int n = 0; n < StressRings.COMPLETION_ENTRIES - 1; n++)
        {
            StressRings.writeEntry(ring, n, false);
        }
    }

    CompletionRing ring()
    {
        return StressRings.sharedCompletion();
    }

    /**
     * Producer: two writes, an error entry then a success entry.
     */
    @Actor
    public void producer()
    {
        if (0 == StressRings.writeEntry(ring, 100, true))
        {
            written++;
        }
        if (0 == StressRings.writeEntry(ring, 101, false))
        {
            written++;
        }
    }

    /**
     * Reader: one entry.
     */
    @Actor
    public void reader()
    {
        reader.readSome(ring, 1);
    }

    /**
     * Reads the rest and checks order, integrity and counts.
     *
     * @param r result.
     */
    @Arbiter
    public void check(final II_Result r)
    {
        final StressRings.CompletionChecker rest = new StressRings.CompletionChecker();
        rest.readAll(ring);
        int errors = reader.errors + rest.errors + ring.size();
        if (1 != reader.timesSeen[0])
        {
            errors++;
        }
        for (int n = 1; n < StressRings.COMPLETION_ENTRIES - 1; n++)
        {
            if (1 != rest.timesSeen[n])
            {
                errors++;
            }
        }
        if (1 != rest.timesSeen[100] || (2 == written) != (1 == rest.timesSeen[101]))
        {
            errors++;
        }
        if (rest.lastSeen != (2 == written ? 101 : 100))
        {
            errors++;
        }
        r.r1 = written;
        r.r2 = errors;
    }
}
