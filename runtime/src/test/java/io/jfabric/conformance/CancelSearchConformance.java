package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Message;
import io.jfabric.Progress;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Timeout;
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
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Cancel semantics that need the agent's answer (issue 4: a multi-recv buffer with a rendezvous pull in flight is
 * not cancelled, {@code -EAGAIN}), and kfabric tsearch answered after an AV insert with DISCARD (the discarded
 * message's unexpected slot is freed).
 */
@Timeout(60)
public abstract class CancelSearchConformance extends Conformance
{
    /**
     * @param factory the provider under test.
     */
    protected CancelSearchConformance(final PairFactory factory)
    {
        super(factory);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldRefuseToCancelAMultiRecvBufferWhileARendezvousPullCopiesIntoIt(final Progress receiver)
    {
        // The sender runs its agent only when the test says, so the pull stays in flight as long as needed.
        final Info sender = info(Progress.MANUAL, 0, 0);
        try (Pair p = pair(sender, info(receiver, 0, 0), 0, CqFormat.TAGGED, 1024))
        {
            final int size = 100_000;
            assertEquals(0, p.a.tsend(pattern(size, 3), 0, size, p.addrBFromA, 7, 1));
            p.domainA.progress();
            awaitUnexpected(p, 7);

            // The multi-recv buffer matches the waiting request and asks the sender for the data.
            final UnsafeBuffer buffer = direct(4 * size);
            assertEquals(0, p.b.trecvmsg(new Message().buffer(buffer, 0, 4 * size).addr(AddressVector.ADDR_UNSPEC)
                .tag(7).context(50), Flags.MULTI_RECV));
            assertEquals(Errno.EAGAIN.negated(), p.b.cancel(50));
            assertEquals(Errno.EAGAIN.negated(), p.b.cancel(50));
            // (Reading B's CQ drives only B; the sender has not streamed, so nothing completed.)
            assertEquals(Errno.EAGAIN.negated(), p.cqB.read(new CompletionEntry()));

            // The sender streams; the message lands at offset 0 and the buffer stays posted.
            p.domainA.progress();
            final CompletionEntry e = one(p.cqB);
            assertEquals(50, e.context());
            assertEquals(size, e.len());
            assertEquals(buffer.addressOffset(), e.buf());
            assertEquals(0, e.flags() & Flags.MULTI_RECV);
            assertPattern(buffer, 0, size, 3);
            assertEquals(1, one(p.cqA).context());

            // Nothing in flight any more: the cancel releases the buffer.
            assertEquals(0, p.b.cancel(50));
            final CompletionErrorEntry err = error(p.cqB);
            assertEquals(Errno.ECANCELED, err.errno());
            assertEquals(50, err.context());
            assertTrue((err.flags() & Flags.MULTI_RECV) != 0);
            assertTrue((err.flags() & Flags.RECV) != 0);
            // Cancelling what is no longer posted answers 0 and completes nothing.
            assertEquals(0, p.b.cancel(50));
            assertEmpty(p.cqB);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldCancelAReceiveStillWaitingInTheReceiveRing(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            // Posted and cancelled back to back: the cancel finds the receive although the agent had not posted it.
            for (int i = 0; i < 50; i++)
            {
                assertEquals(0, p.b.recv(direct(16), 0, 16, AddressVector.ADDR_UNSPEC, 900 + i));
                assertEquals(0, p.b.cancel(900 + i));
                final CompletionErrorEntry err = error(p.cqB);
                assertEquals(Errno.ECANCELED, err.errno());
                assertEquals(900 + i, err.context());
            }
            final UnsafeBuffer rx = direct(16);
            assertEquals(0, p.b.recv(rx, 0, 16, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, p.a.send(pattern(16, 4), 0, 16, p.addrBFromA, 2));
            assertEquals(1, one(p.cqB).context());
            assertPattern(rx, 0, 16, 4);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldFreeTheUnexpectedSlotOfADeferredTsearchDiscard(final Progress progress)
    {
        // A store of 64 messages (read when the endpoint opens): a leaked entry per round would stall below.
        System.setProperty(io.jfabric.agent.FlowControl.UNEXPECTED_ENTRIES_PROP, "64");
        try (Pair p = pair(progress))
        {
            System.clearProperty(io.jfabric.agent.FlowControl.UNEXPECTED_ENTRIES_PROP);
            // A search directed at a source needs FI_DIRECTED_RECV (without it the source is ignored).
            final Info plain = p.b.info();
            final Info info = plain.toBuilder().caps(plain.caps() | Flags.DIRECTED_RECV)
                .rxAttr(plain.rxAttr().toBuilder().caps(plain.rxAttr().caps() | Flags.DIRECTED_RECV).build()).build();
            final AddressVector map = p.domainB.addressVector(AvType.MAP, 4);
            final CompletionQueue cq = p.domainB.completionQueue(1024, CqFormat.TAGGED);
            final Endpoint b2 = p.domainB.endpoint(info).bind(map, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable();
            final long toB2 = p.avA.insert(b2.name());
            // A MAP handle is the peer key: learn A's, then forget A, so that its messages come from an unknown source.
            final long keyA = map.insert(p.a.name());
            map.remove(keyA);
            final Message send = new Message().buffer(pattern(16, 1), 0, 16).addr(toB2).tag(5);
            // More rounds than the endpoint stores unexpected messages (64): a leaked entry per round would stall.
            for (int round = 0; round < 200; round++)
            {
                // Delivery complete: A's completion means B has queued the message (under A's raw key).
                assertEquals(0, p.a.tsendmsg(send.context(round), Flags.COMPLETION | Flags.DELIVERY_COMPLETE));
                assertEquals(round, one(p.cqA).context());
                final CompletionEntry hit = new CompletionEntry();
                final long[] source = new long[1];
                // Directed at A, which is not in the AV yet: the answer is deferred until the insert.
                assertEquals(0, b2.tsearch(keyA, 5, 0, Flags.DISCARD, 10_000 + round, hit, source));
                assertEquals(keyA, map.insert(p.a.name()));
                final CompletionEntry answer = one(cq);
                assertEquals(10_000 + round, answer.context());
                assertEquals(16, answer.len());
                assertEquals(5, answer.tag());
                // Discarded: nothing is left to find.
                assertEquals(Errno.ENOMSG.negated(), search(b2, cq, AddressVector.ADDR_UNSPEC, 5, 20_000 + round));
                map.remove(keyA);
            }
            assertEquals(keyA, map.insert(p.a.name()));
            final UnsafeBuffer rx = direct(16);
            assertEquals(0, b2.trecv(rx, 0, 16, keyA, 6, 0, 77));
            assertEquals(0, p.a.tsend(pattern(16, 8), 0, 16, toB2, 6, 78));
            assertEquals(77, one(cq).context());
            assertPattern(rx, 0, 16, 8);
            assertEquals(78, one(p.cqA).context());
            b2.close();
            cq.close();
            map.close();
        }
    }

    /**
     * Wait until B holds an unexpected message with this tag (tsearch without CLAIM leaves it in place).
     */
    private static void awaitUnexpected(final Pair p, final long tag)
    {
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        for (long context = 1_000; 1 != search(p.b, p.cqB, AddressVector.ADDR_UNSPEC, tag, context); context++)
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("the message never arrived");
            }
            Pair.progressAll();
        }
    }

    /**
     * A tsearch without flags and its answer: immediate with manual progress (1 or {@code -ENOMSG}), else read
     * from the receive CQ (a completion: 1, an error completion: its negated errno).
     */
    private static int search(
        final Endpoint ep, final CompletionQueue cq, final long src, final long tag, final long context)
    {
        final CompletionEntry hit = new CompletionEntry();
        final long[] source = new long[1];
        final int answer = ep.tsearch(src, tag, 0, 0, context, hit, source);
        if (0 != answer)
        {
            return answer;
        }
        final CompletionEntry entry = new CompletionEntry();
        final CompletionErrorEntry err = new CompletionErrorEntry();
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        while (true)
        {
            final int n = cq.read(entry);
            if (1 == n)
            {
                assertEquals(context, entry.context());
                return 1;
            }
            if (Errno.EAVAIL.negated() == n)
            {
                assertEquals(1, cq.readErr(err));
                assertEquals(context, err.context());
                return err.errno().negated();
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("no tsearch answer");
            }
            Pair.progressAll();
        }
    }
}
