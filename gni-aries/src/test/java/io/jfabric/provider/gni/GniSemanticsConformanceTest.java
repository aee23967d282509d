package io.jfabric.provider.gni;

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
import io.jfabric.conformance.Drive;
import io.jfabric.conformance.Pair;
import io.jfabric.conformance.SemanticsConformance;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
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
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link SemanticsConformance} over the {@code gni} provider. Overridden by their gni forms: the three inject cases,
 * whose messages and writes above 64 bytes gni refuses ({@link GniDifferences#INJECT_64}: {@code -EMSGSIZE} at post,
 * nothing sent), and which then run at 64 bytes; the three cases that drive a MANUAL initiator once
 * ({@link GniDifferences#MANUAL_CONNECT}), which first connect the pair's VC with one message both sides progress
 * (GNI.md 2.2: the first operation to a peer needs the initiator's progress until CONN_RESP) and then make exactly
 * the case's calls; and the sender closing mid-stream ({@link GniDifferences#MANUAL_CONNECT}: the VC connected
 * first, the close before the receiver reads the START, whose GET could otherwise finish before the close on the
 * autonomous NICs).
 */
class GniSemanticsConformanceTest extends SemanticsConformance
{
    private static final long CAPS = Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC;
    private static final int INJECT = 64;

    GniSemanticsConformanceTest()
    {
        super(GniConformance.WITH_ATOMICS);
    }

    private Info infoWithCaps(final Progress progress, final long txOpFlags)
    {
        return info(Info.builder()
            .caps(CAPS)
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .txAttr(TxAttr.builder().opFlags(txOpFlags).build())
            .build());
    }

    private static void overwrite(final UnsafeBuffer buffer)
    {
        buffer.setMemory(0, buffer.capacity(), (byte) 0x5A);
    }

    /**
     * One message from {@code a} to {@code b} with both domains progressed: the lazy VC between their NICs is
     * connected afterwards (GNI.md 2.2).
     */
    private static void connect(
        final Endpoint a, final Endpoint b, final long toB, final CompletionQueue cqA, final CompletionQueue cqB,
        final Domain domainA, final Domain domainB)
    {
        final UnsafeBuffer rx = direct(8);
        assertEquals(0, b.recv(rx, 0, 8, AddressVector.ADDR_UNSPEC, 900));
        assertEquals(0, a.send(pattern(8, 90), 0, 8, toB, 901));
        assertEquals(900, Drive.one(cqB, domainA, domainB).context());
        assertPattern(rx, 0, 8, 90);
        assertEquals(901, Drive.one(cqA, domainA, domainB).context());
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

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    @DisplayName("gni INJECT_64: FI_INJECT op_flags: a 100 B sendv and a 65 B tsend EMSGSIZE; 64 B sends copy at post")
    protected void shouldCopyAtPostAndCompleteWhenTxOpFlagsHoldInject(final Progress progress)
    {
        final Info info = infoWithCaps(progress, Flags.INJECT);
        assertEquals(INJECT, info.txAttr().injectSize());
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer tagged = pattern(INJECT, 1);
            final UnsafeBuffer untagged = pattern(INJECT, 2);
            final UnsafeBuffer first = pattern(24, 3);
            final UnsafeBuffer second = pattern(40, 4);
            // The suite's iov of 40 + 60 bytes is above inject_size: refused, nothing sent.
            assertEquals(Errno.EMSGSIZE.negated(), p.a.sendv(new UnsafeBuffer[]{pattern(40, 3), pattern(60, 4)}, 2,
                p.addrBFromA, 10));
            assertEquals(Errno.EMSGSIZE.negated(), p.a.tsend(direct(INJECT + 1), 0, INJECT + 1, p.addrBFromA, 9,
                14));
            assertEquals(0, p.a.tsend(tagged, 0, INJECT, p.addrBFromA, 9, 11));
            overwrite(tagged);
            assertEquals(0, p.a.send(untagged, 0, INJECT, p.addrBFromA, 12));
            overwrite(untagged);
            assertEquals(0, p.a.sendv(new UnsafeBuffer[]{first, second}, 2, p.addrBFromA, 13));
            overwrite(first);
            overwrite(second);

            assertEquals(11, one(p.cqA).context());
            assertEquals(12, one(p.cqA).context());
            assertEquals(13, one(p.cqA).context());
            final UnsafeBuffer rx = direct(INJECT);
            assertEquals(0, p.b.trecv(rx, 0, INJECT, AddressVector.ADDR_UNSPEC, 9, 0, 21));
            assertEquals(21, one(p.cqB).context());
            assertPattern(rx, 0, INJECT, 1);
            assertEquals(0, p.b.recv(rx, 0, INJECT, AddressVector.ADDR_UNSPEC, 22));
            assertEquals(22, one(p.cqB).context());
            assertPattern(rx, 0, INJECT, 2);
            assertEquals(0, p.b.recv(rx, 0, INJECT, AddressVector.ADDR_UNSPEC, 23));
            assertEquals(INJECT, one(p.cqB).len());
            assertPattern(rx, 0, 24, 3);
            assertPattern(new UnsafeBuffer(rx, 24, 40), 0, 40, 4);
            assertEmpty(p.cqA);
            assertEmpty(p.cqB);
        }
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    @DisplayName("gni INJECT_64: FI_INJECT op_flags: a 100 B write EMSGSIZE, target untouched; 64 B write copies")
    protected void shouldCopyAtPostAndCompleteRmaWritesAndAtomicsWhenTxOpFlagsHoldInject(final Progress progress)
    {
        final Info info = infoWithCaps(progress, Flags.INJECT);
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer target = direct(256);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 256,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 3))
            {
                assertEquals(Errno.EMSGSIZE.negated(), p.a.write(pattern(100, 5), 0, 100, p.addrBFromA, 0,
                    mr.key(), 30));
                final UnsafeBuffer out = pattern(INJECT, 5);
                assertEquals(0, p.a.write(out, 0, INJECT, p.addrBFromA, 0, mr.key(), 31));
                overwrite(out);
                final UnsafeBuffer operand = direct(8);
                operand.putLong(0, 41);
                assertEquals(0, p.a.atomic(operand, 0, 1, p.addrBFromA, 200, mr.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 32));
                operand.putLong(0, 1000);
                final UnsafeBuffer back = direct(100);
                assertEquals(31, one(p.cqA).context());
                assertEquals(32, one(p.cqA).context());
                assertPattern(target, 0, INJECT, 5);
                for (int i = INJECT; i < 200; i++)
                {
                    assertEquals(0, target.getByte(i), "nothing of the refused write landed: byte " + i);
                }
                assertEquals(41, target.getLong(200));
                // A read has nothing to copy: FI_INJECT does not change it, and it completes at 100 bytes too.
                assertEquals(0, p.a.read(back, 0, 100, p.addrBFromA, 0, mr.key(), 33));
                assertEquals(33, one(p.cqA).context());
                assertPattern(back, 0, INJECT, 5);
                assertEquals(0, back.getByte(INJECT));
                assertEmpty(p.cqA);
            }
        }
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    @DisplayName("gni INJECT_64: a 128 B tsendmsg with FI_INJECT EMSGSIZE; the msg forms at <= 64 B complete")
    protected void shouldCompleteMsgFormsPostedWithInject(final Progress progress)
    {
        final Info info = infoWithCaps(progress, 0);
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 64))
        {
            assertEquals(Errno.EMSGSIZE.negated(), p.a.tsendmsg(new Message().buffer(pattern(128, 6), 0, 128)
                .addr(p.addrBFromA).tag(5).context(40), Flags.INJECT | Flags.COMPLETION));
            final UnsafeBuffer tx = pattern(INJECT, 6);
            assertEquals(0, p.a.tsendmsg(new Message().buffer(tx, 0, INJECT).addr(p.addrBFromA).tag(5).context(41),
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
            assertEquals(Errno.EMSGSIZE.negated(), p.a.tsendmsg(new Message().buffer(direct(INJECT + 1), 0,
                INJECT + 1).addr(p.addrBFromA).tag(5).context(44), Flags.INJECT));
            assertEquals(Errno.EINVAL.negated(), p.a.sendmsg(new Message().buffer(null, 0, 8).addr(p.addrBFromA)
                .context(47), Flags.INJECT));
            assertEquals(Errno.EINVAL.negated(), p.a.inject(null, 0, 8, p.addrBFromA));

            assertEquals(41, one(p.cqA).context());
            assertEquals(42, one(p.cqA).context());
            assertEquals(43, one(p.cqA).context());
            final UnsafeBuffer rx = direct(128);
            assertEquals(0, p.b.trecv(rx, 0, 128, AddressVector.ADDR_UNSPEC, 5, 0, 51));
            final CompletionEntry tagged = one(p.cqB);
            assertEquals(51, tagged.context());
            assertEquals(INJECT, tagged.len());
            assertPattern(rx, 0, INJECT, 6);
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
            assertEquals(0, p.a.tinject(pattern(8, 1), 0, 8, p.addrBFromA, 5));
            assertEquals(0, p.b.trecv(rx, 0, 128, AddressVector.ADDR_UNSPEC, 5, 0, 53));
            assertEquals(53, one(p.cqB).context());
            assertEmpty(p.cqA);
            assertEmpty(p.cqB);
        }
    }

    @Override
    @Test
    @DisplayName("gni MANUAL_CONNECT: VC connected first; then a DC send completes after the target stops")
    protected void shouldCompleteDeliveryCompleteSendWhenTheTargetStopsProgressingAfterItsCompletion()
    {
        final Info info = infoWithCaps(Progress.MANUAL, 0);
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 64))
        {
            connect(p.a, p.b, p.addrBFromA, p.cqA, p.cqB, p.domainA, p.domainB);
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

    @Override
    @Test
    @DisplayName("gni MANUAL_CONNECT: VC connected, initiator driven through the MR query; writedata completes " +
        "after the target stops")
    protected void shouldCompleteWritedataWhenTheTargetStopsProgressingAfterItsRemoteCompletion()
    {
        final Info info = infoWithCaps(Progress.MANUAL, 0);
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 64))
        {
            connect(p.a, p.b, p.addrBFromA, p.cqA, p.cqB, p.domainA, p.domainB);
            final UnsafeBuffer target = direct(64);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 64, Flags.REMOTE_WRITE, 8))
            {
                assertEquals(0, p.a.writedata(pattern(32, 7), 0, 32, 77, p.addrBFromA, 0, mr.key(), 5));
                // A gni write is an MR query and its answer, the PUT, then RMA done: the initiator's progress moves
                // each step, so it is driven (with the target's CQ reads) until the target's remote completion.
                final CompletionEntry remote = oneDriving(p.cqB, p.domainA);
                assertEquals(Flags.REMOTE_WRITE | Flags.RMA | Flags.REMOTE_CQ_DATA, remote.flags());
                assertEquals(77, remote.data());
                assertPattern(target, 0, 32, 7);
                assertEquals(5, oneDriving(p.cqA, p.domainA).context());
            }
        }
    }

    @Override
    @Test
    @DisplayName("gni MANUAL_CONNECT: VC connected first; then a DC send completes after the target closes")
    protected void shouldCompleteDeliveryCompleteSendWhenTheTargetClosesAfterItsCompletion()
    {
        final Info info = infoWithCaps(Progress.MANUAL, 0);
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
        connect(a, b, toB, cqA, cqB, domainA, domainB);
        final UnsafeBuffer rx = direct(64);
        assertEquals(0, b.trecv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 3, 0, 1));
        assertEquals(0, a.tsendmsg(new Message().buffer(pattern(64, 3), 0, 64).addr(toB).tag(3).context(2),
            Flags.COMPLETION | Flags.DELIVERY_COMPLETE));
        domainA.progress();
        assertEquals(1, oneDriving(cqB, domainB).context());
        assertPattern(rx, 0, 64, 3);
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

    @Override
    @Test
    @DisplayName("gni MANUAL_CONNECT: the sender's close revokes its rendezvous source: the receiver's GET fails")
    protected void shouldFailTheReceiveOfARendezvousWhoseSenderClosesItsEndpointMidStream()
    {
        try (Pair p = pair(Progress.MANUAL, 0, CqFormat.TAGGED, 64))
        {
            connect(p.a, p.b, p.addrBFromA, p.cqA, p.cqB, p.domainA, p.domainB);
            final int size = 16 << 20;
            final UnsafeBuffer in = direct(size);
            final UnsafeBuffer out = pattern(size, 9);
            assertEquals(0, p.b.trecv(in, 0, size, AddressVector.ADDR_UNSPEC, 5, 0, 51));
            p.domainB.progress();
            assertEquals(0, p.a.tsend(out, 0, size, p.addrBFromA, 5, 52));
            // The sender's duty cycle sends the START naming its registered buffer; its close then revokes that
            // registration (before the close returns and the application may free the buffer), so the receiver's
            // GET, straight into the matched receive, is refused by the sender's NIC: the receive fails.
            p.domainA.progress();
            p.a.close();
            final CompletionErrorEntry err = error(p.cqB);
            assertEquals(51, err.context());
            assertEquals(Errno.ECONNREFUSED, err.errno());
            assertEquals(0, err.len());
            assertEmpty(p.cqB);
        }
    }
}
