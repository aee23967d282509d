package io.jfabric;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The Info data model: allocinfo, dupinfo and immutability.
 */
class InfoTest
{
    @Test
    void shouldAllocZeroedInfoWithEverySubAttributePresent()
    {
        final Info info = Info.alloc();

        assertEquals(0, info.caps());
        assertEquals(0, info.mode());
        assertEquals(AddressFormat.UNSPEC, info.addrFormat());
        assertNull(info.srcAddr());
        assertEquals(0, info.srcAddrlen());
        assertNotNull(info.txAttr());
        assertNotNull(info.rxAttr());
        assertNotNull(info.epAttr());
        assertNotNull(info.domainAttr());
        assertNotNull(info.fabricAttr());
        assertEquals(0, info.txAttr().size());
        assertEquals(EndpointType.UNSPEC, info.epAttr().type());
        assertEquals(Threading.UNSPEC, info.domainAttr().threading());
        assertNull(info.fabricAttr().provName());
    }

    @Test
    void shouldDeepCopyEveryFieldWithDupinfo()
    {
        final Object handle = new Object();
        final byte[] key = { 1, 2, 3 };
        final Info original = Info.builder()
            .caps(Flags.MSG).mode(Mode.CONTEXT).addrFormat(AddressFormat.SOCKADDR_IN)
            .srcAddr(new byte[] { 9, 9 }).destAddr(new byte[] { 8 }).handle(handle)
            .txAttr(TxAttr.builder().size(7).build())
            .rxAttr(RxAttr.builder().size(6).build())
            .epAttr(EpAttr.builder().type(EndpointType.RDM).authKey(key).build())
            .domainAttr(DomainAttr.builder().name("d").authKey(key).build())
            .fabricAttr(FabricAttr.builder().name("f").provName("p").provVersion(Version.of(1, 2)).build())
            .nic(Nic.builder().deviceName("nic0").build())
            .build();

        final Info copy = original.copy();

        assertEquals(original, copy);
        assertNotSame(original.txAttr(), copy.txAttr());
        assertNotSame(original.domainAttr(), copy.domainAttr());
        assertNotSame(original.nic(), copy.nic());
        assertSame(handle, copy.handle());
        assertEquals(2, copy.srcAddrlen());
        assertEquals(1, copy.destAddrlen());
        assertArrayEquals(key, copy.epAttr().authKey());
    }

    @Test
    void shouldNotBeChangedThroughArraysPassedInOrReturned()
    {
        final byte[] src = { 1, 2 };
        final Info info = Info.builder().srcAddr(src).build();

        src[0] = 42;
        info.srcAddr()[1] = 42;

        assertArrayEquals(new byte[] { 1, 2 }, info.srcAddr());
    }

    @Test
    void shouldDeriveChangedCopyWithoutTouchingTheOriginal()
    {
        final Info original = Info.alloc();
        final Info changed = original.toBuilder().caps(Flags.TAGGED).build();

        assertEquals(0, original.caps());
        assertEquals(Flags.TAGGED, changed.caps());
        assertNotEquals(original, changed);
    }

    @Test
    void shouldTurnNullSubAttributesIntoZero()
    {
        final Info info = new Info(0, 0, null, null, null, null, null, null, null, null, null, null);

        assertEquals(TxAttr.ZERO, info.txAttr());
        assertEquals(FabricAttr.ZERO, info.fabricAttr());
        assertEquals(AddressFormat.UNSPEC, info.addrFormat());
    }
}
