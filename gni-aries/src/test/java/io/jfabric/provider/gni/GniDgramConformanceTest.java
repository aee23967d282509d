package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CqFormat;
import io.jfabric.DomainAttr;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.TxAttr;
import io.jfabric.agent.FlowControl;
import io.jfabric.conformance.DgramConformance;
import io.jfabric.conformance.Pair;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link DgramConformance} over the {@code gni} provider. Overridden by their gni forms: the info case
 * ({@link GniDifferences#DGRAM_ALL_OPS}: a gni DGRAM endpoint takes RMA, atomics and delivery-complete when asked,
 * as fi_gni(7) says every operation family is supported for every endpoint type) and the store case
 * ({@link GniDifferences#DGRAM_MAILBOX}: datagrams with no receive posted are not dropped; the NIC's mailbox holds
 * what the runtime's store cannot, so every one arrives, in order, once receives are posted).
 */
class GniDgramConformanceTest extends DgramConformance
{
    GniDgramConformanceTest()
    {
        super(GniConformance.FACTORY);
    }

    private Info dgramInfo(final Progress progress, final long caps, final long txOpFlags)
    {
        return info(Info.builder().caps(caps)
            .txAttr(TxAttr.builder().opFlags(txOpFlags).build())
            .epAttr(EpAttr.builder().type(EndpointType.DGRAM).build())
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .build());
    }

    @Override
    @Test
    @DisplayName("gni DGRAM_ALL_OPS: DGRAM infos with msg and tagged; RMA, atomics and delivery-complete when asked")
    protected void shouldOfferDatagramInfosWithMessageCapsOnlyAndNoDeliveryComplete()
    {
        for (final Progress progress : new Progress[]{Progress.AUTO, Progress.MANUAL})
        {
            final Info info = dgramInfo(progress, Flags.MSG | Flags.TAGGED, 0);
            assertEquals(EndpointType.DGRAM, info.epAttr().type());
            assertEquals(Flags.MSG | Flags.TAGGED, info.caps() & (Flags.MSG | Flags.TAGGED));
            assertEquals(0, info.caps() & (Flags.RMA | Flags.ATOMIC), "only what was asked for");
            assertTrue(info.epAttr().maxMsgSize() > 0, "max_msg_size");
            assertTrue(info.txAttr().injectSize() <= info.epAttr().maxMsgSize(), "inject_size <= max_msg_size");
            final Info rma = dgramInfo(progress, Flags.MSG | Flags.RMA | Flags.ATOMIC, 0);
            assertEquals(Flags.RMA | Flags.ATOMIC, rma.caps() & (Flags.RMA | Flags.ATOMIC));
            final Info delivery = dgramInfo(progress, Flags.MSG, Flags.DELIVERY_COMPLETE);
            assertEquals(Flags.DELIVERY_COMPLETE, delivery.txAttr().opFlags() & Flags.DELIVERY_COMPLETE);
        }
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni DGRAM_MAILBOX: datagrams with no receive posted wait in the store and the mailbox, none dropped")
    protected void shouldKeepDatagramsWithoutAReceiveWithinTheStoreAndDropTheRest(final Progress progress)
    {
        final int sent = 40;
        System.setProperty(FlowControl.UNEXPECTED_ENTRIES_PROP, "16");
        try (Pair p = pair(dgramInfo(progress, Flags.MSG | Flags.TAGGED | Flags.SOURCE | Flags.DIRECTED_RECV, 0), 0,
            CqFormat.TAGGED, 1024))
        {
            for (int i = 0; i < sent; i++)
            {
                assertEquals(0, p.a.tsend(pattern(32, i), 0, 32, p.addrBFromA, i, i));
                assertEquals(i, one(p.cqA).context());
            }
            final UnsafeBuffer[] rx = new UnsafeBuffer[sent + 1];
            for (int i = 0; i <= sent; i++)
            {
                rx[i] = direct(32);
                assertEquals(0, p.b.trecv(rx[i], 0, 32, AddressVector.ADDR_UNSPEC, 0, -1L, 1000 + i));
            }
            assertEquals(0, p.a.tsend(pattern(32, 99), 0, 32, p.addrBFromA, 99, 99));
            assertEquals(99, one(p.cqA).context());
            final CompletionEntry entry = new CompletionEntry();
            long last = -1;
            int received = 0;
            final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            while (true)
            {
                if (1 == p.cqB.read(entry))
                {
                    final int slot = (int) (entry.context() - 1000);
                    if (99 == entry.tag())
                    {
                        assertPattern(rx[slot], 0, 32, 99);
                        break;
                    }
                    assertTrue(entry.tag() > last, "in order, no duplicate: " + entry.tag() + " after " + last);
                    assertPattern(rx[slot], 0, 32, (int) entry.tag());
                    last = entry.tag();
                    received++;
                }
                else if (System.nanoTime() - deadline > 0)
                {
                    fail("the marker never came (" + received + " of " + sent + " before it)");
                }
                Pair.progressAll();
            }
            assertEquals(sent, received, "none dropped");
            assertEquals(sent - 1, last);
        }
        finally
        {
            System.clearProperty(FlowControl.UNEXPECTED_ENTRIES_PROP);
        }
    }
}
