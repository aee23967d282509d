package io.jfabric.provider.gni;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CompletionEntry;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.MemoryRegion;
import io.jfabric.Message;
import io.jfabric.Progress;
import io.jfabric.agent.AtomicExecutor;
import io.jfabric.conformance.AtomicConformance;
import io.jfabric.conformance.Pair;
import io.jfabric.spi.AtomicCapabilities;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.SplittableRandom;

import static io.jfabric.conformance.Pair.assertEmpty;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link AtomicConformance} over the {@code gni} provider. Three cases post vectors of several elements, which gni
 * refuses ({@link GniDifferences#ONE_ELEMENT}): each is overridden by its gni form, which asserts the refusal
 * ({@code -EMSGSIZE} at post, target untouched, no completion) and then runs the case's operations one element at a
 * time with the same expected values.
 */
class GniAtomicConformanceTest extends AtomicConformance
{
    GniAtomicConformanceTest()
    {
        super(GniConformance.WITH_ATOMICS);
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni ONE_ELEMENT: int64 sum/fetch/cswap of two elements EMSGSIZE, one element at a time completes")
    protected void shouldSumFetchAndSwapInt64AtTheTarget(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = direct(64);
            target.putLong(0, 10);
            target.putLong(8, 20);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 64,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 3))
            {
                final UnsafeBuffer operands = direct(16);
                operands.putLong(0, 5);
                operands.putLong(8, 7);
                final UnsafeBuffer result = direct(16);
                assertEquals(Errno.EMSGSIZE.negated(), p.a.atomic(operands, 0, 2, p.addrBFromA, 0, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 1));
                assertEquals(Errno.EMSGSIZE.negated(), p.a.fetchAtomic(operands, 0, 2, result, 0, p.addrBFromA, 0,
                    mr.key(), AtomicDatatype.INT64, AtomicOp.SUM, 2));
                assertEquals(10, target.getLong(0));
                assertEquals(20, target.getLong(8));
                assertEmpty(p.cqA);

                assertEquals(0, p.a.atomic(operands, 0, 1, p.addrBFromA, 0, mr.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 1));
                final CompletionEntry sum = one(p.cqA);
                assertEquals(1, sum.context());
                assertEquals(Flags.ATOMIC | Flags.WRITE, sum.flags());
                assertEquals(0, p.a.atomic(operands, 8, 1, p.addrBFromA, 8, mr.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 11));
                assertEquals(11, one(p.cqA).context());
                assertEquals(15, target.getLong(0));
                assertEquals(27, target.getLong(8));

                assertEquals(0, p.a.fetchAtomic(operands, 0, 1, result, 0, p.addrBFromA, 0, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 2));
                final CompletionEntry fetch = one(p.cqA);
                assertEquals(Flags.ATOMIC | Flags.READ, fetch.flags());
                assertEquals(0, p.a.fetchAtomic(operands, 8, 1, result, 8, p.addrBFromA, 8, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 12));
                assertEquals(12, one(p.cqA).context());
                assertEquals(15, result.getLong(0));
                assertEquals(27, result.getLong(8));
                assertEquals(20, target.getLong(0));
                assertEquals(34, target.getLong(8));

                final UnsafeBuffer compare = direct(8);
                compare.putLong(0, 20);
                operands.putLong(0, 99);
                assertEquals(0, p.a.compareAtomic(operands, 0, 1, compare, 0, result, 0, p.addrBFromA, 0, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.CSWAP, 3));
                assertEquals(3, one(p.cqA).context());
                assertEquals(20, result.getLong(0));
                assertEquals(99, target.getLong(0));

                assertEquals(0, p.a.fetchAtomic(null, 0, 1, result, 8, p.addrBFromA, 8, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.ATOMIC_READ, 4));
                assertEquals(4, one(p.cqA).context());
                assertEquals(34, result.getLong(8));

                final UnsafeBuffer heap = new UnsafeBuffer(new byte[8]);
                heap.putLong(0, 1);
                assertEquals(0, p.a.injectAtomic(heap, 0, 1, p.addrBFromA, 8, mr.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM));
                assertEquals(0, p.a.fetchAtomic(null, 0, 1, result, 0, p.addrBFromA, 8, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.ATOMIC_READ, 5));
                assertEquals(5, one(p.cqA).context());
                assertEquals(35, result.getLong(0));
                assertEmpty(p.cqA);
            }
        }
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    @DisplayName("gni ONE_ELEMENT: vector and msg forms of two int32 elements EMSGSIZE, of one element complete")
    protected void shouldRunVectorAndMessageFormsOfEveryAtomicFamily(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = direct(32);
            target.putInt(0, 100);
            target.putInt(4, 200);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 32,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 8))
            {
                final UnsafeBuffer two = direct(8);
                two.putInt(0, 1);
                two.putInt(4, 2);
                final UnsafeBuffer result = direct(8);
                final UnsafeBuffer compare = direct(8);
                final Message pairMsg = new Message().buffer(two, 0, 8).addr(p.addrBFromA).rma(0, 8).context(9);
                assertEquals(Errno.EMSGSIZE.negated(), p.a.atomicv(new DirectBuffer[]{two}, 1, p.addrBFromA, 0, 8,
                    AtomicDatatype.INT32, AtomicOp.SUM, 9));
                assertEquals(Errno.EMSGSIZE.negated(), p.a.atomicmsg(pairMsg, AtomicDatatype.INT32, AtomicOp.MAX,
                    Flags.COMPLETION));
                assertEquals(Errno.EMSGSIZE.negated(), p.a.fetchAtomicmsg(pairMsg, result, 0, AtomicDatatype.INT32,
                    AtomicOp.BOR, Flags.COMPLETION));
                assertEquals(Errno.EMSGSIZE.negated(), p.a.fetchAtomicv(new DirectBuffer[]{two}, 1,
                    new DirectBuffer[]{result}, 1, p.addrBFromA, 0, 8, AtomicDatatype.INT32, AtomicOp.ATOMIC_WRITE,
                    9));
                assertEquals(Errno.EMSGSIZE.negated(), p.a.compareAtomicmsg(pairMsg, compare, 0, result, 0,
                    AtomicDatatype.INT32, AtomicOp.CSWAP, Flags.COMPLETION));
                assertEquals(Errno.EMSGSIZE.negated(), p.a.compareAtomicv(new DirectBuffer[]{two}, 1,
                    new DirectBuffer[]{compare}, 1, new DirectBuffer[]{result}, 1, p.addrBFromA, 0, 8,
                    AtomicDatatype.INT32, AtomicOp.CSWAP, 9));
                assertEquals(100, target.getInt(0));
                assertEquals(200, target.getInt(4));
                assertEmpty(p.cqA);

                final UnsafeBuffer ops = direct(4);
                ops.putInt(0, 1);
                assertEquals(0, p.a.atomicv(new DirectBuffer[]{ops}, 1, p.addrBFromA, 0, 8,
                    AtomicDatatype.INT32, AtomicOp.SUM, 1));
                assertEquals(1, one(p.cqA).context());
                assertEquals(101, target.getInt(0));
                assertEquals(200, target.getInt(4));

                final Message msg = new Message().buffer(ops, 0, 4).addr(p.addrBFromA).rma(0, 8).context(2);
                assertEquals(0, p.a.atomicmsg(msg, AtomicDatatype.INT32, AtomicOp.MAX, Flags.COMPLETION));
                assertEquals(2, one(p.cqA).context());
                assertEquals(101, target.getInt(0));

                assertEquals(0, p.a.fetchAtomicmsg(msg.context(3), result, 0, AtomicDatatype.INT32, AtomicOp.BOR,
                    Flags.COMPLETION));
                assertEquals(3, one(p.cqA).context());
                assertEquals(101, result.getInt(0));
                assertEquals(101 | 1, target.getInt(0));

                final UnsafeBuffer oneResult = new UnsafeBuffer(result, 0, 4);
                final UnsafeBuffer oneCompare = new UnsafeBuffer(compare, 0, 4);
                assertEquals(0, p.a.fetchAtomicv(new DirectBuffer[]{ops}, 1, new DirectBuffer[]{oneResult}, 1,
                    p.addrBFromA, 4, 8, AtomicDatatype.INT32, AtomicOp.ATOMIC_WRITE, 4));
                assertEquals(4, one(p.cqA).context());
                assertEquals(200, result.getInt(0));
                assertEquals(101, target.getInt(0));
                assertEquals(1, target.getInt(4));

                compare.putInt(0, 101);
                ops.putInt(0, 50);
                assertEquals(0, p.a.compareAtomicmsg(msg.context(5), compare, 0, result, 0, AtomicDatatype.INT32,
                    AtomicOp.CSWAP, Flags.COMPLETION));
                assertEquals(5, one(p.cqA).context());
                assertEquals(101, result.getInt(0));
                assertEquals(50, target.getInt(0));

                compare.putInt(0, 999);
                ops.putInt(0, 60);
                assertEquals(0, p.a.compareAtomicv(new DirectBuffer[]{ops}, 1, new DirectBuffer[]{oneCompare}, 1,
                    new DirectBuffer[]{oneResult}, 1, p.addrBFromA, 0, 8, AtomicDatatype.INT32, AtomicOp.CSWAP, 6));
                assertEquals(6, one(p.cqA).context());
                assertEquals(50, result.getInt(0));
                assertEquals(50, target.getInt(0), "a compare that differs swaps nothing");
                assertEquals(1, target.getInt(4));
                assertEquals(Errno.EINVAL.negated(), p.a.atomicmsg(new Message().buffer(ops, 0, 3)
                    .addr(p.addrBFromA).rma(0, 8), AtomicDatatype.INT32, AtomicOp.SUM, 0));
                assertEmpty(p.cqA);
            }
        }
    }

    @Override
    @Test
    @DisplayName("gni ONE_ELEMENT: every valid pair of two elements EMSGSIZE, of one element equals the executor")
    protected void shouldMatchTheLocalExecutorForEverySupportedOpAndDatatype()
    {
        final AtomicExecutor reference = new AtomicExecutor(AtomicCapabilities.full(256));
        final SplittableRandom random = new SplittableRandom(7);
        int checked = 0;
        int refused = 0;
        try (Pair p = pair(Progress.MANUAL))
        {
            final UnsafeBuffer target = direct(64);
            final UnsafeBuffer expected = direct(64);
            final UnsafeBuffer operands = direct(64);
            final UnsafeBuffer compare = direct(64);
            final UnsafeBuffer result = direct(64);
            final UnsafeBuffer expectedResult = direct(64);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 64,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 1))
            {
                for (final AtomicCapabilities.Kind kind : AtomicCapabilities.Kind.values())
                {
                    for (final AtomicOp op : AtomicOp.values())
                    {
                        for (final AtomicDatatype datatype : AtomicDatatype.values())
                        {
                            final long valid = kind == AtomicCapabilities.Kind.ATOMIC ?
                                p.a.atomicValid(datatype, op) : kind == AtomicCapabilities.Kind.FETCH ?
                                p.a.fetchAtomicValid(datatype, op) : p.a.compareAtomicValid(datatype, op);
                            for (int i = 0; i < 64; i++)
                            {
                                final byte t = (byte) random.nextInt(4);
                                target.putByte(i, t);
                                expected.putByte(i, t);
                                operands.putByte(i, (byte) random.nextInt(4));
                                compare.putByte(i, random.nextBoolean() ? t : (byte) random.nextInt(4));
                                result.putByte(i, (byte) 0);
                                expectedResult.putByte(i, (byte) 0);
                            }
                            final String what = kind + " " + op + " " + datatype;
                            if (valid < 0)
                            {
                                assertEquals(Errno.EOPNOTSUPP.negated(),
                                    post(p, kind, operands, compare, result, 1, mr.key(), datatype, op), what);
                                continue;
                            }
                            assertEquals(1, valid, what + ": the valid count");
                            assertEquals(Errno.EMSGSIZE.negated(),
                                post(p, kind, operands, compare, result, 2, mr.key(), datatype, op), what);
                            refused++;
                            assertEquals(0, post(p, kind, operands, compare, result, 1, mr.key(), datatype, op),
                                what);
                            one(p.cqA);
                            final int local = switch (kind)
                            {
                                case ATOMIC -> reference.atomic(op, datatype, expected.addressOffset(),
                                    operands.addressOffset(), 1);
                                case FETCH -> reference.fetchAtomic(op, datatype, expected.addressOffset(),
                                    operands.addressOffset(), expectedResult.addressOffset(), 1);
                                default -> reference.compareAtomic(op, datatype, expected.addressOffset(),
                                    operands.addressOffset(), compare.addressOffset(),
                                    expectedResult.addressOffset(), 1);
                            };
                            assertEquals(0, local);
                            for (int i = 0; i < 64; i++)
                            {
                                assertEquals(expected.getByte(i), target.getByte(i), what + " target byte " + i);
                                assertEquals(expectedResult.getByte(i), result.getByte(i), what + " result byte " + i);
                            }
                            checked++;
                        }
                    }
                }
                assertEmpty(p.cqA);
            }
        }
        assertEquals(checked, refused);
        assertTrue(checked > 30, "checked " + checked);
    }

    private static int post(
        final Pair p,
        final AtomicCapabilities.Kind kind,
        final UnsafeBuffer operands,
        final UnsafeBuffer compare,
        final UnsafeBuffer result,
        final int count,
        final long key,
        final AtomicDatatype datatype,
        final AtomicOp op)
    {
        return switch (kind)
        {
            case ATOMIC -> p.a.atomic(operands, 0, count, p.addrBFromA, 0, key, datatype, op, 1);
            case FETCH -> p.a.fetchAtomic(operands, 0, count, result, 0, p.addrBFromA, 0, key, datatype, op, 2);
            default -> p.a.compareAtomic(operands, 0, count, compare, 0, result, 0, p.addrBFromA, 0, key, datatype,
                op, 3);
        };
    }
}
