package io.jfabric.conformance;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CompletionEntry;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.MemoryRegion;
import io.jfabric.Message;
import io.jfabric.Progress;
import io.jfabric.spi.AtomicCapabilities;
import io.jfabric.agent.AtomicExecutor;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.SplittableRandom;

import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Atomics over a pair: fetch, compare and swap at the target, unsupported op and datatype pairs and bad access
 * refused without touching the target, vector and message forms of every family, and every supported op and datatype
 * against the runtime's local executor.
 * <p>
 * A suite class: a provider runs it by extending it with its {@link PairFactory} (see {@link Conformance}).
 */
@Timeout(60)
public abstract class AtomicConformance extends Conformance
{
    /**
     * @param factory the provider under test.
     */
    protected AtomicConformance(final PairFactory factory)
    {
        super(factory);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
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
                assertEquals(0, p.a.atomic(operands, 0, 2, p.addrBFromA, 0, mr.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 1));
                final CompletionEntry sum = one(p.cqA);
                assertEquals(1, sum.context());
                assertEquals(Flags.ATOMIC | Flags.WRITE, sum.flags());
                assertEquals(15, target.getLong(0));
                assertEquals(27, target.getLong(8));

                final UnsafeBuffer result = direct(16);
                assertEquals(0, p.a.fetchAtomic(operands, 0, 2, result, 0, p.addrBFromA, 0, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 2));
                final CompletionEntry fetch = one(p.cqA);
                assertEquals(Flags.ATOMIC | Flags.READ, fetch.flags());
                assertEquals(15, result.getLong(0));
                assertEquals(27, result.getLong(8));
                assertEquals(20, target.getLong(0));

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
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldRefuseUnsupportedPairsAndBadAccessWithoutTouchingTarget(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = direct(32);
            final UnsafeBuffer operands = direct(32);
            operands.putLong(0, 1);
            try (MemoryRegion writeOnly = p.domainB.registerMemory(target, 0, 32, Flags.REMOTE_WRITE, 9))
            {
                assertTrue(p.a.atomicValid(AtomicDatatype.DOUBLE, AtomicOp.BOR) < 0);
                assertEquals(Errno.EOPNOTSUPP.negated(), p.a.atomic(operands, 0, 1, p.addrBFromA, 0, 9,
                    AtomicDatatype.DOUBLE, AtomicOp.BOR, 1));
                assertEquals(Errno.EOPNOTSUPP.negated(), p.a.atomic(operands, 0, 1, p.addrBFromA, 0, 9,
                    AtomicDatatype.INT64, AtomicOp.CSWAP, 1));
                assertEquals(Errno.EMSGSIZE.negated(), p.a.atomic(direct(1024), 0, 100, p.addrBFromA, 0, 9,
                    AtomicDatatype.INT64, AtomicOp.SUM, 1));
                final UnsafeBuffer result = direct(8);
                assertEquals(0, p.a.fetchAtomic(operands, 0, 1, result, 0, p.addrBFromA, 0, 9,
                    AtomicDatatype.INT64, AtomicOp.SUM, 2));
                assertEquals(Errno.EACCES, error(p.cqA).errno());
                assertEquals(0, p.a.atomic(operands, 0, 1, p.addrBFromA, 32, 9, AtomicDatatype.INT64,
                    AtomicOp.SUM, 3));
                assertEquals(Errno.EACCES, error(p.cqA).errno());
                assertEquals(0, p.a.atomic(operands, 0, 1, p.addrBFromA, 0, 1234, AtomicDatatype.INT64,
                    AtomicOp.SUM, 4));
                assertEquals(Errno.EINVAL, error(p.cqA).errno());
                for (int i = 0; i < 32; i++)
                {
                    assertEquals(0, target.getByte(i));
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
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
                final UnsafeBuffer ops = direct(8);
                ops.putInt(0, 1);
                ops.putInt(4, 2);
                assertEquals(0, p.a.atomicv(new org.agrona.DirectBuffer[]{ops}, 1, p.addrBFromA, 0, 8,
                    AtomicDatatype.INT32, AtomicOp.SUM, 1));
                assertEquals(1, one(p.cqA).context());
                assertEquals(101, target.getInt(0));
                assertEquals(202, target.getInt(4));

                final Message msg = new Message().buffer(ops, 0, 8).addr(p.addrBFromA).rma(0, 8).context(2);
                assertEquals(0, p.a.atomicmsg(msg, AtomicDatatype.INT32, AtomicOp.MAX, Flags.COMPLETION));
                assertEquals(2, one(p.cqA).context());
                assertEquals(101, target.getInt(0));

                final UnsafeBuffer result = direct(8);
                assertEquals(0, p.a.fetchAtomicmsg(msg.context(3), result, 0, AtomicDatatype.INT32, AtomicOp.BOR,
                    Flags.COMPLETION));
                assertEquals(3, one(p.cqA).context());
                assertEquals(101, result.getInt(0));
                assertEquals(101 | 1, target.getInt(0));

                assertEquals(0, p.a.fetchAtomicv(new org.agrona.DirectBuffer[]{ops}, 1,
                    new org.agrona.DirectBuffer[]{result}, 1, p.addrBFromA, 0, 8, AtomicDatatype.INT32,
                    AtomicOp.ATOMIC_WRITE, 4));
                assertEquals(4, one(p.cqA).context());
                assertEquals(1, target.getInt(0));
                assertEquals(2, target.getInt(4));

                final UnsafeBuffer compare = direct(8);
                compare.putInt(0, 1);
                compare.putInt(4, 999);
                ops.putInt(0, 50);
                ops.putInt(4, 60);
                assertEquals(0, p.a.compareAtomicmsg(msg.context(5), compare, 0, result, 0, AtomicDatatype.INT32,
                    AtomicOp.CSWAP, Flags.COMPLETION));
                assertEquals(5, one(p.cqA).context());
                assertEquals(50, target.getInt(0));
                assertEquals(2, target.getInt(4));
                assertEquals(1, result.getInt(0));

                assertEquals(0, p.a.compareAtomicv(new org.agrona.DirectBuffer[]{ops}, 1,
                    new org.agrona.DirectBuffer[]{compare}, 1, new org.agrona.DirectBuffer[]{result}, 1,
                    p.addrBFromA, 0, 8, AtomicDatatype.INT32, AtomicOp.CSWAP_NE, 6));
                assertEquals(6, one(p.cqA).context());
                assertEquals(50, target.getInt(0));
                assertEquals(60, target.getInt(4));
                assertEquals(Errno.EINVAL.negated(), p.a.atomicmsg(new Message().buffer(ops, 0, 7)
                    .addr(p.addrBFromA).rma(0, 8), AtomicDatatype.INT32, AtomicOp.SUM, 0));
            }
        }
    }

    @Test
    protected void shouldMatchTheLocalExecutorForEverySupportedOpAndDatatype()
    {
        final AtomicExecutor reference = new AtomicExecutor(AtomicCapabilities.full(256));
        final SplittableRandom random = new SplittableRandom(7);
        int checked = 0;
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
                            final int count = 2;
                            final int bytes = count * datatype.size();
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
                            final int posted = post(p, kind, operands, compare, result, count, mr.key(), datatype,
                                op);
                            if (valid < 0)
                            {
                                assertEquals(Errno.EOPNOTSUPP.negated(), posted, kind + " " + op + " " + datatype);
                                continue;
                            }
                            assertEquals(0, posted, kind + " " + op + " " + datatype);
                            one(p.cqA);
                            final int local = switch (kind)
                            {
                                case ATOMIC -> reference.atomic(op, datatype, expected.addressOffset(),
                                    operands.addressOffset(), count);
                                case FETCH -> reference.fetchAtomic(op, datatype, expected.addressOffset(),
                                    operands.addressOffset(), expectedResult.addressOffset(), count);
                                default -> reference.compareAtomic(op, datatype, expected.addressOffset(),
                                    operands.addressOffset(), compare.addressOffset(),
                                    expectedResult.addressOffset(), count);
                            };
                            assertEquals(0, local);
                            for (int i = 0; i < bytes; i++)
                            {
                                assertEquals(expected.getByte(i), target.getByte(i),
                                    kind + " " + op + " " + datatype + " target byte " + i);
                                assertEquals(expectedResult.getByte(i), result.getByte(i),
                                    kind + " " + op + " " + datatype + " result byte " + i);
                            }
                            checked++;
                        }
                    }
                }
            }
        }
        assertTrue(checked > 100, "checked " + checked);
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
