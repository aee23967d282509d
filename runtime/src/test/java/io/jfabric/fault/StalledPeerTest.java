package io.jfabric.fault;

import io.jfabric.AddressVector;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.Message;
import io.jfabric.Progress;
import io.jfabric.conformance.Pair;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.jfabric.conformance.Pair.DEADLINE_NS;
import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.pattern;
import static io.jfabric.conformance.Pair.progressAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 10 §1: a peer whose inbound ring stays full (its domain's offers to it answer back-pressure for ever, as
 * the {@link FaultPlan#stall} rule does) while it floods a domain with requests that need answers or data streams
 * must never hold back another peer's traffic at that domain: the answers and streams owed to the stalled peer wait
 * for it, bounded by the requests it may have outstanding (RUNTIME.md "Flow control", "Requests outstanding"), and
 * a second peer's RMA write, read, atomic and tagged send still complete. Once the stalled peer reads again,
 * everything it asked for completes with its data. MANUAL and AUTO.
 * <p>
 * Both tests fail on the code before the per-peer bound (the fixed 256-answer queue and the 64-stream and
 * 64-write tables filled with the stalled peer's work, and the next request waited at the head of the domain's
 * inbound ring in front of the second peer's).
 */
@Timeout(120)
class StalledPeerTest
{
    private static final long RECV_CAPS = Flags.TRANSMIT | Flags.RECV;
    /** How long the bystander's operations may take (they take milliseconds when nothing holds them back). */
    private static final long BYSTANDER_DEADLINE_NS = 10_000_000_000L;

    @AfterEach
    void forgetPlans()
    {
        FaultLoopbackProvider.clearPlans();
    }

    /**
     * The third domain of a test: one endpoint that knows b, driven by the test's progress calls.
     */
    private static final class Bystander implements AutoCloseable
    {
        final Domain domain;
        final AddressVector av;
        final CompletionQueue cq;
        final Endpoint ep;
        final long toB;

        Bystander(final Pair p)
        {
            final Info info = p.infoA;
            domain = p.fabric.domain(info, "yield");
            av = domain.addressVector(AvType.TABLE, 4);
            cq = domain.completionQueue(64, CqFormat.TAGGED);
            ep = domain.endpoint(info).bind(av, 0).bind(cq, RECV_CAPS).enable();
            toB = av.insert(p.b.name());
            p.avB.insert(ep.name());
        }

        @Override
        public void close()
        {
            ep.close();
            cq.close();
            av.close();
            domain.close();
        }
    }

    private static Pair pair(final Progress progress, final FaultPlan planB)
    {
        FaultLoopbackProvider.nextDomain(new FaultPlan(1));
        FaultLoopbackProvider.nextDomain(planB);
        final Info info = FaultLoopbackProvider.info(progress);
        return new Pair(info, info, 0, CqFormat.TAGGED, 1024);
    }

    /**
     * Read {@code count} completions of {@code cq} (each must succeed), driving every domain, within
     * {@code deadlineNs}.
     */
    private static Map<Long, CompletionEntry> drain(
        final CompletionQueue cq, final int count, final Domain extra, final long deadlineNs, final String what)
    {
        final Map<Long, CompletionEntry> byContext = new HashMap<>();
        final long deadline = System.nanoTime() + deadlineNs;
        while (byContext.size() < count)
        {
            final CompletionEntry entry = new CompletionEntry();
            final int n = cq.read(entry);
            if (1 == n)
            {
                assertEquals(null, byContext.put(entry.context(), entry), "one completion per operation");
            }
            else if (Errno.EAVAIL.negated() == n)
            {
                final CompletionErrorEntry err = new CompletionErrorEntry();
                assertEquals(1, cq.readErr(err));
                fail(what + ": error completion " + err.errno() + " for context " + err.context());
            }
            else
            {
                assertEquals(Errno.EAGAIN.negated(), n);
                if (System.nanoTime() - deadline > 0)
                {
                    fail(what + ": only " + byContext.size() + " of " + count + " completions before the deadline");
                }
                if (null != extra)
                {
                    extra.progress();
                }
                progressAll();
            }
        }
        return byContext;
    }

    /**
     * The bystander c writes, reads, runs a fetching atomic against b and sends b a tagged message; all four and
     * b's receive must complete within the deadline, with their data.
     */
    private static void bystanderCompletes(final Pair p, final Bystander c, final MemoryRegion mr,
        final UnsafeBuffer target, final int at)
    {
        final UnsafeBuffer inB = direct(64);
        assertEquals(0, p.b.trecv(inB, 0, 64, AddressVector.ADDR_UNSPEC, 99, 0, 5000));
        final UnsafeBuffer readBack = direct(8);
        final UnsafeBuffer operand = direct(8);
        operand.putLong(0, 7);
        final UnsafeBuffer old = direct(8);
        assertEquals(0, c.ep.write(pattern(8, 21), 0, 8, c.toB, at, mr.key(), 1));
        assertEquals(0, c.ep.read(readBack, 0, 8, c.toB, at + 8, mr.key(), 2));
        assertEquals(0, c.ep.fetchAtomic(operand, 0, 1, old, 0, c.toB, at + 16, mr.key(), AtomicDatatype.INT64,
            AtomicOp.SUM, 3));
        assertEquals(0, c.ep.tsend(pattern(64, 22), 0, 64, c.toB, 99, 4));
        final Map<Long, CompletionEntry> done = drain(c.cq, 4, c.domain, BYSTANDER_DEADLINE_NS,
            "the bystander's operations behind the stalled peer");
        assertEquals(Flags.RMA | Flags.WRITE, done.get(1L).flags());
        assertEquals(Flags.RMA | Flags.READ, done.get(2L).flags());
        assertEquals(Flags.ATOMIC | Flags.READ, done.get(3L).flags());
        assertEquals(Flags.SEND | Flags.TAGGED, done.get(4L).flags());
        assertPattern(target, at, 8, 21);
        assertEquals(target.getLong(at + 8), readBack.getLong(0));
        assertEquals(1000, old.getLong(0));
        assertEquals(1007, target.getLong(at + 16));
        final CompletionEntry received = drain(p.cqB, 1, c.domain, BYSTANDER_DEADLINE_NS, "b's receive").get(5000L);
        assertEquals(99, received.tag());
        assertPattern(inB, 0, 64, 22);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldCompleteABystandersOperationsWhileAStalledPeerFloodsReadsAtomicsAndDeliveryCompleteSends(
        final Progress progress)
    {
        final int each = 300;
        final FaultPlan planB = new FaultPlan(2);
        try (Pair p = pair(progress, planB); Bystander c = new Bystander(p))
        {
            final UnsafeBuffer target = pattern(4096, 3);
            target.putLong(2048, 0);
            target.putLong(1024 + 16, 1000);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 7))
            {
                // a stops reading: b's offers to a meet back-pressure for ever.
                planB.stall(p.a.name());
                final UnsafeBuffer reads = direct(8 * each);
                final UnsafeBuffer one = direct(8);
                one.putLong(0, 1);
                final UnsafeBuffer olds = direct(8 * each);
                final UnsafeBuffer payload = pattern(64, 4);
                for (int i = 0; i < each; i++)
                {
                    assertEquals(0, p.a.read(reads, 8 * i, 8, p.addrBFromA, 8L * (i % 64), mr.key(), 10_000 + i));
                    assertEquals(0, p.a.fetchAtomic(one, 0, 1, olds, 8 * i, p.addrBFromA, 2048, mr.key(),
                        AtomicDatatype.INT64, AtomicOp.SUM, 20_000 + i));
                    final Message msg = new Message().buffer(payload, 0, 64).addr(p.addrBFromA).tag(5)
                        .context(30_000 + i);
                    assertEquals(0, p.a.tsendmsg(msg, Flags.DELIVERY_COMPLETE));
                }
                for (int i = 0; i < 200; i++)
                {
                    progressAll();
                }
                // a's requests reached b; b owes a answers it cannot send. c is not held back by them.
                bystanderCompletes(p, c, mr, target, 1024);

                // a reads again: every one of its 3 x 300 operations completes, with its data.
                planB.restore(p.a.name());
                final Map<Long, CompletionEntry> done = drain(p.cqA, 3 * each, null, DEADLINE_NS,
                    "the stalled peer's operations once restored");
                long sum = 0;
                for (int i = 0; i < each; i++)
                {
                    assertEquals(Flags.RMA | Flags.READ, done.get(10_000L + i).flags());
                    assertEquals(target.getLong(8 * (i % 64)), reads.getLong(8 * i), "read " + i);
                    assertEquals(Flags.ATOMIC | Flags.READ, done.get(20_000L + i).flags());
                    sum += olds.getLong(8 * i);
                    assertEquals(Flags.SEND | Flags.TAGGED, done.get(30_000L + i).flags() & (Flags.SEND |
                        Flags.TAGGED));
                }
                assertEquals(each, target.getLong(2048), "every atomic applied once");
                assertEquals((long) each * (each - 1) / 2, sum, "each atomic saw a distinct old value");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldCompleteABystandersOperationsWhileAStalledPeerHoldsMoreThan64StreamsAndStreamedWrites(
        final Progress progress)
    {
        final int streams = 100;
        final int big = 320 * 1024;
        final FaultPlan planB = new FaultPlan(4);
        try (Pair p = pair(progress, planB); Bystander c = new Bystander(p))
        {
            final UnsafeBuffer target = pattern(4096, 5);
            target.putLong(1024 + 16, 1000);
            final UnsafeBuffer bigTarget = direct(big);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 7);
                MemoryRegion bigMr = p.domainB.registerMemory(bigTarget, 0, big, Flags.REMOTE_WRITE, 8))
            {
                planB.stall(p.a.name());
                // Streamed reads (two local buffers each) and streamed writes (above one frame): each takes a stream
                // or a write slot at b, which b cannot finish while a's ring is full.
                final UnsafeBuffer[][] halves = new UnsafeBuffer[streams][];
                final UnsafeBuffer source = pattern(big, 6);
                for (int i = 0; i < streams; i++)
                {
                    halves[i] = new UnsafeBuffer[]{direct(32), direct(32)};
                    assertEquals(0, p.a.readv(halves[i], 2, p.addrBFromA, 64L * (i % 16), mr.key(), 10_000 + i));
                    assertEquals(0, p.a.write(source, 0, big, p.addrBFromA, 0, bigMr.key(), 20_000 + i));
                }
                for (int i = 0; i < 200; i++)
                {
                    progressAll();
                }
                bystanderCompletes(p, c, mr, target, 1024);

                planB.restore(p.a.name());
                final Map<Long, CompletionEntry> done = drain(p.cqA, 2 * streams, null, DEADLINE_NS,
                    "the stalled peer's streams once restored");
                for (int i = 0; i < streams; i++)
                {
                    assertEquals(Flags.RMA | Flags.READ, done.get(10_000L + i).flags());
                    final DirectBuffer[] got = halves[i];
                    assertEquals(target.getLong(64 * (i % 16)), got[0].getLong(0), "read " + i);
                    assertEquals(target.getLong(64 * (i % 16) + 32), got[1].getLong(0), "read " + i);
                    assertEquals(Flags.RMA | Flags.WRITE, done.get(20_000L + i).flags());
                }
                assertPattern(bigTarget, 0, big, 6);
            }
        }
    }
    /**
     * The request window leaves rendezvous sends out (their answer comes only once matched): 300 unexpected
     * rendezvous messages from one peer, more than the window, and the last one received first.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldReceiveTheLastOfMoreRendezvousSendsThanTheRequestWindowFirst(final Progress progress)
    {
        final int count = 300;
        final int size = 12 * 1024;
        try (Pair p = pair(progress, new FaultPlan(6)))
        {
            final UnsafeBuffer[] out = new UnsafeBuffer[count];
            for (int i = 0; i < count; i++)
            {
                out[i] = pattern(size, i);
                assertEquals(0, p.a.tsend(out[i], 0, size, p.addrBFromA, i, 40_000 + i));
            }
            for (int i = 0; i < 100; i++)
            {
                progressAll();
            }
            final UnsafeBuffer in = direct(size);
            for (int i = count - 1; i >= 0; i--)
            {
                assertEquals(0, p.b.trecv(in, 0, size, AddressVector.ADDR_UNSPEC, i, 0, 50_000 + i));
                final CompletionEntry got = drain(p.cqB, 1, null, DEADLINE_NS, "receive " + i).get(50_000L + i);
                assertEquals(i, got.tag());
                assertPattern(in, 0, size, i);
            }
            final Map<Long, CompletionEntry> sent = drain(p.cqA, count, null, DEADLINE_NS, "the sends");
            assertEquals(count, sent.size());
        }
    }

    /**
     * More stalled peers than the agent used to tell apart in one flush (16): each has a read outstanding at b whose
     * answer b cannot send; the bystander's read, queued behind all of them, must still be answered. Failed before
     * the blocked-peer set grew (the flush stopped at the 17th full peer, so the bystander's answer waited for one
     * of the stalled peers to read again).
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldAnswerABystanderQueuedBehindTheAnswersOfMoreThanSixteenStalledPeers(final Progress progress)
    {
        final int stalledCount = 20;
        final FaultPlan planB = new FaultPlan(6);
        final List<Bystander> stalled = new ArrayList<>();
        try (Pair p = pair(progress, planB))
        {
            final UnsafeBuffer target = pattern(4096, 7);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096, Flags.REMOTE_READ, 7))
            {
                final UnsafeBuffer[] reads = new UnsafeBuffer[stalledCount];
                for (int i = 0; i < stalledCount; i++)
                {
                    final Bystander s = new Bystander(p);
                    stalled.add(s);
                    planB.stall(s.ep.name());
                    reads[i] = direct(8);
                    assertEquals(0, s.ep.read(reads[i], 0, 8, s.toB, 8L * i, mr.key(), 100 + i));
                }
                for (int round = 0; round < 200; round++)
                {
                    for (final Bystander s : stalled)
                    {
                        s.domain.progress();
                    }
                    progressAll();
                }
                try (Bystander c = new Bystander(p))
                {
                    final UnsafeBuffer readBack = direct(8);
                    assertEquals(0, c.ep.read(readBack, 0, 8, c.toB, 2048, mr.key(), 1));
                    final CompletionEntry done = drain(c.cq, 1, c.domain, BYSTANDER_DEADLINE_NS,
                        "the bystander's read behind " + stalledCount + " stalled peers").get(1L);
                    assertEquals(Flags.RMA | Flags.READ, done.flags());
                    assertEquals(target.getLong(2048), readBack.getLong(0));
                }
                for (int i = 0; i < stalledCount; i++)
                {
                    final Bystander s = stalled.get(i);
                    planB.restore(s.ep.name());
                    final CompletionEntry done = drain(s.cq, 1, s.domain, DEADLINE_NS, "stalled peer " + i + "'s read")
                        .get(100L + i);
                    assertEquals(Flags.RMA | Flags.READ, done.flags());
                    assertEquals(target.getLong(8 * i), reads[i].getLong(0), "stalled peer " + i + "'s data");
                }
            }
            finally
            {
                stalled.forEach(Bystander::close);
            }
        }
    }
}
