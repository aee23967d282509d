package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Message;
import io.jfabric.Progress;
import io.jfabric.conformance.CancelSearchConformance;
import io.jfabric.conformance.Pair;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Pair.assertEmpty;
import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CancelSearchConformance} over the {@code gni} provider. Overridden by its gni form: the multi-recv buffer
 * cancelled while a rendezvous pull copies into it ({@link GniDifferences#NO_RENDEZVOUS_ARRIVAL}). gni pulls a
 * rendezvous message whole into a receive-side staging buffer before the runtime sees it, so the message is
 * matched only once every byte is in (a message too large for the runtime's unexpected store waits whole in the
 * back-end), the multi-recv buffer that matches it is filled in one copy, and no pull is ever in flight into it:
 * the form asserts that (the message lands at offset 0 of the buffer, the send completes on the FIN after it, and
 * the cancel that follows releases the buffer at once).
 */
class GniCancelSearchConformanceTest extends CancelSearchConformance
{
    GniCancelSearchConformanceTest()
    {
        super(GniConformance.FACTORY);
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni NO_RENDEZVOUS_ARRIVAL: a staged rendezvous fills the multi-recv buffer at post; cancel at once")
    protected void shouldRefuseToCancelAMultiRecvBufferWhileARendezvousPullCopiesIntoIt(final Progress receiver)
    {
        final Info sender = info(Progress.MANUAL, 0, 0);
        try (Pair p = pair(sender, info(receiver, 0, 0), 0, CqFormat.TAGGED, 1024))
        {
            final int size = 100_000;
            assertEquals(0, p.a.tsend(pattern(size, 3), 0, size, p.addrBFromA, 7, 1));
            // No receive yet: gni pulls the message into staging, the runtime has no room to keep 100 kB unexpected
            // (-EAGAIN), so the back-end holds it whole and the send waits for the receiver's FIN.

            final UnsafeBuffer buffer = direct(4 * size);
            assertEquals(0, p.b.trecvmsg(new Message().buffer(buffer, 0, 4 * size).addr(AddressVector.ADDR_UNSPEC)
                .tag(7).context(50), Flags.MULTI_RECV));
            final CompletionEntry e = one(p.cqB);
            assertEquals(50, e.context());
            assertEquals(size, e.len());
            assertEquals(buffer.addressOffset(), e.buf());
            assertEquals(0, e.flags() & Flags.MULTI_RECV);
            assertPattern(buffer, 0, size, 3);
            assertEquals(1, one(p.cqA).context());

            // Nothing was ever in flight into the buffer: the cancel releases it at once.
            assertEquals(0, p.b.cancel(50));
            final CompletionErrorEntry err = error(p.cqB);
            assertEquals(Errno.ECANCELED, err.errno());
            assertEquals(50, err.context());
            assertTrue((err.flags() & Flags.MULTI_RECV) != 0);
            assertTrue((err.flags() & Flags.RECV) != 0);
            assertEquals(0, p.b.cancel(50));
            assertEmpty(p.cqB);
            assertEmpty(p.cqA);
        }
    }
}
