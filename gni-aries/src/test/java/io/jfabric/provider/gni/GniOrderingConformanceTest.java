package io.jfabric.provider.gni;

import io.jfabric.EpAttr;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MsgOrder;
import io.jfabric.TxAttr;
import io.jfabric.conformance.OrderingConformance;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link OrderingConformance} over the {@code gni} provider. The advertisement case is overridden by its gni form
 * ({@link GniDifferences#ORDER_SIZES}): msg_order SAS only, with max_order_raw/war/waw_size of max_msg_size as
 * upstream's getinfo, and hints matched against them as the suite's.
 */
class GniOrderingConformanceTest extends OrderingConformance
{
    GniOrderingConformanceTest()
    {
        super(GniConformance.WITH_ATOMICS);
    }

    @Override
    @Test
    @DisplayName("gni ORDER_SIZES: SAS only; raw/war/waw sizes of max_msg_size (upstream's); hints matched")
    protected void shouldAdvertiseOrdersAndMatchHintsAgainstThem()
    {
        final Info info = info(Info.builder().caps(Flags.RMA | Flags.ATOMIC).build());
        assertEquals(MsgOrder.SAS, info.txAttr().msgOrder(), MsgOrder.print(info.txAttr().msgOrder()));
        final long max = info.epAttr().maxMsgSize();
        assertEquals(max, info.epAttr().maxOrderRawSize());
        assertEquals(max, info.epAttr().maxOrderWarSize());
        assertEquals(max, info.epAttr().maxOrderWawSize());
        final Info asked = info(Info.builder().caps(Flags.RMA)
            .txAttr(TxAttr.builder().msgOrder(MsgOrder.SAS).build())
            .epAttr(EpAttr.builder().maxOrderRawSize(max).maxOrderWawSize(max).build()).build());
        assertEquals(MsgOrder.SAS, asked.txAttr().msgOrder() & MsgOrder.SAS);
        assertEquals(Errno.ENODATA, refused(Info.builder().caps(Flags.RMA)
            .txAttr(TxAttr.builder().msgOrder(MsgOrder.STRICT & ~MsgOrder.SAS).build()).build()));
        assertEquals(Errno.ENODATA, refused(Info.builder().caps(Flags.RMA)
            .epAttr(EpAttr.builder().maxOrderRawSize(max + 1).build()).build()));
        assertEquals(Errno.ENODATA, refused(Info.builder().caps(Flags.RMA)
            .epAttr(EpAttr.builder().maxOrderWarSize(max + 1).build()).build()));
    }

    private Errno refused(final Info hints)
    {
        return assertThrows(FabricException.class, () -> info(hints)).errno();
    }
}
