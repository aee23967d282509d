package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.Message;
import io.jfabric.Progress;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tagged messages over a pair: posted and unexpected matching, 64k unexpected messages in windows, ignore masks,
 * truncation, cancel, peek/claim/discard (tsearch) under manual and automatic progress.
 * <p>
 * A suite class: a provider runs it by extending it with its {@link PairFactory} (see {@link Conformance}).
 */
@Timeout(30)
public abstract class TaggedConformance extends Conformance
{
    /**
     * @param factory the provider under test.
     */
    protected TaggedConformance(final PairFactory factory)
    {
        super(factory);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldDeliverTaggedMessageByteForByteWhenReceivePostedFirst(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer rx = direct(1000);
            assertEquals(0, p.b.trecv(rx, 0, 1000, p.addrAFromB, 42, 0, 7));
            final UnsafeBuffer tx = pattern(1000, 3);
            assertEquals(0, p.a.tsend(tx, 0, 1000, p.addrBFromA, 42, 9));

            final CompletionEntry recv = one(p.cqB);
            assertEquals(7, recv.context());
            assertEquals(1000, recv.len());
            assertEquals(42, recv.tag());
            assertEquals(Flags.RECV | Flags.TAGGED, recv.flags());
            assertEquals(rx.addressOffset(), recv.buf());
            assertPattern(rx, 0, 1000, 3);

            final CompletionEntry send = one(p.cqA);
            assertEquals(9, send.context());
            assertEquals(Flags.SEND | Flags.TAGGED, send.flags());
            assertEquals(1, p.sendCntrA.read());
            assertEquals(1, p.recvCntrB.read());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldMatchUnexpectedMessagesPostedInReverseTagOrder(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final int count = 50;
            for (int t = 0; t < count; t++)
            {
                assertEquals(0, p.a.tsend(pattern(64 + t, t), 0, 64 + t, p.addrBFromA, t, 100 + t));
            }
            for (int t = 0; t < count; t++)
            {
                assertEquals(100 + t, one(p.cqA).context());
            }
            final UnsafeBuffer[] buffers = new UnsafeBuffer[count];
            for (int t = count - 1; t >= 0; t--)
            {
                buffers[t] = direct(256);
                assertEquals(0, p.b.trecv(buffers[t], 0, 256, AddressVector.ADDR_UNSPEC, t, 0, t));
                final CompletionEntry e = one(p.cqB);
                assertEquals(t, e.context());
                assertEquals(t, e.tag());
                assertEquals(64 + t, e.len());
                assertPattern(buffers[t], 0, 64 + t, t);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldReceive64kUnexpectedMessagesInWindowsOf16PostedInReverseTagOrder(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final int window = 16;
            final UnsafeBuffer tx = direct(8);
            final UnsafeBuffer rx = direct(8 * window);
            final CompletionEntry[] entries = new CompletionEntry[window];
            for (int i = 0; i < window; i++)
            {
                entries[i] = new CompletionEntry();
            }
            for (int base = 0; base < 65536; base += window)
            {
                for (int t = 0; t < window; t++)
                {
                    tx.putLong(0, base + t);
                    assertEquals(0, p.a.tinject(tx, 0, 8, p.addrBFromA, t));
                }
                // With manual progress, move the window into B's unexpected queue before any receive is posted.
                p.domainA.progress();
                p.domainB.progress();
                for (int t = window - 1; t >= 0; t--)
                {
                    assertEquals(0, p.b.trecv(rx, t * 8, 8, AddressVector.ADDR_UNSPEC, t, 0, t));
                }
                int got = 0;
                final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
                while (got < window)
                {
                    final int n = p.cqB.read(entries, window);
                    if (n > 0)
                    {
                        got += n;
                    }
                    else
                    {
                        assertEquals(Errno.EAGAIN.negated(), n);
                        assertTrue(System.nanoTime() < deadline);
                        Pair.progressAll();
                    }
                }
                for (int t = 0; t < window; t++)
                {
                    assertEquals(base + t, rx.getLong(t * 8), "message " + (base + t));
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldMatchWithIgnoreMaskAndKeepPostingOrder(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer r1 = direct(64);
            final UnsafeBuffer r2 = direct(64);
            assertEquals(0, p.b.trecv(r1, 0, 64, AddressVector.ADDR_UNSPEC, 0x100, 0xFF, 1));
            assertEquals(0, p.b.trecv(r2, 0, 64, AddressVector.ADDR_UNSPEC, 0x100, 0xFF, 2));
            assertEquals(0, p.a.tsend(pattern(8, 1), 0, 8, p.addrBFromA, 0x1AB, 11));
            assertEquals(0, p.a.tsend(pattern(8, 2), 0, 8, p.addrBFromA, 0x122, 12));
            final CompletionEntry first = one(p.cqB);
            assertEquals(1, first.context());
            assertEquals(0x1AB, first.tag());
            final CompletionEntry second = one(p.cqB);
            assertEquals(2, second.context());
            assertEquals(0x122, second.tag());
            assertPattern(r1, 0, 8, 1);
            assertPattern(r2, 0, 8, 2);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldCompleteWithEtruncAndOverflowLengthWhenMessageIsLongerThanBuffer(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer rx = direct(100);
            assertEquals(0, p.b.trecv(rx, 0, 40, AddressVector.ADDR_UNSPEC, 5, 0, 77));
            assertEquals(0, p.a.tsend(pattern(100, 9), 0, 100, p.addrBFromA, 5, 1));
            final CompletionErrorEntry err = error(p.cqB);
            assertEquals(Errno.ETRUNC, err.errno());
            assertEquals(77, err.context());
            assertEquals(40, err.len());
            assertEquals(60, err.olen());
            assertPattern(rx, 0, 40, 9);
            assertEquals(0, rx.getByte(40));
            // The counter is updated beside the CQ entry, not before it (AUTO: maybe a moment after): bounded wait.
            final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            while (p.recvCntrB.readErr() < 1 && System.nanoTime() - deadline < 0)
            {
                p.domainB.progress();
                Thread.yield();
            }
            assertEquals(1, p.recvCntrB.readErr());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldCompleteWithEcanceledWhenPostedReceiveIsCancelled(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer r1 = direct(64);
            final UnsafeBuffer r2 = direct(64);
            assertEquals(0, p.b.trecv(r1, 0, 64, AddressVector.ADDR_UNSPEC, 1, 0, 501));
            assertEquals(0, p.b.trecv(r2, 0, 64, AddressVector.ADDR_UNSPEC, 2, 0, 502));
            assertEquals(0, p.b.cancel(501));
            final CompletionErrorEntry err = error(p.cqB);
            assertEquals(Errno.ECANCELED, err.errno());
            assertEquals(501, err.context());
            assertTrue((err.flags() & Flags.RECV) != 0);

            assertEquals(0, p.a.tsend(pattern(16, 4), 0, 16, p.addrBFromA, 2, 1));
            final CompletionEntry e = one(p.cqB);
            assertEquals(502, e.context());
            assertPattern(r2, 0, 16, 4);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldPeekClaimAndDiscardUnexpectedMessages(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final Message msg = new Message().addr(AddressVector.ADDR_UNSPEC).tag(8).context(1);
            assertEquals(0, p.b.trecvmsg(msg, Flags.PEEK));
            assertEquals(Errno.ENOMSG, error(p.cqB).errno());

            assertEquals(0, p.a.tsenddata(pattern(32, 6), 0, 32, 0xDA7A, p.addrBFromA, 8, 1));
            one(p.cqA);
            long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            CompletionEntry peeked = null;
            while (null == peeked)
            {
                assertEquals(0, p.b.trecvmsg(msg.context(2), Flags.PEEK));
                final CompletionEntry e = new CompletionEntry();
                final CompletionErrorEntry err = new CompletionErrorEntry();
                while (true)
                {
                    final int n = p.cqB.read(e);
                    if (1 == n)
                    {
                        peeked = e;
                        break;
                    }
                    if (n == Errno.EAVAIL.negated())
                    {
                        assertEquals(1, p.cqB.readErr(err));
                        assertEquals(Errno.ENOMSG, err.errno());
                        break;
                    }
                    assertTrue(System.nanoTime() < deadline);
                    Pair.progressAll();
                }
            }
            assertEquals(2, peeked.context());
            assertEquals(32, peeked.len());
            assertEquals(0xDA7A, peeked.data());
            assertEquals(8, peeked.tag());

            assertEquals(0, p.b.trecvmsg(msg.context(3), Flags.PEEK | Flags.CLAIM));
            assertEquals(3, one(p.cqB).context());
            assertEquals(0, p.b.trecvmsg(msg.context(4), Flags.PEEK));
            assertEquals(Errno.ENOMSG, error(p.cqB).errno());

            final UnsafeBuffer rx = direct(64);
            assertEquals(0, p.b.trecvmsg(new Message().buffer(rx, 0, 64).tag(8).context(3), Flags.CLAIM));
            final CompletionEntry claimed = one(p.cqB);
            assertEquals(3, claimed.context());
            assertEquals(32, claimed.len());
            assertPattern(rx, 0, 32, 6);

            assertEquals(0, p.a.tsend(pattern(16, 1), 0, 16, p.addrBFromA, 9, 1));
            one(p.cqA);
            deadline = System.nanoTime() + Pair.DEADLINE_NS;
            final Message discard = new Message().addr(AddressVector.ADDR_UNSPEC).tag(9).context(5);
            while (true)
            {
                assertEquals(0, p.b.trecvmsg(discard, Flags.PEEK | Flags.DISCARD));
                final CompletionEntry e = new CompletionEntry();
                final int n = readOneOrError(p.cqB, e);
                if (1 == n)
                {
                    assertEquals(5, e.context());
                    break;
                }
                assertTrue(System.nanoTime() < deadline);
            }
            assertEquals(0, p.b.trecvmsg(discard.context(6), Flags.PEEK));
            assertEquals(Errno.ENOMSG, error(p.cqB).errno());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL"})
    void shouldAnswerTsearchAtOnceWithManualProgressAndHonourClaimAndDiscard(final Progress progress)
    {
        assumeTrue(factory.deliversWithTheSendCompletion(),
            "assumes the frame is at the peer when the send completes (see PairFactory.deliversWithTheSendCompletion)");
        try (Pair p = pair(progress))
        {
            final CompletionEntry hit = new CompletionEntry();
            final long[] source = new long[1];
            assertEquals(Errno.ENOMSG.negated(), p.b.tsearch(AddressVector.ADDR_UNSPEC, 7, 0, 0, 1, hit, source));
            assertEquals(0, p.a.tsenddata(pattern(48, 2), 0, 48, 0x99, p.addrBFromA, 7, 1));
            assertEquals(0, p.a.tsend(pattern(16, 3), 0, 16, p.addrBFromA, 8, 2));
            one(p.cqA);
            one(p.cqA);
            assertEquals(1, p.b.tsearch(AddressVector.ADDR_UNSPEC, 7, 0, 0, 1, hit, source));
            assertEquals(48, hit.len());
            assertEquals(7, hit.tag());
            assertEquals(0x99, hit.data());
            assertEquals(p.addrAFromB, source[0]);

            assertEquals(1, p.b.tsearch(p.addrAFromB, 7, 0, Flags.CLAIM, 70, hit, source));
            assertEquals(Errno.ENOMSG.negated(), p.b.tsearch(AddressVector.ADDR_UNSPEC, 7, 0, 0, 2, hit, source));
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, p.b.trecvmsg(new Message().buffer(rx, 0, 64).tag(7).context(70), Flags.CLAIM));
            assertEquals(70, one(p.cqB).context());
            assertPattern(rx, 0, 48, 2);

            assertEquals(1, p.b.tsearch(AddressVector.ADDR_UNSPEC, 8, 0, Flags.DISCARD, 3, hit, source));
            assertEquals(16, hit.len());
            assertEquals(Errno.ENOMSG.negated(), p.b.tsearch(AddressVector.ADDR_UNSPEC, 8, 0, 0, 4, hit, source));
            assertEquals(Errno.EINVAL.negated(),
                p.b.tsearch(AddressVector.ADDR_UNSPEC, 8, 0, Flags.CLAIM | Flags.DISCARD, 5, hit, source));
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO"})
    void shouldAnswerTsearchAsCompletionWithAutoProgress(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            assertEquals(0, p.b.tsearch(AddressVector.ADDR_UNSPEC, 7, 0, 0, 1, null, null));
            final CompletionErrorEntry miss = error(p.cqB);
            assertEquals(Errno.ENOMSG, miss.errno());
            assertEquals(1, miss.context());
            assertEquals(0, p.a.tsend(pattern(48, 2), 0, 48, p.addrBFromA, 7, 1));
            one(p.cqA);
            final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            while (true)
            {
                assertEquals(0, p.b.tsearch(AddressVector.ADDR_UNSPEC, 7, 0, 0, 2, null, null));
                final CompletionEntry e = new CompletionEntry();
                final int n = readOneOrError(p.cqB, e);
                if (1 == n)
                {
                    assertEquals(2, e.context());
                    assertEquals(48, e.len());
                    assertEquals(7, e.tag());
                    break;
                }
                assertEquals(Errno.ENOMSG.negated(), n);
                assertTrue(System.nanoTime() < deadline);
            }
        }
    }

    private static int readOneOrError(final CompletionQueue cq, final CompletionEntry e)
    {
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        while (System.nanoTime() < deadline)
        {
            final int n = cq.read(e);
            if (1 == n)
            {
                return 1;
            }
            if (n == Errno.EAVAIL.negated())
            {
                final CompletionErrorEntry err = new CompletionErrorEntry();
                assertEquals(1, cq.readErr(err));
                return -err.err();
            }
            Pair.progressAll();
        }
        return 0;
    }
}
