package io.jfabric;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fi_info summary and the fi_tostr verbose form (JSON: the command line's {@code InfoJson}).
 */
class InfoFormatTest
{
    private final Info info = TestProviders.alpha().infos().get(0).toBuilder()
        .srcAddr(SockAddr.encode(InetAddress.getLoopbackAddress(), 7471))
        .fabricAttr(FabricAttr.builder().name("alpha-fabric").provName("alpha").provVersion(Version.of(2, 3))
            .apiVersion(Version.CURRENT).build())
        .build();

    @Test
    void shouldPrintFiInfoSummary()
    {
        assertEquals(
            "provider: alpha\n" +
            "    fabric: alpha-fabric\n" +
            "    domain: alpha0\n" +
            "    version: 2.3\n" +
            "    type: FI_EP_RDM\n" +
            "    protocol: FI_PROTO_SOCK_TCP\n", InfoFormat.summary(info));
    }

    @Test
    void shouldPrintEveryAttributeInVerboseForm()
    {
        final String text = InfoFormat.verbose(info);

        assertTrue(text.startsWith("---\nfi_info:\n    caps: [ FI_MSG, FI_RMA, FI_TAGGED, FI_ATOMIC, "), text);
        assertTrue(text.contains("    mode: [  ]\n"), text);
        assertTrue(text.contains("    addr_format: FI_SOCKADDR_IN\n"), text);
        assertTrue(text.contains("    src_addrlen: 16\n"), text);
        assertTrue(text.contains("    src_addr: fi_sockaddr_in://127.0.0.1:7471\n"), text);
        assertTrue(text.contains("    dest_addr: (null)\n"), text);
        assertTrue(text.contains("    fi_tx_attr:\n        caps: [ "), text);
        assertTrue(text.contains("        msg_order: [ FI_ORDER_RAR, FI_ORDER_RAW, FI_ORDER_WAR, FI_ORDER_WAW, " +
            "FI_ORDER_SAS ]\n"), text);
        assertTrue(text.contains("        inject_size: 64\n"), text);
        assertTrue(text.contains("        comp_order: [ FI_ORDER_NONE ]\n"), text);
        assertTrue(text.contains("        mem_tag_format: 0x0000ffffffffffff\n"), text);
        assertTrue(text.contains("        threading: FI_THREAD_DOMAIN\n"), text);
        assertTrue(text.contains("        mr_mode: [ FI_MR_LOCAL, FI_MR_VIRT_ADDR, FI_MR_PROV_KEY ]\n"), text);
        assertTrue(text.contains("        prov_version: 2.3\n"), text);
        assertTrue(text.contains("        api_version: 1.22\n"), text);
        assertTrue(text.contains("    nic: (nil)\n"), text);
    }

    @Test
    void shouldPrintAddressesByFormat()
    {
        assertEquals("fi_beta://x",
            InfoFormat.address(AddressFormat.STR, "fi_beta://x".getBytes(StandardCharsets.UTF_8)));
        assertEquals("fi_addr_gni://0x2a00", InfoFormat.address(AddressFormat.GNI, new byte[] { 0x2a, 0 }));
        assertEquals("(null)", InfoFormat.address(AddressFormat.GNI, null));
    }
}
