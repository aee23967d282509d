package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.Errno;
import io.jfabric.Progress;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Pair.DEADLINE_NS;
import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.pattern;
import static io.jfabric.conformance.Pair.progressAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A flood of unexpected eager and rendezvous messages, far beyond the unexpected bound, received one at a time in
 * sending order: the rendezvous data a receive waits for must never queue behind eager frames that wait for
 * later receives (answers travel apart from requests).
 */
public abstract class FloodConformance extends Conformance
{
    /**
     * @param factory the provider under test.
     */
    protected FloodConformance(final PairFactory factory)
    {
        super(factory);
    }

    private static final int MESSAGES = 3000;
    private static final int BIG = 20_000;
    private static final int SMALL = 64;

    private static int sizeOf(final int i)
    {
        return i % 3 == 0 ? BIG : SMALL;
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    @Timeout(60)
    void shouldReceiveAFloodOfMixedUnexpectedMessagesOneAtATimeInOrder(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer[] out = new UnsafeBuffer[3];
            for (int k = 0; k < 3; k++)
            {
                out[k] = pattern(BIG, k + 1);
            }
            final UnsafeBuffer in = direct(BIG);
            final CompletionEntry entry = new CompletionEntry();
            int sent = 0;
            int received = 0;
            boolean posted = false;
            final long deadline = System.nanoTime() + DEADLINE_NS;
            while (received < MESSAGES)
            {
                if (sent < MESSAGES)
                {
                    final int i = sent;
                    final int r = p.a.tsend(out[i % 3], 0, sizeOf(i), p.addrBFromA, i, i);
                    if (0 == r)
                    {
                        sent++;
                    }
                    else if (r != Errno.EAGAIN.negated())
                    {
                        fail("tsend " + i + ": " + Errno.strerror(r));
                    }
                }
                while (p.cqA.read(entry) == 1)
                {
                    assertTrue(entry.context() < sent);
                }
                if (!posted && received < sent)
                {
                    final int r = p.b.trecv(in, 0, BIG, AddressVector.ADDR_UNSPEC, received, 0, 1_000_000 + received);
                    posted = 0 == r;
                    assertTrue(posted || r == Errno.EAGAIN.negated(), "trecv: " + r);
                }
                final int n = p.cqB.read(entry);
                if (1 == n)
                {
                    assertEquals(1_000_000 + received, entry.context());
                    assertEquals(received, entry.tag());
                    assertEquals(sizeOf(received), entry.len());
                    assertPattern(in, 0, sizeOf(received), received % 3 + 1);
                    received++;
                    posted = false;
                }
                else if (n != Errno.EAGAIN.negated())
                {
                    fail("cq.read: " + Errno.strerror(n));
                }
                if (System.nanoTime() - deadline > 0)
                {
                    fail("stuck: sent " + sent + ", received " + received);
                }
                progressAll();
            }
            assertEquals(MESSAGES, received);
        }
    }
}
