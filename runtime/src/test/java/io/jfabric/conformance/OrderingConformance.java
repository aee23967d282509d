package io.jfabric.conformance;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.EpAttr;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.Message;
import io.jfabric.MsgOrder;
import io.jfabric.Progress;
import io.jfabric.TxAttr;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.HashSet;
import java.util.Set;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Message orderings (fi_getinfo ordering cases; fi_endpoint(3) {@code msg_order}, {@code max_order_*_size}): what the
 * provider advertises is matched against hints (asking more is {@code ENODATA}), and the orders it claims hold on
 * the data path: a read posted right after a write of the same bytes (no wait between) returns the written data, a
 * second write right after a first leaves the second's data, up to {@code max_order_raw_size} /
 * {@code max_order_waw_size} for the earlier write, from one buffer, an iov and to several remote ranges, and after
 * an atomic.
 * <p>
 * A suite class: a provider runs it by extending it with its {@link PairFactory} (see {@link Conformance}).
 */
@Timeout(120)
public abstract class OrderingConformance extends Conformance
{
    private static final int KEY = 33;
    private static final int ROUNDS = 20;

    /**
     * @param factory the provider under test.
     */
    protected OrderingConformance(final PairFactory factory)
    {
        super(factory);
    }

    @Test
    protected void shouldAdvertiseOrdersAndMatchHintsAgainstThem()
    {
        final Info info = info(Info.builder().caps(Flags.RMA | Flags.ATOMIC).build());
        final long order = info.txAttr().msgOrder();
        assertTrue((order & MsgOrder.SAS) != 0, MsgOrder.print(order));
        final Info asked = info(Info.builder().caps(Flags.RMA)
            .txAttr(TxAttr.builder().msgOrder(order).build())
            .epAttr(EpAttr.builder().maxOrderRawSize(info.epAttr().maxOrderRawSize())
                .maxOrderWawSize(info.epAttr().maxOrderWawSize()).build()).build());
        assertEquals(order, asked.txAttr().msgOrder() & order);
        final long missing = MsgOrder.STRICT & ~order;
        if (0 != missing)
        {
            assertEquals(Errno.ENODATA, refused(Info.builder().caps(Flags.RMA)
                .txAttr(TxAttr.builder().msgOrder(missing).build()).build()), MsgOrder.print(missing));
        }
        assertEquals(Errno.ENODATA, refused(Info.builder().caps(Flags.RMA).epAttr(EpAttr.builder()
            .maxOrderRawSize(info.epAttr().maxOrderRawSize() + 1).build()).build()));
        assertEquals(Errno.ENODATA, refused(Info.builder().caps(Flags.RMA).epAttr(EpAttr.builder()
            .maxOrderWarSize(info.epAttr().maxOrderWarSize() + 1).build()).build()));
        // Without FI_ORDER_RAW/WAW a size means nothing; with it, at least one byte is ordered.
        if ((order & MsgOrder.RAW) != 0)
        {
            assertTrue(info.epAttr().maxOrderRawSize() > 0);
        }
        if ((order & MsgOrder.WAR) == 0)
        {
            assertEquals(0, info.epAttr().maxOrderWarSize(), "no write-after-read size without FI_ORDER_WAR");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldReadWhatWasJustWrittenUpToMaxOrderRawSize(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final long order = p.infoA.txAttr().msgOrder();
            final int size = (int) Math.min(p.infoA.epAttr().maxOrderRawSize(), 1 << 20);
            if ((order & MsgOrder.RAW) == 0 || size <= 0)
            {
                return;
            }
            final UnsafeBuffer target = direct(2 * size);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 2 * size,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, KEY))
            {
                for (int round = 0; round < ROUNDS; round++)
                {
                    final int length = 0 == round % 2 ? size : 8;
                    final UnsafeBuffer written = pattern(length, round + 1);
                    final UnsafeBuffer back = direct(length);
                    final int shape = round % 3;
                    if (0 == shape)
                    {
                        assertEquals(0, p.a.write(written, 0, length, p.addrBFromA, 0, KEY, 1));
                    }
                    else if (1 == shape)
                    {
                        final int half = length / 2;
                        final DirectBuffer[] iov = {new UnsafeBuffer(written, 0, half),
                            new UnsafeBuffer(written, half, length - half)};
                        assertEquals(0, p.a.writev(iov, 2, p.addrBFromA, 0, KEY, 1));
                    }
                    else
                    {
                        final long half = length / 2;
                        assertEquals(0, p.a.writemsg(new Message().buffer(written, 0, length).addr(p.addrBFromA)
                            .rmaIov(new long[]{0, half}, new long[]{half, length - half}, new long[]{KEY, KEY}, 2)
                            .context(1), Flags.COMPLETION));
                    }
                    // No wait: the read is posted while the write may still be on its way.
                    assertEquals(0, p.a.read(back, 0, length, p.addrBFromA, 0, KEY, 2));
                    awaitBoth(p);
                    assertPattern(back, 0, length, round + 1);
                }
                // An atomic write, then a read of it.
                final UnsafeBuffer operand = direct(8);
                operand.putLong(0, 5);
                target.putLong(0, 10);
                final UnsafeBuffer back = direct(8);
                assertEquals(0, p.a.atomic(operand, 0, 1, p.addrBFromA, 0, KEY, AtomicDatatype.INT64,
                    AtomicOp.SUM, 1));
                assertEquals(0, p.a.read(back, 0, 8, p.addrBFromA, 0, KEY, 2));
                awaitBoth(p);
                assertEquals(15, back.getLong(0));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldLeaveTheSecondOfTwoWritesUpToMaxOrderWawSize(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final long order = p.infoA.txAttr().msgOrder();
            final int size = (int) Math.min(p.infoA.epAttr().maxOrderWawSize(), 1 << 20);
            if ((order & MsgOrder.WAW) == 0 || size <= 0)
            {
                return;
            }
            final UnsafeBuffer target = direct(size);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, size, Flags.REMOTE_WRITE, KEY))
            {
                for (int round = 0; round < ROUNDS; round++)
                {
                    final UnsafeBuffer first = pattern(size, 2 * round + 1);
                    final UnsafeBuffer second = pattern(size, 2 * round + 2);
                    assertEquals(0, p.a.write(first, 0, size, p.addrBFromA, 0, KEY, 1));
                    assertEquals(0, p.a.write(second, 0, size, p.addrBFromA, 0, KEY, 2));
                    awaitBoth(p);
                    assertPattern(target, 0, size, 2 * round + 2);
                }
            }
        }
    }

    private static void awaitBoth(final Pair p)
    {
        final Set<Long> contexts = new HashSet<>();
        contexts.add(one(p.cqA).context());
        contexts.add(one(p.cqA).context());
        assertEquals(Set.of(1L, 2L), contexts);
    }

    private Errno refused(final Info hints)
    {
        final FabricAttr named = FabricAttr.builder().provName(provider()).build();
        return assertThrows(FabricException.class,
            () -> Fabric.getInfo(hints.toBuilder().fabricAttr(named).build())).errno();
    }
}
