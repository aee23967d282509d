package io.jfabric;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class ObjectsControlPathTest
{
    private static Errno errnoOf(final Runnable action)
    {
        return assertThrows(FabricException.class, action::run).errno();
    }

    @Test
    void shouldListInprocInGetInfoAndOpenItsFabric()
    {
        final Info info = InprocPair.info(Progress.AUTO, 0, 0);
        assertEquals("inproc", info.fabricAttr().provName());
        assertEquals(EndpointType.RDM, info.epAttr().type());
        assertEquals(Flags.RMA, info.caps() & (Flags.RMA | Flags.ATOMIC));
        try (Fabric fabric = Fabric.open(info))
        {
            assertSame(info, fabric.info());
        }
        assertEquals(Errno.ENODATA, errnoOf(() -> Fabric.open(Info.builder()
            .fabricAttr(FabricAttr.builder().provName("nosuch").build()).build())));
    }

    @Test
    void shouldRunAutoProgressOnANamedThreadAndStopItOnClose()
    {
        final Info info = InprocPair.info(Progress.AUTO, 0, 0);
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domain = fabric.domain(info, "backoff");
            assertEquals("jfabric-inproc-" + domain.name(), domain.agentName());
            assertTrue(threadExists(domain.agentName()));
            domain.close();
            assertTrue(!threadExists(domain.agentName()) || !threadAlive(domain.agentName()));
            assertEquals(Errno.EINVAL, errnoOf(() -> fabric.domain(info, "nap")));
        }
    }

    @Test
    void shouldDriveSeveralDomainsFromOneSharedProgressThread()
    {
        final Info info = InprocPair.info(Progress.AUTO, 0, 0);
        try (Fabric fabric = Fabric.open(info))
        {
            final ProgressGroup group = fabric.progressGroup("shared-test", "yield");
            assertEquals("jfabric-shared-test", group.threadName());
            final Domain d1 = fabric.domain(info, group);
            final Domain d2 = fabric.domain(info, group);
            final AddressVector av1 = d1.addressVector(AvType.TABLE, 1);
            final AddressVector av2 = d2.addressVector(AvType.TABLE, 1);
            final CompletionQueue cq1 = d1.completionQueue(8, CqFormat.MSG);
            final CompletionQueue cq2 = d2.completionQueue(8, CqFormat.MSG);
            final Endpoint e1 = d1.endpoint(info).bind(av1, 0).bind(cq1, Flags.TRANSMIT | Flags.RECV).enable();
            final Endpoint e2 = d2.endpoint(info).bind(av2, 0).bind(cq2, Flags.TRANSMIT | Flags.RECV).enable();
            final long to2 = av1.insert(e2.name());
            final UnsafeBuffer rx = InprocPair.direct(16);
            assertEquals(0, e2.recv(rx, 0, 16, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, e1.send(InprocPair.pattern(16, 2), 0, 16, to2, 2));
            assertEquals(1, InprocPair.one(cq2).context());
            assertEquals(2, InprocPair.one(cq1).context());
            InprocPair.assertPattern(rx, 0, 16, 2);
            assertTrue(threadExists("jfabric-shared-test"));
            assertTrue(!threadExists(d1.agentName()));
            assertEquals(Errno.EINVAL, errnoOf(() -> fabric.domain(InprocPair.info(Progress.MANUAL, 0, 0), group)));
            e1.close();
            e2.close();
            cq1.close();
            cq2.close();
            av1.close();
            av2.close();
            d1.close();
            assertEquals(Errno.EBUSY, errnoOf(group::close));
            d2.close();
            group.close();
        }
    }

    private static boolean threadExists(final String name)
    {
        return Thread.getAllStackTraces().keySet().stream().anyMatch((t) -> t.getName().equals(name));
    }

    private static boolean threadAlive(final String name)
    {
        return Thread.getAllStackTraces().keySet().stream().anyMatch((t) -> t.getName().equals(name) && t.isAlive());
    }

    @Test
    void shouldRejectBadBindFlagsWithEbadflagsAndCloseInOrderWithEbusy()
    {
        final Info info = InprocPair.info(Progress.MANUAL, 0, 0);
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domain = fabric.domain(info);
            final AddressVector av = domain.addressVector(AvType.TABLE, 4);
            final CompletionQueue cq = domain.completionQueue(16, CqFormat.CONTEXT);
            final Counter counter = domain.counter();
            final EventQueue eq = fabric.eventQueue(4);
            final Endpoint ep = domain.endpoint(info);

            assertEquals(Errno.EBADFLAGS, errnoOf(() -> ep.bind(cq, Flags.SEND | Flags.READ)));
            assertEquals(Errno.EBADFLAGS, errnoOf(() -> ep.bind(cq, 0)));
            assertEquals(Errno.EBADFLAGS, errnoOf(() -> ep.bind(counter, Flags.MULTI_RECV)));
            assertEquals(Errno.EBADFLAGS, errnoOf(() -> ep.bind(av, Flags.RECV)));
            assertEquals(Errno.EBADFLAGS, errnoOf(() -> ep.bind(eq, Flags.SEND)));
            assertEquals(Errno.ENOAV, errnoOf(ep::enable));
            assertEquals(Errno.EOPBADSTATE.negated(), ep.send(InprocPair.direct(8), 0, 8, 0, 1));

            ep.bind(cq, Flags.TRANSMIT | Flags.RECV | Flags.SELECTIVE_COMPLETION).bind(counter, Flags.SEND | Flags.RECV)
                .bind(av, 0).bind(eq, 0).enable();
            assertEquals(Errno.EOPBADSTATE, errnoOf(() -> ep.bind(cq, Flags.TRANSMIT)));

            assertEquals(Errno.EBUSY, errnoOf(domain::close));
            assertEquals(Errno.EBUSY, errnoOf(cq::close));
            assertEquals(Errno.EBUSY, errnoOf(counter::close));
            assertEquals(Errno.EBUSY, errnoOf(av::close));
            assertEquals(Errno.EBUSY, errnoOf(fabric::close));
            ep.close();
            cq.close();
            counter.close();
            av.close();
            eq.close();
            domain.close();
        }
    }

    @Test
    void shouldFollowAddressVectorInsertLookupAndRemoveRules()
    {
        final Info info = InprocPair.info(Progress.MANUAL, 0, 0);
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domain = fabric.domain(info);
            final AddressVector av = domain.addressVector(AvType.TABLE, 1);
            final Endpoint ep = domain.endpoint(info).bind(av, 0).enable();
            final byte[] good = ep.name();
            final byte[] bad = "nonsense".getBytes(StandardCharsets.US_ASCII);

            assertEquals(0, av.insert(good));
            assertEquals(AddressVector.ADDR_NOTAVAIL, av.insert(bad));
            final long[] handles = new long[2];
            assertEquals(1, av.insert(new byte[][]{bad, good}, handles, 0, null));
            assertEquals(AddressVector.ADDR_NOTAVAIL, handles[0]);
            assertEquals(1, handles[1]);
            final int[] errors = new int[2];
            assertEquals(1, av.insert(new byte[][]{good, bad}, handles, AddressVector.SYNC_ERR, errors));
            assertEquals(0, errors[0]);
            assertEquals(Errno.EINVAL.value(), errors[1]);
            assertEquals(Errno.EBADFLAGS, errnoOf(() -> av.insert(new byte[][]{good}, handles, Flags.MORE, null)));

            assertArrayEquals(good, av.lookup(0));
            assertEquals(new String(good, StandardCharsets.US_ASCII), av.straddr(av.lookup(1)));
            assertEquals(Errno.EINVAL, errnoOf(() -> av.lookup(99)));
            assertEquals(Errno.EINVAL, errnoOf(() -> av.lookup(Long.MAX_VALUE)));
            assertEquals(Errno.EINVAL, errnoOf(() -> av.remove(-5)));
            av.remove(1);
            assertEquals(Errno.EINVAL, errnoOf(() -> av.remove(1)));
            assertEquals(Errno.EINVAL, errnoOf(() -> av.lookup(1)));
            assertEquals(Errno.EINVAL.negated(), ep.send(InprocPair.direct(8), 0, 8, 1, 1));

            final AddressVector map = domain.addressVector(AvType.MAP, 1);
            final long handle = map.insert(good);
            assertTrue(handle >= 0);
            assertArrayEquals(good, map.lookup(handle));
            map.remove(handle);
            assertEquals(Errno.EINVAL, errnoOf(() -> map.remove(handle)));
            final long svc = map.insertService(Integer.toString(3), Integer.toString(4));
            assertEquals("fi_inproc://3:4", map.straddr(map.lookup(svc)));
            final long[] sym = new long[4];
            assertEquals(4, map.insertSymmetric("10", 2, "0", 2, sym));
            assertEquals("fi_inproc://11:1", map.straddr(map.lookup(sym[3])));
            ep.close();
            av.close();
            map.close();
            domain.close();
        }
    }

    @Test
    void shouldOpenCqsOfEverySizeAndTimeOutOrWakeOnSignal() throws InterruptedException
    {
        final Info info = InprocPair.info(Progress.AUTO, 0, 0);
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domain = fabric.domain(info, "yield");
            assertEquals(Errno.EINVAL, errnoOf(() -> domain.completionQueue(-1, CqFormat.CONTEXT)));
            // fi_cq(3): size 0 opens a queue of the provider's default size.
            try (CompletionQueue defaultSized = domain.completionQueue(0, CqFormat.CONTEXT))
            {
                assertEquals(Domain.DEFAULT_CQ_SIZE, defaultSized.size());
            }
            assertEquals(Errno.EINVAL, errnoOf(() -> domain.completionQueue(65537, CqFormat.CONTEXT)));
            final CompletionQueue[] many = new CompletionQueue[64];
            for (int i = 0; i < many.length; i++)
            {
                many[i] = domain.completionQueue(1 + i * 1000, CqFormat.MSG);
                assertEquals(1 + i * 1000, many[i].size());
            }
            final CompletionQueue big = domain.completionQueue(65536, CqFormat.UNSPEC);
            assertEquals(CqFormat.CONTEXT, big.format());

            final CompletionEntry[] entries = {new CompletionEntry()};
            final long start = System.nanoTime();
            assertEquals(Errno.EAGAIN.negated(), big.sread(entries, 1, 50));
            assertTrue(System.nanoTime() - start >= 50_000_000L);

            final AtomicInteger result = new AtomicInteger(1);
            final Thread reader = new Thread(() -> result.set(big.sread(entries, 1, -1)));
            reader.start();
            while (result.get() == 1 && reader.isAlive())
            {
                big.signal();
                Thread.yield();
            }
            reader.join();
            assertEquals(Errno.EAGAIN.negated(), result.get());
            assertEquals("Resource temporarily unavailable", big.strerror(Errno.EAGAIN.value()));
            for (final CompletionQueue cq : many)
            {
                cq.close();
            }
            big.close();
            domain.close();
        }
    }

    @Test
    void shouldSetAddReadAndWaitOnCounters()
    {
        final Info info = InprocPair.info(Progress.MANUAL, 0, 0);
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domain = fabric.domain(info);
            final Counter counter = domain.counter();
            assertEquals(0, counter.read());
            counter.add(5);
            counter.set(counter.read() + 2);
            assertEquals(7, counter.read());
            counter.addErr(3);
            counter.setErr(counter.readErr() * 2);
            assertEquals(6, counter.readErr());
            assertEquals(0, counter.await(7, 1000));
            assertEquals(Errno.ETIMEDOUT.negated(), counter.await(8, 20));
            counter.close();
            domain.close();
        }
    }

    @Test
    void shouldWriteReadPeekAndTimeOutOnEventQueues()
    {
        final Info info = InprocPair.info(Progress.MANUAL, 0, 0);
        try (Fabric fabric = Fabric.open(info))
        {
            final EventQueue eq = fabric.eventQueue(2);
            final EqEntry entry = new EqEntry();
            assertEquals(Errno.EAGAIN.negated(), eq.read(entry, 0));
            assertEquals(1, eq.write(EventQueue.NOTIFY, eq, 42, 7));
            assertEquals(1, eq.write(EventQueue.MR_COMPLETE, null, 43, 8));
            assertEquals(Errno.EAGAIN.negated(), eq.write(EventQueue.NOTIFY, null, 44, 9));
            assertEquals(1, eq.read(entry, Flags.PEEK));
            assertEquals(42, entry.context());
            assertEquals(1, eq.read(entry, 0));
            assertSame(eq, entry.fid());
            assertEquals(7, entry.data());
            assertEquals(1, eq.sread(entry, 100, 0));
            assertEquals(43, entry.context());
            assertEquals(EventQueue.MR_COMPLETE, entry.event());
            assertEquals(Errno.EAGAIN.negated(), eq.sread(entry, 20, 0));
            assertEquals(1, eq.writeError(EventQueue.CONNREQ, null, 45, Errno.ECONNREFUSED.value()));
            assertEquals(Errno.EAVAIL.negated(), eq.read(entry, 0));
            assertEquals(1, eq.readErr(entry));
            assertEquals(Errno.ECONNREFUSED.value(), entry.err());
            eq.close();
        }
    }

    @Test
    void shouldWakeWaitSetForCqCounterAndEqAndTimeOutOtherwise()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final EventQueue eq = p.fabric.eventQueue(4);
            final WaitSet ws = p.fabric.waitSet().add(p.cqB).add(p.sendCntrA).add(eq);
            assertEquals(Errno.ETIMEDOUT.negated(), ws.await(20));
            ws.signal();
            assertEquals(Errno.ECANCELED.negated(), ws.await(-1));

            assertEquals(0, p.b.recv(InprocPair.direct(8), 0, 8, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, p.a.inject(InprocPair.direct(8), 0, 8, p.addrBFromA));
            assertEquals(0, ws.await(10_000));
            final CompletionEntry e = new CompletionEntry();
            final long deadline = System.nanoTime() + InprocPair.DEADLINE_NS;
            while (1 != p.cqB.read(e))
            {
                assertTrue(System.nanoTime() < deadline);
            }
            assertEquals(1, e.context());
            assertEquals(1, p.sendCntrA.read());
            // The counter move (inject counts) or the CQ entry woke the set; with both consumed it is quiet.
            while (0 == ws.await(0))
            {
                assertTrue(System.nanoTime() < deadline);
            }
            assertEquals(Errno.ETIMEDOUT.negated(), ws.await(20));
            assertEquals(1, eq.write(EventQueue.NOTIFY, null, 5, 0));
            assertEquals(0, ws.await(10_000));
            ws.close();
            eq.close();
        }
    }

    @Test
    void shouldRefuseUnsupportedEndpointTypesAndOptions()
    {
        final Info info = InprocPair.info(Progress.MANUAL, 0, 0);
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domain = fabric.domain(info);
            final Info msgInfo = info.toBuilder()
                .epAttr(info.epAttr().toBuilder().type(EndpointType.SOCK_STREAM).build()).build();
            assertEquals(Errno.EOPNOTSUPP, errnoOf(() -> domain.endpoint(msgInfo)));
            final Endpoint ep = domain.endpoint(info);
            assertEquals(Errno.ENOPROTOOPT, errnoOf(() -> ep.setOption(99, 1)));
            assertEquals(Errno.EINVAL, errnoOf(() -> ep.setOption(Endpoint.OPT_MIN_MULTI_RECV, 0)));
            assertEquals(Errno.EOPBADSTATE.negated(), ep.tsearch(0, 0, 0, 0, 1, null, null));
            final UnsafeBuffer b = InprocPair.direct(8);
            assertEquals(Errno.EOPBADSTATE.negated(), ep.recv(b, 0, 8, AddressVector.ADDR_UNSPEC, 1));
            ep.close();
            domain.close();
        }
    }
}
