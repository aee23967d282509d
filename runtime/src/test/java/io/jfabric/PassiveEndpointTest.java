package io.jfabric;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;

import static io.jfabric.InprocPair.assertPattern;
import static io.jfabric.InprocPair.direct;
import static io.jfabric.InprocPair.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class PassiveEndpointTest
{
    private static Info info(final Progress progress, final EndpointType type)
    {
        final Info hints = Info.builder()
            .caps(Flags.MSG)
            .epAttr(EpAttr.builder().type(type).build())
            .fabricAttr(FabricAttr.builder().provName("inproc").build())
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .build();
        final Info info = Fabric.getInfo(hints).get(0);
        assertEquals(type, info.epAttr().type());
        return info;
    }

    private static EqEntry event(final EventQueue eq)
    {
        final EqEntry entry = new EqEntry();
        assertEquals(1, eq.sread(entry, 10_000, 0));
        return entry;
    }

    private static CompletionEntry completion(final CompletionQueue cq, final Domain... progress)
    {
        final CompletionEntry e = new CompletionEntry();
        final long deadline = System.nanoTime() + InprocPair.DEADLINE_NS;
        while (1 != cq.read(e))
        {
            for (final Domain d : progress)
            {
                d.progress();
            }
            assertTrue(System.nanoTime() < deadline, "no completion");
            Thread.yield();
        }
        return e;
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldConnectAcceptExchangeMessagesAndShutDown(final Progress progress)
    {
        final Info info = info(progress, EndpointType.MSG);
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain serverDomain = fabric.domain(info, "yield");
            final Domain clientDomain = fabric.domain(info, "yield");
            final EventQueue serverEq = fabric.eventQueue(8);
            final EventQueue clientEq = fabric.eventQueue(8);
            final CompletionQueue serverCq = serverDomain.completionQueue(16, CqFormat.MSG);
            final CompletionQueue clientCq = clientDomain.completionQueue(16, CqFormat.MSG);
            final PassiveEndpoint pep = fabric.passiveEndpoint(info).bind(serverEq, 0).listen();

            final Endpoint client = clientDomain.endpoint(info).bind(clientEq, 0)
                .bind(clientCq, Flags.TRANSMIT | Flags.RECV).enable();
            assertEquals(Errno.ENOTCONN.negated(), client.send(direct(8), 0, 8, 0, 1));
            client.connect(pep.name(), "hello".getBytes(StandardCharsets.US_ASCII));

            final EqEntry connreq = event(serverEq);
            assertEquals(EventQueue.CONNREQ, connreq.event());
            assertSame(pep, connreq.fid());
            assertNotNull(connreq.info());
            assertArrayEquals("hello".getBytes(StandardCharsets.US_ASCII), connreq.param());
            assertArrayEquals(client.name(), connreq.info().destAddr());

            final Endpoint server = serverDomain.endpoint(connreq.info()).bind(serverEq, 0)
                .bind(serverCq, Flags.TRANSMIT | Flags.RECV).enable();
            server.accept(null);
            final EqEntry serverConnected = event(serverEq);
            assertEquals(EventQueue.CONNECTED, serverConnected.event());
            assertSame(server, serverConnected.fid());
            final EqEntry clientConnected = event(clientEq);
            assertEquals(EventQueue.CONNECTED, clientConnected.event());
            assertSame(client, clientConnected.fid());
            assertTrue(client.connected());

            final UnsafeBuffer rx = direct(64);
            assertEquals(0, server.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 10));
            assertEquals(0, client.send(pattern(40, 5), 0, 40, 0, 11));
            assertEquals(10, completion(serverCq, clientDomain).context());
            assertPattern(rx, 0, 40, 5);
            assertEquals(11, completion(clientCq, serverDomain).context());

            final UnsafeBuffer back = direct(64);
            assertEquals(0, client.recv(back, 0, 64, AddressVector.ADDR_UNSPEC, 12));
            assertEquals(0, server.send(rx, 0, 40, 0, 13));
            assertEquals(12, completion(clientCq, serverDomain).context());
            assertPattern(back, 0, 40, 5);
            assertEquals(13, completion(serverCq, clientDomain).context());

            client.shutdown(0);
            assertEquals(EventQueue.SHUTDOWN, event(serverEq).event());
            assertEquals(EventQueue.SHUTDOWN, event(clientEq).event());
            assertFalse(server.connected());
            assertEquals(Errno.ENOTCONN.negated(), server.send(rx, 0, 8, 0, 14));
            assertEquals(Errno.ENOTCONN.negated(), client.send(rx, 0, 8, 0, 15));

            // A second connection, ended by closing the server side: the client sees SHUTDOWN.
            final Endpoint client2 = clientDomain.endpoint(info).bind(clientEq, 0).enable();
            client2.connect(pep.name(), null);
            final Endpoint server2 = serverDomain.endpoint(event(serverEq).info()).bind(serverEq, 0).enable();
            server2.accept(null);
            assertEquals(EventQueue.CONNECTED, event(serverEq).event());
            assertEquals(EventQueue.CONNECTED, event(clientEq).event());
            server2.close();
            final EqEntry shutdown = event(clientEq);
            assertEquals(EventQueue.SHUTDOWN, shutdown.event());
            assertSame(client2, shutdown.fid());
            client2.close();

            pep.close();
            client.close();
            server.close();
            serverCq.close();
            clientCq.close();
            serverEq.close();
            clientEq.close();
            serverDomain.close();
            clientDomain.close();
        }
    }

    @Test
    void shouldReportRejectionAsEconnrefusedAndRefuseConnectWithoutListener()
    {
        final Info info = info(Progress.AUTO, EndpointType.MSG);
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domain = fabric.domain(info, "yield");
            final EventQueue serverEq = fabric.eventQueue(4);
            final EventQueue clientEq = fabric.eventQueue(4);
            final PassiveEndpoint pep = fabric.passiveEndpoint(info).bind(serverEq, 0);
            assertEquals(Errno.ENOEQ, assertThrows(FabricException.class,
                () -> fabric.passiveEndpoint(info).listen()).errno());
            final Endpoint client = domain.endpoint(info).bind(clientEq, 0).enable();
            assertEquals(Errno.ECONNREFUSED, assertThrows(FabricException.class,
                () -> client.connect(pep.name(), null)).errno());
            pep.listen();
            client.connect(pep.name(), null);
            final EqEntry connreq = event(serverEq);
            pep.reject(connreq.info(), null);
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> pep.reject(connreq.info(), null)).errno());
            final EqEntry refused = new EqEntry();
            final long deadline = System.nanoTime() + InprocPair.DEADLINE_NS;
            while (1 != clientEq.readErr(refused))
            {
                assertTrue(System.nanoTime() < deadline);
            }
            assertEquals(Errno.ECONNREFUSED.value(), refused.err());
            assertSame(client, refused.fid());
            pep.close();
            client.close();
            serverEq.close();
            clientEq.close();
            domain.close();
        }
    }

    @Test
    void shouldReportCmDataSizeAndRefuseLargerConnectionData()
    {
        final Info info = info(Progress.AUTO, EndpointType.MSG);
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domain = fabric.domain(info, "yield");
            final EventQueue serverEq = fabric.eventQueue(4);
            final EventQueue clientEq = fabric.eventQueue(4);
            final PassiveEndpoint pep = fabric.passiveEndpoint(info).bind(serverEq, 0).listen();
            final Endpoint client = domain.endpoint(info).bind(clientEq, 0).enable();
            assertEquals(Endpoint.CM_DATA_SIZE, client.option(Endpoint.OPT_CM_DATA_SIZE));
            assertEquals(Endpoint.CM_DATA_SIZE, pep.option(Endpoint.OPT_CM_DATA_SIZE));
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> client.connect(pep.name(), new byte[Endpoint.CM_DATA_SIZE + 1])).errno());
            client.connect(pep.name(), new byte[Endpoint.CM_DATA_SIZE]);
            assertEquals(Endpoint.CM_DATA_SIZE, event(serverEq).param().length);
            pep.close();
            client.close();
            serverEq.close();
            clientEq.close();
            domain.close();
        }
    }

    @Test
    void shouldDeliverAcceptAndRejectDataToTheClientsEvents()
    {
        final Info info = info(Progress.AUTO, EndpointType.MSG);
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domain = fabric.domain(info, "yield");
            final EventQueue serverEq = fabric.eventQueue(8);
            final EventQueue clientEq = fabric.eventQueue(8);
            final PassiveEndpoint pep = fabric.passiveEndpoint(info).bind(serverEq, 0).listen();

            final Endpoint rejected = domain.endpoint(info).bind(clientEq, 0).enable();
            rejected.connect(pep.name(), null);
            pep.reject(event(serverEq).info(), "no room".getBytes(StandardCharsets.US_ASCII));
            final EqEntry refused = new EqEntry();
            final long deadline = System.nanoTime() + InprocPair.DEADLINE_NS;
            while (1 != clientEq.readErr(refused))
            {
                assertTrue(System.nanoTime() < deadline);
            }
            assertEquals(Errno.ECONNREFUSED.value(), refused.err());
            assertArrayEquals("no room".getBytes(StandardCharsets.US_ASCII), refused.param());

            final Endpoint client = domain.endpoint(info).bind(clientEq, 0).enable();
            client.connect(pep.name(), null);
            final Endpoint server = domain.endpoint(event(serverEq).info()).bind(serverEq, 0).enable();
            server.accept("welcome".getBytes(StandardCharsets.US_ASCII));
            assertEquals(EventQueue.CONNECTED, event(serverEq).event());
            final EqEntry connected = event(clientEq);
            assertEquals(EventQueue.CONNECTED, connected.event());
            assertArrayEquals("welcome".getBytes(StandardCharsets.US_ASCII), connected.param());

            server.close();
            client.close();
            rejected.close();
            pep.close();
            serverEq.close();
            clientEq.close();
            domain.close();
        }
    }

    @Test
    void shouldGiveEachSideOneShutdownEventWhenBothSidesShutDown()
    {
        final Info info = info(Progress.AUTO, EndpointType.MSG);
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domain = fabric.domain(info, "yield");
            final EventQueue serverEq = fabric.eventQueue(8);
            final EventQueue clientEq = fabric.eventQueue(8);
            final PassiveEndpoint pep = fabric.passiveEndpoint(info).bind(serverEq, 0).listen();
            final Endpoint client = domain.endpoint(info).bind(clientEq, 0).enable();
            client.connect(pep.name(), null);
            final Endpoint server = domain.endpoint(event(serverEq).info()).bind(serverEq, 0).enable();
            server.accept(null);
            assertEquals(EventQueue.CONNECTED, event(serverEq).event());
            assertEquals(EventQueue.CONNECTED, event(clientEq).event());

            server.shutdown(0);
            client.shutdown(0);
            server.shutdown(0);
            final EqEntry serverShutdown = event(serverEq);
            assertEquals(EventQueue.SHUTDOWN, serverShutdown.event());
            assertSame(server, serverShutdown.fid());
            final EqEntry clientShutdown = event(clientEq);
            assertEquals(EventQueue.SHUTDOWN, clientShutdown.event());
            assertSame(client, clientShutdown.fid());
            final EqEntry none = new EqEntry();
            assertEquals(Errno.EAGAIN.negated(), serverEq.read(none, 0));
            assertEquals(Errno.EAGAIN.negated(), clientEq.read(none, 0));
            assertFalse(client.connected());
            assertFalse(server.connected());

            server.close();
            client.close();
            pep.close();
            serverEq.close();
            clientEq.close();
            domain.close();
        }
    }

    @Test
    void shouldCarryMessagesOverDgramEndpoints()
    {
        final Info info = info(Progress.MANUAL, EndpointType.DGRAM);
        assertEquals(0, info.caps() & Flags.RMA);
        try (InprocPair p = new InprocPair(info, 0, CqFormat.MSG, 16))
        {
            assertEquals(EndpointType.DGRAM, p.a.type());
            final UnsafeBuffer rx = direct(32);
            assertEquals(0, p.b.recv(rx, 0, 32, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, p.a.send(pattern(32, 3), 0, 32, p.addrBFromA, 2));
            assertEquals(1, InprocPair.one(p.cqB).context());
            assertPattern(rx, 0, 32, 3);
        }
    }
}
