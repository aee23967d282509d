package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.Message;
import io.jfabric.Progress;
import io.jfabric.TxAttr;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Pair.assertEmpty;
import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 10 §4 on every provider: FI_INJECT given as op_flags or to a msg form (copied at post, completed), directed
 * receive only with FI_DIRECTED_RECV, delivery-complete answers in the target's same duty cycle, requests to a
 * closed endpoint answered with an error, removed MAP addresses refused.
 */
@Timeout(120)
public abstract class SemanticsConformance extends Conformance
{
    /**
     * @param factory the provider under test.
     */
    protected SemanticsConformance(final PairFactory factory)
    {
        super(factory);
    }

    private static final long CAPS = Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC;

    private Info infoWithCaps(final Progress progress, final long caps, final long txOpFlags)
    {
        return info(Info.builder()
            .caps(caps)
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .txAttr(TxAttr.builder().opFlags(txOpFlags).build())
            .build());
    }

    private static void overwrite(final UnsafeBuffer buffer)
    {
        buffer.setMemory(0, buffer.capacity(), (byte) 0x5A);
    }

    /**
     * Read one completion of {@code cq} driving only {@code domains} (the other side is left alone).
     */
    private static CompletionEntry oneDriving(final CompletionQueue cq, final Domain... domains)
    {
        final CompletionEntry entry = new CompletionEntry();
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        while (true)
        {
            final int n = cq.read(entry);
            if (1 == n)
            {
                return entry;
            }
            if (Errno.EAVAIL.negated() == n)
            {
                final CompletionErrorEntry err = new CompletionErrorEntry();
                cq.readErr(err);
                fail("error completion " + err.errno() + " for context " + err.context());
            }
            assertTrue(System.nanoTime() - deadline < 0, "no completion before the deadline");
            for (final Domain d : domains)
            {
                d.progress();
            }
            Thread.yield();
        }
    }

    // ---------------------------------------------------------------- 1. FI_INJECT in tx op_flags

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    protected void shouldCopyAtPostAndCompleteWhenTxOpFlagsHoldInject(final Progress progress)
    {
        final Info info = infoWithCaps(progress, CAPS, Flags.INJECT);
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 64))
        {
            final int size = (int) info.txAttr().injectSize();
            final UnsafeBuffer tagged = pattern(size, 1);
            final UnsafeBuffer untagged = pattern(size, 2);
            final UnsafeBuffer first = pattern(40, 3);
            final UnsafeBuffer second = pattern(60, 4);
            assertEquals(0, p.a.tsend(tagged, 0, size, p.addrBFromA, 9, 11));
            overwrite(tagged);
            assertEquals(0, p.a.send(untagged, 0, size, p.addrBFromA, 12));
            overwrite(untagged);
            assertEquals(0, p.a.sendv(new UnsafeBuffer[]{first, second}, 2, p.addrBFromA, 13));
            overwrite(first);
            overwrite(second);
            // Above inject_size FI_INJECT cannot be honoured.
            assertEquals(Errno.EMSGSIZE.negated(), p.a.tsend(direct(size + 1), 0, size + 1, p.addrBFromA, 9, 14));

            assertEquals(11, one(p.cqA).context());
            assertEquals(12, one(p.cqA).context());
            assertEquals(13, one(p.cqA).context());
            final UnsafeBuffer rx = direct(size);
            assertEquals(0, p.b.trecv(rx, 0, size, AddressVector.ADDR_UNSPEC, 9, 0, 21));
            assertEquals(21, one(p.cqB).context());
            assertPattern(rx, 0, size, 1);
            assertEquals(0, p.b.recv(rx, 0, size, AddressVector.ADDR_UNSPEC, 22));
            assertEquals(22, one(p.cqB).context());
            assertPattern(rx, 0, size, 2);
            assertEquals(0, p.b.recv(rx, 0, size, AddressVector.ADDR_UNSPEC, 23));
            assertEquals(100, one(p.cqB).len());
            assertPattern(rx, 0, 40, 3);
            final UnsafeBuffer tail = new UnsafeBuffer(rx, 40, 60);
            assertPattern(tail, 0, 60, 4);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    protected void shouldCopyAtPostAndCompleteRmaWritesAndAtomicsWhenTxOpFlagsHoldInject(final Progress progress)
    {
        final Info info = infoWithCaps(progress, CAPS, Flags.INJECT);
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer target = direct(256);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 256,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 3))
            {
                final UnsafeBuffer out = pattern(100, 5);
                assertEquals(0, p.a.write(out, 0, 100, p.addrBFromA, 0, mr.key(), 31));
                overwrite(out);
                final UnsafeBuffer operand = direct(8);
                operand.putLong(0, 41);
                assertEquals(0, p.a.atomic(operand, 0, 1, p.addrBFromA, 200, mr.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 32));
                operand.putLong(0, 1000);
                // A read has nothing to copy: FI_INJECT does not change it, and it completes.
                final UnsafeBuffer back = direct(100);
                assertEquals(31, one(p.cqA).context());
                assertEquals(32, one(p.cqA).context());
                assertPattern(target, 0, 100, 5);
                assertEquals(41, target.getLong(200));
                assertEquals(0, p.a.read(back, 0, 100, p.addrBFromA, 0, mr.key(), 33));
                assertEquals(33, one(p.cqA).context());
                assertPattern(back, 0, 100, 5);
            }
        }
    }

    // ---------------------------------------------------------------- 2. msg forms with FI_INJECT complete

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    protected void shouldCompleteMsgFormsPostedWithInject(final Progress progress)
    {
        final Info info = infoWithCaps(progress, CAPS, 0);
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer tx = pattern(128, 6);
            assertEquals(0, p.a.tsendmsg(new Message().buffer(tx, 0, 128).addr(p.addrBFromA).tag(5).context(41),
                Flags.INJECT | Flags.COMPLETION));
            overwrite(tx);
            final UnsafeBuffer first = pattern(16, 7);
            final UnsafeBuffer second = pattern(16, 8);
            assertEquals(0, p.a.sendmsg(new Message().iov(new UnsafeBuffer[]{first, second}, 2)
                .addr(p.addrBFromA).context(42), Flags.INJECT | Flags.COMPLETION));
            overwrite(first);
            overwrite(second);
            final UnsafeBuffer heap = new UnsafeBuffer(new byte[32]);
            assertEquals(0, p.a.sendmsg(new Message().buffer(heap, 0, 32).addr(p.addrBFromA).context(43),
                Flags.INJECT));
            final int above = (int) info.txAttr().injectSize() + 1;
            assertEquals(Errno.EMSGSIZE.negated(), p.a.tsendmsg(new Message().buffer(direct(above), 0, above)
                .addr(p.addrBFromA).tag(5).context(44), Flags.INJECT));
            assertEquals(Errno.EINVAL.negated(), p.a.sendmsg(new Message().buffer(null, 0, 8).addr(p.addrBFromA)
                .context(47), Flags.INJECT));
            assertEquals(Errno.EINVAL.negated(), p.a.inject(null, 0, 8, p.addrBFromA));

            assertEquals(41, one(p.cqA).context());
            assertEquals(42, one(p.cqA).context());
            assertEquals(43, one(p.cqA).context());
            final UnsafeBuffer rx = direct(128);
            assertEquals(0, p.b.trecv(rx, 0, 128, AddressVector.ADDR_UNSPEC, 5, 0, 51));
            assertEquals(51, one(p.cqB).context());
            assertPattern(rx, 0, 128, 6);
            assertEquals(0, p.b.recv(rx, 0, 128, AddressVector.ADDR_UNSPEC, 52));
            assertEquals(32, one(p.cqB).len());
            assertPattern(rx, 0, 16, 7);
            assertPattern(new UnsafeBuffer(rx, 16, 16), 0, 16, 8);

            final UnsafeBuffer target = direct(64);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 64, Flags.REMOTE_WRITE, 4))
            {
                final UnsafeBuffer out = pattern(24, 9);
                assertEquals(0, p.a.writemsg(new Message().buffer(out, 0, 24).addr(p.addrBFromA).rma(0, mr.key())
                    .context(45), Flags.INJECT | Flags.COMPLETION));
                overwrite(out);
                final UnsafeBuffer operand = direct(8);
                operand.putLong(0, 7);
                assertEquals(0, p.a.atomicmsg(new Message().buffer(operand, 0, 8).addr(p.addrBFromA)
                    .rma(32, mr.key()).context(46), AtomicDatatype.INT64, AtomicOp.SUM, Flags.INJECT));
                operand.putLong(0, 99);
                assertEquals(45, one(p.cqA).context());
                assertEquals(46, one(p.cqA).context());
                assertPattern(target, 0, 24, 9);
                assertEquals(7, target.getLong(32));
            }
            // The inject calls themselves still complete silently.
            assertEquals(0, p.a.tinject(pattern(8, 1), 0, 8, p.addrBFromA, 5));
            assertEquals(0, p.b.trecv(rx, 0, 128, AddressVector.ADDR_UNSPEC, 5, 0, 53));
            assertEquals(53, one(p.cqB).context());
            assertEmpty(p.cqA);
        }
    }

    // ---------------------------------------------------------------- 3. acknowledgements in the same cycle

    @Test
    protected void shouldCompleteDeliveryCompleteSendWhenTheTargetStopsProgressingAfterItsCompletion()
    {
        final Info info = infoWithCaps(Progress.MANUAL, CAPS, 0);
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, p.a.sendmsg(new Message().buffer(pattern(64, 2), 0, 64).addr(p.addrBFromA).context(2),
                Flags.COMPLETION | Flags.DELIVERY_COMPLETE));
            p.domainA.progress();
            // The target reads its completion and then never calls anything again.
            assertEquals(1, oneDriving(p.cqB, p.domainB).context());
            assertPattern(rx, 0, 64, 2);
            final CompletionEntry sent = oneDriving(p.cqA, p.domainA);
            assertEquals(2, sent.context());
            assertEquals(Flags.SEND | Flags.MSG, sent.flags());

            // The same with a tagged send (the case ShmSemanticsTest had).
            assertEquals(0, p.b.trecv(rx, 0, 64, p.addrAFromB, 5, 0, 3));
            assertEquals(0, p.a.tsendmsg(new Message().buffer(pattern(64, 6), 0, 64).addr(p.addrBFromA).tag(5)
                .context(4), Flags.COMPLETION | Flags.DELIVERY_COMPLETE));
            p.domainA.progress();
            assertEquals(3, oneDriving(p.cqB, p.domainB).context());
            assertPattern(rx, 0, 64, 6);
            final CompletionEntry tagged = oneDriving(p.cqA, p.domainA);
            assertEquals(4, tagged.context());
            assertEquals(Flags.SEND | Flags.TAGGED, tagged.flags());
        }
    }

    @Test
    protected void shouldCompleteWritedataWhenTheTargetStopsProgressingAfterItsRemoteCompletion()
    {
        final Info info = infoWithCaps(Progress.MANUAL, CAPS, 0);
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer target = direct(64);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 64, Flags.REMOTE_WRITE, 8))
            {
                assertEquals(0, p.a.writedata(pattern(32, 7), 0, 32, 77, p.addrBFromA, 0, mr.key(), 5));
                p.domainA.progress();
                // The target reads its remote CQ data completion, then never calls anything again.
                final CompletionEntry remote = oneDriving(p.cqB, p.domainB);
                assertEquals(Flags.REMOTE_WRITE | Flags.RMA | Flags.REMOTE_CQ_DATA, remote.flags());
                assertEquals(77, remote.data());
                assertPattern(target, 0, 32, 7);
                assertEquals(5, oneDriving(p.cqA, p.domainA).context());
            }
        }
    }

    @Test
    protected void shouldCompleteDeliveryCompleteSendWhenTheTargetClosesAfterItsCompletion()
    {
        final Info info = infoWithCaps(Progress.MANUAL, CAPS, 0);
        final Fabric fabric = Fabric.open(info);
        final Domain domainA = fabric.domain(info, "yield");
        final Domain domainB = fabric.domain(info, "yield");
        final AddressVector avA = domainA.addressVector(AvType.TABLE, 4);
        final AddressVector avB = domainB.addressVector(AvType.TABLE, 4);
        final CompletionQueue cqA = domainA.completionQueue(16, CqFormat.TAGGED);
        final CompletionQueue cqB = domainB.completionQueue(16, CqFormat.TAGGED);
        final Endpoint a = domainA.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable();
        final Endpoint b = domainB.endpoint(info).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV).enable();
        final long toB = avA.insert(b.name());
        avB.insert(a.name());
        final UnsafeBuffer rx = direct(64);
        assertEquals(0, b.trecv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 3, 0, 1));
        assertEquals(0, a.tsendmsg(new Message().buffer(pattern(64, 3), 0, 64).addr(toB).tag(3).context(2),
            Flags.COMPLETION | Flags.DELIVERY_COMPLETE));
        domainA.progress();
        assertEquals(1, oneDriving(cqB, domainB).context());
        // The target exits right after its completion.
        b.close();
        cqB.close();
        avB.close();
        domainB.close();
        assertEquals(2, oneDriving(cqA, domainA).context());
        a.close();
        cqA.close();
        avA.close();
        domainA.close();
        fabric.close();
    }

    // ---------------------------------------------------------------- 4. src_addr without FI_DIRECTED_RECV

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldIgnoreTheReceiveSourceAddressWithoutDirectedRecv(final Progress progress)
    {
        final Info info = infoWithCaps(progress, Flags.MSG | Flags.TAGGED, 0);
        assertEquals(0, info.caps() & Flags.DIRECTED_RECV);
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 64))
        {
            // fi_addr 1 is b itself: a filter on it would never hear from a (fi_addr 0).
            final long notA = p.avB.insert(p.b.name());
            assertEquals(1, notA);
            final UnsafeBuffer rx = direct(32);
            assertEquals(0, p.b.trecv(rx, 0, 32, notA, 8, 0, 1));
            assertEquals(0, p.b.recv(rx, 0, 32, notA, 2));
            assertEquals(0, p.a.tsend(pattern(32, 4), 0, 32, p.addrBFromA, 8, 3));
            assertEquals(0, p.a.send(pattern(32, 5), 0, 32, p.addrBFromA, 4));
            final CompletionEntry tagged = one(p.cqB);
            assertEquals(1, tagged.context());
            final CompletionEntry untagged = one(p.cqB);
            assertEquals(2, untagged.context());
            assertPattern(rx, 0, 32, 5);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldFilterOnTheReceiveSourceAddressWithDirectedRecv(final Progress progress)
    {
        final Info info = infoWithCaps(progress, Flags.MSG | Flags.TAGGED | Flags.DIRECTED_RECV, 0);
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 64))
        {
            final long notA = p.avB.insert(p.b.name());
            final UnsafeBuffer rx = direct(32);
            assertEquals(0, p.b.trecv(rx, 0, 32, notA, 8, 0, 1));
            assertEquals(0, p.a.tsend(pattern(32, 4), 0, 32, p.addrBFromA, 8, 3));
            assertEquals(3, one(p.cqA).context());
            assertEmpty(p.cqB);
            assertEquals(0, p.b.trecv(rx, 0, 32, p.addrAFromB, 8, 0, 2));
            assertEquals(2, one(p.cqB).context());
            assertPattern(rx, 0, 32, 4);
        }
    }

    // ---------------------------------------------------------------- 5. requests to a closed endpoint

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldFailRequestsToAClosedEndpointOfALiveDomainWithEconnrefused(final Progress progress)
    {
        final Info info = infoWithCaps(progress, CAPS, 0);
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 6))
            {
                p.b.close();
                final UnsafeBuffer buffer = pattern(64, 1);
                assertEquals(0, p.a.sendmsg(new Message().buffer(buffer, 0, 64).addr(p.addrBFromA).context(1),
                    Flags.COMPLETION | Flags.DELIVERY_COMPLETE));
                assertRefused(p, 1, Flags.SEND | Flags.MSG);
                final int large = 64 * 1024;
                assertEquals(0, p.a.tsend(pattern(large, 2), 0, large, p.addrBFromA, 1, 2));
                assertRefused(p, 2, Flags.SEND | Flags.TAGGED);
                assertEquals(0, p.a.write(buffer, 0, 64, p.addrBFromA, 0, mr.key(), 3));
                assertRefused(p, 3, Flags.RMA | Flags.WRITE);
                assertEquals(0, p.a.read(direct(64), 0, 64, p.addrBFromA, 0, mr.key(), 4));
                assertRefused(p, 4, Flags.RMA | Flags.READ);
                final UnsafeBuffer operand = direct(8);
                assertEquals(0, p.a.atomic(operand, 0, 1, p.addrBFromA, 0, mr.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 5));
                assertRefused(p, 5, Flags.ATOMIC | Flags.WRITE);
                assertEquals(0, p.a.fetchAtomic(operand, 0, 1, direct(8), 0, p.addrBFromA, 0, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 6));
                assertRefused(p, 6, Flags.ATOMIC | Flags.READ);
                assertEquals(0, p.a.write(pattern(1 << 20, 3), 0, 1 << 20, p.addrBFromA, 0, mr.key(), 7));
                assertRefused(p, 7, Flags.RMA | Flags.WRITE);
                assertEquals(0, target.getLong(0), "the closed endpoint's domain memory is untouched");
            }
        }
    }

    private static void assertRefused(final Pair p, final long context, final long flags)
    {
        final CompletionErrorEntry e = error(p.cqA);
        assertEquals(context, e.context());
        assertEquals(Errno.ECONNREFUSED, e.errno());
        assertEquals(flags, e.flags());
    }

    // ---------------------------------------------------------------- 6. removed MAP addresses

    @ParameterizedTest
    @EnumSource(value = AvType.class, names = {"MAP", "TABLE"})
    void shouldRefuseSendsToARemovedAddress(final AvType avType)
    {
        final Info info = infoWithCaps(Progress.MANUAL, CAPS, 0);
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domainA = fabric.domain(info, "yield");
            final Domain domainB = fabric.domain(info, "yield");
            final AddressVector avA = domainA.addressVector(avType, 4);
            final AddressVector avB = domainB.addressVector(avType, 4);
            final CompletionQueue cqA = domainA.completionQueue(16, CqFormat.TAGGED);
            final Endpoint a = domainA.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable();
            final Endpoint b = domainB.endpoint(info).bind(avB, 0).enable();
            final long h = avA.insert(b.name());
            final UnsafeBuffer buffer = pattern(16, 1);
            assertEquals(0, a.send(buffer, 0, 16, h, 1));
            assertEquals(1, oneDriving(cqA, domainA, domainB).context());
            avA.remove(h);
            assertEquals(Errno.EINVAL.negated(), a.send(buffer, 0, 16, h, 2));
            assertEquals(Errno.EINVAL.negated(), a.inject(buffer, 0, 16, h));
            assertEquals(Errno.EINVAL.negated(), a.tsend(buffer, 0, 16, h, 0, 3));
            assertEquals(Errno.EINVAL.negated(), a.write(buffer, 0, 16, h, 0, 1, 4));
            final long again = avA.insert(b.name());
            assertEquals(0, a.send(buffer, 0, 16, again, 5));
            assertEquals(5, oneDriving(cqA, domainA, domainB).context());
            a.close();
            b.close();
            cqA.close();
            avA.close();
            avB.close();
            domainA.close();
            domainB.close();
        }
    }
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldReportRmaAndAtomicErrorsOfOperationsPostedWithoutCompletionUnderSelectiveCompletion(
        final Progress progress)
    {
        // fi_cq(3): errors are reported for every operation, also one posted without FI_COMPLETION.
        try (Pair p = pair(progress, Flags.SELECTIVE_COMPLETION, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer target = direct(64);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 64, Flags.REMOTE_WRITE, 41))
            {
                final UnsafeBuffer source = pattern(64, 3);
                assertEquals(0, p.a.writemsg(new Message().buffer(source, 0, 64).addr(p.addrBFromA)
                    .rma(0, mr.key()).context(1), 0));
                assertEquals(0, p.a.writemsg(new Message().buffer(source, 0, 64).addr(p.addrBFromA)
                    .rma(32, mr.key()).context(2), 0));
                final CompletionErrorEntry outOfBounds = error(p.cqA);
                assertEquals(2, outOfBounds.context(), "the failed write, not the silent good one");
                assertEquals(Errno.EACCES, outOfBounds.errno());
                final UnsafeBuffer operand = direct(8);
                operand.putLong(0, 5);
                assertEquals(0, p.a.atomicmsg(new Message().buffer(operand, 0, 8).addr(p.addrBFromA)
                    .rma(0, mr.key() + 1000).context(3), AtomicDatatype.INT64, AtomicOp.SUM, 0));
                final CompletionErrorEntry badKey = error(p.cqA);
                assertEquals(3, badKey.context());
                assertEquals(Errno.EINVAL, badKey.errno());
                assertPattern(target, 0, 64, 3);
                assertEmpty(p.cqA);
            }
        }
    }
    @Test
    protected void shouldFailTheReceiveOfARendezvousWhoseSenderClosesItsEndpointMidStream()
    {
        assumeTrue(factory.deliversWithTheSendCompletion(),
            "assumes the frame is at the peer when the send completes (see PairFactory.deliversWithTheSendCompletion)");
        // The closing sender's agent stops reading the send buffer (the application may free it after close) and
        // ends the stream with ECONNREFUSED, so the receive completes with an error instead of waiting or taking
        // bytes from released memory.
        try (Pair p = pair(Progress.MANUAL, 0, CqFormat.TAGGED, 64))
        {
            final int size = 16 << 20;
            final UnsafeBuffer in = direct(size);
            final UnsafeBuffer out = pattern(size, 9);
            assertEquals(0, p.b.trecv(in, 0, size, AddressVector.ADDR_UNSPEC, 5, 0, 51));
            p.domainB.progress();
            assertEquals(0, p.a.tsend(out, 0, size, p.addrBFromA, 5, 52));
            p.domainA.progress();
            p.domainB.progress();
            // One duty cycle of the sender streams at most what the receiver's ring holds (4 MiB of 16).
            p.domainA.progress();
            p.a.close();
            final CompletionErrorEntry err = error(p.cqB);
            assertEquals(51, err.context());
            assertEquals(Errno.ECONNREFUSED, err.errno());
            assertEmpty(p.cqB);
        }
    }
    @Test
    void shouldFailARendezvousSendWhoseReceiverClosesItsEndpointAfterMatching()
    {
        // The receiver matched and asked for the data (CTS), then closed: its agent drops the chunks and answers the
        // last one with a FIN carrying ECONNREFUSED, so the send completes with that error instead of never.
        try (Pair p = pair(Progress.MANUAL, 0, CqFormat.TAGGED, 64))
        {
            final int size = 16 << 20;
            final UnsafeBuffer in = direct(size);
            final UnsafeBuffer out = pattern(size, 8);
            assertEquals(0, p.b.trecv(in, 0, size, AddressVector.ADDR_UNSPEC, 6, 0, 61));
            p.domainB.progress();
            assertEquals(0, p.a.tsend(out, 0, size, p.addrBFromA, 6, 62));
            p.domainA.progress();
            p.domainB.progress();
            p.b.close();
            final CompletionErrorEntry err = error(p.cqA);
            assertEquals(62, err.context());
            assertEquals(Errno.ECONNREFUSED, err.errno());
            assertTrue((err.flags() & Flags.TAGGED) != 0, "a tagged send's error says so");
        }
    }
}
