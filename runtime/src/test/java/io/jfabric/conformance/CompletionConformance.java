package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.Message;
import io.jfabric.Progress;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static io.jfabric.conformance.Pair.assertEmpty;
import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Completion semantics over a pair: delivery, transmit and inject completion levels, selective completion on
 * either side, the fields each CQ format fills, a full CQ answering {@code -EAGAIN} and losing nothing, concurrent
 * CQ readers, arrivals beyond the unexpected bound, sends from many threads.
 * <p>
 * A suite class: a provider runs it by extending it with its {@link PairFactory} (see {@link Conformance}).
 */
@Timeout(60)
public abstract class CompletionConformance extends Conformance
{
    /**
     * @param factory the provider under test.
     */
    protected CompletionConformance(final PairFactory factory)
    {
        super(factory);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldCompleteSendOnlyAfterDeliveryWithDeliveryComplete(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer tx = pattern(64, 1);
            final Message msg = new Message().buffer(tx, 0, 64).addr(p.addrBFromA).context(33);
            assertEquals(0, p.a.sendmsg(msg, Flags.COMPLETION | Flags.DELIVERY_COMPLETE));
            final CompletionEntry send = one(p.cqA);
            assertEquals(33, send.context());
            assertEquals(Flags.SEND | Flags.MSG, send.flags());
            // Delivered means the target holds it: a receive posted now gets it intact.
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 34));
            assertEquals(34, one(p.cqB).context());
            assertPattern(rx, 0, 64, 1);
            assertEquals(1, p.sendCntrA.read());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldCompleteWithTransmitAndInjectCompleteLevels(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 2));
            final Message msg = new Message().buffer(pattern(16, 2), 0, 16).addr(p.addrBFromA);
            assertEquals(0, p.a.sendmsg(msg.context(10), Flags.COMPLETION | Flags.TRANSMIT_COMPLETE));
            assertEquals(0, p.a.sendmsg(msg.context(11), Flags.COMPLETION | Flags.INJECT_COMPLETE));
            assertEquals(10, one(p.cqA).context());
            assertEquals(11, one(p.cqA).context());
            assertEquals(1, one(p.cqB).context());
            assertEquals(2, one(p.cqB).context());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldOnlyCompleteSendsWithCompletionFlagUnderSelectiveCompletion(final Progress progress)
    {
        try (Pair p = pair(progress, Flags.SELECTIVE_COMPLETION, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer rx = direct(64);
            final Message msg = new Message().buffer(pattern(8, 1), 0, 8).addr(p.addrBFromA);
            for (int i = 0; i < 3; i++)
            {
                // The CQ is bound selective for receives too: ask for their completions.
                assertEquals(0, p.b.recvmsg(new Message().buffer(rx, 0, 64).addr(AddressVector.ADDR_UNSPEC)
                    .context(100 + i), Flags.COMPLETION));
            }
            assertEquals(0, p.a.sendmsg(msg.context(1), 0));
            assertEquals(0, p.a.sendmsg(msg.context(2), Flags.COMPLETION));
            assertEquals(0, p.a.sendmsg(msg.context(3), 0));
            for (int i = 0; i < 3; i++)
            {
                assertEquals(100 + i, one(p.cqB).context());
            }
            assertEquals(2, one(p.cqA).context());
            assertEmpty(p.cqA);
            assertEquals(3, p.sendCntrA.read());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldOnlyCompleteReceivesWithCompletionFlagUnderSelectiveCompletion(final Progress progress)
    {
        try (Pair p = pair(progress, Flags.SELECTIVE_COMPLETION, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer rx = direct(64);
            final Message msg = new Message().buffer(rx, 0, 64).addr(AddressVector.ADDR_UNSPEC);
            // Posted first, then one unexpected (matched at post time), then a truncated silent receive.
            assertEquals(0, p.b.recvmsg(msg.context(1), 0));
            assertEquals(0, p.b.recvmsg(msg.context(2), Flags.COMPLETION));
            for (int i = 0; i < 3; i++)
            {
                assertEquals(0, p.a.sendmsg(new Message().buffer(pattern(8, i), 0, 8).addr(p.addrBFromA)
                    .context(10 + i), Flags.COMPLETION));
                assertEquals(10 + i, one(p.cqA).context());
            }
            assertEquals(2, one(p.cqB).context());
            assertEquals(0, p.b.recvmsg(msg.context(3), 0));
            assertEquals(0, p.b.recvmsg(msg.context(4), Flags.COMPLETION));
            assertEquals(0, p.a.sendmsg(new Message().buffer(pattern(8, 4), 0, 8).addr(p.addrBFromA).context(14),
                Flags.COMPLETION));
            assertEquals(4, one(p.cqB).context());
            assertEquals(0, p.b.recvmsg(new Message().buffer(rx, 0, 2).addr(AddressVector.ADDR_UNSPEC).context(5), 0));
            assertEquals(0, p.a.sendmsg(new Message().buffer(pattern(8, 5), 0, 8).addr(p.addrBFromA).context(15),
                Flags.COMPLETION));
            // Errors are always reported.
            assertEquals(Errno.ETRUNC, Pair.error(p.cqB).errno());
            assertEmpty(p.cqB);
            // The counter is updated beside the CQ entry, not before it (AUTO: maybe a moment after): bounded wait.
            final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            while (p.recvCntrB.read() + p.recvCntrB.readErr() < 5 && System.nanoTime() - deadline < 0)
            {
                p.domainB.progress();
                Thread.yield();
            }
            assertEquals(5, p.recvCntrB.read() + p.recvCntrB.readErr());
        }
    }

    @ParameterizedTest
    @EnumSource(value = CqFormat.class, names = {"CONTEXT", "MSG", "DATA", "TAGGED"})
    void shouldFillOnlyTheFieldsOfTheCqFormat(final CqFormat format)
    {
        try (Pair p = pair(Progress.MANUAL, 0, format, 16))
        {
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, p.b.trecv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 0x55, 0, 8));
            assertEquals(0, p.a.tsenddata(pattern(24, 1), 0, 24, 0x77, p.addrBFromA, 0x55, 9));
            final CompletionEntry e = one(p.cqB);
            assertEquals(8, e.context());
            final boolean msg = format != CqFormat.CONTEXT;
            final boolean data = format == CqFormat.DATA || format == CqFormat.TAGGED;
            assertEquals(msg ? 24 : 0, e.len());
            assertEquals(msg ? Flags.RECV | Flags.TAGGED | Flags.REMOTE_CQ_DATA : 0, e.flags());
            assertEquals(data ? 0x77 : 0, e.data());
            assertEquals(data ? rx.addressOffset() : 0, e.buf());
            assertEquals(format == CqFormat.TAGGED ? 0x55 : 0, e.tag());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldReturnEagainWhenCqWouldOverflowAndLoseNothingAfterDraining(final Progress progress)
    {
        final int cqSize = 8;
        try (Pair p = pair(progress, 0, CqFormat.CONTEXT, cqSize))
        {
            final UnsafeBuffer tx = pattern(32, 7);
            final BitSet sendsDone = new BitSet();
            final BitSet recvsDone = new BitSet();
            final int total = 200;
            int posted = 0;
            int received = 0;
            int eagains = 0;
            final UnsafeBuffer rx = direct(32);
            final CompletionEntry[] entries = new CompletionEntry[cqSize];
            for (int i = 0; i < cqSize; i++)
            {
                entries[i] = new CompletionEntry();
            }
            final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            while (sendsDone.cardinality() < total || recvsDone.cardinality() < total)
            {
                assertTrue(System.nanoTime() < deadline, "stalled at " + sendsDone.cardinality());
                while (posted < total)
                {
                    final int r = p.a.send(tx, 0, 32, p.addrBFromA, posted);
                    if (r == Errno.EAGAIN.negated())
                    {
                        eagains++;
                        break;
                    }
                    assertEquals(0, r);
                    posted++;
                }
                while (received < total)
                {
                    final int r = p.b.recv(rx, 0, 32, AddressVector.ADDR_UNSPEC, received);
                    if (r == Errno.EAGAIN.negated())
                    {
                        break;
                    }
                    assertEquals(0, r);
                    received++;
                }
                final int nA = p.cqA.read(entries, cqSize);
                for (int i = 0; i < nA; i++)
                {
                    assertFalse(sendsDone.get((int) entries[i].context()), "duplicate send completion");
                    sendsDone.set((int) entries[i].context());
                }
                final int nB = p.cqB.read(entries, cqSize);
                for (int i = 0; i < nB; i++)
                {
                    assertFalse(recvsDone.get((int) entries[i].context()), "duplicate recv completion");
                    recvsDone.set((int) entries[i].context());
                }
                Pair.progressAll();
            }
            assertTrue(eagains > 0, "a CQ of 8 must push back on 200 sends");
            assertEquals(total, sendsDone.cardinality());
            assertEquals(total, recvsDone.cardinality());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldHandEachCompletionToExactlyOneOfFourConcurrentReaders(final Progress progress)
        throws InterruptedException
    {
        try (Pair p = pair(progress, 0, CqFormat.CONTEXT, 4096))
        {
            final int total = 2000;
            final UnsafeBuffer rx = direct(8);
            for (int i = 0; i < total; i++)
            {
                assertEquals(0, p.b.recv(rx, 0, 8, AddressVector.ADDR_UNSPEC, i));
            }
            final java.util.concurrent.atomic.AtomicIntegerArray seen =
                new java.util.concurrent.atomic.AtomicIntegerArray(total);
            final AtomicInteger count = new AtomicInteger();
            final List<Thread> readers = new ArrayList<>();
            for (int t = 0; t < 4; t++)
            {
                final Thread reader = new Thread(() ->
                {
                    final CompletionEntry[] entries = {new CompletionEntry(), new CompletionEntry()};
                    final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
                    while (count.get() < total && System.nanoTime() < deadline)
                    {
                        final int n = p.cqB.read(entries, 2);
                        for (int i = 0; i < n; i++)
                        {
                            seen.incrementAndGet((int) entries[i].context());
                            count.incrementAndGet();
                        }
                        if (n <= 0)
                        {
                            p.domainA.progress();
                            Thread.yield();
                        }
                    }
                });
                reader.start();
                readers.add(reader);
            }
            for (int i = 0; i < total; i++)
            {
                int r;
                while ((r = p.a.inject(rx, 0, 8, p.addrBFromA)) == Errno.EAGAIN.negated())
                {
                    p.domainA.progress();
                    Thread.yield();
                }
                assertEquals(0, r);
            }
            for (final Thread reader : readers)
            {
                reader.join();
            }
            assertEquals(total, count.get());
            for (int i = 0; i < total; i++)
            {
                assertEquals(1, seen.get(i), "completion " + i);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldHoldArrivalsBeyondTheUnexpectedBoundAndLoseNone(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            // 600 unexpected messages (more than the 128 the store once held): all stored, received in reverse.
            final int total = 600;
            final UnsafeBuffer tx = direct(16);
            for (int i = 0; i < total; i++)
            {
                tx.putLong(0, i);
                tx.putLong(8, ~i);
                int r;
                while ((r = p.a.tinject(tx, 0, 16, p.addrBFromA, i)) == Errno.EAGAIN.negated())
                {
                    Pair.progressAll();
                }
                assertEquals(0, r);
            }
            for (int i = 0; i < 50; i++)
            {
                Pair.progressAll();
            }
            final UnsafeBuffer rx = direct(16 * total);
            for (int i = total - 1; i >= 0; i--)
            {
                int r;
                while ((r = p.b.trecv(rx, i * 16, 16, AddressVector.ADDR_UNSPEC, i, 0, i)) ==
                    Errno.EAGAIN.negated())
                {
                    Pair.progressAll();
                    p.cqB.read(new CompletionEntry[0], 0);
                }
                assertEquals(0, r);
            }
            final BitSet seen = new BitSet();
            final CompletionEntry[] entries = new CompletionEntry[64];
            for (int i = 0; i < entries.length; i++)
            {
                entries[i] = new CompletionEntry();
            }
            final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            while (seen.cardinality() < total)
            {
                assertTrue(System.nanoTime() < deadline, "received " + seen.cardinality());
                final int n = p.cqB.read(entries, entries.length);
                for (int k = 0; k < n; k++)
                {
                    final int i = (int) entries[k].context();
                    assertFalse(seen.get(i));
                    seen.set(i);
                    assertEquals(i, rx.getLong(i * 16));
                    assertEquals(~i, rx.getLong(i * 16 + 8));
                }
                Pair.progressAll();
            }
        }
    }

    /**
     * A completion the application has read is already counted: its counter is updated before the entry is
     * published, so reading the CQ and then the counter never sees the counter behind (with AUTO progress the agent
     * thread writes both while the application reads).
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldCountEachCompletionBeforeTheApplicationCanReadIt(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final int rounds = 2000;
            final UnsafeBuffer rx = direct(8);
            final UnsafeBuffer tx = direct(8);
            for (int i = 0; i < rounds; i++)
            {
                assertEquals(0, p.b.recv(rx, 0, 8, AddressVector.ADDR_UNSPEC, i));
                tx.putLong(0, i);
                assertEquals(0, p.a.send(tx, 0, 8, p.addrBFromA, i));
                final long sent = one(p.cqA).context();
                final long sendCount = p.sendCntrA.read();
                final long received = one(p.cqB).context();
                final long recvCount = p.recvCntrB.read();
                assertEquals(i, sent);
                assertEquals(i + 1, sendCount, "send counter after reading send completion " + i);
                assertEquals(i, received);
                assertEquals(i + 1, recvCount, "receive counter after reading receive completion " + i);
                assertEquals(i, rx.getLong(0));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldDeliverEverySendFromEightThreadsExactlyOnce(final Progress progress) throws InterruptedException
    {
        try (Pair p = pair(progress, 0, CqFormat.TAGGED, 4096))
        {
            final int threads = 8;
            final int perThread = 200;
            final int total = threads * perThread;
            final UnsafeBuffer rx = direct(total * 8);
            for (int i = 0; i < total; i++)
            {
                int r;
                while ((r = p.b.recv(rx, i * 8, 8, AddressVector.ADDR_UNSPEC, i)) == Errno.EAGAIN.negated())
                {
                    Pair.progressAll();
                }
                assertEquals(0, r);
            }
            final CountDownLatch start = new CountDownLatch(1);
            final AtomicInteger failures = new AtomicInteger();
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                final int id = t;
                final Thread worker = new Thread(() ->
                {
                    final UnsafeBuffer tx = direct(8);
                    try
                    {
                        start.await();
                        for (int i = 0; i < perThread; i++)
                        {
                            tx.putLong(0, ((long) id << 32) | i);
                            int r;
                            while ((r = p.a.inject(tx, 0, 8, p.addrBFromA)) == Errno.EAGAIN.negated())
                            {
                                p.a.progress();
                                Thread.yield();
                            }
                            if (0 != r)
                            {
                                failures.incrementAndGet();
                            }
                        }
                    }
                    catch (final InterruptedException ex)
                    {
                        failures.incrementAndGet();
                    }
                });
                worker.start();
                workers.add(worker);
            }
            start.countDown();
            final BitSet seen = new BitSet();
            final CompletionEntry e = new CompletionEntry();
            for (int i = 0; i < total; i++)
            {
                final CompletionEntry got = one(p.cqB);
                final long value = rx.getLong((int) got.context() * 8);
                final int bit = (int) (value >>> 32) * perThread + (int) value;
                assertFalse(seen.get(bit), "duplicate " + value);
                seen.set(bit);
            }
            for (final Thread worker : workers)
            {
                worker.join();
            }
            assertEquals(0, failures.get());
            assertEquals(total, seen.cardinality());
            assertEquals(Errno.EAGAIN.negated(), p.cqB.read(e));
        }
    }
}
