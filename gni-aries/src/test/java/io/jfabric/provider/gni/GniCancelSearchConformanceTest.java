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
import io.jfabric.aries.AriesNode;
import io.jfabric.aries.FaultPlan;
import io.jfabric.aries.TransactionKind;
import io.jfabric.conformance.CancelSearchConformance;
import io.jfabric.conformance.Drive;
import io.jfabric.conformance.Pair;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
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
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CancelSearchConformance} over the {@code gni} provider. Overridden by its gni form: the multi-recv buffer
 * cancelled while a rendezvous pull copies into it ({@link GniDifferences#ONE_SIDED_PULL}). gni's pull is the
 * receiver's GET, served by the sender's NIC without any progress of the sender, so the buffer is busy only until the
 * receiver's duty cycle that reads the GET's completion, and the message lands before the sender progresses. The form
 * asserts that the stored message is not pulled before a receive takes it (no GET posted), that a cancel is refused
 * while the GET is in flight (deterministic with a MANUAL receiver: the cancel's duty cycle reads the cancel before
 * the NIC's events) and never releases the buffer before the message's completion, which lands at offset 0 without
 * the sender's progress; the send completes on the FIN once the sender progresses.
 */
class GniCancelSearchConformanceTest extends CancelSearchConformance
{
    GniCancelSearchConformanceTest()
    {
        super(GniConformance.FACTORY);
    }

    @AfterEach
    void clear()
    {
        GniFaults.clear();
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni ONE_SIDED_PULL: the GET into the multi-recv buffer needs no sender progress; busy until it ends")
    protected void shouldRefuseToCancelAMultiRecvBufferWhileARendezvousPullCopiesIntoIt(final Progress receiver)
    {
        // An empty fault plan: the nodes are kept, so that the receiver's NIC's GETs can be counted.
        GniFaults.install(FaultPlan.seeded(15));
        final Info sender = info(Progress.MANUAL, 0, 0);
        try (Pair p = pair(sender, info(receiver, 0, 0), 0, CqFormat.TAGGED, 1024))
        {
            final AriesNode node = GniFaults.node(GniName.device(GniName.parse(p.b.name())));
            assertNotNull(node);
            final long gets = node.stats().posts(TransactionKind.RDMA_GET);
            final int size = 100_000;
            assertEquals(0, p.a.tsend(pattern(size, 3), 0, size, p.addrBFromA, 7, 1));
            p.domainA.progress();
            awaitStored(p, 7);
            assertEquals(gets, node.stats().posts(TransactionKind.RDMA_GET), "stored without its payload");

            final UnsafeBuffer buffer = direct(4 * size);
            assertEquals(0, p.b.trecvmsg(new Message().buffer(buffer, 0, 4 * size).addr(AddressVector.ADDR_UNSPEC)
                .tag(7).context(50), Flags.MULTI_RECV));
            int cancel = Errno.EAGAIN.negated();
            if (Progress.MANUAL == receiver)
            {
                // The receiver's duty cycle that takes the receive matches the stored message and posts the GET.
                final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
                while (node.stats().posts(TransactionKind.RDMA_GET) == gets)
                {
                    assertTrue(System.nanoTime() - deadline < 0, "no GET posted before the deadline");
                    p.domainB.progress();
                }
                assertEquals(Errno.EAGAIN.negated(), p.b.cancel(50));
            }
            else
            {
                // The receiver's agent runs on its own: the cancel answers EAGAIN while the receive waits in the
                // receive ring or the GET is in flight, and 0 only once the message is complete.
                cancel = p.b.cancel(50);
                assertTrue(0 == cancel || Errno.EAGAIN.negated() == cancel, "cancel: " + cancel);
            }
            // Without the sender's progress the message lands at offset 0 and the buffer stays posted.
            final CompletionEntry e = Drive.one(p.cqB, p.domainB);
            assertEquals(50, e.context());
            assertEquals(size, e.len());
            assertEquals(buffer.addressOffset(), e.buf());
            assertEquals(0, e.flags() & Flags.MULTI_RECV);
            assertPattern(buffer, 0, size, 3);
            assertEquals(gets + 1, node.stats().posts(TransactionKind.RDMA_GET), "one GET, into the buffer");
            assertEquals(1, one(p.cqA).context());

            if (0 != cancel)
            {
                // Nothing in flight any more: the cancel releases the buffer.
                assertEquals(0, p.b.cancel(50));
            }
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

    /**
     * Peek for {@code tag} until the receiver's runtime stores the message (both domains progressed), within the
     * deadline; each miss is an ENOMSG error entry.
     */
    private static void awaitStored(final Pair p, final long tag)
    {
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        for (long context = 1_000; ; context++)
        {
            assertEquals(0, p.b.trecvmsg(new Message().addr(AddressVector.ADDR_UNSPEC).tag(tag).context(context),
                Flags.PEEK));
            final CompletionEntry e = new CompletionEntry();
            int n;
            while (Errno.EAGAIN.negated() == (n = p.cqB.read(e)))
            {
                assertTrue(System.nanoTime() - deadline < 0, "no answer to the peek before the deadline");
                Pair.progressAll();
            }
            if (1 == n)
            {
                assertEquals(context, e.context());
                return;
            }
            final CompletionErrorEntry err = new CompletionErrorEntry();
            assertEquals(1, p.cqB.readErr(err));
            assertEquals(Errno.ENOMSG, err.errno());
            assertTrue(System.nanoTime() - deadline < 0, "the message never arrived");
            Pair.progressAll();
        }
    }
}
