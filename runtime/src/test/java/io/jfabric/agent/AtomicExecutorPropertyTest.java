package io.jfabric.agent;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Errno;
import io.jfabric.spi.AtomicCapabilities;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every (family, op, datatype) against a reference model written independently of the executor: integers
 * in {@link BigInteger} arithmetic reduced modulo 2^bits, real floats through double arithmetic, and the
 * comparisons in the man-page form ({@code if (*compare <= *addr)}).
 */
class AtomicExecutorPropertyTest
{
    private static final int MAX_COUNT = 4;
    private static final int BYTES = MAX_COUNT * 16 + 16; // 16 guard bytes past the largest vector
    private static final AtomicCapabilities FULL = AtomicCapabilities.full(64);
    private static final List<Triple> SUPPORTED = new ArrayList<>();
    private static final List<Triple> UNSUPPORTED = new ArrayList<>();

    static
    {
        for (final AtomicCapabilities.Kind kind : AtomicCapabilities.Kind.values())
        {
            for (final AtomicOp op : AtomicOp.values())
            {
                for (final AtomicDatatype datatype : AtomicDatatype.values())
                {
                    (FULL.supports(kind, op, datatype) ? SUPPORTED : UNSUPPORTED).add(new Triple(kind, op, datatype));
                }
            }
        }
    }

    private final AtomicExecutor executor = new AtomicExecutor(FULL);
    private final ByteBuffer target = direct();
    private final ByteBuffer operand = direct();
    private final ByteBuffer compare = direct();
    private final ByteBuffer result = direct();

    @Test
    void shouldCoverTheWholeLibfabricUtilTableLessLongDoubleAndInt128()
    {
        // 116 atomic + 128 fetch + 72 compare triples (see AtomicCapabilities).
        assertEquals(316, SUPPORTED.size());
        assertEquals(3 * 19 * 16 - 316, UNSUPPORTED.size());
    }

    @Test
    void shouldMatchReferenceForEverySupportedTriple()
    {
        final Random random = new Random(42);
        for (final Triple triple : SUPPORTED)
        {
            for (int trial = 0; trial < 40; trial++)
            {
                check(triple, random.nextLong(), 1 + random.nextInt(MAX_COUNT));
            }
        }
    }

    @Property(tries = 1000)
    void shouldMatchReferenceForRandomTriplesAndValues(
        @ForAll @IntRange(min = 0, max = 315) final int tripleIndex,
        @ForAll final long seed,
        @ForAll @IntRange(min = 1, max = MAX_COUNT) final int count)
    {
        check(SUPPORTED.get(tripleIndex), seed, count);
    }

    @Test
    void shouldAnswerEopnotsuppAndLeaveMemoryUntouchedForEveryUnsupportedTriple()
    {
        final Random random = new Random(7);
        for (final Triple triple : UNSUPPORTED)
        {
            fillRandom(random);
            final byte[] targetBefore = bytes(target);
            final byte[] resultBefore = bytes(result);
            final int status = run(triple, 1);
            assertEquals(-Errno.EOPNOTSUPP.value(), status, triple.toString());
            assertArrayEquals(targetBefore, bytes(target), triple.toString());
            assertArrayEquals(resultBefore, bytes(result), triple.toString());
        }
    }

    @Test
    void shouldAgreeWithTheValidQueriesOnTheCountLimit()
    {
        final AtomicExecutor small = new AtomicExecutor(AtomicCapabilities.full(32));
        for (final Triple triple : SUPPORTED)
        {
            final long valid;
            switch (triple.kind)
            {
                case ATOMIC:
                    valid = small.atomicValid(triple.op, triple.datatype);
                    break;
                case FETCH:
                    valid = small.fetchAtomicValid(triple.op, triple.datatype);
                    break;
                default:
                    valid = small.compareAtomicValid(triple.op, triple.datatype);
                    break;
            }
            assertEquals(32 / triple.datatype.size(), valid, triple.toString());
            fillValues(new Random(valid), triple.datatype, (int) valid);
            final byte[] before = bytes(target);
            assertEquals(-Errno.EMSGSIZE.value(), run(small, triple, (int) valid + 1), triple.toString());
            assertArrayEquals(before, bytes(target), triple.toString());
            assertEquals(0, run(small, triple, (int) valid), triple.toString());
        }
        for (final Triple triple : UNSUPPORTED)
        {
            final long atomic = small.atomicValid(triple.op, triple.datatype);
            final long fetch = small.fetchAtomicValid(triple.op, triple.datatype);
            final long compare = small.compareAtomicValid(triple.op, triple.datatype);
            final long valid = triple.kind == AtomicCapabilities.Kind.ATOMIC ? atomic :
                (triple.kind == AtomicCapabilities.Kind.FETCH ? fetch : compare);
            assertEquals(-Errno.EOPNOTSUPP.value(), valid, triple.toString());
        }
    }

    private void check(final Triple triple, final long seed, final int count)
    {
        final Random random = new Random(seed);
        fillValues(random, triple.datatype, count);
        final ByteBuffer expectedTarget = copy(target);
        final ByteBuffer expectedResult = copy(result);
        Reference.apply(triple, expectedTarget, copy(operand), copy(compare), expectedResult, count);

        final int status = run(triple, count);

        final String what = triple + " seed=" + seed + " count=" + count;
        assertEquals(0, status, what);
        assertSameValues(triple.datatype, bytes(expectedTarget), bytes(target), what + " target");
        assertSameValues(triple.datatype, bytes(expectedResult), bytes(result), what + " result");
    }

    private int run(final Triple triple, final int count)
    {
        return run(executor, triple, count);
    }

    private int run(final AtomicExecutor executor, final Triple triple, final int count)
    {
        final long t = BufferUtil.address(target);
        final long o = BufferUtil.address(operand);
        final long c = BufferUtil.address(compare);
        final long r = BufferUtil.address(result);
        switch (triple.kind)
        {
            case ATOMIC:
                return executor.atomic(triple.op, triple.datatype, t, o, count);
            case FETCH:
                return executor.fetchAtomic(triple.op, triple.datatype, t, o, r, count);
            default:
                return executor.compareAtomic(triple.op, triple.datatype, t, o, c, r, count);
        }
    }

    private static void assertSameValues(
        final AtomicDatatype datatype, final byte[] expected, final byte[] actual, final String what)
    {
        if (datatype.isInteger())
        {
            assertArrayEquals(expected, actual, what);
            return;
        }
        // Floats: equal values with every NaN counted as one value (NaN payloads are not specified).
        final ByteBuffer e = ByteBuffer.wrap(expected).order(ByteOrder.nativeOrder());
        final ByteBuffer a = ByteBuffer.wrap(actual).order(ByteOrder.nativeOrder());
        final boolean single = datatype == AtomicDatatype.FLOAT || datatype == AtomicDatatype.FLOAT_COMPLEX;
        final int step = single ? 4 : 8;
        for (int i = 0; i + step <= expected.length; i += step)
        {
            if (single)
            {
                assertEquals(Float.floatToIntBits(e.getFloat(i)), Float.floatToIntBits(a.getFloat(i)), what + " @" + i);
            }
            else
            {
                assertEquals(
                    Double.doubleToLongBits(e.getDouble(i)), Double.doubleToLongBits(a.getDouble(i)), what + " @" + i);
            }
        }
    }

    private void fillRandom(final Random random)
    {
        for (final ByteBuffer b : new ByteBuffer[]{ target, operand, compare, result })
        {
            for (int i = 0; i < BYTES; i++)
            {
                b.put(i, (byte) random.nextInt());
            }
        }
    }

    private void fillValues(final Random random, final AtomicDatatype datatype, final int count)
    {
        fillRandom(random);
        final int size = datatype.size();
        for (int i = 0; i < count; i++)
        {
            final int offset = i * size;
            final boolean complex =
                datatype == AtomicDatatype.FLOAT_COMPLEX || datatype == AtomicDatatype.DOUBLE_COMPLEX;
            final int parts = complex ? 2 : 1;
            final int partSize = size / parts;
            for (int p = 0; p < parts; p++)
            {
                final int at = offset + p * partSize;
                putValue(target, at, datatype, random);
                putValue(operand, at, datatype, random);
                putValue(compare, at, datatype, random);
            }
            // Make equality (CSWAP, CSWAP_LE/GE) happen often: a third of the compares equal the target.
            if (random.nextInt(3) == 0)
            {
                for (int k = 0; k < size; k++)
                {
                    compare.put(offset + k, target.get(offset + k));
                }
            }
        }
    }

    private static void putValue(
        final ByteBuffer buffer, final int offset, final AtomicDatatype datatype, final Random r)
    {
        switch (datatype)
        {
            case FLOAT:
            case FLOAT_COMPLEX:
                buffer.putFloat(offset, (float) floatValue(r));
                break;
            case DOUBLE:
            case DOUBLE_COMPLEX:
                buffer.putDouble(offset, floatValue(r));
                break;
            default:
                final long v = integerValue(r, datatype.size());
                switch (datatype.size())
                {
                    case 1:
                        buffer.put(offset, (byte) v);
                        break;
                    case 2:
                        buffer.putShort(offset, (short) v);
                        break;
                    case 4:
                        buffer.putInt(offset, (int) v);
                        break;
                    default:
                        buffer.putLong(offset, v);
                        break;
                }
                break;
        }
    }

    private static long integerValue(final Random r, final int size)
    {
        final int bits = size * 8;
        switch (r.nextInt(6))
        {
            case 0:
                return 0;
            case 1:
                return r.nextInt(9) - 4;
            case 2:
                return bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1; // signed max
            case 3:
                return bits == 64 ? Long.MIN_VALUE : 1L << (bits - 1); // signed min, unsigned mid
            case 4:
                return -1; // all ones: unsigned max
            default:
                return r.nextLong();
        }
    }

    private static double floatValue(final Random r)
    {
        switch (r.nextInt(12))
        {
            case 0:
                return 0.0;
            case 1:
                return -0.0;
            case 2:
                return Double.NaN;
            case 3:
                return r.nextBoolean() ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
            case 4:
                return r.nextInt(5) - 2;
            case 5:
                return r.nextBoolean() ? Float.MAX_VALUE : Float.MIN_VALUE;
            default:
                return r.nextGaussian() * 1000;
        }
    }

    private static ByteBuffer direct()
    {
        return ByteBuffer.allocateDirect(BYTES).order(ByteOrder.nativeOrder());
    }

    private static ByteBuffer copy(final ByteBuffer source)
    {
        return ByteBuffer.wrap(bytes(source)).order(ByteOrder.nativeOrder());
    }

    private static byte[] bytes(final ByteBuffer source)
    {
        final byte[] b = new byte[BYTES];
        for (int i = 0; i < BYTES; i++)
        {
            b[i] = source.get(i);
        }
        return b;
    }

    static final class Triple
    {
        final AtomicCapabilities.Kind kind;
        final AtomicOp op;
        final AtomicDatatype datatype;

        Triple(final AtomicCapabilities.Kind kind, final AtomicOp op, final AtomicDatatype datatype)
        {
            this.kind = kind;
            this.op = op;
            this.datatype = datatype;
        }

        @Override
        public String toString()
        {
            return kind + " " + op.fiName() + " " + datatype.fiName();
        }
    }

    /**
     * The reference model, over heap buffers in native order.
     */
    static final class Reference
    {
        static void apply(
            final Triple triple,
            final ByteBuffer target,
            final ByteBuffer operand,
            final ByteBuffer compare,
            final ByteBuffer result,
            final int count)
        {
            final AtomicDatatype datatype = triple.datatype;
            final boolean fetch = triple.kind != AtomicCapabilities.Kind.ATOMIC;
            final int size = datatype.size();
            for (int i = 0; i < count; i++)
            {
                final int at = i * size;
                if (fetch)
                {
                    for (int k = 0; k < size; k++)
                    {
                        result.put(at + k, target.get(at + k));
                    }
                }
                if (datatype.isInteger())
                {
                    integer(triple.op, datatype, target, operand, compare, at);
                }
                else if (datatype == AtomicDatatype.FLOAT || datatype == AtomicDatatype.DOUBLE)
                {
                    real(triple.op, datatype == AtomicDatatype.FLOAT, target, operand, compare, at);
                }
                else
                {
                    complex(triple.op, datatype == AtomicDatatype.FLOAT_COMPLEX, target, operand, compare, at);
                }
            }
        }

        private static void integer(
            final AtomicOp op,
            final AtomicDatatype datatype,
            final ByteBuffer target,
            final ByteBuffer operand,
            final ByteBuffer compare,
            final int at)
        {
            final int bits = datatype.size() * 8;
            final BigInteger dst = read(target, at, datatype);
            final BigInteger src = read(operand, at, datatype);
            final BigInteger cmp = read(compare, at, datatype);
            final BigInteger next;
            switch (op)
            {
                case MIN:
                    next = src.compareTo(dst) < 0 ? src : dst;
                    break;
                case MAX:
                    next = src.compareTo(dst) > 0 ? src : dst;
                    break;
                case SUM:
                    next = dst.add(src);
                    break;
                case PROD:
                    next = dst.multiply(src);
                    break;
                case LOR:
                    next = truth(dst.signum() != 0 || src.signum() != 0);
                    break;
                case LAND:
                    next = truth(dst.signum() != 0 && src.signum() != 0);
                    break;
                case LXOR:
                    next = truth(dst.signum() != 0 ^ src.signum() != 0);
                    break;
                case BOR:
                    next = dst.or(src);
                    break;
                case BAND:
                    next = dst.and(src);
                    break;
                case BXOR:
                    next = dst.xor(src);
                    break;
                case ATOMIC_READ:
                    next = dst;
                    break;
                case ATOMIC_WRITE:
                    next = src;
                    break;
                case CSWAP:
                    next = cmp.compareTo(dst) == 0 ? src : dst;
                    break;
                case CSWAP_NE:
                    next = cmp.compareTo(dst) != 0 ? src : dst;
                    break;
                case CSWAP_LE:
                    next = cmp.compareTo(dst) <= 0 ? src : dst;
                    break;
                case CSWAP_LT:
                    next = cmp.compareTo(dst) < 0 ? src : dst;
                    break;
                case CSWAP_GE:
                    next = cmp.compareTo(dst) >= 0 ? src : dst;
                    break;
                case CSWAP_GT:
                    next = cmp.compareTo(dst) > 0 ? src : dst;
                    break;
                case MSWAP:
                    next = src.and(cmp).or(dst.andNot(cmp));
                    break;
                default:
                    throw new IllegalArgumentException(op.toString());
            }
            final BigInteger wrapped = next.mod(BigInteger.ONE.shiftLeft(bits));
            final long raw = wrapped.longValue();
            switch (bits)
            {
                case 8:
                    target.put(at, (byte) raw);
                    break;
                case 16:
                    target.putShort(at, (short) raw);
                    break;
                case 32:
                    target.putInt(at, (int) raw);
                    break;
                default:
                    target.putLong(at, raw);
                    break;
            }
        }

        private static BigInteger read(final ByteBuffer buffer, final int at, final AtomicDatatype datatype)
        {
            final int bits = datatype.size() * 8;
            final long raw;
            switch (bits)
            {
                case 8:
                    raw = buffer.get(at);
                    break;
                case 16:
                    raw = buffer.getShort(at);
                    break;
                case 32:
                    raw = buffer.getInt(at);
                    break;
                default:
                    raw = buffer.getLong(at);
                    break;
            }
            final BigInteger signed = BigInteger.valueOf(raw);
            return datatype.isUnsigned() ? signed.mod(BigInteger.ONE.shiftLeft(bits)) : signed;
        }

        private static BigInteger truth(final boolean value)
        {
            return value ? BigInteger.ONE : BigInteger.ZERO;
        }

        private static void real(
            final AtomicOp op,
            final boolean single,
            final ByteBuffer target,
            final ByteBuffer operand,
            final ByteBuffer compare,
            final int at)
        {
            final double dst = single ? target.getFloat(at) : target.getDouble(at);
            final double src = single ? operand.getFloat(at) : operand.getDouble(at);
            final double cmp = single ? compare.getFloat(at) : compare.getDouble(at);
            final double next;
            switch (op)
            {
                case MIN:
                    next = src < dst ? src : dst; // fi_atomic(3): if (*buf < *addr) *addr = *buf
                    break;
                case MAX:
                    next = src > dst ? src : dst;
                    break;
                case SUM:
                    next = dst + src; // one rounding in double then one to float equals float arithmetic
                    break;
                case PROD:
                    next = dst * src;
                    break;
                case LOR:
                    next = dst != 0 || src != 0 ? 1 : 0;
                    break;
                case LAND:
                    next = dst != 0 && src != 0 ? 1 : 0;
                    break;
                case LXOR:
                    next = (dst != 0) ^ (src != 0) ? 1 : 0;
                    break;
                case ATOMIC_READ:
                    next = dst;
                    break;
                case ATOMIC_WRITE:
                    next = src;
                    break;
                case CSWAP:
                    next = cmp == dst ? src : dst;
                    break;
                case CSWAP_NE:
                    next = cmp != dst ? src : dst;
                    break;
                case CSWAP_LE:
                    next = cmp <= dst ? src : dst;
                    break;
                case CSWAP_LT:
                    next = cmp < dst ? src : dst;
                    break;
                case CSWAP_GE:
                    next = cmp >= dst ? src : dst;
                    break;
                case CSWAP_GT:
                    next = cmp > dst ? src : dst;
                    break;
                default:
                    throw new IllegalArgumentException(op.toString());
            }
            if (single)
            {
                target.putFloat(at, (float) next);
            }
            else
            {
                target.putDouble(at, next);
            }
        }

        private static void complex(
            final AtomicOp op,
            final boolean single,
            final ByteBuffer target,
            final ByteBuffer operand,
            final ByteBuffer compare,
            final int at)
        {
            final int part = single ? 4 : 8;
            final double dr = single ? target.getFloat(at) : target.getDouble(at);
            final double di = single ? target.getFloat(at + part) : target.getDouble(at + part);
            final double sr = single ? operand.getFloat(at) : operand.getDouble(at);
            final double si = single ? operand.getFloat(at + part) : operand.getDouble(at + part);
            final double cr = single ? compare.getFloat(at) : compare.getDouble(at);
            final double ci = single ? compare.getFloat(at + part) : compare.getDouble(at + part);
            final boolean dstTrue = dr != 0 || di != 0;
            final boolean srcTrue = sr != 0 || si != 0;
            final boolean equal = cr == dr && ci == di;
            double nr = dr;
            double ni = di;
            switch (op)
            {
                case SUM:
                    nr = dr + sr;
                    ni = di + si;
                    break;
                case PROD:
                    if (single)
                    {
                        // Float products and differences must each round to float, as C does.
                        final float fr = (float) dr * (float) sr - (float) di * (float) si;
                        final float fi = (float) dr * (float) si + (float) di * (float) sr;
                        nr = fr;
                        ni = fi;
                    }
                    else
                    {
                        nr = dr * sr - di * si;
                        ni = dr * si + di * sr;
                    }
                    break;
                case LOR:
                    nr = dstTrue || srcTrue ? 1 : 0;
                    ni = 0;
                    break;
                case LAND:
                    nr = dstTrue && srcTrue ? 1 : 0;
                    ni = 0;
                    break;
                case LXOR:
                    nr = dstTrue ^ srcTrue ? 1 : 0;
                    ni = 0;
                    break;
                case ATOMIC_READ:
                    break;
                case ATOMIC_WRITE:
                    nr = sr;
                    ni = si;
                    break;
                case CSWAP:
                    nr = equal ? sr : dr;
                    ni = equal ? si : di;
                    break;
                case CSWAP_NE:
                    nr = !equal ? sr : dr;
                    ni = !equal ? si : di;
                    break;
                default:
                    throw new IllegalArgumentException(op.toString());
            }
            if (single)
            {
                target.putFloat(at, (float) nr);
                target.putFloat(at + part, (float) ni);
            }
            else
            {
                target.putDouble(at, nr);
                target.putDouble(at + part, ni);
            }
        }
    }
}
