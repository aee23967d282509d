package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionQueue;
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
import io.jfabric.stat.DomainCounters;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Pair.assertEmpty;
import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static io.jfabric.conformance.Pair.progressAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code FI_EP_DGRAM} endpoints (fi_endpoint(3); RUNTIME.md, "Datagram endpoints and multicast"): the info (message
 * caps only, no RMA or atomics, no {@code FI_DELIVERY_COMPLETE}, a {@code max_msg_size} of one frame), data verified
 * at 0 B, 1 B, inject size -1/exact/+1 and {@code max_msg_size}, untagged and tagged, with {@code FI_SOURCE} and
 * directed receives, {@code -EMSGSIZE} above {@code max_msg_size}, refused RMA, atomics and delivery-complete, a
 * datagram with no posted receive kept within the unexpected store's bounds and the rest dropped, and a flood into a
 * small CQ; no {@code FI_MULTICAST} info and {@code fi_join} refused with {@code ENOSYS}. A provider whose
 * datagrams may be lost ({@link PairFactory#losesDatagrams()}) is held to what arrived: in order, no duplicate,
 * never a hang; a lossless one to every datagram.
 * <p>
 * A suite class: a provider runs it by extending it with its {@link PairFactory} (see {@link Conformance}).
 */
@Timeout(60)
public abstract class DgramConformance extends Conformance
{
    private static final long NO_ARRIVAL_NS = 2_000_000_000L;

    /**
     * @param factory the provider under test.
     */
    protected DgramConformance(final PairFactory factory)
    {
        super(factory);
    }

    @AfterEach
    void clearStoreBounds()
    {
        System.clearProperty(FlowControl.UNEXPECTED_ENTRIES_PROP);
    }

    private Info dgram(final Progress progress)
    {
        return info(Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.SOURCE | Flags.DIRECTED_RECV)
            .epAttr(EpAttr.builder().type(EndpointType.DGRAM).build())
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .build());
    }

    private Pair dgramPair(final Progress progress, final int cqSize)
    {
        return pair(dgram(progress), 0, CqFormat.TAGGED, cqSize);
    }

    @Test
    protected void shouldOfferDatagramInfosWithMessageCapsOnlyAndNoDeliveryComplete()
    {
        for (final Progress progress : new Progress[]{Progress.AUTO, Progress.MANUAL})
        {
            final Info info = dgram(progress);
            assertEquals(EndpointType.DGRAM, info.epAttr().type());
            assertEquals(Flags.MSG | Flags.TAGGED, info.caps() & (Flags.MSG | Flags.TAGGED));
            assertEquals(0, info.caps() & (Flags.RMA | Flags.ATOMIC | Flags.READ | Flags.WRITE |
                Flags.REMOTE_READ | Flags.REMOTE_WRITE));
            assertEquals(0, info.txAttr().opFlags() & (Flags.DELIVERY_COMPLETE | Flags.COMMIT_COMPLETE));
            assertTrue(info.epAttr().maxMsgSize() > 0, "max_msg_size");
            assertTrue(info.txAttr().injectSize() <= info.epAttr().maxMsgSize(), "inject_size <= max_msg_size");
        }
        // Asking for RMA or for delivery-complete on a datagram endpoint finds nothing.
        assertThrows(FabricException.class, () -> info(Info.builder()
            .caps(Flags.MSG | Flags.RMA)
            .epAttr(EpAttr.builder().type(EndpointType.DGRAM).build())
            .build()));
        assertThrows(FabricException.class, () -> info(Info.builder()
            .caps(Flags.MSG)
            .txAttr(TxAttr.builder().opFlags(Flags.DELIVERY_COMPLETE).build())
            .epAttr(EpAttr.builder().type(EndpointType.DGRAM).build())
            .build()));
    }

    @Test
    protected void shouldNotAdvertiseMulticastAndRefuseAJoinWithEnosys()
    {
        final FabricException none = assertThrows(FabricException.class, () -> info(Info.builder()
            .caps(Flags.MSG | Flags.MULTICAST)
            .epAttr(EpAttr.builder().type(EndpointType.DGRAM).build())
            .build()));
        assertEquals(Errno.ENODATA, none.errno());
        try (Pair p = dgramPair(Progress.MANUAL, 64))
        {
            final byte[] group = p.b.name();
            assertEquals(Errno.ENOSYS, assertThrows(FabricException.class, () -> p.a.join(group, 0, null)).errno());
            assertEquals(Errno.ENOSYS,
                assertThrows(FabricException.class, () -> p.a.join(group, Flags.RECV, null)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> p.a.join(null, 0, null)).errno());
            assertEquals(Errno.EBADFLAGS,
                assertThrows(FabricException.class, () -> p.a.join(group, Flags.TAGGED, null)).errno());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldCarryDatagramsOfEverySizeUntaggedAndTaggedWithTheirSource(final Progress progress)
    {
        try (Pair p = dgramPair(progress, 1024))
        {
            final int inject = (int) p.infoA.txAttr().injectSize();
            final int max = (int) p.infoA.epAttr().maxMsgSize();
            final int[] sizes = {0, 1, inject - 1, inject, Math.min(max, inject + 1), max};
            final UnsafeBuffer rx = direct(max + 16);
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
                        assertEquals(0, p.b.trecv(rx, 0, max + 16, p.addrAFromB, seed, 0, 100 + seed));
                        awaitSend(p, p.a.tsend(pattern(size, seed), 0, size, p.addrBFromA, seed, seed), seed);
                    }
                    else
                    {
                        assertEquals(0, p.b.recv(rx, 0, max + 16, AddressVector.ADDR_UNSPEC, 100 + seed));
                        awaitSend(p, p.a.send(pattern(size, seed), 0, size, p.addrBFromA, seed), seed);
                    }
                    readFrom(p.cqB, entries, sources);
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

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldInjectDatagramsAndDeliverThemToDirectedReceivesOnly(final Progress progress)
    {
        try (Pair p = dgramPair(progress, 1024))
        {
            final int inject = (int) p.infoA.txAttr().injectSize();
            final UnsafeBuffer heap = new UnsafeBuffer(new byte[inject + 1]);
            final UnsafeBuffer rx = direct(inject);
            // A receive directed at b itself never takes a's datagram; the one for a does.
            assertEquals(0, p.b.trecv(rx, 0, inject, AddressVector.ADDR_UNSPEC, 7, 0, 70));
            heap.setMemory(0, inject, (byte) 0x5A);
            assertEquals(0, p.a.tinject(heap, 0, inject, p.addrBFromA, 7));
            heap.setMemory(0, inject, (byte) 0x11);
            final CompletionEntry atB = one(p.cqB);
            assertEquals(70, atB.context());
            assertEquals(inject, atB.len());
            assertEquals(0x5A, rx.getByte(inject - 1));
            assertEquals(Errno.EMSGSIZE.negated(), p.a.inject(heap, 0, inject + 1, p.addrBFromA));
            assertEmpty(p.cqA);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldRefuseOversizedDatagramsRmaAtomicsAndDeliveryComplete(final Progress progress)
    {
        try (Pair p = dgramPair(progress, 64))
        {
            final int above = (int) p.infoA.epAttr().maxMsgSize() + 1;
            final UnsafeBuffer big = direct(above);
            assertEquals(Errno.EMSGSIZE.negated(), p.a.send(big, 0, above, p.addrBFromA, 1));
            assertEquals(Errno.EMSGSIZE.negated(), p.a.tsend(big, 0, above, p.addrBFromA, 1, 2));
            final int write = p.a.write(big, 0, 8, p.addrBFromA, 0, 1, 3);
            final int read = p.a.read(big, 0, 8, p.addrBFromA, 0, 1, 4);
            assertTrue(Errno.ENOSYS.negated() == write || Errno.EOPNOTSUPP.negated() == write, "write: " + write);
            assertTrue(Errno.ENOSYS.negated() == read || Errno.EOPNOTSUPP.negated() == read, "read: " + read);
            assertEquals(Errno.EINVAL.negated(), p.a.sendmsg(new Message().buffer(big, 0, 8).addr(p.addrBFromA)
                .context(5), Flags.DELIVERY_COMPLETE));
            assertEquals(Errno.EINVAL.negated(), p.a.tsendmsg(new Message().buffer(big, 0, 8).addr(p.addrBFromA)
                .tag(1).context(6), Flags.DELIVERY_COMPLETE | Flags.COMPLETION));
            // An endpoint whose op flags ask for delivery-complete is refused at open.
            final Info asking = p.infoA.toBuilder()
                .txAttr(p.infoA.txAttr().toBuilder().opFlags(Flags.DELIVERY_COMPLETE).build()).build();
            final FabricException refused = assertThrows(FabricException.class, () -> p.domainA.endpoint(asking));
            assertEquals(Errno.EINVAL, refused.errno());
            // The refused posts left nothing behind: a datagram still goes.
            final UnsafeBuffer rx = direct(16);
            assertEquals(0, p.b.recv(rx, 0, 16, AddressVector.ADDR_UNSPEC, 9));
            awaitSend(p, p.a.send(pattern(16, 4), 0, 16, p.addrBFromA, 10), 10);
            assertEquals(9, one(p.cqB).context());
            assertPattern(rx, 0, 16, 4);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldKeepDatagramsWithoutAReceiveWithinTheStoreAndDropTheRest(final Progress progress)
    {
        final int kept = 16;
        final int sent = 40;
        System.setProperty(FlowControl.UNEXPECTED_ENTRIES_PROP, Integer.toString(kept));
        try (Pair p = dgramPair(progress, 1024))
        {
            final long framesBefore = p.domainB.counters().value(DomainCounters.TYPE_FRAMES_IN);
            for (int i = 0; i < sent; i++)
            {
                awaitSend(p, p.a.tsend(pattern(32, i), 0, 32, p.addrBFromA, i, i), i);
            }
            // Every datagram reached b's agent (or, on a lossy transport, nothing more comes) before any receive.
            awaitFrames(p, framesBefore + sent);
            final UnsafeBuffer[] rx = new UnsafeBuffer[sent + 1];
            for (int i = 0; i <= sent; i++)
            {
                rx[i] = direct(32);
                assertEquals(0, p.b.trecv(rx[i], 0, 32, AddressVector.ADDR_UNSPEC, 0, -1L, 1000 + i));
            }
            // A marker after them: once it is in, every earlier datagram was taken from the store or dropped.
            awaitSend(p, p.a.tsend(pattern(32, 99), 0, 32, p.addrBFromA, 99, 99), 99);
            final CompletionEntry entry = new CompletionEntry();
            long last = -1;
            int received = 0;
            final long deadline = System.nanoTime() + (factory.losesDatagrams() ? NO_ARRIVAL_NS : Pair.DEADLINE_NS);
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
                    if (!factory.losesDatagrams())
                    {
                        fail("the marker never came");
                    }
                    break;
                }
                progressAll();
            }
            if (factory.losesDatagrams())
            {
                assertTrue(received <= kept, "kept " + received + " of " + sent + " within a store of " + kept);
            }
            else
            {
                // The first ones filled the store, the others were dropped (counted), none waited for a receive.
                assertEquals(kept, received);
                assertEquals(kept - 1, last);
            }
            assertEmpty(p.cqA);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldFloodDatagramsIntoASmallCqAndReportWhatArrivedInOrder(final Progress progress)
    {
        final int count = 3000;
        final int window = 4;
        try (Pair p = dgramPair(progress, window))
        {
            // A send's buffer is the application's until its completion: one per send in flight.
            final UnsafeBuffer[] payload = new UnsafeBuffer[window];
            final UnsafeBuffer[] rx = new UnsafeBuffer[window];
            for (int i = 0; i < window; i++)
            {
                rx[i] = direct(64);
                payload[i] = direct(64);
                assertEquals(0, p.b.trecv(rx[i], 0, 64, AddressVector.ADDR_UNSPEC, 0, -1L, i));
            }
            final CompletionEntry entry = new CompletionEntry();
            int posted = 0;
            int completed = 0;
            int received = 0;
            long last = -1;
            long lastArrivalNs = System.nanoTime();
            final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            while (completed < count || received < count)
            {
                if (posted < count && posted - completed < window)
                {
                    final UnsafeBuffer buffer = payload[posted % window];
                    buffer.putLong(0, posted);
                    final int rc = p.a.tsend(buffer, 0, 64, p.addrBFromA, posted, posted);
                    if (0 == rc)
                    {
                        posted++;
                    }
                    else
                    {
                        assertEquals(Errno.EAGAIN.negated(), rc);
                    }
                }
                if (1 == p.cqA.read(entry))
                {
                    assertEquals(completed, entry.context(), "sends complete in order");
                    completed++;
                }
                if (1 == p.cqB.read(entry))
                {
                    final int slot = (int) entry.context();
                    assertTrue(entry.tag() > last, "in order, no duplicate: " + entry.tag() + " after " + last);
                    assertEquals(entry.tag(), rx[slot].getLong(0));
                    last = entry.tag();
                    received++;
                    lastArrivalNs = System.nanoTime();
                    assertEquals(0, p.b.trecv(rx[slot], 0, 64, AddressVector.ADDR_UNSPEC, 0, -1L, slot));
                }
                if (completed == count && factory.losesDatagrams() && System.nanoTime() - lastArrivalNs >
                    NO_ARRIVAL_NS)
                {
                    break;
                }
                if (System.nanoTime() - deadline > 0)
                {
                    fail("flood stalled: " + completed + " sends completed, " + received + " received");
                }
                progressAll();
            }
            assertEquals(count, completed);
            assertTrue(received > 0 && received <= count, "received " + received);
            if (!factory.losesDatagrams())
            {
                assertEquals(count, received);
            }
        }
    }

    private static void awaitSend(final Pair p, final int rc, final long context)
    {
        assertEquals(0, rc, "post of " + context);
        assertEquals(context, one(p.cqA).context());
    }

    private void awaitFrames(final Pair p, final long frames)
    {
        final long deadline = System.nanoTime() + (factory.losesDatagrams() ? NO_ARRIVAL_NS : Pair.DEADLINE_NS);
        while (p.domainB.counters().value(DomainCounters.TYPE_FRAMES_IN) < frames)
        {
            if (System.nanoTime() - deadline > 0)
            {
                if (factory.losesDatagrams())
                {
                    return;
                }
                fail("only " + p.domainB.counters().value(DomainCounters.TYPE_FRAMES_IN) + " of " + frames +
                    " frames arrived");
            }
            progressAll();
        }
    }

    private static void readFrom(final CompletionQueue cq, final CompletionEntry[] entries, final long[] sources)
    {
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        while (1 != cq.readFrom(entries, sources, 1))
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("no receive completion before the deadline");
            }
            progressAll();
        }
    }
}
