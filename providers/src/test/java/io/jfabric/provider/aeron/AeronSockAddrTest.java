package io.jfabric.provider.aeron;

import io.aeron.driver.MediaDriver;
import io.jfabric.AddressFormat;
import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.SockAddr;
import io.jfabric.Version;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * aeron in the socket address formats: getInfo with a node, a service and {@code FI_SOURCE} in
 * {@code FI_SOCKADDR_IN} and {@code FI_SOCKADDR_IN6} gives the socket address the domain then listens on, endpoint
 * names are those socket addresses, and address vectors insert them: a tagged message between two domains of each
 * family, data verified.
 */
class AeronSockAddrTest
{
    private static MediaDriver driver;

    @BeforeAll
    static void startDriver()
    {
        driver = AeronTests.startSharedDriver();
    }

    @AfterAll
    static void stopDriver()
    {
        AeronTests.stopSharedDriver(driver);
    }

    @Test
    void shouldListenOnTheSockaddrInThatGetInfoResolvedAndExchangeMessagesByThoseNames() throws Exception
    {
        exchange(AddressFormat.SOCKADDR_IN, "127.0.0.1", SockAddr.AF_INET, SockAddr.SOCKADDR_IN_LENGTH);
    }

    @Test
    void shouldListenOnTheSockaddrIn6ThatGetInfoResolvedAndExchangeMessagesByThoseNames() throws Exception
    {
        exchange(AddressFormat.SOCKADDR_IN6, "::1", SockAddr.AF_INET6, SockAddr.SOCKADDR_IN6_LENGTH);
    }

    private static void exchange(final AddressFormat format, final String host, final int family, final int length)
        throws Exception
    {
        final Info hints = Info.builder().caps(Flags.TAGGED).addrFormat(format)
            .fabricAttr(FabricAttr.builder().provName(AeronProvider.NAME).build()).build();
        final int portA = freePort(host);
        final int portB = freePort(host);
        final Info infoA = Fabric.getInfo(Version.CURRENT, host, Integer.toString(portA), Flags.SOURCE, hints).get(0);
        final Info infoB = Fabric.getInfo(Version.CURRENT, host, Integer.toString(portB), Flags.SOURCE, hints).get(0);
        assertEquals(format, infoA.addrFormat());
        assertEquals(length, infoA.srcAddr().length);
        assertEquals(new InetSocketAddress(InetAddress.getByName(host), portA), SockAddr.decode(infoA.srcAddr()));
        try (Fabric fabric = Fabric.open(infoA);
            Domain a = fabric.domain(infoA, "yield");
            Domain b = fabric.domain(infoB, "yield");
            AddressVector avA = a.addressVector(AvType.TABLE, 4);
            AddressVector avB = b.addressVector(AvType.TABLE, 4);
            CompletionQueue cqA = a.completionQueue(64, CqFormat.TAGGED);
            CompletionQueue cqB = b.completionQueue(64, CqFormat.TAGGED);
            Endpoint epA = a.endpoint(infoA).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable();
            Endpoint epB = b.endpoint(infoB).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV).enable())
        {
            final byte[] nameA = epA.name();
            assertEquals(length, nameA.length, "endpoint 0 is named by its socket address");
            assertEquals(family, SockAddr.family(nameA));
            assertEquals(new InetSocketAddress(InetAddress.getByName(host), portA), SockAddr.decode(nameA));
            final long toB = avA.insert(epB.name());
            final long toA = avB.insert(nameA);
            final UnsafeBuffer out = AeronNode.direct(5000);
            AeronNode.fill(out, 5000, 3);
            final UnsafeBuffer in = AeronNode.direct(5000);
            assertEquals(0, epB.trecv(in, 0, 5000, toA, 9, 0, 1));
            assertEquals(0, epA.tsend(out, 0, 5000, toB, 9, 2));
            assertEquals(2, await(cqA).context());
            final CompletionEntry got = await(cqB);
            assertEquals(1, got.context());
            assertEquals(5000, got.len());
            for (int i = 0; i < 5000; i++)
            {
                assertEquals(out.getByte(i), in.getByte(i), "byte " + i);
            }
        }
    }

    private static CompletionEntry await(final CompletionQueue cq)
    {
        final CompletionEntry entry = new CompletionEntry();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int n;
        while (1 != (n = cq.read(entry)))
        {
            assertEquals(Errno.EAGAIN.negated(), n, "cq.read");
            assertTrue(System.nanoTime() - deadline < 0, "no completion");
            Thread.yield();
        }
        return entry;
    }

    private static int freePort(final String host) throws Exception
    {
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(host), 0)))
        {
            return socket.getLocalPort();
        }
    }
}
