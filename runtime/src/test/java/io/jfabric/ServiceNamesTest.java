package io.jfabric;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Service names in getInfo: a port number, or a name (or alias) of the services database in {@code /etc/services}
 * format; without the file only numbers work and a name is ENODATA saying so. FI_NUMERICHOST forbids a lookup of
 * the node only, never of the service (as getaddrinfo's AI_NUMERICHOST). The database here is a file of the test's
 * own, so that nothing depends on the machine's.
 */
class ServiceNamesTest
{
    private static final String SERVICES = String.join("\n",
        "# test services database",
        "jfabric-test   7471/tcp   jft jfabric-alias   # the jfabric test service",
        "dup            100/udp",
        "dup            200/tcp",
        "broken         notaport/tcp",
        "broken         300/tcp",
        "toolarge       70000/tcp",
        "   indented    400/sctp",
        "");

    @TempDir
    Path dir;

    private final AtomicInteger lookups = new AtomicInteger();

    private ServiceNames names() throws IOException
    {
        final Path file = dir.resolve("services");
        Files.writeString(file, SERVICES, StandardCharsets.ISO_8859_1);
        return new ServiceNames(file);
    }

    private Discovery discovery(final ServiceNames names)
    {
        return new Discovery(List.of(TestProviders.alpha()), host ->
        {
            lookups.incrementAndGet();
            if ("alpha-host.test".equals(host))
            {
                return new InetAddress[] { InetAddress.getByAddress(host, new byte[] { 10, 1, 2, 3 }) };
            }
            throw new java.net.UnknownHostException(host);
        }, names);
    }

    private static Info rdm()
    {
        return Info.alloc().toBuilder().epAttr(EpAttr.builder().type(EndpointType.RDM).build()).build();
    }

    private static int destPort(final List<Info> infos)
    {
        return SockAddr.decode(infos.get(0).destAddr()).getPort();
    }

    @Test
    void shouldResolveNamesAndAliasesOfTheServicesFile() throws IOException
    {
        final ServiceNames names = names();

        assertEquals(7471, names.port("jfabric-test"));
        assertEquals(7471, names.port("jft"));
        assertEquals(7471, names.port("jfabric-alias"));
        assertEquals(400, names.port("indented"));
    }

    @Test
    void shouldTakeTheFirstEntryOfAnyProtocolAndSkipMalformedOnes() throws IOException
    {
        final ServiceNames names = names();

        assertEquals(100, names.port("dup"));
        assertEquals(300, names.port("broken"));
    }

    @Test
    void shouldTakeNumbersAsPortsWithoutReadingTheFile()
    {
        final ServiceNames absent = new ServiceNames(dir.resolve("no-such-file"));

        assertEquals(0, absent.port(null));
        assertEquals(0, absent.port(""));
        assertEquals(7471, absent.port("7471"));
        assertEquals(65535, absent.port("65535"));
    }

    @Test
    void shouldRefuseUnknownNamesOutOfRangeNumbersAndCaseMismatches() throws IOException
    {
        final ServiceNames names = names();

        final FabricException unknown = assertThrows(FabricException.class, () -> names.port("nosuch"));
        assertEquals(Errno.ENODATA, unknown.errno());
        assertTrue(unknown.getMessage().contains("'nosuch' is neither a port number nor a service name"),
            unknown.getMessage());
        assertEquals(Errno.ENODATA, assertThrows(FabricException.class, () -> names.port("65536")).errno());
        assertEquals(Errno.ENODATA, assertThrows(FabricException.class, () -> names.port("99999999999")).errno());
        assertEquals(Errno.ENODATA, assertThrows(FabricException.class, () -> names.port("toolarge")).errno());
        // getservbyname compares names exactly
        assertEquals(Errno.ENODATA, assertThrows(FabricException.class, () -> names.port("JFABRIC-TEST")).errno());
        assertEquals(Errno.ENODATA, assertThrows(FabricException.class, () -> names.port("-1")).errno());
    }

    @Test
    void shouldSayOnlyNumericServicesWorkWhenTheFileIsAbsent()
    {
        final ServiceNames absent = new ServiceNames(dir.resolve("no-such-file"));

        final FabricException ex = assertThrows(FabricException.class, () -> absent.port("jfabric-test"));

        assertEquals(Errno.ENODATA, ex.errno());
        assertTrue(ex.getMessage().contains("'jfabric-test'") && ex.getMessage().contains("is absent") &&
            ex.getMessage().contains("only numeric services work"), ex.getMessage());
    }

    @Test
    void shouldResolveAServiceNameIntoTheDestinationPort() throws IOException
    {
        final List<Info> infos = discovery(names()).getInfo(Version.CURRENT, "alpha-host.test", "jft", 0, rdm());

        assertEquals(7471, destPort(infos));
        assertEquals("10.1.2.3", SockAddr.decode(infos.get(0).destAddr()).getAddress().getHostAddress());
    }

    @Test
    void shouldResolveAServiceNameIntoTheSourcePortWithFiSource() throws IOException
    {
        final Info info = discovery(names()).getInfo(Version.CURRENT, null, "jfabric-test", Flags.SOURCE, rdm())
            .get(0);

        assertEquals(7471, SockAddr.decode(info.srcAddr()).getPort());
    }

    @Test
    void shouldResolveAServiceNameInsideAnAddressString() throws IOException
    {
        final List<Info> infos = discovery(names()).getInfo(Version.CURRENT, "fi_sockaddr_in://127.0.0.1:dup", null,
            0, rdm());

        assertEquals(100, destPort(infos));
    }

    @Test
    void shouldLookUpTheServiceButNeverTheNodeWithNumericHost() throws IOException
    {
        final Discovery d = discovery(names());

        final List<Info> numeric = d.getInfo(Version.CURRENT, "192.168.1.9", "jft", Flags.NUMERICHOST, rdm());
        final FabricException named = assertThrows(FabricException.class,
            () -> d.getInfo(Version.CURRENT, "alpha-host.test", "jft", Flags.NUMERICHOST, rdm()));

        assertEquals(7471, destPort(numeric));
        assertEquals(Errno.ENODATA, named.errno());
        assertEquals(0, lookups.get());
    }

    @Test
    void shouldAnswerEnodataWithTheReasonWhenAServiceNameCannotBeResolved()
    {
        final Discovery d = discovery(new ServiceNames(dir.resolve("no-such-file")));

        final FabricException ex = assertThrows(FabricException.class,
            () -> d.getInfo(Version.CURRENT, "127.0.0.1", "jft", 0, rdm()));

        assertEquals(Errno.ENODATA, ex.errno());
        assertTrue(ex.getMessage().contains("only numeric services work"), ex.getMessage());
        assertEquals(7471, destPort(d.getInfo(Version.CURRENT, "127.0.0.1", "7471", 0, rdm())));
    }
}
