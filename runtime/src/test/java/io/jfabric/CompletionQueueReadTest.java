package io.jfabric;

import io.jfabric.stat.DomainCounters;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A MANUAL {@code cq.read} looks at the queue first, runs one duty cycle only when it is empty, and returns what
 * that cycle completed (issue 16: one duty cycle per wait round). Counted with the domain's duty-cycle counter.
 */
@Timeout(60)
class CompletionQueueReadTest
{
    @Test
    void shouldRunADutyCycleOnlyForAnEmptyQueueAndReturnWhatItCompleted()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final DomainCounters b = p.domainB.counters();
            final CompletionEntry entry = new CompletionEntry();
            final UnsafeBuffer tx = InprocPair.pattern(64, 3);
            final UnsafeBuffer rx = InprocPair.direct(128);
            final int eagain = Errno.EAGAIN.negated();

            long cycles = b.value(DomainCounters.TYPE_DUTY_CYCLES);
            assertEquals(eagain, p.cqB.read(entry));
            assertEquals(cycles + 1, b.value(DomainCounters.TYPE_DUTY_CYCLES), "an empty read runs one cycle");

            // Two receives posted at B (its agent takes them), then two messages from A into B's inbound ring.
            assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 1000));
            assertEquals(0, p.b.recv(rx, 64, 64, AddressVector.ADDR_UNSPEC, 1001));
            for (int i = 0; i < 4; i++)
            {
                p.domainB.progress();
            }
            assertEquals(0, p.a.send(tx, 0, 64, p.addrBFromA, 2000));
            assertEquals(0, p.a.send(tx, 0, 64, p.addrBFromA, 2001));
            for (int i = 0; i < 4; i++)
            {
                p.domainA.progress();
            }

            // The read finds nothing, runs one cycle that matches both arrivals, and returns the first of them.
            cycles = b.value(DomainCounters.TYPE_DUTY_CYCLES);
            assertEquals(1, p.cqB.read(entry));
            assertEquals(1000, entry.context());
            assertEquals(cycles + 1, b.value(DomainCounters.TYPE_DUTY_CYCLES), "one cycle, then the look again");

            // The second is already there: returned without a cycle.
            assertEquals(1, p.cqB.read(entry));
            assertEquals(1001, entry.context());
            assertEquals(cycles + 1, b.value(DomainCounters.TYPE_DUTY_CYCLES), "a read that finds entries runs none");

            assertEquals(eagain, p.cqB.read(entry));
            assertEquals(cycles + 2, b.value(DomainCounters.TYPE_DUTY_CYCLES));
            assertEquals(2000, InprocPair.one(p.cqA).context());
            assertEquals(2001, InprocPair.one(p.cqA).context());
        }
    }
}
