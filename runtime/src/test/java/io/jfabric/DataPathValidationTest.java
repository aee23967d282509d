package io.jfabric;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;

import static io.jfabric.InprocPair.assertEmpty;
import static io.jfabric.InprocPair.direct;
import static io.jfabric.InprocPair.error;
import static io.jfabric.InprocPair.one;
import static io.jfabric.InprocPair.pattern;
import static io.jfabric.InprocPair.progressAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Issue 10: bad arguments are an errno on the data path ({@code -EINVAL}) and a {@link FabricException} on the
 * control path, never an uncaught {@code NullPointerException} or {@code ArrayIndexOutOfBoundsException}, and
 * nothing is consumed or corrupted: a completion or error entry that waited is still there afterwards.
 */
@Timeout(60)
class DataPathValidationTest
{
    private static final int EINVAL = Errno.EINVAL.negated();
    private static InprocPair shared;

    @BeforeAll
    static void open()
    {
        shared = new InprocPair(Progress.MANUAL);
    }

    @AfterAll
    static void close()
    {
        try
        {
            // No refused call posted anything, and the pair still works.
            assertEmpty(shared.cqA);
            assertEmpty(shared.cqB);
            final UnsafeBuffer rx = direct(16);
            assertEquals(0, shared.b.trecv(rx, 0, 16, AddressVector.ADDR_UNSPEC, 99, 0, 1));
            assertEquals(0, shared.a.tsend(pattern(16, 2), 0, 16, shared.addrBFromA, 99, 2));
            // Other tests' pairs replace the fixture's progress list: each CQ read drives its own domain, A first.
            assertEquals(2, one(shared.cqA).context());
            assertEquals(1, one(shared.cqB).context());
            InprocPair.assertPattern(rx, 0, 16, 2);
        }
        finally
        {
            shared.close();
        }
    }

    // ------------------------------------------------------------------ completion queue

    /** A completion waits on B's CQ (not read yet). */
    private static void oneCompletionWaits(final InprocPair p, final long context)
    {
        final UnsafeBuffer rx = direct(16);
        assertEquals(0, p.b.trecv(rx, 0, 16, AddressVector.ADDR_UNSPEC, 5, 0, context));
        assertEquals(0, p.a.tsend(pattern(16, 1), 0, 16, p.addrBFromA, 5, 100 + context));
        assertEquals(100 + context, one(p.cqA).context());
        for (int i = 0; i < 20; i++)
        {
            progressAll();
        }
    }

    @Test
    void shouldAnswerEinvalAndKeepTheCompletionWhenReadIsGivenNoEntry()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            oneCompletionWaits(p, 7);
            assertEquals(EINVAL, p.cqB.read((CompletionEntry) null));
            assertEquals(EINVAL, p.cqB.read((CompletionEntry[]) null, 1));
            assertEquals(EINVAL, p.cqB.read(new CompletionEntry[2], 2));
            assertEquals(EINVAL, p.cqB.read(new CompletionEntry[]{new CompletionEntry(), null}, 2));
            assertEquals(EINVAL, p.cqB.read(new CompletionEntry[]{new CompletionEntry()}, 2));
            assertEquals(EINVAL, p.cqB.read(new CompletionEntry[]{new CompletionEntry()}, -1));
            assertEquals(EINVAL, p.cqB.sread(new CompletionEntry[1], 1, 10));
            assertEquals(EINVAL, p.cqB.sreadFrom(new CompletionEntry[]{new CompletionEntry()}, new long[0], 1, 10));
            final CompletionEntry entry = one(p.cqB);
            assertEquals(7, entry.context());
            assertEquals(16, entry.len());
        }
    }

    @Test
    void shouldAnswerEinvalAndKeepTheCompletionWhenReadFromHasAShortSourcesArray()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            oneCompletionWaits(p, 8);
            oneCompletionWaits(p, 9);
            final CompletionEntry[] entries = {new CompletionEntry(), new CompletionEntry()};
            assertEquals(EINVAL, p.cqB.readFrom(entries, new long[1], 2));
            assertEquals(EINVAL, p.cqB.readFrom(entries, new long[0], 1));
            final long[] sources = new long[2];
            assertEquals(2, p.cqB.readFrom(entries, sources, 2));
            assertEquals(8, entries[0].context());
            assertEquals(9, entries[1].context());
            assertEquals(p.addrAFromB, sources[0]);
            assertEquals(p.addrAFromB, sources[1]);
        }
    }

    @Test
    void shouldAnswerEinvalAndKeepTheErrorWhenReadErrIsGivenNoEntry()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final UnsafeBuffer rx = direct(16);
            assertEquals(0, p.b.trecv(rx, 0, 16, AddressVector.ADDR_UNSPEC, 5, 0, 31));
            assertEquals(0, p.b.cancel(31));
            assertEquals(Errno.EAVAIL.negated(), p.cqB.read(new CompletionEntry()));
            assertEquals(EINVAL, p.cqB.readErr(null));
            assertEquals(Errno.EAVAIL.negated(), p.cqB.read(new CompletionEntry()));
            final CompletionErrorEntry err = error(p.cqB);
            assertEquals(31, err.context());
            assertEquals(Errno.ECANCELED.value(), err.err());
        }
    }

    @Test
    void shouldAnswerEinvalAndKeepTheEventWhenAnEventQueueReadIsGivenNoEntry()
    {
        try (Fabric fabric = Fabric.open(InprocPair.info(Progress.MANUAL, 0, 0)))
        {
            final EventQueue eq = fabric.eventQueue(4);
            assertEquals(1, eq.write(EventQueue.NOTIFY, null, 42, 7));
            assertEquals(EINVAL, eq.read(null, 0));
            assertEquals(EINVAL, eq.sread(null, 10, 0));
            final EqEntry entry = new EqEntry();
            assertEquals(1, eq.read(entry, 0));
            assertEquals(42, entry.context());
            assertEquals(1, eq.writeError(EventQueue.CONNREQ, null, 45, Errno.ECONNREFUSED.value()));
            assertEquals(EINVAL, eq.readErr(null));
            assertEquals(1, eq.readErr(entry));
            assertEquals(Errno.ECONNREFUSED.value(), entry.err());
            eq.close();
        }
    }

    // ------------------------------------------------------------------ address vector

    @Test
    void shouldRefuseAShortHandleArrayBeforeInsertingAnything()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final FabricException ex = assertThrows(FabricException.class,
                () -> p.avA.insert(new byte[][]{p.a.name(), p.b.name()}, new long[1], 0, null));
            assertEquals(Errno.EINVAL, ex.errno());
            // Nothing was inserted: handle 1 is free and is what the next insert gets.
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> p.avA.lookup(1)).errno());
            assertEquals(1, p.avA.insert(p.a.name()));
            assertEquals(Errno.EINVAL,
                assertThrows(FabricException.class, () -> p.avA.insert(null, new long[1], 0, null)).errno());
            assertEquals(Errno.EINVAL,
                assertThrows(FabricException.class, () -> p.avA.insertSymmetric("1", -1, "1", 1, new long[1]))
                .errno());
            assertEquals(Errno.EINVAL,
                assertThrows(FabricException.class, () -> p.avA.insertSymmetric("1", 2, "1", 2, new long[3]))
                .errno());
        }
    }

    @Test
    void shouldTreatANullAddressAsABadOne()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final long[] handles = new long[2];
            final int[] errors = new int[2];
            assertEquals(1, p.avA.insert(new byte[][]{null, p.a.name()}, handles, AddressVector.SYNC_ERR, errors));
            assertEquals(AddressVector.ADDR_NOTAVAIL, handles[0]);
            assertEquals(Errno.EINVAL.value(), errors[0]);
            assertEquals(0, errors[1]);
            assertEquals(1, handles[1]);
        }
    }

    // ------------------------------------------------------------------ every data-path call with bad arguments

    static Stream<Arguments> badCalls()
    {
        final UnsafeBuffer buf = direct(64);
        final ByteBuffer bb = ByteBuffer.allocateDirect(64);
        final DirectBuffer nil = null;
        final ByteBuffer nilBb = null;
        final DirectBuffer[] one = {direct(16)};
        final DirectBuffer[] nulls = new DirectBuffer[2];
        final DirectBuffer[] holed = {direct(16), null};
        final AtomicDatatype i64 = AtomicDatatype.INT64;
        final AtomicOp sum = AtomicOp.SUM;
        final AtomicOp cswap = AtomicOp.CSWAP;
        final long any = AddressVector.ADDR_UNSPEC;
        final List<Arguments> cases = new ArrayList<>();
        final Case c = (name, call) -> cases.add(Arguments.of(name, call));

        // One buffer: null, negative offset, negative length, past the capacity (DirectBuffer and ByteBuffer).
        c.add("send null", p -> p.a.send(nil, 0, 8, p.addrBFromA, 1));
        c.add("send offset<0", p -> p.a.send(buf, -1, 8, p.addrBFromA, 1));
        c.add("send length<0", p -> p.a.send(buf, 0, -1, p.addrBFromA, 1));
        c.add("send past capacity", p -> p.a.send(buf, 60, 8, p.addrBFromA, 1));
        c.add("send ByteBuffer null", p -> p.a.send(nilBb, 0, 8, p.addrBFromA, 1));
        c.add("send ByteBuffer past capacity", p -> p.a.send(bb, 60, 8, p.addrBFromA, 1));
        c.add("tsend null", p -> p.a.tsend(nil, 0, 8, p.addrBFromA, 1, 1));
        c.add("tsend past capacity", p -> p.a.tsend(buf, 0, 65, p.addrBFromA, 1, 1));
        c.add("tsend ByteBuffer offset<0", p -> p.a.tsend(bb, -4, 8, p.addrBFromA, 1, 1));
        c.add("senddata null", p -> p.a.senddata(nil, 0, 8, 1, p.addrBFromA, 1));
        c.add("tsenddata past capacity", p -> p.a.tsenddata(buf, 64, 1, 1, p.addrBFromA, 1, 1));
        c.add("recv null", p -> p.b.recv(nil, 0, 8, any, 1));
        c.add("recv length<0", p -> p.b.recv(buf, 0, -8, any, 1));
        c.add("recv ByteBuffer null", p -> p.b.recv(nilBb, 0, 8, any, 1));
        c.add("recv ByteBuffer past capacity", p -> p.b.recv(bb, 1, 64, any, 1));
        c.add("trecv null", p -> p.b.trecv(nil, 0, 8, any, 1, 0, 1));
        c.add("trecv offset<0", p -> p.b.trecv(buf, -1, 8, any, 1, 0, 1));
        c.add("trecv ByteBuffer past capacity", p -> p.b.trecv(bb, 0, 100, any, 1, 0, 1));
        c.add("inject null", p -> p.a.inject(nil, 0, 8, p.addrBFromA));
        c.add("inject past capacity", p -> p.a.inject(buf, 60, 8, p.addrBFromA));
        c.add("tinject length<0", p -> p.a.tinject(buf, 0, -1, p.addrBFromA, 1));
        c.add("injectdata null", p -> p.a.injectdata(nil, 0, 8, 1, p.addrBFromA));
        c.add("tinjectdata offset<0", p -> p.a.tinjectdata(buf, -1, 8, 1, p.addrBFromA, 1));
        c.add("write null", p -> p.a.write(nil, 0, 8, p.addrBFromA, 0, 1, 1));
        c.add("write past capacity", p -> p.a.write(buf, 32, 64, p.addrBFromA, 0, 1, 1));
        c.add("writedata length<0", p -> p.a.writedata(buf, 0, -1, 1, p.addrBFromA, 0, 1, 1));
        c.add("injectWrite null", p -> p.a.injectWrite(nil, 0, 8, p.addrBFromA, 0, 1));
        c.add("injectWritedata past capacity", p -> p.a.injectWritedata(buf, 60, 8, 1, p.addrBFromA, 0, 1));
        c.add("read null", p -> p.a.read(nil, 0, 8, p.addrBFromA, 0, 1, 1));
        c.add("read offset<0", p -> p.a.read(buf, -1, 8, p.addrBFromA, 0, 1, 1));
        c.add("atomic null operands", p -> p.a.atomic(nil, 0, 1, p.addrBFromA, 0, 1, i64, sum, 1));
        c.add("atomic past capacity", p -> p.a.atomic(buf, 60, 1, p.addrBFromA, 0, 1, i64, sum, 1));
        c.add("atomic offset<0", p -> p.a.atomic(buf, -8, 1, p.addrBFromA, 0, 1, i64, sum, 1));
        c.add("atomic count 0", p -> p.a.atomic(buf, 0, 0, p.addrBFromA, 0, 1, i64, sum, 1));
        c.add("atomic null datatype", p -> p.a.atomic(buf, 0, 1, p.addrBFromA, 0, 1, null, sum, 1));
        c.add("injectAtomic null", p -> p.a.injectAtomic(nil, 0, 1, p.addrBFromA, 0, 1, i64, sum));
        c.add("fetchAtomic null result", p -> p.a.fetchAtomic(buf, 0, 1, nil, 0, p.addrBFromA, 0, 1, i64, sum, 1));
        c.add("fetchAtomic result past capacity",
            p -> p.a.fetchAtomic(buf, 0, 2, direct(8), 0, p.addrBFromA, 0, 1, i64, sum, 1));
        c.add("compareAtomic null compare",
            p -> p.a.compareAtomic(buf, 0, 1, nil, 0, buf, 8, p.addrBFromA, 0, 1, i64, cswap, 1));
        c.add("compareAtomic compare offset<0",
            p -> p.a.compareAtomic(buf, 0, 1, buf, -8, buf, 8, p.addrBFromA, 0, 1, i64, cswap, 1));

        // Buffer arrays: null, a count above the array, a null element, a count below 1.
        c.add("sendv null array", p -> p.a.sendv(null, 1, p.addrBFromA, 1));
        c.add("sendv count above array", p -> p.a.sendv(one, 2, p.addrBFromA, 1));
        c.add("sendv null element", p -> p.a.sendv(holed, 2, p.addrBFromA, 1));
        c.add("sendv count 0", p -> p.a.sendv(one, 0, p.addrBFromA, 1));
        c.add("tsendv nulls", p -> p.a.tsendv(nulls, 2, p.addrBFromA, 1, 1));
        c.add("tsendv count<0", p -> p.a.tsendv(one, -1, p.addrBFromA, 1, 1));
        c.add("recvv null array", p -> p.b.recvv(null, 1, any, 1));
        c.add("recvv count above array", p -> p.b.recvv(one, 3, any, 1));
        c.add("recvv null element", p -> p.b.recvv(nulls, 1, any, 1));
        c.add("trecvv null element", p -> p.b.trecvv(holed, 2, any, 1, 0, 1));
        c.add("trecvv count 0", p -> p.b.trecvv(one, 0, any, 1, 0, 1));
        c.add("writev null element", p -> p.a.writev(holed, 2, p.addrBFromA, 0, 1, 1));
        c.add("writev count above array", p -> p.a.writev(one, 2, p.addrBFromA, 0, 1, 1));
        c.add("readv null array", p -> p.a.readv(null, 1, p.addrBFromA, 0, 1, 1));
        c.add("readv null element", p -> p.a.readv(nulls, 1, p.addrBFromA, 0, 1, 1));
        c.add("readv count above array", p -> p.a.readv(one, 2, p.addrBFromA, 0, 1, 1));
        c.add("atomicv null element", p -> p.a.atomicv(holed, 2, p.addrBFromA, 0, 1, i64, sum, 1));
        c.add("atomicv count above array", p -> p.a.atomicv(one, 5, p.addrBFromA, 0, 1, i64, sum, 1));
        c.add("fetchAtomicv result count above array",
            p -> p.a.fetchAtomicv(one, 1, one, 2, p.addrBFromA, 0, 1, i64, sum, 1));
        c.add("fetchAtomicv null results", p -> p.a.fetchAtomicv(one, 1, null, 1, p.addrBFromA, 0, 1, i64, sum, 1));
        c.add("compareAtomicv null compare element",
            p -> p.a.compareAtomicv(one, 1, nulls, 1, one, 1, p.addrBFromA, 0, 1, i64, cswap, 1));

        // Messages: null, a null or short iov, a null buffer, short remote lists.
        c.add("sendmsg null", p -> p.a.sendmsg(null, 0));
        c.add("tsendmsg null", p -> p.a.tsendmsg(null, 0));
        c.add("recvmsg null", p -> p.b.recvmsg(null, 0));
        c.add("trecvmsg null", p -> p.b.trecvmsg(null, 0));
        c.add("writemsg null", p -> p.a.writemsg(null, 0));
        c.add("readmsg null", p -> p.a.readmsg(null, 0));
        c.add("atomicmsg null", p -> p.a.atomicmsg(null, i64, sum, 0));
        c.add("fetchAtomicmsg null", p -> p.a.fetchAtomicmsg(null, buf, 0, i64, sum, 0));
        c.add("fetchAtomicmsg iov null", p -> p.a.fetchAtomicmsg(null, one, 1, i64, sum, 0));
        c.add("compareAtomicmsg null", p -> p.a.compareAtomicmsg(null, buf, 0, buf, 8, i64, cswap, 0));
        c.add("compareAtomicmsg iov null", p -> p.a.compareAtomicmsg(null, one, 1, one, 1, i64, cswap, 0));
        c.add("trecvmsg null iov element", p -> p.b.trecvmsg(new Message().iov(new DirectBuffer[1], 1).tag(1), 0));
        c.add("trecvmsg null iov", p -> p.b.trecvmsg(new Message().iov(null, 1).tag(1), 0));
        c.add("trecvmsg empty iov", p -> p.b.trecvmsg(new Message().iov(new DirectBuffer[0], 1).tag(1), 0));
        c.add("trecvmsg iov count above array", p -> p.b.trecvmsg(new Message().iov(one, 2).tag(1), 0));
        c.add("recvmsg null iov element", p -> p.b.recvmsg(new Message().iov(holed, 2), 0));
        c.add("recvmsg null buffer", p -> p.b.recvmsg(new Message().buffer(null, 0, 8), 0));
        c.add("tsendmsg null iov element", p -> p.a.tsendmsg(new Message().iov(nulls, 1).addr(p.addrBFromA), 0));
        c.add("sendmsg buffer past capacity",
            p -> p.a.sendmsg(new Message().buffer(buf, 60, 8).addr(p.addrBFromA), 0));
        c.add("sendmsg INJECT null buffer", p -> p.a.sendmsg(new Message().buffer(null, 0, 8).addr(p.addrBFromA),
            Flags.INJECT));
        c.add("writemsg short remote arrays", p -> p.a.writemsg(new Message().buffer(buf, 0, 16).addr(p.addrBFromA)
            .rmaIov(new long[1], new long[]{8, 8}, new long[]{1, 1}, 2), 0));
        c.add("writemsg null remote lengths", p -> p.a.writemsg(new Message().buffer(buf, 0, 16)
            .addr(p.addrBFromA).rmaIov(new long[2], null, new long[2], 2), 0));
        c.add("readmsg null iov element", p -> p.a.readmsg(new Message().iov(holed, 2).addr(p.addrBFromA)
            .rma(0, 1), 0));
        c.add("atomicmsg null buffer", p -> p.a.atomicmsg(new Message().buffer(null, 0, 8).addr(p.addrBFromA)
            .rma(0, 1), i64, sum, 0));
        c.add("fetchAtomicmsg null result", p -> p.a.fetchAtomicmsg(new Message().buffer(buf, 0, 8)
            .addr(p.addrBFromA).rma(0, 1), nil, 0, i64, sum, 0));
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badCalls")
    void shouldAnswerEinvalForABadArgument(final String name, final ToIntFunction<InprocPair> call)
    {
        assertEquals(EINVAL, call.applyAsInt(shared), name);
    }

    @FunctionalInterface
    private interface Case
    {
        void add(String name, ToIntFunction<InprocPair> call);
    }
}
