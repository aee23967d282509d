package io.jfabric.provider.aeron;

import io.jfabric.Configuration;
import io.jfabric.Domain;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.Protocol;
import io.jfabric.SockAddr;
import io.jfabric.Version;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The aeron provider's own rules: addresses, discovery attributes, the embedded driver's life cycle, a listen
 * address taken twice, and the settings it documents.
 */
class AeronProviderTest
{
    @Test
    void shouldParseAndPrintAddressesInEveryForm() throws Exception
    {
        final AeronAddress full = AeronAddress.parseText("fi_aeron://10.0.0.2:40123/77/5");
        assertEquals(new AeronAddress("10.0.0.2", 40123, 77, 5), full);
        assertEquals("fi_aeron://10.0.0.2:40123/77/5", full.text());
        assertEquals(new AeronAddress("h", 1, AeronConfiguration.DEFAULT_STREAM, 0),
            AeronAddress.parseText("fi_aeron://h:1"));
        assertEquals("fi_aeron://h:1/1001", AeronAddress.parseText("fi_aeron://h:1").text());
        final AeronAddress v6 = AeronAddress.parseText("fi_aeron://[::1]:9/3");
        assertEquals(new AeronAddress("::1", 9, 3, 0), v6);
        assertEquals("aeron:udp?endpoint=[::1]:9", v6.channel());
        assertNull(AeronAddress.parseText("fi_aeron://h"));
        assertNull(AeronAddress.parseText("fi_aeron://h:70000"));
        assertNull(AeronAddress.parseText("fi_aeron://h:1/x"));
        assertNull(AeronAddress.parseText("fi_aeron://h:1/2/65536"));
        assertNull(AeronAddress.parseText("fi_shm://a"));
        final byte[] sockaddr = SockAddr.encode(InetAddress.getByName("127.0.0.1"), 4321);
        assertEquals(new AeronAddress("127.0.0.1", 4321, AeronConfiguration.DEFAULT_STREAM, 0),
            AeronAddress.parse(sockaddr));
        assertEquals(full, AeronAddress.parse("fi_aeron://10.0.0.2:40123/77/5\0".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void shouldOfferRdmWithAutoProgressFirstAndResolveNodeAndService()
    {
        final Info hints = Info.builder().caps(Flags.TAGGED | Flags.RMA | Flags.ATOMIC)
            .fabricAttr(FabricAttr.builder().provName(AeronProvider.NAME).build()).build();
        final List<Info> infos = Fabric.getInfo(hints);
        assertFalse(infos.isEmpty());
        final Info first = infos.get(0);
        assertEquals(EndpointType.RDM, first.epAttr().type());
        assertEquals(Protocol.JFABRIC_AERON, first.epAttr().protocol());
        assertEquals(Progress.AUTO, first.domainAttr().dataProgress());
        assertEquals("fi_aeron://" + AeronConfiguration.host() + ":0/1001",
            new String(first.srcAddr(), StandardCharsets.US_ASCII));
        final Info sourced = Fabric.getInfo(Version.CURRENT, "127.0.0.1", "45123", Flags.SOURCE, hints).get(0);
        assertEquals("fi_aeron://127.0.0.1:45123/1001", new String(sourced.srcAddr(), StandardCharsets.US_ASCII));
        final Info manual = Fabric.getInfo(hints.toBuilder()
            .domainAttr(io.jfabric.DomainAttr.builder().dataProgress(Progress.MANUAL).build()).build()).get(0);
        assertEquals(Progress.MANUAL, manual.domainAttr().dataProgress());
    }

    @Test
    void shouldDeleteTheEmbeddedDriverDirectoryOnCloseAndRefuseASecondDomainOnOneAddress()
    {
        final Info hints = Info.builder().caps(Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName(AeronProvider.NAME).build()).build();
        final Info info = Fabric.getInfo(Version.CURRENT, "127.0.0.1", "0", Flags.SOURCE, hints).get(0);
        final String dir;
        try (Fabric fabric = Fabric.open(info))
        {
            try (Domain first = fabric.domain(info, "yield"))
            {
                final io.jfabric.Endpoint ep = first.endpoint(info);
                final byte[] name = ep.name();
                ep.close();
                final AeronAddress address = AeronAddress.parse(name);
                assertTrue(address.port() > 0, new String(name, StandardCharsets.US_ASCII));
                final Info taken = info.toBuilder().srcAddr(address.withEndpoint(0).textBytes()).build();
                final FabricException refused = assertThrows(FabricException.class,
                    () -> fabric.domain(taken, "yield"));
                assertEquals(Errno.EADDRINUSE, refused.errno());
                // Two domains with port 0 get two ports.
                try (Domain second = fabric.domain(info, "yield"))
                {
                    final io.jfabric.Endpoint otherEp = second.endpoint(info);
                    final AeronAddress other = AeronAddress.parse(otherEp.name());
                    otherEp.close();
                    assertTrue(other.port() > 0 && other.port() != address.port(), other.toString());
                }
            }
            final AeronFabricBackend backend = backendOf(fabric);
            assertTrue(backend.embedded());
            dir = backend.directory();
            assertTrue(Files.isDirectory(Paths.get(dir)), dir);
        }
        assertFalse(Files.exists(Paths.get(dir)), dir + " left behind");
    }

    @Test
    void shouldRefuseASourceAddressThatIsNotAeronsOrAHostThatDoesNotResolve()
    {
        final Info hints = Info.builder().caps(Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName(AeronProvider.NAME).build()).build();
        final Info info = Fabric.getInfo(hints).get(0);
        try (Fabric fabric = Fabric.open(info))
        {
            final Info bad = info.toBuilder().srcAddr("fi_shm://x".getBytes(StandardCharsets.US_ASCII)).build();
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> fabric.domain(bad)).errno());
            final Info unresolvable = info.toBuilder()
                .srcAddr("fi_aeron://no-such-host.invalid:0".getBytes(StandardCharsets.US_ASCII)).build();
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> fabric.domain(unresolvable)).errno());
        }
    }

    @Test
    void shouldDocumentTheDefaultsTheCodeUses()
    {
        final Map<String, String> defaults = Configuration.settings().stream()
            .collect(Collectors.toMap(Configuration.Setting::property, Configuration.Setting::defaultValue));
        assertEquals(AeronConfiguration.DEFAULT_HOST, defaults.get(AeronConfiguration.HOST_PROP));
        assertEquals(Long.toString(AeronConfiguration.DEFAULT_LIVENESS_TIMEOUT_MS),
            defaults.get(AeronConfiguration.LIVENESS_TIMEOUT_PROP));
        assertEquals(Integer.toString(AeronConfiguration.DEFAULT_TERM_LENGTH),
            defaults.get(AeronConfiguration.TERM_LENGTH_PROP));
        assertEquals(Long.toString(AeronConfiguration.DEFAULT_CONNECT_WAIT_MS),
            defaults.get(AeronConfiguration.CONNECT_WAIT_PROP));
        assertTrue(defaults.containsKey(AeronConfiguration.DIR_PROP));
        System.setProperty(AeronConfiguration.TERM_LENGTH_PROP, "1000");
        try
        {
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, AeronConfiguration::termLength).errno());
        }
        finally
        {
            System.clearProperty(AeronConfiguration.TERM_LENGTH_PROP);
        }
    }

    private static AeronFabricBackend backendOf(final Fabric fabric)
    {
        try
        {
            final java.lang.reflect.Method method = Fabric.class.getDeclaredMethod("backend");
            method.setAccessible(true);
            return (AeronFabricBackend) method.invoke(fabric);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
