package io.jfabric;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Issue 10 §4, getinfo: the legacy mr_mode values FI_MR_BASIC and FI_MR_SCALABLE (also FI_MR_UNSPEC before API
 * 1.5) give ENODATA or an info with exactly that mode; unknown mode and mr_mode bits (fabtests' hints) are
 * accepted; tx/rx attribute caps hold only the caps fi_endpoint(3) lists for their direction.
 */
class GetInfoLegacyModesTest
{
    private static final Version API_1_0 = Version.of(1, 0);

    private static Info inprocHints(final long mrMode)
    {
        return Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.RMA)
            .mode(Mode.CONTEXT)
            .fabricAttr(FabricAttr.builder().provName("inproc").build())
            .domainAttr(DomainAttr.builder().mrMode(mrMode).build())
            .build();
    }

    private static Errno errnoOf(final Runnable r)
    {
        return assertThrows(FabricException.class, r::run).errno();
    }

    @Test
    void shouldAnswerScalableMrModeExactlyWhenScalableIsRequested()
    {
        final List<Info> infos = Fabric.getInfo(inprocHints(MrMode.SCALABLE));

        assertFalse(infos.isEmpty());
        for (final Info info : infos)
        {
            assertEquals(MrMode.SCALABLE, info.domainAttr().mrMode());
        }
    }

    @Test
    void shouldAnswerEnodataWhenBasicMrModeIsRequestedOfAnOffsetProvider()
    {
        // inproc registrations are offsets with application keys: FI_MR_BASIC (virtual addresses, provider keys)
        // cannot be honoured, with or without FI_LOCAL_MR.
        assertEquals(Errno.ENODATA, errnoOf(() -> Fabric.getInfo(inprocHints(MrMode.BASIC))));
        assertEquals(Errno.ENODATA, errnoOf(() -> Fabric.getInfo(inprocHints(MrMode.BASIC).toBuilder()
            .mode(Mode.CONTEXT | Mode.LOCAL_MR).build())));
    }

    @Test
    void shouldAnswerScalableBeforeApi15ForUnspecAndScalableAndEnodataForBasic()
    {
        final Info unspec = Fabric.getInfo(API_1_0, null, null, 0, inprocHints(MrMode.UNSPEC)).get(0);
        final Info scalable = Fabric.getInfo(API_1_0, null, null, 0, inprocHints(MrMode.SCALABLE)).get(0);
        final Info noHints = Fabric.getInfo(API_1_0, null, null, 0, null).get(0);

        assertEquals(MrMode.SCALABLE, unspec.domainAttr().mrMode());
        assertEquals(MrMode.SCALABLE, scalable.domainAttr().mrMode());
        assertEquals(MrMode.SCALABLE, noHints.domainAttr().mrMode());
        assertEquals(Errno.ENODATA, errnoOf(() -> Fabric.getInfo(API_1_0, null, null, 0,
            inprocHints(MrMode.BASIC))));
    }

    @Test
    void shouldAcceptFabtestsHintsWithEveryModeAndUnknownMrModeBits()
    {
        // fabtests' common hints: mode = ~0, mr_mode = ~(FI_MR_BASIC | FI_MR_SCALABLE) (as a C int or a long).
        for (final long mrMode : new long[]{~(MrMode.BASIC | MrMode.SCALABLE), 0xFFFF_FFFCL})
        {
            final Info hints = inprocHints(mrMode).toBuilder().mode(~0L).build();
            final List<Info> infos = Fabric.getInfo(hints);

            assertFalse(infos.isEmpty());
            assertEquals(0, infos.get(0).domainAttr().mrMode());
        }
    }

    @Test
    void shouldKeepOnlyTheirDirectionsCapsInTxAndRxAttributes()
    {
        final Info rdmHints = inprocHints(0).toBuilder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC | Flags.DIRECTED_RECV | Flags.SOURCE |
                Flags.MULTI_RECV | Flags.FENCE | Flags.LOCAL_COMM)
            .build();
        for (final List<Info> infos : List.of(Fabric.getInfo(null), Fabric.getInfo(rdmHints)))
        {
            for (final Info info : infos)
            {
                assertEquals(0, info.txAttr().caps() & ~Flags.TX_ATTR_CAPS,
                    info.providerName() + " tx caps " + Flags.print(info.txAttr().caps()));
                assertEquals(0, info.rxAttr().caps() & ~Flags.RX_ATTR_CAPS,
                    info.providerName() + " rx caps " + Flags.print(info.rxAttr().caps()));
            }
        }
        // Hints naming caps of the other direction in an attribute are not refused for it (libfabric ignores them).
        final Info crossed = inprocHints(0).toBuilder()
            .txAttr(TxAttr.builder().caps(Flags.MSG | Flags.SEND | Flags.RECV | Flags.SOURCE).build())
            .rxAttr(RxAttr.builder().caps(Flags.MSG | Flags.RECV | Flags.SEND | Flags.LOCAL_COMM).build())
            .build();
        final Info info = Fabric.getInfo(crossed).get(0);
        assertEquals(Flags.MSG | Flags.SEND, info.txAttr().caps());
        assertEquals(Flags.MSG | Flags.RECV, info.rxAttr().caps());
    }
}
