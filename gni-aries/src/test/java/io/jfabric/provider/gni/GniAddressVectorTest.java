package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.MrMode;
import io.jfabric.Progress;
import io.jfabric.conformance.Pair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gni's address vectors (GNI.md §2.13, fi_gni(7)): a map vector's {@code fi_addr} is the 64-bit
 * {@code gnix_address} and a lookup or remove of one it does not hold is {@code ENOENT} (a table's unknown index
 * stays {@code EINVAL}); {@code fi_av_insertsvc} and {@code fi_av_insertsym} are {@code ENOSYS}; {@code FI_EVENT} and
 * named vectors are {@code ENOSYS}; {@code rx_ctx_bits} above 8 is {@code EINVAL}; {@code fi_av_straddr} prints
 * {@code version:device_addr:cdm_id:name_type:cm_nic_cdm_id:cookie:rx_ctx_cnt}.
 */
@Timeout(60)
class GniAddressVectorTest
{
    @Test
    void shouldAnswerUnknownMapAddressesWithEnoentAndUnknownTableIndexesWithEinval()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.MANUAL))
        {
            try (AddressVector map = p.domainA.addressVector(AvType.MAP, 4);
                AddressVector table = p.domainA.addressVector(AvType.TABLE, 4))
            {
                final long peer = map.insert(p.b.name());
                final long key = GniName.parse(p.b.name());
                assertEquals(key, peer, "the map's fi_addr is the gnix_address");
                assertArrayEquals(p.b.name(), map.lookup(peer));
                assertEquals(Errno.ENOENT, errno(() -> map.lookup(peer + 1)));
                assertEquals(Errno.ENOENT, errno(() -> map.remove(peer + 1)));
                map.remove(peer);
                assertEquals(Errno.ENOENT, errno(() -> map.lookup(peer)), "removed");
                assertEquals(Errno.ENOENT, errno(() -> map.remove(peer)), "removed twice");

                assertEquals(0, table.insert(p.b.name()));
                assertEquals(Errno.EINVAL, errno(() -> table.lookup(1)));
                table.remove(0);
                assertEquals(Errno.EINVAL, errno(() -> table.remove(0)), "removed twice");
                assertEquals(Errno.EINVAL, errno(() -> table.lookup(0)));
            }
        }
    }

    @Test
    void shouldRefuseServiceInsertsEventAndNamedVectorsAndMoreThanEightRxCtxBits()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.MANUAL))
        {
            try (AddressVector av = p.domainA.addressVector(AvType.TABLE, 4))
            {
                assertEquals(Errno.ENOSYS, errno(() -> av.insertService("node", "service")));
                assertEquals(Errno.ENOSYS, errno(() -> av.insertSymmetric("1", 2, "3", 2, new long[4])));
                assertEquals(0, av.insert(p.b.name()), "nothing was inserted by the refused calls");
            }
            assertEquals(Errno.ENOSYS, errno(() -> p.domainA.addressVector(
                AvAttr.builder().flags(AvAttr.EVENT).build())));
            assertEquals(Errno.ENOSYS, errno(() -> p.domainA.addressVector(AvAttr.builder().name("gni-av").build())));
            assertEquals(Errno.EINVAL, errno(() -> p.domainA.addressVector(AvAttr.builder().rxCtxBits(9).build())));
            try (AddressVector eight = p.domainA.addressVector(AvAttr.builder().rxCtxBits(8).build()))
            {
                assertEquals(8, eight.rxCtxBits());
            }
        }
    }

    @Test
    void shouldPrintNamesAsGnixAvStraddr()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.MANUAL))
        {
            final byte[] name = p.b.name();
            assertEquals(GniName.LENGTH, name.length);
            final ByteBuffer b = ByteBuffer.wrap(name).order(ByteOrder.LITTLE_ENDIAN);
            final String text = p.avA.straddr(name);
            assertEquals(52, text.length(), text);
            assertEquals(String.format("0001:0x%08x:0x%08x:02:0x%06x:0x%08x:01", b.getInt(0), b.getInt(4),
                b.getInt(8) >>> 8, b.getInt(12)), text);
            assertTrue(text.matches("0001:0x[0-9a-f]{8}:0x[0-9a-f]{8}:02:0x[0-9a-f]{6}:0x[0-9a-f]{8}:01"), text);
            final String gniText = "gni;NONE;NONE;0001;0x00000001;0x00010001;02;0x000001;0x5a5a0001;01";
            assertEquals(gniText, p.avA.straddr(gniText.getBytes()), "a text name prints as itself");
            assertEquals(Errno.EINVAL, errno(() -> p.avA.straddr(null)));
        }
    }

    private static Errno errno(final Runnable call)
    {
        return assertThrows(FabricException.class, call::run).errno();
    }
}
