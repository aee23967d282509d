package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
import io.jfabric.EqEntry;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.PassiveEndpoint;
import io.jfabric.Progress;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Connection management of {@code FI_EP_MSG} endpoints ({@code fi_cm(3)}, fabtests' {@code cm_data}) and every op
 * family over a connected pair: a passive endpoint in one domain, a client in another, the accepting endpoint in a
 * third. Over a frame transport the requests, accepts, rejects and shutdowns are frames of the runtime's protocol;
 * over inproc they are calls inside the JVM.
 * <p>
 * Threading: test thread only.
 */
@Timeout(60)
public abstract class ConnectionConformance extends Conformance
{
    private static final long DEADLINE_NS = Pair.DEADLINE_NS;
    private static final byte[] HELLO = "hello from the client".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WELCOME = "welcome from the server".getBytes(StandardCharsets.US_ASCII);

    protected ConnectionConformance(final PairFactory factory)
    {
        super(factory);
    }

    private Info msgInfo(final Progress progress)
    {
        final Info info = info(Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC)
            .epAttr(EpAttr.builder().type(EndpointType.MSG).build())
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .build());
        assertEquals(EndpointType.MSG, info.epAttr().type(), "getInfo offers FI_EP_MSG");
        return info;
    }

    /**
     * The next event of {@code eq} (error events too: {@code err() != 0}), driving the domains' progress.
     */
    private static EqEntry event(final EventQueue eq, final Domain... domains)
    {
        final EqEntry entry = new EqEntry();
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int n = eq.read(entry, 0);
            if (1 == n)
            {
                return entry;
            }
            if (Errno.EAVAIL.negated() == n)
            {
                assertEquals(1, eq.readErr(entry));
                return entry;
            }
            assertEquals(Errno.EAGAIN.negated(), n);
            if (System.nanoTime() - deadline > 0)
            {
                fail("no event before the deadline");
            }
            for (final Domain d : domains)
            {
                d.progress();
            }
            Thread.yield();
        }
    }

    private static void assertNoEvent(final EventQueue eq, final Domain... domains)
    {
        for (int i = 0; i < 200; i++)
        {
            for (final Domain d : domains)
            {
                d.progress();
            }
            Thread.yield();
        }
        assertEquals(Errno.EAGAIN.negated(), eq.read(new EqEntry(), 0));
    }

    private static final class Connected implements AutoCloseable
    {
        final Fabric fabric;
        final Domain clientDomain;
        final Domain serverDomain;
        final EventQueue clientEq;
        final EventQueue serverEq;
        final CompletionQueue clientCq;
        final CompletionQueue serverCq;
        final PassiveEndpoint pep;
        final Endpoint client;
        Endpoint server;

        Connected(final Info info)
        {
            fabric = Fabric.open(info);
            clientDomain = fabric.domain(info, "yield");
            serverDomain = fabric.domain(info, "yield");
            clientEq = fabric.eventQueue(16);
            serverEq = fabric.eventQueue(16);
            clientCq = clientDomain.completionQueue(64, CqFormat.TAGGED);
            serverCq = serverDomain.completionQueue(64, CqFormat.TAGGED);
            pep = fabric.passiveEndpoint(info).bind(serverEq, 0).listen();
            client = clientDomain.endpoint(info).bind(clientEq, 0).bind(clientCq, Flags.TRANSMIT | Flags.RECV)
                .enable();
        }

        Domain[] domains()
        {
            return new Domain[]{clientDomain, serverDomain};
        }

        EqEntry connect(final byte[] param)
        {
            client.connect(pep.name(), param);
            final EqEntry connreq = event(serverEq, domains());
            assertEquals(EventQueue.CONNREQ, connreq.event());
            assertEquals(0, connreq.err());
            assertSame(pep, connreq.fid());
            assertNotNull(connreq.info());
            assertEquals(EndpointType.MSG, connreq.info().epAttr().type());
            assertArrayEquals(client.name(), connreq.info().destAddr(), "the request names the client");
            return connreq;
        }

        EqEntry accept(final EqEntry connreq, final byte[] param)
        {
            server = serverDomain.endpoint(connreq.info()).bind(serverEq, 0)
                .bind(serverCq, Flags.TRANSMIT | Flags.RECV).enable();
            server.accept(param);
            final EqEntry serverConnected = event(serverEq, domains());
            assertEquals(EventQueue.CONNECTED, serverConnected.event());
            assertSame(server, serverConnected.fid());
            final EqEntry clientConnected = event(clientEq, domains());
            assertEquals(EventQueue.CONNECTED, clientConnected.event());
            assertEquals(0, clientConnected.err());
            assertSame(client, clientConnected.fid());
            assertTrue(client.connected());
            assertTrue(server.connected());
            return clientConnected;
        }

        @Override
        public void close()
        {
            if (null != server)
            {
                server.close();
            }
            client.close();
            pep.close();
            clientCq.close();
            serverCq.close();
            clientEq.close();
            serverEq.close();
            clientDomain.close();
            serverDomain.close();
            fabric.close();
        }
    }

    private static long complete(final CompletionQueue cq, final Domain... domains)
    {
        final io.jfabric.CompletionEntry e = new io.jfabric.CompletionEntry();
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int n = cq.read(e);
            if (1 == n)
            {
                return e.context();
            }
            assertEquals(Errno.EAGAIN.negated(), n, "cq.read: " + Errno.strerror(n));
            assertTrue(System.nanoTime() - deadline < 0, "no completion before the deadline");
            for (final Domain d : domains)
            {
                d.progress();
            }
            Thread.yield();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldCarryCmDataBothWaysAndEveryOpFamilyOverTheConnection(final Progress progress)
    {
        try (Connected c = new Connected(msgInfo(progress)))
        {
            final EqEntry connreq = c.connect(HELLO);
            assertArrayEquals(HELLO, connreq.param(), "the CONNREQ carries the client's data");
            final EqEntry connected = c.accept(connreq, WELCOME);
            assertArrayEquals(WELCOME, connected.param(), "the client's CONNECTED carries the accept's data");
            final Domain[] d = c.domains();

            // msg both ways, eager and rendezvous sizes
            for (final int length : new int[]{0, 1, 64, 100_000})
            {
                final UnsafeBuffer rx = direct(Math.max(1, length));
                assertEquals(0, c.server.recv(rx, 0, length, AddressVector.ADDR_UNSPEC, 1));
                assertEquals(0, c.client.send(pattern(Math.max(1, length), 7), 0, length, 0, 2));
                assertEquals(1, complete(c.serverCq, d));
                assertEquals(2, complete(c.clientCq, d));
                assertPattern(rx, 0, length, 7);
                final UnsafeBuffer back = direct(Math.max(1, length));
                assertEquals(0, c.client.recv(back, 0, length, AddressVector.ADDR_UNSPEC, 3));
                assertEquals(0, c.server.send(rx, 0, length, 0, 4));
                assertEquals(3, complete(c.clientCq, d));
                assertEquals(4, complete(c.serverCq, d));
                assertPattern(back, 0, length, 7);
            }

            // tagged
            final UnsafeBuffer trx = direct(32);
            assertEquals(0, c.server.trecv(trx, 0, 32, AddressVector.ADDR_UNSPEC, 0x55, 0, 5));
            assertEquals(0, c.client.tsend(pattern(32, 9), 0, 32, 0, 0x55, 6));
            assertEquals(5, complete(c.serverCq, d));
            assertEquals(6, complete(c.clientCq, d));
            assertPattern(trx, 0, 32, 9);

            // RMA and atomics on the connected peer
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion mr = c.serverDomain.registerMemory(target, 0, 4096,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 77))
            {
                assertEquals(0, c.client.write(pattern(512, 3), 0, 512, 0, 0, mr.key(), 7));
                assertEquals(7, complete(c.clientCq, d));
                assertPattern(target, 0, 512, 3);
                final UnsafeBuffer read = direct(512);
                assertEquals(0, c.client.read(read, 0, 512, 0, 0, mr.key(), 8));
                assertEquals(8, complete(c.clientCq, d));
                assertPattern(read, 0, 512, 3);
                target.putLong(1024, 40);
                final UnsafeBuffer operand = direct(8);
                operand.putLong(0, 2);
                final UnsafeBuffer old = direct(8);
                assertEquals(0, c.client.fetchAtomic(operand, 0, 1, old, 0, 0, 1024, mr.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 9));
                assertEquals(9, complete(c.clientCq, d));
                assertEquals(40, old.getLong(0));
                assertEquals(42, target.getLong(1024));
            }
        }
    }

    @Test
    protected void shouldMoveConnectionEventsOfManualDomainsThroughEqReadsAlone()
    {
        try (Connected c = new Connected(msgInfo(Progress.MANUAL)))
        {
            c.client.connect(c.pep.name(), HELLO);
            // What a client does next (wait on its EQ) sends the request: an EQ read progresses its domain.
            assertEquals(Errno.EAGAIN.negated(), c.clientEq.read(new EqEntry(), 0));
            final EqEntry connreq = new EqEntry();
            assertEquals(1, c.serverEq.sread(connreq, 20_000, 0), "the CONNREQ without progressing any domain");
            assertArrayEquals(HELLO, connreq.param());
            c.server = c.serverDomain.endpoint(connreq.info()).bind(c.serverEq, 0)
                .bind(c.serverCq, Flags.TRANSMIT | Flags.RECV).enable();
            c.server.accept(WELCOME);
            final EqEntry serverConnected = new EqEntry();
            assertEquals(1, c.serverEq.sread(serverConnected, 20_000, 0));
            assertEquals(EventQueue.CONNECTED, serverConnected.event());
            final EqEntry clientConnected = new EqEntry();
            assertEquals(1, c.clientEq.sread(clientConnected, 20_000, 0), "CONNECTED through sread alone");
            assertEquals(EventQueue.CONNECTED, clientConnected.event());
            assertArrayEquals(WELCOME, clientConnected.param());
            c.client.shutdown(0);
            final EqEntry down = new EqEntry();
            final long deadline = System.nanoTime() + DEADLINE_NS;
            int n;
            do
            {
                n = c.clientEq.read(down, 0);
                assertTrue(System.nanoTime() - deadline < 0, "no SHUTDOWN");
            }
            while (1 != n);
            assertEquals(EventQueue.SHUTDOWN, down.event());
            // The client keeps reading its EQ (which moves its SHUTDOWN frame out) while the server reads its own.
            final EqEntry serverDown = new EqEntry();
            do
            {
                assertEquals(Errno.EAGAIN.negated(), c.clientEq.read(new EqEntry(), 0));
                n = c.serverEq.read(serverDown, 0);
                assertTrue(System.nanoTime() - deadline < 0, "no SHUTDOWN at the peer");
            }
            while (1 != n);
            assertEquals(EventQueue.SHUTDOWN, serverDown.event());
        }
    }

    @Test
    void shouldReportARejectWithItsDataAsEconnrefused()
    {
        try (Connected c = new Connected(msgInfo(Progress.AUTO)))
        {
            final EqEntry connreq = c.connect(null);
            assertNull(connreq.param(), "no data: none delivered");
            final byte[] busy = "busy, try later".getBytes(StandardCharsets.US_ASCII);
            c.pep.reject(connreq.info(), busy);
            final EqEntry refused = event(c.clientEq, c.domains());
            assertEquals(Errno.ECONNREFUSED.value(), refused.err());
            assertSame(c.client, refused.fid());
            assertArrayEquals(busy, refused.param(), "the reject's data reaches the client");
            assertFalse(c.client.connected());
            assertEquals(Errno.ENOTCONN.negated(), c.client.send(direct(8), 0, 8, 0, 1));
            assertEquals(Errno.EINVAL, org.junit.jupiter.api.Assertions.assertThrows(FabricException.class,
                () -> c.pep.reject(connreq.info(), null)).errno(), "a request is answered once");
        }
    }

    @Test
    protected void shouldShutDownBothSidesOnceAndRefusePostsAfterwards()
    {
        try (Connected c = new Connected(msgInfo(Progress.AUTO)))
        {
            c.accept(c.connect(HELLO), null);
            c.client.shutdown(0);
            final EqEntry clientDown = event(c.clientEq, c.domains());
            assertEquals(EventQueue.SHUTDOWN, clientDown.event());
            assertSame(c.client, clientDown.fid());
            final EqEntry serverDown = event(c.serverEq, c.domains());
            assertEquals(EventQueue.SHUTDOWN, serverDown.event());
            assertSame(c.server, serverDown.fid());
            // A second shutdown on either side is not an error and brings no event.
            c.client.shutdown(0);
            c.server.shutdown(0);
            assertNoEvent(c.clientEq, c.domains());
            assertNoEvent(c.serverEq, c.domains());
            assertFalse(c.client.connected());
            assertFalse(c.server.connected());
            assertEquals(Errno.ENOTCONN.negated(), c.client.send(direct(8), 0, 8, 0, 1));
            assertEquals(Errno.ENOTCONN.negated(), c.server.send(direct(8), 0, 8, 0, 2));
        }
    }

    @Test
    void shouldGiveTheClientShutdownWhenTheServerEndpointCloses()
    {
        try (Connected c = new Connected(msgInfo(Progress.AUTO)))
        {
            c.accept(c.connect(null), null);
            c.server.close();
            c.server = null;
            final EqEntry down = event(c.clientEq, c.domains());
            assertEquals(EventQueue.SHUTDOWN, down.event());
            assertSame(c.client, down.fid());
            assertFalse(c.client.connected());
        }
    }

    @Test
    void shouldRefuseAConnectToAClosedPassiveEndpoint()
    {
        final Info info = msgInfo(Progress.AUTO);
        try (Connected c = new Connected(info))
        {
            final PassiveEndpoint gone = c.fabric.passiveEndpoint(info).bind(c.serverEq, 0).listen();
            final byte[] name = gone.name();
            gone.close();
            try
            {
                c.client.connect(name, HELLO);
            }
            catch (final FabricException ex)
            {
                // Refused at once (the transport knows nobody is there): as good as the error event.
                assertEquals(Errno.ECONNREFUSED, ex.errno());
                return;
            }
            final EqEntry refused = event(c.clientEq, c.domains());
            assertEquals(Errno.ECONNREFUSED.value(), refused.err());
            assertSame(c.client, refused.fid());
            assertFalse(c.client.connected());
        }
    }
}
