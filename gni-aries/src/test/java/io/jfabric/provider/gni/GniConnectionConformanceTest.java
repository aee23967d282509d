package io.jfabric.provider.gni;

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
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.PassiveEndpoint;
import io.jfabric.Progress;
import io.jfabric.conformance.ConnectionConformance;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static io.jfabric.conformance.Pair.DEADLINE_NS;
import static io.jfabric.conformance.Pair.direct;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link ConnectionConformance} over the {@code gni} provider: every case runs. Overridden by their gni forms: the
 * two cases that expect the peer of an {@code fi_shutdown} to get {@code FI_SHUTDOWN}
 * ({@link GniDifferences#LOCAL_SHUTDOWN}: the peer hears nothing and stays connected), which then shut the peer down
 * itself and check the rest of the case (its own event once, posts refused, events of manual domains through EQ
 * reads alone).
 */
class GniConnectionConformanceTest extends ConnectionConformance
{
    private static final byte[] HELLO = "hello from the client".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WELCOME = "welcome from the server".getBytes(StandardCharsets.US_ASCII);

    GniConnectionConformanceTest()
    {
        super(GniConformance.WITH_ATOMICS);
    }

    /**
     * {@link GniDifferences#LOCAL_SHUTDOWN}: the client's {@code fi_shutdown} gives it its {@code FI_SHUTDOWN} and
     * tells the server nothing (no event, still connected, where the suite expects the server's {@code FI_SHUTDOWN}).
     * Then the case's intent within the rule: the server's own shutdown gives it its event, once; a second shutdown
     * on either side is no error and brings no event; both refuse posts with {@code ENOTCONN}.
     */
    @Override
    @Test
    @DisplayName("gni LOCAL_SHUTDOWN: the peer hears nothing; each side's own shutdown gives its event once")
    protected void shouldShutDownBothSidesOnceAndRefusePostsAfterwards()
    {
        try (Connected c = new Connected(msgInfo(Progress.AUTO)))
        {
            c.connect(HELLO);
            final Domain[] d = c.domains();
            c.client.shutdown(0);
            final EqEntry clientDown = event(c.clientEq, d);
            assertEquals(EventQueue.SHUTDOWN, clientDown.event());
            assertSame(c.client, clientDown.fid());
            assertNoEvent(c.serverEq, d);
            assertTrue(c.server.connected(), "the peer of a local-only shutdown stays connected");

            c.server.shutdown(0);
            final EqEntry serverDown = event(c.serverEq, d);
            assertEquals(EventQueue.SHUTDOWN, serverDown.event());
            assertSame(c.server, serverDown.fid());
            assertNoEvent(c.clientEq, d);
            // A second shutdown on either side is not an error and brings no event.
            c.client.shutdown(0);
            c.server.shutdown(0);
            assertNoEvent(c.clientEq, d);
            assertNoEvent(c.serverEq, d);
            assertFalse(c.client.connected());
            assertFalse(c.server.connected());
            assertEquals(Errno.ENOTCONN.negated(), c.client.send(direct(8), 0, 8, 0, 1));
            assertEquals(Errno.ENOTCONN.negated(), c.server.send(direct(8), 0, 8, 0, 2));
        }
    }

    /**
     * {@link GniDifferences#LOCAL_SHUTDOWN}: MANUAL domains, every event through EQ reads alone (no
     * {@code Domain.progress}): CONNREQ, both CONNECTED with the accept's data, the client's {@code FI_SHUTDOWN}.
     * gni's answer: while the client keeps reading its EQ, the server's EQ stays empty (the suite expects its
     * {@code FI_SHUTDOWN} there). Then the server's own shutdown reaches it through its EQ read.
     */
    @Override
    @Test
    @DisplayName("gni LOCAL_SHUTDOWN: manual domains move CM events through EQ reads; the server's EQ stays empty")
    protected void shouldMoveConnectionEventsOfManualDomainsThroughEqReadsAlone()
    {
        try (Connected c = new Connected(msgInfo(Progress.MANUAL)))
        {
            c.client.connect(c.pep.name(), HELLO);
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
            assertEquals(EventQueue.SHUTDOWN, read(c.clientEq).event());
            for (int i = 0; i < 200; i++)
            {
                assertEquals(Errno.EAGAIN.negated(), c.clientEq.read(new EqEntry(), 0));
                assertEquals(Errno.EAGAIN.negated(), c.serverEq.read(new EqEntry(), 0), "the server is not told");
                Thread.yield();
            }
            assertTrue(c.server.connected());

            c.server.shutdown(0);
            final EqEntry serverDown = read(c.serverEq);
            assertEquals(EventQueue.SHUTDOWN, serverDown.event());
            assertSame(c.server, serverDown.fid());
            assertEquals(Errno.EAGAIN.negated(), c.clientEq.read(new EqEntry(), 0));
        }
    }

    private Info msgInfo(final Progress progress)
    {
        final Info info = info(Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC)
            .epAttr(EpAttr.builder().type(EndpointType.MSG).build())
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .build());
        assertEquals(EndpointType.MSG, info.epAttr().type());
        return info;
    }

    /**
     * The next event of {@code eq} through EQ reads alone.
     */
    private static EqEntry read(final EventQueue eq)
    {
        final EqEntry entry = new EqEntry();
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (1 != eq.read(entry, 0))
        {
            assertTrue(System.nanoTime() - deadline < 0, "no event before the deadline");
            Thread.yield();
        }
        return entry;
    }

    /**
     * The next event of {@code eq}, driving the domains' progress.
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

    /**
     * A passive endpoint and a client in two domains of one fabric; the accepting endpoint once connected.
     */
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

        /** Connect and accept, both CONNECTED seen. */
        void connect(final byte[] param)
        {
            client.connect(pep.name(), param);
            final EqEntry connreq = event(serverEq, domains());
            assertEquals(EventQueue.CONNREQ, connreq.event());
            server = serverDomain.endpoint(connreq.info()).bind(serverEq, 0)
                .bind(serverCq, Flags.TRANSMIT | Flags.RECV).enable();
            server.accept(null);
            assertEquals(EventQueue.CONNECTED, event(serverEq, domains()).event());
            assertEquals(EventQueue.CONNECTED, event(clientEq, domains()).event());
            assertTrue(client.connected());
            assertTrue(server.connected());
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
}
