package io.jfabric;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Address formats and families across the hints and the providers, as fi_getinfo does it: a {@code FI_SOCKADDR}
 * provider serves IPv4 and IPv6, a {@code FI_SOCKADDR_IN} one refuses IPv6 (in the hint's format, in its
 * addresses and in the node), a {@code FI_SOCKADDR_IN6} one serves both formats, other formats only themselves.
 * Providers: "sock" ({@code FI_SOCKADDR}), "in" ({@code FI_SOCKADDR_IN}), "six" ({@code FI_SOCKADDR_IN6}), all
 * alpha's RDM info.
 */
class GetInfoAddressFamilyTest
{
    private static final byte[] V4 = SockAddr.encode(address(new byte[] { 10, 0, 0, 1 }), 7);
    private static final byte[] V6 = SockAddr.encode(address(new byte[] { 0x20, 1, 0x0d, (byte) 0xb8, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 1 }), 7);

    private final Discovery discovery = new Discovery(List.of(
        TestProviders.withFormat("sock", AddressFormat.SOCKADDR),
        TestProviders.withFormat("in", AddressFormat.SOCKADDR_IN),
        TestProviders.withFormat("six", AddressFormat.SOCKADDR_IN6)), host ->
    {
        if ("dual.test".equals(host))
        {
            return new InetAddress[] { address(new byte[] { 10, 9, 9, 9 }), address(V6Bytes.LOOP) };
        }
        throw new java.net.UnknownHostException(host);
    });

    /** IPv6 loopback bytes. */
    private static final class V6Bytes
    {
        static final byte[] LOOP = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
    }

    private static InetAddress address(final byte[] bytes)
    {
        try
        {
            return InetAddress.getByAddress(bytes);
        }
        catch (final java.net.UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private List<Info> getInfo(final String node, final long flags, final UnaryOperator<Info.Builder> hints)
    {
        return discovery.getInfo(Version.CURRENT, node, node == null ? null : "7", flags,
            hints.apply(Info.alloc().toBuilder()).build());
    }

    private static List<String> providersOf(final List<Info> infos)
    {
        return infos.stream().map(Info::providerName).toList();
    }

    private static FabricException refused(final Runnable r)
    {
        final FabricException ex = assertThrows(FabricException.class, r::run);
        assertEquals(Errno.ENODATA, ex.errno(), ex.getMessage());
        return ex;
    }

    @ParameterizedTest(name = "provider {0} serves hint {1}: {2}")
    @CsvSource({
        "SOCKADDR, SOCKADDR, true", "SOCKADDR, SOCKADDR_IN, true", "SOCKADDR, SOCKADDR_IN6, true",
        "SOCKADDR, SOCKADDR_IB, false", "SOCKADDR, STR, false",
        "SOCKADDR_IN, SOCKADDR, true", "SOCKADDR_IN, SOCKADDR_IN, true", "SOCKADDR_IN, SOCKADDR_IN6, false",
        "SOCKADDR_IN6, SOCKADDR, true", "SOCKADDR_IN6, SOCKADDR_IN, true", "SOCKADDR_IN6, SOCKADDR_IN6, true",
        "SOCKADDR_IB, SOCKADDR_IN6, true", "SOCKADDR_IB, SOCKADDR_IB, true", "SOCKADDR_IB, GNI, false",
        "GNI, GNI, true", "GNI, SOCKADDR, false", "STR, SOCKADDR_IN, false", "STR, STR, true",
        "UNSPEC, GNI, true", "GNI, UNSPEC, true" })
    void shouldAcceptAddressFormatsAsLibfabric(
        final AddressFormat prov, final AddressFormat hint, final boolean accepted)
    {
        assertEquals(accepted, InfoMatcher.acceptsAddressFormat(prov, hint));
    }

    @Test
    void shouldServeBothFamiliesFromASockaddrProviderInTheRequestedFormat()
    {
        final List<Info> in = getInfo(null, 0, b -> b.addrFormat(AddressFormat.SOCKADDR_IN));
        final List<Info> in6 = getInfo(null, 0, b -> b.addrFormat(AddressFormat.SOCKADDR_IN6));

        // FI_SOCKADDR_IN6 providers take IPv4 too; FI_SOCKADDR_IN ones never take IPv6
        assertEquals(List.of("in", "six", "sock"), providersOf(in));
        assertEquals(List.of("six", "sock"), providersOf(in6));
        for (final Info info : in)
        {
            assertEquals(AddressFormat.SOCKADDR_IN, info.addrFormat(), info.providerName());
            assertEquals(SockAddr.AF_INET, SockAddr.family(info.srcAddr()), info.providerName());
        }
        for (final Info info : in6)
        {
            assertEquals(AddressFormat.SOCKADDR_IN6, info.addrFormat(), info.providerName());
            assertEquals(SockAddr.AF_INET6, SockAddr.family(info.srcAddr()), info.providerName());
        }
    }

    @Test
    void shouldReportTheProvidersOwnFormatForTheGenericSockaddrHint()
    {
        final List<Info> infos = getInfo(null, 0, b -> b.addrFormat(AddressFormat.SOCKADDR));

        assertEquals(List.of("in", "six", "sock"), providersOf(infos));
        assertEquals(List.of(AddressFormat.SOCKADDR_IN, AddressFormat.SOCKADDR_IN6, AddressFormat.SOCKADDR),
            infos.stream().map(Info::addrFormat).toList());
    }

    @Test
    void shouldResolveTheNodeInTheFamilyTheFormatHolds()
    {
        final List<Info> v6Node = getInfo("2001:db8::1", 0, b -> b);
        final List<Info> v4Node = getInfo("10.0.0.1", 0, b -> b);

        // an IPv6 literal: FI_SOCKADDR_IN cannot hold it
        assertEquals(List.of("six", "sock"), providersOf(v6Node));
        assertArrayEquals(V6, v6Node.get(1).destAddr());
        // an IPv4 literal: FI_SOCKADDR_IN6 cannot hold it as an IPv6 address either
        assertEquals(List.of("in", "sock"), providersOf(v4Node));
        assertArrayEquals(V4, v4Node.get(1).destAddr());
    }

    @Test
    void shouldRefuseAnIpv4NodeForAnIpv6OnlyHintNamingWhy()
    {
        final FabricException ex = refused(() -> getInfo("10.0.0.1", 0,
            b -> b.addrFormat(AddressFormat.SOCKADDR_IN6)));

        assertTrue(ex.getMessage().contains("no IPv6 address"), ex.getMessage());
    }

    @Test
    void shouldCarryAHintSourceAddressOnlyWhereItsFamilyFits()
    {
        final List<Info> v6Src = getInfo(null, 0, b -> b.addrFormat(AddressFormat.SOCKADDR).srcAddr(V6));
        final List<Info> v4Src = getInfo(null, 0, b -> b.addrFormat(AddressFormat.SOCKADDR).srcAddr(V4));

        assertEquals(List.of("six", "sock"), providersOf(v6Src));
        assertArrayEquals(V6, v6Src.get(0).srcAddr());
        assertEquals(List.of("in", "sock"), providersOf(v4Src));
        assertArrayEquals(V4, v4Src.get(0).srcAddr());
    }

    @Test
    void shouldRefuseAnIpv6HintAddressForAnIpv4ProviderNamingTheFamily()
    {
        final Discovery inOnly = new Discovery(List.of(TestProviders.withFormat("in", AddressFormat.SOCKADDR_IN)));

        final FabricException ex = refused(() -> inOnly.getInfo(Version.CURRENT, null, null, 0, Info.alloc()
            .toBuilder().addrFormat(AddressFormat.SOCKADDR).destAddr(V6).build()));

        assertTrue(ex.getMessage().contains("dest_addr (FI_SOCKADDR, AF_INET6) cannot be expressed as " +
            "FI_SOCKADDR_IN"), ex.getMessage());
    }

    @Test
    void shouldIgnoreTheHintDestinationWhenANodeIsResolvedAsDestination()
    {
        // fi_getinfo(3): dest_addr in the hints is ignored unless node and service are NULL or FI_SOURCE is set
        final List<Info> infos = getInfo("10.0.0.1", 0, b -> b.addrFormat(AddressFormat.SOCKADDR_IN).destAddr(V6));

        assertEquals(List.of("in", "six", "sock"), providersOf(infos));
        assertArrayEquals(V4, infos.get(0).destAddr());
    }

    @Test
    void shouldIgnoreTheHintSourceWithFiSource()
    {
        final List<Info> infos = getInfo("10.0.0.1", Flags.SOURCE, b -> b.addrFormat(AddressFormat.SOCKADDR_IN)
            .srcAddr(V6));

        assertArrayEquals(V4, infos.get(0).srcAddr());
    }

    @Test
    void shouldRefuseAHintAddressWithoutASocketFamilyForSocketFormats()
    {
        final byte[] text = "fi_sockaddr_in://10.0.0.1:7".getBytes(StandardCharsets.US_ASCII);

        refused(() -> getInfo(null, 0, b -> b.srcAddr(text)));
    }

    @Test
    void shouldTakeTheFamilyOfAnAddressStringScheme()
    {
        final List<Info> in6 = discovery.getInfo(Version.CURRENT, "fi_sockaddr_in6://dual.test:7", null, 0, null);
        final List<Info> in = discovery.getInfo(Version.CURRENT, "fi_sockaddr_in://dual.test:7", null, 0, null);

        // the host has both families: the scheme picks one, and a provider of the other family drops out
        assertEquals(List.of("six", "sock"), providersOf(in6));
        for (final Info info : in6)
        {
            final InetSocketAddress dest = SockAddr.decode(info.destAddr());
            assertEquals("0:0:0:0:0:0:0:1", dest.getAddress().getHostAddress(), info.providerName());
        }
        assertEquals(List.of("in", "sock"), providersOf(in));
        assertEquals("10.9.9.9", SockAddr.decode(in.get(1).destAddr()).getAddress().getHostAddress());
    }

    @Test
    void shouldTellSocketAddressFamiliesApartWithoutDecoding()
    {
        assertEquals(SockAddr.AF_INET, SockAddr.family(V4));
        assertEquals(SockAddr.AF_INET6, SockAddr.family(V6));
        assertEquals(-1, SockAddr.family(new byte[] { 2, 0, 0 }));
        assertEquals(-1, SockAddr.family(null));
    }
}
