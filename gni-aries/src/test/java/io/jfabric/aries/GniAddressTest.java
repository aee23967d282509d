package io.jfabric.aries;

import io.jfabric.AddressFormat;
import io.jfabric.AddressString;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gni FI_ADDR_STR form lives with the gni code, behind the runtime's {@code AddressCodec}: parsed, printed back,
 * recognised among address strings, refused when malformed, and turned into the emulated NIC's address pair.
 */
class GniAddressTest
{
    private static final String TEXT = "gni;node1;7000;1;0x2a;0x5;0;0;0xbeef;1;0";

    @Test
    void shouldParseAndPrintTheGniForm()
    {
        final AddressString a = AddressString.parse(TEXT, List.of(GniAddress.CODEC));

        assertEquals("gni", a.scheme());
        assertEquals("node1", a.node());
        assertEquals("7000", a.service());
        assertNull(a.path());
        assertEquals("0x2a", a.params().get("device_addr"));
        assertEquals("0xbeef", a.params().get("cookie"));
        assertEquals("0", a.params().get("key_offset"));
        assertEquals(AddressFormat.GNI, a.format(List.of(GniAddress.CODEC)));
        assertEquals(TEXT, GniAddress.CODEC.format(a));
        assertEquals(0x2a_0000_0005L, GniAddress.nicAddress(a));
    }

    @Test
    void shouldAcceptTheFormWithoutKeyOffset()
    {
        final AddressString a = GniAddress.CODEC.parse("gni;;;1;7;9;0;0;0;1");

        assertNull(a.node());
        assertNull(a.params().get("key_offset"));
        assertEquals(7L << 32 | 9L, GniAddress.nicAddress(a));
        assertEquals("gni;;;1;7;9;0;0;0;1", GniAddress.CODEC.format(a));
    }

    @Test
    void shouldRecogniseTheFormOnlyThroughTheCodec()
    {
        assertTrue(AddressString.isAddressString(TEXT, List.of(GniAddress.CODEC)));
        assertFalse(AddressString.isAddressString(TEXT));
        assertFalse(GniAddress.CODEC.recognizes("fi_sockaddr_in://1.2.3.4:5"));
        assertFalse(GniAddress.CODEC.nodeIsHost());
    }

    @Test
    void shouldRefuseMalformedGniAddresses()
    {
        assertEquals(Errno.EINVAL,
            assertThrows(FabricException.class, () -> GniAddress.CODEC.parse("gni;a;b")).errno());
        assertEquals(Errno.EINVAL,
            assertThrows(FabricException.class, () -> GniAddress.CODEC.parse(TEXT + ";extra")).errno());
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
            () -> GniAddress.nicAddress(GniAddress.CODEC.parse("gni;n;1;1;zz;0x5;0;0;0;1;0"))).errno());
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
            () -> GniAddress.nicAddress(GniAddress.CODEC.parse("gni;n;1;1;0x100000000;0x5;0;0;0;1;0"))).errno());
    }
}
