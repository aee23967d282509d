package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CqFormat;
import io.jfabric.DomainAttr;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Message;
import io.jfabric.Progress;
import io.jfabric.TxAttr;
import io.jfabric.agent.FlowControl;
import io.jfabric.conformance.DgramConformance;
import io.jfabric.conformance.Pair;
import org.agrona.DirectBuffer;
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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link DgramConformance} over the {@code gni} provider. Overridden by their gni forms: the info case
 * ({@link GniDifferences#DGRAM_ALL_OPS}: a gni DGRAM endpoint takes RMA, atomics and delivery-complete when asked,
 * as fi_gni(7) says every operation family is supported for every endpoint type) and the store case
 * ({@link GniDifferences#DGRAM_MAILBOX}: datagrams with no receive posted are not dropped; the NIC's mailbox holds
 * what the runtime's store cannot, so every one arrives, in order, once receives are posted) and the two cases that
 * take {@code max_msg_size} as a Java int ({@link GniDifferences#MAX_MSG_4G}: gni's is upstream's 2^32 - 1).
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

    private Pair datagrams(final Progress progress, final int cqSize)
    {
        return pair(dgramInfo(progress, Flags.MSG | Flags.TAGGED | Flags.SOURCE | Flags.DIRECTED_RECV, 0), 0,
            CqFormat.TAGGED, cqSize);
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni MAX_MSG_4G: datagrams of 0 B to 1 MiB + 3 with their source; max_msg_size 2^32 - 1")
    protected void shouldCarryDatagramsOfEverySizeUntaggedAndTaggedWithTheirSource(final Progress progress)
    {
        try (Pair p = datagrams(progress, 1024))
        {
            assertEquals((1L << 32) - 1, p.infoA.epAttr().maxMsgSize());
            final int inject = (int) p.infoA.txAttr().injectSize();
            final int largest = (1 << 20) + 3;
            final int[] sizes = {0, 1, inject - 1, inject, inject + 1, 16_345, largest};
            final UnsafeBuffer rx = direct(largest + 16);
            final CompletionEntry[] entries = {new CompletionEntry()};
            final long[] sources = new long[1];
            int seed = 1;
            for (final int size : sizes)
            {
                for (final boolean tagged : new boolean[]{false, true})
                {
                    seed++;
                    rx.setMemory(0, rx.capacity(), (byte) 0);
                    if (tagged)
                    {
                        assertEquals(0, p.b.trecv(rx, 0, largest + 16, p.addrAFromB, seed, 0, 100 + seed));
                        assertEquals(0, p.a.tsend(pattern(size, seed), 0, size, p.addrBFromA, seed, seed));
                    }
                    else
                    {
                        assertEquals(0, p.b.recv(rx, 0, largest + 16, AddressVector.ADDR_UNSPEC, 100 + seed));
                        assertEquals(0, p.a.send(pattern(size, seed), 0, size, p.addrBFromA, seed));
                    }
                    assertEquals(seed, one(p.cqA).context());
                    final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
                    while (1 != p.cqB.readFrom(entries, sources, 1))
                    {
                        assertTrue(System.nanoTime() - deadline < 0, "no receive completion before the deadline");
                        Pair.progressAll();
                    }
                    assertEquals(100 + seed, entries[0].context(), "size " + size);
                    assertEquals(size, entries[0].len(), "size " + size);
                    assertEquals((tagged ? Flags.TAGGED : Flags.MSG) | Flags.RECV, entries[0].flags());
                    assertEquals(p.addrAFromB, sources[0], "FI_SOURCE");
                    assertPattern(rx, 0, size, seed);
                    assertEquals(0, rx.getByte(size), "nothing beyond the datagram");
                }
            }
        }
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni MAX_MSG_4G: 2^32 bytes (an iov) EMSGSIZE at post; RMA not asked for, delivery-complete refused")
    protected void shouldRefuseOversizedDatagramsRmaAtomicsAndDeliveryComplete(final Progress progress)
    {
        try (Pair p = datagrams(progress, 64))
        {
            final UnsafeBuffer big = direct(64);
            // 2^32 bytes, max_msg_size + 1: eight views of 512 MiB claimed over one small buffer, refused before any
            // byte is read (no test machine holds such a message).
            final DirectBuffer[] above = new DirectBuffer[8];
            for (int i = 0; i < 8; i++)
            {
                above[i] = new UnsafeBuffer(big.addressOffset(), 1 << 29);
            }
            assertEquals(p.infoA.epAttr().maxMsgSize() + 1, 8L << 29);
            assertEquals(Errno.EMSGSIZE.negated(), p.a.sendv(above, 8, p.addrBFromA, 1));
            assertEquals(Errno.EMSGSIZE.negated(), p.a.tsendv(above, 8, p.addrBFromA, 1, 2));
            final int write = p.a.write(big, 0, 8, p.addrBFromA, 0, 1, 3);
            final int read = p.a.read(big, 0, 8, p.addrBFromA, 0, 1, 4);
            assertTrue(Errno.ENOSYS.negated() == write || Errno.EOPNOTSUPP.negated() == write, "write: " + write);
            assertTrue(Errno.ENOSYS.negated() == read || Errno.EOPNOTSUPP.negated() == read, "read: " + read);
            assertEquals(Errno.EINVAL.negated(), p.a.sendmsg(new Message().buffer(big, 0, 8).addr(p.addrBFromA)
                .context(5), Flags.DELIVERY_COMPLETE));
            assertEquals(Errno.EINVAL.negated(), p.a.tsendmsg(new Message().buffer(big, 0, 8).addr(p.addrBFromA)
                .tag(1).context(6), Flags.DELIVERY_COMPLETE | Flags.COMPLETION));
            final Info asking = p.infoA.toBuilder()
                .txAttr(p.infoA.txAttr().toBuilder().opFlags(Flags.DELIVERY_COMPLETE).build()).build();
            final FabricException refused = assertThrows(FabricException.class, () -> p.domainA.endpoint(asking));
            assertEquals(Errno.EINVAL, refused.errno());
            // The refused posts left nothing behind: a datagram still goes.
            final UnsafeBuffer rx = direct(16);
            assertEquals(0, p.b.recv(rx, 0, 16, AddressVector.ADDR_UNSPEC, 9));
            assertEquals(0, p.a.send(pattern(16, 4), 0, 16, p.addrBFromA, 10));
            assertEquals(10, one(p.cqA).context());
            assertEquals(9, one(p.cqB).context());
            assertPattern(rx, 0, 16, 4);
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
