package io.jfabric;

import io.jfabric.provider.inproc.InprocProvider;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.FrameHandler;
import io.jfabric.spi.TransportProvider;
import io.jfabric.stat.ChildJvm;
import io.jfabric.stat.DomainCounters;
import io.jfabric.stat.StatReader;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The per-domain counters after a known number of operations over inproc, the error log of an agent error, and a
 * child JVM reading both from this running process's counters file.
 */
@Timeout(120)
class CountersTest
{
    private static final int MESSAGES = 100;

    @Test
    void shouldCountCommandsFramesAndTheUnexpectedDepthOfAKnownExchange()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            settle();
            final DomainCounters a = p.domainA.counters();
            final DomainCounters b = p.domainB.counters();
            final long[] beforeA = snapshot(a);
            final long[] beforeB = snapshot(b);
            final UnsafeBuffer tx = InprocPair.pattern(64, 1);
            final UnsafeBuffer rx = InprocPair.direct(64 * MESSAGES);
            for (int i = 0; i < MESSAGES; i++)
            {
                assertEquals(0, p.b.recv(rx, 64 * i, 64, AddressVector.ADDR_UNSPEC, 1000 + i));
                assertEquals(0, p.a.send(tx, 0, 64, p.addrBFromA, 2000 + i));
                assertEquals(2000 + i, InprocPair.one(p.cqA).context);
                assertEquals(1000 + i, InprocPair.one(p.cqB).context);
            }
            settle();
            // A sent 100 eager messages (no ACK: not delivery-complete); B consumed 100 frames and posted 100
            // receives; what B sent back (credit reports) is what A received: nothing was lost or retried.
            assertEquals(MESSAGES, delta(a, beforeA, DomainCounters.TYPE_COMMANDS));
            assertEquals(MESSAGES, delta(b, beforeB, DomainCounters.TYPE_COMMANDS));
            assertEquals(MESSAGES, delta(a, beforeA, DomainCounters.TYPE_FRAMES_OUT));
            assertEquals(MESSAGES, delta(b, beforeB, DomainCounters.TYPE_FRAMES_IN));
            assertEquals(delta(b, beforeB, DomainCounters.TYPE_FRAMES_OUT),
                delta(a, beforeA, DomainCounters.TYPE_FRAMES_IN));
            for (final DomainCounters c : new DomainCounters[]{a, b})
            {
                assertEquals(0, c.value(DomainCounters.TYPE_BACK_PRESSURE));
                assertEquals(0, c.value(DomainCounters.TYPE_PEER_FAILURES));
                assertEquals(0, c.value(DomainCounters.TYPE_DEFERRED_SENDS));
                assertEquals(0, c.value(DomainCounters.TYPE_CQ_FULL_HOLDS));
                assertEquals(0, c.value(DomainCounters.TYPE_ERRORS));
                assertEquals(0, c.value(DomainCounters.TYPE_UNEXPECTED_DEPTH));
                assertTrue(c.value(DomainCounters.TYPE_MAX_DUTY_CYCLE_NS) > 0);
            }
            // Every progress call of this thread ran one duty cycle (nobody else holds the guards).
            final long cycles = b.value(DomainCounters.TYPE_DUTY_CYCLES);
            for (int i = 0; i < 10; i++)
            {
                p.domainB.progress();
            }
            assertEquals(cycles + 10, b.value(DomainCounters.TYPE_DUTY_CYCLES));

            // Ten messages before their receives: the gauge (sampled every 256 cycles) shows them, then none.
            for (int i = 0; i < 10; i++)
            {
                assertEquals(0, p.a.send(tx, 0, 64, p.addrBFromA, 3000 + i));
                assertEquals(3000 + i, InprocPair.one(p.cqA).context);
            }
            settle();
            assertEquals(10, b.value(DomainCounters.TYPE_UNEXPECTED_DEPTH));
            for (int i = 0; i < 10; i++)
            {
                assertEquals(0, p.b.recv(rx, 64 * i, 64, AddressVector.ADDR_UNSPEC, 4000 + i));
                assertEquals(4000 + i, InprocPair.one(p.cqB).context);
            }
            settle();
            assertEquals(0, b.value(DomainCounters.TYPE_UNEXPECTED_DEPTH));
            assertEquals(MESSAGES + 10, delta(b, beforeB, DomainCounters.TYPE_FRAMES_IN));
        }
    }

    @Test
    void shouldCountWithoutAllocatingAfterWarmUp()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final UnsafeBuffer tx = InprocPair.pattern(64, 4);
            final UnsafeBuffer rx = InprocPair.direct(64);
            final CompletionEntry entry = new CompletionEntry();
            for (int i = 0; i < 20_000; i++)
            {
                roundTrip(p, tx, rx, entry);
            }
            final DomainCounters a = p.domainA.counters();
            settle();
            final long framesOut = a.value(DomainCounters.TYPE_FRAMES_OUT);
            final long framesIn = p.domainB.counters().value(DomainCounters.TYPE_FRAMES_IN);
            final long cycles = a.value(DomainCounters.TYPE_DUTY_CYCLES);
            allocatedBytes();
            final long calibrateStart = allocatedBytes();
            final long overhead = allocatedBytes() - calibrateStart;
            final long before = allocatedBytes();
            for (int i = 0; i < 50_000; i++)
            {
                roundTrip(p, tx, rx, entry);
            }
            final long allocated = allocatedBytes() - before - overhead;
            // 50k round trips: over 100k frames counted, duty cycles and their time measured, on this thread (MANUAL),
            // with no per-operation allocation (the bound is far below one 16-byte object per 100 round trips).
            assertTrue(allocated < 65536, "bytes allocated by 50k counted round trips: " + allocated);
            settle();
            // A's 50k messages and its credit reports for B's 50k, each received by B.
            final long sent = a.value(DomainCounters.TYPE_FRAMES_OUT) - framesOut;
            assertEquals(sent, p.domainB.counters().value(DomainCounters.TYPE_FRAMES_IN) - framesIn);
            assertTrue(sent >= 50_000 && sent < 51_000, "frames out: " + sent);
            assertTrue(a.value(DomainCounters.TYPE_DUTY_CYCLES) - cycles >= 100_000);
        }
    }

    /**
     * A sends to B, B answers: each side posts its receive first and reads its two completions.
     */
    private static void roundTrip(
        final InprocPair p, final UnsafeBuffer tx, final UnsafeBuffer rx, final CompletionEntry entry)
    {
        check(p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 1));
        check(p.a.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 2));
        check(p.a.send(tx, 0, 64, p.addrBFromA, 3));
        await(p.cqB, entry);
        check(p.b.send(tx, 0, 64, p.addrAFromB, 4));
        await(p.cqB, entry);
        await(p.cqA, entry);
        await(p.cqA, entry);
    }

    private static void check(final int status)
    {
        if (0 != status)
        {
            fail("post returned " + status);
        }
    }

    private static void await(final CompletionQueue cq, final CompletionEntry entry)
    {
        final long deadline = System.nanoTime() + InprocPair.DEADLINE_NS;
        while (1 != cq.read(entry))
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("no completion before the deadline");
            }
            InprocPair.progressAll();
        }
    }

    private static long allocatedBytes()
    {
        final com.sun.management.ThreadMXBean bean =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        return bean.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    @Test
    void shouldLogAnAgentErrorAndLetAChildJvmReadTheCountersAndTheLog() throws Exception
    {
        final Info info = InprocPair.info(Progress.AUTO, 0, 0);
        final FaultyProvider faulty = new FaultyProvider();
        try (Fabric fabric = Fabric.open(info); FaultyPair pair = new FaultyPair(fabric, info, faulty, 1024))
        {
            final Domain domainA = pair.domainA;
            final Domain domainB = pair.domainB;
            final CompletionQueue cqA = pair.cqA;
            final CompletionQueue cqB = pair.cqB;
            final Endpoint a = pair.a;
            final Endpoint b = pair.b;
            final long addrB = pair.addrB;
            final UnsafeBuffer tx = InprocPair.pattern(64, 2);
            final UnsafeBuffer rx = InprocPair.direct(64);
            for (int i = 0; i < MESSAGES; i++)
            {
                assertEquals(0, b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, i));
                assertEquals(0, a.send(tx, 0, 64, addrB, i));
                assertEquals(i, InprocPair.one(cqA).context);
                assertEquals(i, InprocPair.one(cqB).context);
            }
            final DomainCounters countersB = domainB.counters();
            final long processErrors = countersB.file().processErrors().get();
            faulty.transport.throwsLeft.set(3);
            final long deadline = System.nanoTime() + InprocPair.DEADLINE_NS;
            while (countersB.value(DomainCounters.TYPE_ERRORS) < 3)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    fail("the agent's errors were not counted: " + countersB.value(DomainCounters.TYPE_ERRORS));
                }
                Thread.yield();
            }
            assertEquals(3, countersB.value(DomainCounters.TYPE_ERRORS));
            assertEquals(0, domainA.counters().value(DomainCounters.TYPE_ERRORS));
            assertEquals(processErrors + 3, countersB.file().processErrors().get());
            // The agent goes on after an error: one more message arrives.
            assertEquals(0, b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 500));
            assertEquals(0, a.send(tx, 0, 64, addrB, 500));
            assertEquals(500, InprocPair.one(cqB).context);
            InprocPair.one(cqA);

            final Path file = countersB.file().path();
            assertNotNull(file, "the counters directory must be usable for this test");
            // This process reads its own file (through the owner's mapping).
            final List<String> errors = new ArrayList<>();
            try (StatReader own = StatReader.open(file))
            {
                own.readErrors((count, first, last, text) ->
                {
                    if (text.contains(FaultyTransport.MESSAGE))
                    {
                        errors.add(count + " " + text.lines().findFirst().orElse(""));
                    }
                });
            }
            assertEquals(List.of("3 java.lang.IllegalStateException: " + FaultyTransport.MESSAGE), errors);

            // A child JVM maps the file read-only and reads the same.
            final String suffixA = " pid=" + ProcessHandle.current().pid() + " id=" + domainA.counters().domainId();
            final String suffixB = " pid=" + ProcessHandle.current().pid() + " id=" + countersB.domainId();
            final List<String> lines;
            try (ChildJvm child = ChildJvm.start("read", file.toString()))
            {
                lines = child.allLines();
                assertEquals(0, child.exitStatus(), lines + child.diagnostics());
            }
            assertEquals("PID " + ProcessHandle.current().pid(), lines.get(0));
            assertEquals("LIVENESS ALIVE", lines.get(1));
            assertEquals("DONE", lines.get(lines.size() - 1));
            assertEquals(MESSAGES + 1, value(lines, DomainCounters.TYPE_FRAMES_OUT, "frames out: inproc domain=" +
                domainA.name() + suffixA));
            assertEquals(MESSAGES + 1, value(lines, DomainCounters.TYPE_FRAMES_IN, "frames in: inproc domain=" +
                domainB.name() + suffixB));
            // Idle domains: the child reads what this process reads.
            assertEquals(countersB.value(DomainCounters.TYPE_COMMANDS), value(lines, DomainCounters.TYPE_COMMANDS,
                "commands: inproc domain=" + domainB.name() + suffixB));
            assertTrue(countersB.value(DomainCounters.TYPE_COMMANDS) >= MESSAGES + 1);
            assertEquals(3, value(lines, DomainCounters.TYPE_ERRORS, "errors: inproc domain=" + domainB.name() +
                suffixB));
            assertEquals(0, value(lines, DomainCounters.TYPE_ERRORS, "errors: inproc domain=" + domainA.name() +
                suffixA));
            assertTrue(lines.contains("ERROR 3 java.lang.IllegalStateException: " + FaultyTransport.MESSAGE),
                lines.toString());

        }
    }

    @Test
    void shouldKeepAnAutoDomainProgressingAfterAnInternalErrorAndHandItToTheTransport()
    {
        // HotSpot turns a fault in a mapped file cut by another process into an asynchronous InternalError, which
        // may surface anywhere in the duty cycle; an AgentRunner rethrows an Error and its thread would die.
        final Info info = InprocPair.info(Progress.AUTO, 0, 0);
        final FaultyProvider faulty = new FaultyProvider();
        try (Fabric fabric = Fabric.open(info); FaultyPair pair = new FaultyPair(fabric, info, faulty, 64))
        {
            final Domain domainA = pair.domainA;
            final Domain domainB = pair.domainB;
            final CompletionQueue cqA = pair.cqA;
            final CompletionQueue cqB = pair.cqB;
            final Endpoint a = pair.a;
            final Endpoint b = pair.b;
            final long addrB = pair.addrB;
            final UnsafeBuffer tx = InprocPair.pattern(64, 5);
            final UnsafeBuffer rx = InprocPair.direct(64);
            faulty.transport.internalErrors = true;
            faulty.transport.throwsLeft.set(2);
            final long deadline = System.nanoTime() + InprocPair.DEADLINE_NS;
            while (faulty.transport.faults.get() < 2)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    fail("the transport was not told of the faults: " + faulty.transport.faults.get());
                }
                Thread.yield();
            }
            assertEquals(2, faulty.transport.faults.get());
            assertEquals(2, domainB.counters().value(DomainCounters.TYPE_ERRORS));
            // The agent thread is still alive: a message still arrives at b.
            assertEquals(0, b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 7));
            assertEquals(0, a.send(tx, 0, 64, addrB, 8));
            assertEquals(7, InprocPair.one(cqB).context);
            assertEquals(8, InprocPair.one(cqA).context);
            assertEquals(tx.getLong(0), rx.getLong(0));
        }
    }

    @Test
    void shouldCountAndLogTheErrorsOfADomainOnAProgressGroupInTheProcessCounter()
    {
        final Info info = InprocPair.info(Progress.AUTO, 0, 0);
        final FaultyProvider faulty = new FaultyProvider();
        try (Fabric fabric = Fabric.open(info))
        {
            final ProgressGroup group = fabric.progressGroup("counters-test", "yield");
            final Domain domain = new Domain(fabric, info, faulty, null, group);
            final DomainCounters counters = domain.counters();
            final long processErrors = counters.file().processErrors().get();
            faulty.transport.throwsLeft.set(2);
            final long deadline = System.nanoTime() + InprocPair.DEADLINE_NS;
            while (counters.file().processErrors().get() < processErrors + 2)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    fail("the group's errors were not counted");
                }
                Thread.yield();
            }
            // The group's thread runs several domains: its errors are the process's, not this domain's.
            assertEquals(processErrors + 2, counters.file().processErrors().get());
            assertEquals(0, counters.value(DomainCounters.TYPE_ERRORS));
            final List<Long> counts = new ArrayList<>();
            try (StatReader own = StatReader.open(counters.file().path()))
            {
                own.readErrors((count, first, last, text) ->
                {
                    if (text.contains(FaultyTransport.MESSAGE) && text.contains("DynamicCompositeAgent"))
                    {
                        counts.add((long) count);
                    }
                });
            }
            assertEquals(List.of(2L), counts);
            domain.close();
            group.close();
        }
    }

    /**
     * Drive both domains' duty cycles past a gauge sample (every 256 cycles) with nothing left to do.
     */
    private static void settle()
    {
        for (int i = 0; i < 2 * DomainCounters.SAMPLE_CYCLES + 1; i++)
        {
            InprocPair.progressAll();
        }
    }

    private static long[] snapshot(final DomainCounters counters)
    {
        final long[] values = new long[DomainCounters.TYPE_ERRORS + 1];
        for (int type = DomainCounters.TYPE_COMMANDS; type <= DomainCounters.TYPE_ERRORS; type++)
        {
            values[type] = counters.value(type);
        }
        return values;
    }

    private static long delta(final DomainCounters counters, final long[] before, final int type)
    {
        return counters.value(type) - before[type];
    }

    /**
     * The value of the child's {@code COUNTER <id> <type> <value> <label>} line with that type and label.
     */
    private static long value(final List<String> lines, final int type, final String label)
    {
        for (final String line : lines)
        {
            final String[] parts = line.split(" ", 5);
            if ("COUNTER".equals(parts[0]) && Integer.parseInt(parts[2]) == type && label.equals(parts[4]))
            {
                return Long.parseLong(parts[3]);
            }
        }
        fail("no counter of type " + type + " labelled '" + label + "' in " + lines);
        return -1;
    }

    /**
     * An inproc domain a and a domain b over a {@link FaultyTransport} (opened as {@code Fabric.domain} would), an
     * endpoint on each bound to its own AV and tagged CQ, each inserted in the other's AV; closed in reverse order.
     */
    private static final class FaultyPair implements AutoCloseable
    {
        final Domain domainA;
        final Domain domainB;
        final AddressVector avA;
        final AddressVector avB;
        final CompletionQueue cqA;
        final CompletionQueue cqB;
        final Endpoint a;
        final Endpoint b;
        final long addrB;

        FaultyPair(final Fabric fabric, final Info info, final FaultyProvider faulty, final int cqSize)
        {
            domainA = fabric.domain(info, "yield");
            domainB = new Domain(fabric, info, faulty, "yield", null);
            avA = domainA.addressVector(AvType.TABLE, 4);
            avB = domainB.addressVector(AvType.TABLE, 4);
            cqA = domainA.completionQueue(cqSize, CqFormat.TAGGED);
            cqB = domainB.completionQueue(cqSize, CqFormat.TAGGED);
            a = domainA.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable();
            b = domainB.endpoint(info).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV).enable();
            addrB = avA.insert(b.name());
            avB.insert(a.name());
        }

        @Override
        public void close()
        {
            a.close();
            b.close();
            cqA.close();
            cqB.close();
            avA.close();
            avB.close();
            domainA.close();
            domainB.close();
        }
    }

    /**
     * inproc with a transport that throws from {@code poll} while {@code throwsLeft} is positive.
     */
    private static final class FaultyProvider implements TransportProvider
    {
        private final InprocProvider inproc = new InprocProvider();
        FaultyTransport transport;

        @Override
        public DomainTransport openDomain(final Info info)
        {
            transport = new FaultyTransport(inproc.openDomain(info));
            return transport;
        }

        @Override
        public String name()
        {
            return inproc.name();
        }

        @Override
        public Version version()
        {
            return inproc.version();
        }

        @Override
        public List<Info> infos()
        {
            return inproc.infos();
        }
    }

    private static final class FaultyTransport extends ForwardingDomainTransport
    {
        static final String MESSAGE = "injected agent error";
        final AtomicInteger throwsLeft = new AtomicInteger();
        final AtomicInteger faults = new AtomicInteger();
        volatile boolean internalErrors;
        FaultyTransport(final DomainTransport delegate)
        {
            super(delegate);
        }

        @Override
        public int poll(final FrameHandler handler, final int limit)
        {
            if (throwsLeft.get() > 0)
            {
                throwsLeft.decrementAndGet();
                if (internalErrors)
                {
                    throw new InternalError(MESSAGE);
                }
                throw new IllegalStateException(MESSAGE);
            }
            return inner.poll(handler, limit);
        }

        @Override
        public void onFault(final Throwable fault)
        {
            if (fault instanceof InternalError && MESSAGE.equals(fault.getMessage()))
            {
                faults.incrementAndGet();
            }
            inner.onFault(fault);
        }

    }
}
