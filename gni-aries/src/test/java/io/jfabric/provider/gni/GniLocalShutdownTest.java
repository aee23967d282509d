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
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.PassiveEndpoint;
import io.jfabric.Progress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.jfabric.conformance.Pair.direct;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code fi_shutdown} over gni MSG endpoints is local only (fi_gni(7), KNOWN BUGS; GNI.md §2.2): the endpoint that
 * shuts down gets its {@code FI_SHUTDOWN} and refuses posts with {@code ENOTCONN}; the connected peer is not told
 * (no event, still connected) until it shuts down itself.
 */
@Timeout(60)
class GniLocalShutdownTest
{
    private static final long DEADLINE_NS = 20_000_000_000L;

    @Test
    void shouldShutDownOnlyTheLocalEndpointAndNotNotifyThePeer()
    {
        final Info info = Fabric.getInfo(Info.builder().caps(Flags.MSG)
            .fabricAttr(FabricAttr.builder().provName(GniProvider.NAME).build())
            .epAttr(EpAttr.builder().type(EndpointType.MSG).build())
            .domainAttr(DomainAttr.builder().dataProgress(Progress.AUTO).build())
            .build()).get(0);
        try (Fabric fabric = Fabric.open(info);
            Domain clientDomain = fabric.domain(info, "yield");
            Domain serverDomain = fabric.domain(info, "yield");
            EventQueue clientEq = fabric.eventQueue(16);
            EventQueue serverEq = fabric.eventQueue(16);
            CompletionQueue clientCq = clientDomain.completionQueue(16, CqFormat.TAGGED);
            CompletionQueue serverCq = serverDomain.completionQueue(16, CqFormat.TAGGED);
            PassiveEndpoint pep = fabric.passiveEndpoint(info).bind(serverEq, 0).listen();
            Endpoint client = clientDomain.endpoint(info).bind(clientEq, 0)
                .bind(clientCq, Flags.TRANSMIT | Flags.RECV).enable())
        {
            final Domain[] domains = {clientDomain, serverDomain};
            client.connect(pep.name(), null);
            final EqEntry connreq = event(serverEq, domains);
            assertEquals(EventQueue.CONNREQ, connreq.event());
            try (Endpoint server = serverDomain.endpoint(connreq.info()).bind(serverEq, 0)
                .bind(serverCq, Flags.TRANSMIT | Flags.RECV).enable())
            {
                server.accept(null);
                assertEquals(EventQueue.CONNECTED, event(serverEq, domains).event());
                assertEquals(EventQueue.CONNECTED, event(clientEq, domains).event());

                client.shutdown(0);
                final EqEntry down = event(clientEq, domains);
                assertEquals(EventQueue.SHUTDOWN, down.event());
                assertSame(client, down.fid());
                assertFalse(client.connected());
                assertEquals(Errno.ENOTCONN.negated(), client.send(direct(8), 0, 8, 0, 1));

                // The peer hears nothing: no event, still connected.
                assertNoEvent(serverEq, domains);
                assertTrue(server.connected());

                // Its own shutdown is local too: its event, none at the client.
                server.shutdown(0);
                final EqEntry serverDown = event(serverEq, domains);
                assertEquals(EventQueue.SHUTDOWN, serverDown.event());
                assertSame(server, serverDown.fid());
                assertFalse(server.connected());
                assertNoEvent(clientEq, domains);
            }
        }
    }

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
}
