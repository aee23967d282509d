package io.jfabric;

import io.jfabric.spi.AddressCodec;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FI_ADDR_STR parsing (URI and GNI forms) and the sockaddr codec.
 */
class AddressStringTest
{
    private static final List<AddressCodec> CODECS = List.of(TestProviders.GNI);

    @Test
    void shouldParseSockaddrForm()
    {
        final AddressString a = AddressString.parse("fi_sockaddr_in://127.0.0.1:7471");

        assertEquals("fi_sockaddr_in", a.scheme());
        assertEquals("127.0.0.1", a.node());
        assertEquals("7471", a.service());
        assertEquals(AddressFormat.SOCKADDR_IN, a.format());
        assertEquals("fi_sockaddr_in://127.0.0.1:7471", a.toString());
    }

    @Test
    void shouldParseIpv6PathAndParameters()
    {
        final AddressString a = AddressString.parse("fi_sockaddr_in6://[fe80::6:12]:7471/f3/f4?qos=3&x=y");

        assertEquals("fe80::6:12", a.node());
        assertEquals("7471", a.service());
        assertEquals("f3/f4", a.path());
        assertEquals("3", a.params().get("qos"));
        assertEquals("y", a.params().get("x"));
        assertEquals("fi_sockaddr_in6://[fe80::6:12]:7471/f3/f4?qos=3&x=y", a.toString());
    }

    @Test
    void shouldParseProviderSpecificSchemeWithoutFormat()
    {
        final AddressString a = AddressString.parse("fi_shm://ring0");

        assertEquals("ring0", a.node());
        assertNull(a.service());
        assertNull(a.format());
    }

    @Test
    void shouldParseGniForm()
    {
        final AddressString a = AddressString.parse("gni;node1;7000;1;0x2a;0x5;0;0;0xbeef;1;0", CODECS);

        assertEquals("gni", a.scheme());
        assertEquals("node1", a.node());
        assertEquals("7000", a.service());
        assertEquals("0x2a", a.params().get("device_addr"));
        assertEquals("0xbeef", a.params().get("cookie"));
        assertEquals("0", a.params().get("key_offset"));
        assertEquals(AddressFormat.GNI, a.format(CODECS));
        assertNull(a.format(), "no format without the provider's codec");
        assertEquals("gni;node1;7000;1;0x2a;0x5;0;0;0xbeef;1;0", TestProviders.GNI.format(a));
        assertEquals(a, TestProviders.GNI.parse("gni;node1;7000;1;0x2a;0x5;0;0;0xbeef;1;0"));
    }

    @Test
    void shouldRefuseMalformedAddresses()
    {
        assertEquals(Errno.EINVAL,
            assertThrows(FabricException.class, () -> AddressString.parse("gni;a;b", CODECS)).errno());
        assertEquals(Errno.EINVAL,
            assertThrows(FabricException.class, () -> AddressString.parse("fi_sockaddr://[::1:7")).errno());
        assertEquals(Errno.EINVAL,
            assertThrows(FabricException.class, () -> AddressString.parse("fi_x://h?novalue")).errno());
    }

    @Test
    void shouldTellAddressStringsFromHostNames()
    {
        assertTrue(AddressString.isAddressString("fi_sockaddr_in://1.2.3.4:5"));
        assertTrue(AddressString.isAddressString("gni;a;b;1;2;3;4;5;6;7;8", CODECS));
        assertFalse(AddressString.isAddressString("gni;a;b;1;2;3;4;5;6;7;8"), "a provider form needs its codec");
        assertFalse(AddressString.isAddressString("host.example"));
        assertFalse(AddressString.isAddressString("10.0.0.1"));
        assertFalse(AddressString.isAddressString(null));
    }

    @Test
    void shouldRecogniseNumericHostsWithoutLookup()
    {
        assertTrue(SockAddr.isNumericHost("10.0.0.1"));
        assertTrue(SockAddr.isNumericHost("::1"));
        assertTrue(SockAddr.isNumericHost("fe80::1%eth0"));
        assertFalse(SockAddr.isNumericHost("localhost"));
        assertFalse(SockAddr.isNumericHost("256.1.1.1"));
        assertFalse(SockAddr.isNumericHost("1.2.3"));
    }

    @Test
    void shouldRoundTripSockaddrInAndIn6() throws Exception
    {
        final byte[] v4 = SockAddr.encode(InetAddress.getByName("192.168.1.20"), 7471);
        final byte[] v6 = SockAddr.encode(InetAddress.getByName("::1"), 80);

        assertEquals(SockAddr.SOCKADDR_IN_LENGTH, v4.length);
        assertEquals(SockAddr.AF_INET, v4[0]);
        assertEquals(0x1d, v4[2] & 0xFF);
        assertEquals(0x2f, v4[3] & 0xFF);
        assertEquals(new InetSocketAddress("192.168.1.20", 7471), SockAddr.decode(v4));
        assertEquals(SockAddr.SOCKADDR_IN6_LENGTH, v6.length);
        assertEquals(80, SockAddr.decode(v6).getPort());
        assertEquals("fi_sockaddr_in://192.168.1.20:7471", SockAddr.toAddressString(v4));
        assertEquals("fi_sockaddr_in6://[0:0:0:0:0:0:0:1]:80", SockAddr.toAddressString(v6));
    }
}
