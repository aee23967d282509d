package io.jfabric.provider.shm;

import io.jfabric.AddressFormat;
import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.SockAddr;
import io.jfabric.Version;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.jfabric.provider.shm.ShmTests.assertPattern;
import static io.jfabric.provider.shm.ShmTests.direct;
import static io.jfabric.provider.shm.ShmTests.one;
import static io.jfabric.provider.shm.ShmTests.pattern;
import static io.jfabric.provider.shm.ShmTests.post;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code FI_SOCKADDR_IN}/{@code IN6} over shm by {@link ShmSockAddr}'s mapping (fabtests' {@code msg_sockets},
 * {@code av_test} as written): getInfo with a socket format gives socket addresses, a domain is named
 * {@code in-<port>}, endpoints are named by loopback socket addresses, the AV takes them and data moves; infos
 * without a socket format are unchanged; addresses outside the mapping are refused.
 */
@Timeout(120)
class ShmSockAddrTest
{
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException
    {
        dir = ShmTests.useNewDirectory("jfabric-shm-sockaddr-");
    }

    @AfterAll
    static void cleanup() throws IOException
    {
        ShmTests.deleteTree(dir);
    }

    private static Info info(final AddressFormat format, final String node, final String service)
    {
        return Fabric.getInfo(Version.CURRENT, node, service, Flags.SOURCE,
            ShmTests.hints(Progress.MANUAL).toBuilder().addrFormat(format).build()).get(0);
    }

    @Test
    void shouldMoveDataBetweenDomainsNamedBySockaddrIn() throws Exception
    {
        exchange(AddressFormat.SOCKADDR_IN, "127.0.0.1", 24001, 24002);
    }

    @Test
    void shouldMoveDataBetweenDomainsNamedBySockaddrIn6() throws Exception
    {
        exchange(AddressFormat.SOCKADDR_IN6, "::1", 24011, 24012);
    }

    private static void exchange(final AddressFormat format, final String host, final int portA, final int portB)
        throws Exception
    {
        final Info infoA = info(format, host, Integer.toString(portA));
        final Info infoB = info(format, host, Integer.toString(portB));
        assertEquals(format, infoA.addrFormat());
        assertEquals(ShmProvider.NAME, infoA.fabricAttr().provName());
        final byte[] expectedA = SockAddr.encode(InetAddress.getByName(host), portA);
        final byte[] expectedB = SockAddr.encode(InetAddress.getByName(host), portB);
        assertArrayEquals(expectedA, infoA.srcAddr());
        try (Fabric fabric = Fabric.open(infoA))
        {
            final Domain a = fabric.domain(infoA, "yield");
            final Domain b = fabric.domain(infoB, "yield");
            final AddressVector avA = a.addressVector(AvType.TABLE, 4);
            final AddressVector avB = b.addressVector(AvType.TABLE, 4);
            final CompletionQueue cqA = a.completionQueue(64, CqFormat.TAGGED);
            final CompletionQueue cqB = b.completionQueue(64, CqFormat.TAGGED);
            final Endpoint epA = a.endpoint(infoA).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable();
            final Endpoint epB = b.endpoint(infoB).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV).enable();
            final Endpoint second = b.endpoint(infoB);
            try
            {
                assertTrue(Files.exists(dir.resolve("in-" + portA + ".ring")), "domain in-" + portA);
                assertArrayEquals(expectedA, epA.name(), "endpoint 0 of in-" + portA);
                assertArrayEquals(expectedB, epB.name());
                final byte[] secondName = second.name();
                assertEquals(SockAddr.family(expectedB), SockAddr.family(secondName));
                assertEquals(ShmAddress.parse(secondName), new ShmAddress("in-" + portB, 1));
                final long toB = avA.insert(epB.name());
                assertEquals(0, toB);
                assertEquals(0, avB.insert(epA.name()));
                assertArrayEquals(expectedB, avA.lookup(toB), "lookup gives the socket address");
                final UnsafeBuffer rx = direct(512);
                post(() -> epB.recv(rx, 0, 512, AddressVector.ADDR_UNSPEC, 2), a, b);
                post(() -> epA.send(pattern(512, 6), 0, 512, toB, 1), a, b);
                assertEquals(1, one(cqA, a, b).context());
                assertEquals(2, one(cqB, a, b).context());
                assertPattern(rx, 0, 512, 6);
            }
            finally
            {
                second.close();
                epA.close();
                epB.close();
                cqA.close();
                cqB.close();
                avA.close();
                avB.close();
                a.close();
                b.close();
            }
        }
    }

    @Test
    void shouldOfferSocketInfosOnlyWhenAskedAndNameADefaultDomainByAFreePort()
    {
        final List<Info> plain = Fabric.getInfo(ShmTests.hints(Progress.MANUAL));
        assertTrue(plain.stream().allMatch(i -> AddressFormat.STR == i.addrFormat()), "no socket info unasked");
        final Info any = Fabric.getInfo(ShmTests.hints(Progress.MANUAL).toBuilder()
            .addrFormat(AddressFormat.SOCKADDR_IN).build()).get(0);
        assertEquals(AddressFormat.SOCKADDR_IN, any.addrFormat());
        try (Fabric fabric = Fabric.open(any); Domain d = fabric.domain(any, "yield"))
        {
            final Endpoint e = d.endpoint(any);
            try
            {
                final ShmAddress name = ShmAddress.parse(e.name());
                assertEquals(SockAddr.AF_INET, SockAddr.family(e.name()));
                assertTrue(ShmSockAddr.portOf(name.name()) > 0, name.name());
                assertEquals(0, name.endpoint());
            }
            finally
            {
                e.close();
            }
        }
    }

    @Test
    void shouldRefuseSocketAddressesOutsideTheMapping() throws Exception
    {
        final Info remote = info(AddressFormat.SOCKADDR_IN, "10.1.2.3", "24021");
        try (Fabric fabric = Fabric.open(remote))
        {
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> fabric.domain(remote, "yield")).errno(), "not a loopback address");
        }
        assertNull(ShmAddress.parse(SockAddr.encode(InetAddress.getByName("10.1.2.3"), 24021)));
        assertNull(ShmAddress.parse(SockAddr.encode(InetAddress.getByName("127.0.0.0"), 24021)), "127.0.0.0");
        assertNull(ShmAddress.parse(SockAddr.encode(InetAddress.getByName("127.0.0.1"), 0)), "port 0");
        assertNull(ShmAddress.parse(SockAddr.encode(InetAddress.getByName("127.1.0.1"), 24021)), "127.1/16");
        assertEquals(new ShmAddress("in-24021", 257),
            ShmAddress.parse(SockAddr.encode(InetAddress.getByName("127.0.1.2"), 24021)));
        assertEquals(-1, ShmSockAddr.portOf("in-0"));
        assertEquals(-1, ShmSockAddr.portOf("in-024021"));
        assertEquals(-1, ShmSockAddr.portOf("in-65536"));
    }
}
