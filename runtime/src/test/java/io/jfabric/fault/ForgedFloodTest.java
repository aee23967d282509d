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
import io.jfabric.EqEntry;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.Message;
import io.jfabric.Progress;
import io.jfabric.agent.FlowControl;
import io.jfabric.conformance.Pair;
import io.jfabric.stat.DomainCounters;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntSupplier;

import static io.jfabric.conformance.Pair.DEADLINE_NS;
import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.pattern;
import static io.jfabric.conformance.Pair.progressAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 10 §1, the target side of the request window (RUNTIME.md "Flow control", "Requests outstanding"): a peer
 * that ignores its window, here one whose every request reaches the target 256 times (a {@link FaultPlan#forge}
 * transport: the copies bypass the sending agent's window) and that never reads its answers (its ring stays full
 * for the target), must not grow the target's answer queue to its bound and hold back other peers. The target
 * takes at most {@code jfabric.flow.peerOwed} (1024) of its unanswered requests, drops the rest, counts them in the
 * counters file and reports the peer once on the event queue bound to its domain; a bystander's write, read,
 * fetching atomic and tagged send still complete, with their data. MANUAL and AUTO.
 * <p>
 * Fails on the code before the target-side bound (and with {@code -Djfabric.flow.peerOwed=1048576}): the forged
 * reads filled the answer queue to its 32768 slots, the next request stayed at the head of the target's inbound
 * ring, and the bystander's operations never completed.
 */
@Timeout(180)
class ForgedFloodTest
{
    private static final long CAPS = Flags.TRANSMIT | Flags.RECV;
    /** Reads the forger posts; each reaches the target {@link #COPIES} + 1 times: 64,000 requests. */
    private static final int READS = 250;
    private static final int COPIES = 255;
    private static final long BYSTANDER_DEADLINE_NS = 20_000_000_000L;
    /** How long the test lets the flood reach b before the bystander starts, at most. */
    private static final long FLOOD_WAIT_NS = 5_000_000_000L;

    @AfterEach
    void forgetPlans()
    {
        FaultLoopbackProvider.clearPlans();
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldDropTheRequestsOfAPeerIgnoringItsWindowAndStillServeABystander(final Progress progress)
    {
        final FaultPlan planA = FaultLoopbackProvider.nextDomain(new FaultPlan(21));
        final FaultPlan planB = FaultLoopbackProvider.nextDomain(new FaultPlan(22));
        final Info info = FaultLoopbackProvider.info(progress);
        try (Pair p = new Pair(info, info, 0, CqFormat.TAGGED, 1024);
            Bystander c = new Bystander(p);
            EventQueue eq = p.fabric.eventQueue(16))
        {
            assertSame(p.domainB, p.domainB.bind(eq, 0));
            final UnsafeBuffer target = pattern(4096, 3);
            target.putLong(1024 + 16, 1000);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 7))
            {
                // a never reads b's answers, and every request it offers reaches b COPIES more times.
                planB.stall(p.a.name());
                planA.forge(COPIES);
                final UnsafeBuffer reads = direct(8 * READS);
                for (int i = 0; i < READS; i++)
                {
                    assertEquals(0, p.a.read(reads, 8 * i, 8, p.addrBFromA, 8L * (i % 64), mr.key(), 10_000 + i));
                }
                // Let the flood reach b first (bounded: with no target-side bound nothing is ever dropped, and
                // then the bystander's operations below are what fails).
                final long floodDeadline = System.nanoTime() + FLOOD_WAIT_NS;
                while (p.domainB.counters().value(DomainCounters.TYPE_OWED_DROPS) == 0 &&
                    System.nanoTime() - floodDeadline < 0)
                {
                    progressAll();
                }

                bystanderCompletes(p, c, mr, target, 1024);

                final long dropped = p.domainB.counters().value(DomainCounters.TYPE_OWED_DROPS);
                assertTrue(dropped > 0 && dropped <= (long) READS * (COPIES + 1), "dropped " + dropped);
                final EqEntry entry = new EqEntry();
                final long eventDeadline = System.nanoTime() + DEADLINE_NS;
                while (Errno.EAVAIL.negated() != eq.read(entry, 0))
                {
                    assertTrue(System.nanoTime() - eventDeadline < 0, "no error event for the forger");
                    progressAll();
                }
                assertEquals(1, eq.readErr(entry));
                assertEquals(EventQueue.NOTIFY, entry.event());
                assertSame(p.domainB, entry.fid());
                assertEquals(Errno.EREMOTEIO.value(), entry.err());
                final String detail = new String(entry.param(), StandardCharsets.UTF_8);
                assertTrue(detail.contains("jfabric.flow.peerOwed") && detail.contains("bound 1024"), detail);
                // One event per episode, not one per dropped request.
                for (int i = 0; i < 100; i++)
                {
                    progressAll();
                }
                assertEquals(Errno.EAGAIN.negated(), eq.read(entry, 0), "one event for the episode");
                planA.forge(0);
                planB.restore(p.a.name());
            }
        }
    }

    /**
     * The bound counts down as well as up: with a window and a bound of 8, a well-behaved peer runs 200 reads, 200
     * fetching atomics, 200 delivery-complete sends, 200 writes, 60 streamed reads and 40 streamed writes against
     * one endpoint; every one completes with its data and the target drops nothing (a final answer, or the last
     * chunk of a streamed read, that did not count down would have the target drop the peer after 8).
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldNeverDropAPeerKeepingItsWindowOverManyMoreRequestsThanTheBound(final Progress progress)
    {
        System.setProperty(FlowControl.PEER_OWED_PROP, "8");
        System.setProperty(FlowControl.REQUESTS_PROP, "8");
        final Info info = FaultLoopbackProvider.info(progress);
        try (Pair p = new Pair(info, info, 0, CqFormat.TAGGED, 1024))
        {
            System.clearProperty(FlowControl.PEER_OWED_PROP);
            System.clearProperty(FlowControl.REQUESTS_PROP);
            final int big = 320 * 1024;
            final UnsafeBuffer target = pattern(4096, 9);
            target.putLong(2048, 0);
            final UnsafeBuffer bigTarget = direct(big);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 7);
                MemoryRegion bigMr = p.domainB.registerMemory(bigTarget, 0, big, Flags.REMOTE_WRITE, 8))
            {
                final int each = 200;
                final UnsafeBuffer reads = direct(8 * each);
                final UnsafeBuffer one = direct(8);
                one.putLong(0, 1);
                final UnsafeBuffer olds = direct(8 * each);
                final UnsafeBuffer payload = pattern(64, 4);
                final UnsafeBuffer small = pattern(8, 5);
                final UnsafeBuffer source = pattern(big, 6);
                final UnsafeBuffer[][] halves = new UnsafeBuffer[60][];
                int posted = 0;
                for (int n = 0; n < each; n++)
                {
                    final int i = n;
                    post(p, () -> p.a.read(reads, 8 * i, 8, p.addrBFromA, 8L * (i % 64), mr.key(),
                        10_000 + i));
                    post(p, () -> p.a.fetchAtomic(one, 0, 1, olds, 8 * i, p.addrBFromA, 2048, mr.key(),
                        AtomicDatatype.INT64, AtomicOp.SUM, 20_000 + i));
                    final Message msg = new Message().buffer(payload, 0, 64).addr(p.addrBFromA).tag(5)
                        .context(30_000 + i);
                    post(p, () -> p.a.tsendmsg(msg, Flags.DELIVERY_COMPLETE));
                    post(p, () -> p.a.write(small, 0, 8, p.addrBFromA, 1024, mr.key(), 40_000 + i));
                    posted += 4;
                    if (i < halves.length)
                    {
                        final UnsafeBuffer[] two = new UnsafeBuffer[]{direct(32), direct(32)};
                        halves[i] = two;
                        post(p, () -> p.a.readv(two, 2, p.addrBFromA, 64L * (i % 16), mr.key(), 50_000 + i));
                        posted++;
                    }
                    if (i < 40)
                    {
                        post(p, () -> p.a.write(source, 0, big, p.addrBFromA, 0, bigMr.key(), 60_000 + i));
                        posted++;
                    }
                    if (posted > 512)
                    {
                        drain(p.cqA, posted, p.domainB, "a's operations");
                        posted = 0;
                    }
                }
                drain(p.cqA, posted, p.domainB, "a's operations");
                assertEquals(0, p.domainB.counters().value(DomainCounters.TYPE_OWED_DROPS), "dropped");
                for (int i = 0; i < each; i++)
                {
                    assertEquals(target.getLong(8 * (i % 64)), reads.getLong(8 * i), "read " + i);
                }
                for (int i = 0; i < halves.length; i++)
                {
                    assertEquals(target.getLong(64 * (i % 16)), halves[i][0].getLong(0), "streamed read " + i);
                    assertEquals(target.getLong(64 * (i % 16) + 32), halves[i][1].getLong(0), "streamed read " + i);
                }
                assertEquals(each, target.getLong(2048), "every atomic applied once");
                assertPattern(target, 1024, 8, 5);
                assertPattern(bigTarget, 0, big, 6);
            }
        }
        finally
        {
            System.clearProperty(FlowControl.PEER_OWED_PROP);
            System.clearProperty(FlowControl.REQUESTS_PROP);
        }
    }

    /**
     * Post, retrying {@code -EAGAIN} while driving every domain.
     */
    private static void post(final Pair p, final IntSupplier op)
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        int rc;
        while (Errno.EAGAIN.negated() == (rc = op.getAsInt()))
        {
            assertTrue(System.nanoTime() - deadline < 0, "-EAGAIN until the deadline");
            progressAll();
        }
        assertEquals(0, rc);
    }

    /**
     * The third domain: one endpoint that knows b, driven by the test's progress calls.
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
            ep = domain.endpoint(info).bind(av, 0).bind(cq, CAPS).enable();
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

    /**
     * c writes, reads, runs a fetching atomic against b and sends b a tagged message: all four and b's receive
     * complete within the deadline, with their data.
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
        final Map<Long, CompletionEntry> done = drain(c.cq, 4, c.domain, "the bystander's operations");
        assertEquals(Flags.RMA | Flags.WRITE, done.get(1L).flags());
        assertEquals(Flags.RMA | Flags.READ, done.get(2L).flags());
        assertEquals(Flags.ATOMIC | Flags.READ, done.get(3L).flags());
        assertEquals(Flags.SEND | Flags.TAGGED, done.get(4L).flags());
        assertPattern(target, at, 8, 21);
        assertEquals(target.getLong(at + 8), readBack.getLong(0));
        assertEquals(1000, old.getLong(0));
        assertEquals(1007, target.getLong(at + 16));
        final CompletionEntry received = drain(p.cqB, 1, c.domain, "b's receive").get(5000L);
        assertEquals(99, received.tag());
        assertPattern(inB, 0, 64, 22);
    }

    private static Map<Long, CompletionEntry> drain(
        final CompletionQueue cq, final int count, final Domain extra, final String what)
    {
        final Map<Long, CompletionEntry> byContext = new HashMap<>();
        final long deadline = System.nanoTime() + BYSTANDER_DEADLINE_NS;
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
                extra.progress();
                progressAll();
            }
        }
        return byContext;
    }
}
