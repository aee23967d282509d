package io.jfabric;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The named constant sets: libfabric values, parsing in every accepted spelling, printing as fi_tostr, and
 * the names of both man-page generations and of kfabric.
 */
class FlagsTest
{
    @Test
    void shouldUseLibfabricBitValues()
    {
        assertEquals(1L << 1, Flags.MSG);
        assertEquals(1L << 3, Flags.TAGGED);
        assertEquals(1L << 4, Flags.ATOMIC);
        assertEquals(1L << 10, Flags.RECV);
        assertEquals(1L << 11, Flags.SEND);
        assertEquals(1L << 16, Flags.MULTI_RECV);
        assertEquals(1L << 24, Flags.COMPLETION);
        assertEquals(1L << 47, Flags.HMEM);
        assertEquals(1L << 54, Flags.PROV_ATTR_ONLY);
        assertEquals(1L << 55, Flags.NUMERICHOST);
        assertEquals(1L << 57, Flags.SOURCE);
        assertEquals(1L << 59, Flags.DIRECTED_RECV);
        assertEquals(1L << 59, Flags.CLAIM);
        assertEquals(1L << 58, Flags.DISCARD);
        assertEquals(1L << 59, Flags.SELECTIVE_COMPLETION);
        assertEquals(1L << 59, Mode.CONTEXT);
        assertEquals(1L << 52, Mode.CONTEXT2);
        assertEquals(1L << 51, Mode.BUFFERED_RECV);
        assertEquals(1L << 2, MrMode.LOCAL);
        assertEquals(1L << 8, MsgOrder.SAS);
        assertEquals(1L << 32, MsgOrder.RMA_RAR);
        assertEquals(1L << 16, CompOrder.DATA);
    }

    @Test
    void shouldParseEverySpellingOfACapabilitySet()
    {
        final long expected = Flags.MSG | Flags.TAGGED;

        assertEquals(expected, Flags.parse("FI_TAGGED|FI_MSG"));
        assertEquals(expected, Flags.parse("msg,tagged"));
        assertEquals(expected, Flags.parse("FI_MSG | FI_TAGGED"));
        assertEquals(expected, Flags.parse("KFI_MSG|kfi_tagged"));
        assertEquals(expected, Flags.parse("Fi_Msg Tagged"));
        assertEquals(Flags.TAGGED, Flags.parse("KFI_TAGGED"));
        assertEquals(0, Flags.parse(""));
        assertEquals(0x18, Flags.parse("0x18"));
    }

    @Test
    void shouldPrintAsFiTostr()
    {
        assertEquals("FI_MSG | FI_TAGGED", Flags.print(Flags.TAGGED | Flags.MSG));
        assertEquals("", Flags.print(0));
        assertEquals("FI_MSG | 0x1", Flags.print(Flags.MSG | 1));
        assertEquals("FI_ATOMIC", Flags.print(Flags.ATOMICS));
        assertEquals("FI_SEND", Flags.print(Flags.TRANSMIT));
        assertEquals("FI_CONTEXT | FI_CONTEXT2", Mode.print(Mode.CONTEXT2 | Mode.CONTEXT));
        assertEquals("FI_MR_LOCAL | FI_MR_PROV_KEY", MrMode.print(MrMode.PROV_KEY | MrMode.LOCAL));
        assertEquals("FI_ORDER_STRICT", CompOrder.print(CompOrder.STRICT));
    }

    @Test
    void shouldRoundTripEveryCanonicalName()
    {
        for (final NameTable t : List.of(Flags.NAMES, Mode.NAMES, MrMode.NAMES, MsgOrder.NAMES, CompOrder.NAMES))
        {
            for (final String name : t.canonicalNames())
            {
                final long v = t.parseOne(name);
                if (v != 0)
                {
                    assertEquals(name, t.printBits(v), t.kind());
                }
            }
        }
    }

    @Test
    void shouldGiveEveryCanonicalFlagItsOwnBit()
    {
        final Set<Long> seen = new HashSet<>();
        for (final String name : Flags.NAMES.canonicalNames())
        {
            final long v = Flags.NAMES.parseOne(name);
            assertEquals(1, Long.bitCount(v), name);
            assertTrue(seen.add(v), name + " shares a bit");
        }
        final Set<Long> modes = new HashSet<>();
        for (final String name : Mode.NAMES.canonicalNames())
        {
            assertTrue(modes.add(Mode.NAMES.parseOne(name)), name);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "FI_BUFFERED_RECV", "FI_DYNAMIC_MR", "FI_REMOTE_SIGNAL", "FI_REMOTE_COMPLETE", "FI_CANCEL",
        "FI_VARIABLE_MSG", "FI_HMEM", "FI_COLLECTIVE", "FI_LOCAL_COMM", "FI_REMOTE_COMM", "FI_SHARED_AV",
        "FI_SOURCE_ERR", "FI_RMA_EVENT", "FI_RMA_PMEM", "FI_TRIGGER", "FI_FENCE", "FI_NUMERICHOST", "FI_SOURCE",
        "FI_PROV_ATTR_ONLY", "FI_INJECT", "FI_NAMED_RX_CTX", "FI_DIRECTED_RECV", "FI_MULTI_RECV",
        "FI_REMOTE_CQ_DATA", "FI_COMPLETION", "FI_MORE", "FI_PEEK", "FI_CLAIM", "FI_DISCARD",
        "FI_SELECTIVE_COMPLETION", "FI_INJECT_COMPLETE", "FI_TRANSMIT_COMPLETE", "FI_DELIVERY_COMPLETE",
        "FI_COMMIT_COMPLETE", "FI_MATCH_COMPLETE", "FI_AFFINITY", "FI_PRIORITY", "FI_EVENT", "FI_TRANSMIT",
        "FI_ATOMICS", "KFI_MSG", "KFI_RMA", "KFI_TAGGED", "KFI_ATOMIC", "KFI_NAMED_RX_CTX", "KFI_DIRECTED_RECV",
        "KFI_INJECT", "KFI_MULTI_RECV", "KFI_SOURCE", "KFI_READ", "KFI_WRITE", "KFI_SEND", "KFI_RECV",
        "KFI_REMOTE_READ", "KFI_REMOTE_WRITE", "KFI_REMOTE_CQ_DATA", "KFI_CANCEL", "KFI_TRIGGER", "KFI_FENCE",
        "KFI_COMPLETION", "KFI_MORE", "KFI_REMOTE_COMPLETE", "KFI_NUMERICHOST" })
    void shouldResolveFlagNamesOfBothGenerationsAndKfabric(final String name)
    {
        assertNotEquals(0, Flags.parse(name), name);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "FI_CONTEXT", "FI_CONTEXT2", "FI_LOCAL_MR", "FI_MSG_PREFIX", "FI_ASYNC_IOV", "FI_RX_CQ_DATA",
        "FI_NOTIFY_FLAGS_ONLY", "FI_RESTRICTED_COMP", "FI_BUFFERED_RECV", "FI_PROV_MR_ATTR", "KFI_CONTEXT",
        "KFI_LOCAL_MR", "KFI_MSG_PREFIX", "KFI_ASYNC_IOV" })
    void shouldResolveModeNamesOfBothGenerations(final String name)
    {
        assertEquals(1, Long.bitCount(Mode.parse(name)), name);
    }

    @Test
    void shouldResolveAddressFormatsAndEndpointTypesWithLibfabricValues()
    {
        assertEquals(5, AddressFormat.parse("FI_ADDR_PSMX").value());
        assertEquals(6, AddressFormat.parse("FI_ADDR_GNI").value());
        assertEquals(7, AddressFormat.parse("bgq").value());
        assertEquals(9, AddressFormat.parse("FI_ADDR_STR").value());
        assertEquals(10, AddressFormat.parse("psmx2").value());
        assertEquals(11, AddressFormat.parse("FI_ADDR_IB_UD").value());
        assertEquals(12, AddressFormat.parse("KFI_ADDR_EFA").value());
        assertEquals(13, AddressFormat.parse("FI_ADDR_PSMX3").value());
        assertEquals(AddressFormat.SOCKADDR_IB, AddressFormat.parse("KFI_SOCKADDR_IB"));
        assertEquals(AddressFormat.UNSPEC, AddressFormat.parse("KFI_FORMAT_UNSPEC"));
        assertEquals(EndpointType.UNSPEC, EndpointType.parse("FI_EP_UNSPEC"));
        assertEquals(EndpointType.MSG, EndpointType.parse("KFI_EP_MSG"));
        assertEquals(EndpointType.DGRAM, EndpointType.parse("dgram"));
        assertEquals(3, EndpointType.parse("ep_rdm").value());
        assertEquals("FI_EP_RDM", EndpointType.RDM.fiName());
    }

    @Test
    void shouldResolveTheOtherEnumsWithLibfabricValues()
    {
        assertEquals(3, Threading.parse("FI_THREAD_DOMAIN").value());
        assertEquals(Progress.MANUAL, Progress.parse("manual"));
        assertEquals(ResourceMgmt.ENABLED, ResourceMgmt.parse("FI_RM_ENABLED"));
        assertEquals(AvType.TABLE, AvType.parse("KFI_AV_TABLE"));
        assertEquals(4, CqFormat.parse("FI_CQ_FORMAT_TAGGED").value());
        assertEquals(6, WaitObject.parse("FI_WAIT_POLLFD").value());
        assertEquals(CqWaitCond.THRESHOLD, CqWaitCond.parse("threshold"));
        assertEquals(Protocol.GNI, Protocol.parse("FI_PROTO_GNI"));
        assertEquals(Protocol.GNI, Protocol.parse("gni"));
        assertEquals("FI_PROTO_JFABRIC_INPROC", Protocol.name(Protocol.JFABRIC_INPROC));
        assertEquals("0x12345", Protocol.name(0x12345));
    }

    @Test
    void shouldRefuseUnknownNamesListingTheValidOnes()
    {
        final FabricException caps = assertThrows(FabricException.class, () -> Flags.parse("FI_MSG|FI_NOPE"));
        final FabricException type = assertThrows(FabricException.class, () -> EndpointType.parse("FI_EP_NOPE"));
        final FabricException mode = assertThrows(FabricException.class, () -> Mode.parse("nope"));

        assertEquals(Errno.EINVAL, caps.errno());
        assertTrue(caps.getMessage().contains("'FI_NOPE'") && caps.getMessage().contains("FI_TAGGED"));
        assertTrue(type.getMessage().contains("FI_EP_RDM"), type.getMessage());
        assertTrue(mode.getMessage().contains("FI_CONTEXT2"), mode.getMessage());
    }
}
