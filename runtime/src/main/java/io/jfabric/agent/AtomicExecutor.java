package io.jfabric.agent;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.spi.AtomicCapabilities;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Executes atomic operations on target memory given by raw address, as the target domain's agent does when
 * an atomic frame arrives: {@code count} elements of one datatype, operands read from an operand vector
 * (and a compare vector for the compare family), the old target values written to a result vector for the
 * fetch and compare families.
 * <p>
 * Semantics are those of {@code fi_atomic(3)} and libfabric's util implementation:
 * <ul>
 *     <li>Integers use C arithmetic: SUM and PROD wrap modulo 2<sup>bits</sup>; MIN, MAX and the ordered
 *         CSWAP forms compare unsigned types as unsigned; LOR, LAND and LXOR yield 1 or 0.</li>
 *     <li>Floats use IEEE 754 in the element's own precision, and C comparisons: a NaN compares false with
 *         everything, so MIN/MAX never store a NaN operand and never replace a NaN target, CSWAP never swaps
 *         when the compare operand or the target is NaN and CSWAP_NE always does; {@code -0.0 == 0.0}, so
 *         MIN/MAX between them keep the target. For LOR/LAND/LXOR any non-zero value, NaN included, is
 *         true, and the result is 1.0 or 0.0.</li>
 *     <li>Complex values are (real, imaginary) pairs: SUM adds parts, PROD is
 *         {@code (ar*br - ai*bi, ar*bi + ai*br)}, equality needs both parts equal, a value is true when
 *         either part is non-zero and logical results are (1, 0) or (0, 0).</li>
 * </ul>
 * Which (family, op, datatype) triples run is decided by the {@link AtomicCapabilities} the executor is
 * built with; any other triple answers {@code -EOPNOTSUPP} and touches no memory.
 * <p>
 * Memory ordering: plain loads and stores. Atomicity holds among the operations one executor runs, because
 * exactly one thread (the owning domain agent) runs them, as libfabric's open-coded atomics require
 * single-threaded access by the provider; the initiator observes the results through the release store that
 * publishes the completion afterwards. Elements are read and written in native byte order and need not be
 * aligned.
 * <p>
 * Not thread-safe: owned by the domain agent. Allocates nothing after construction.
 */
public final class AtomicExecutor
{
    private static final int EOPNOTSUPP = -Errno.EOPNOTSUPP.value();
    private static final int EINVAL = -Errno.EINVAL.value();
    private static final int EMSGSIZE = -Errno.EMSGSIZE.value();

    private final AtomicCapabilities capabilities;
    private final UnsafeBuffer targetBuffer = new UnsafeBuffer(new byte[0]);
    private final UnsafeBuffer operandBuffer = new UnsafeBuffer(new byte[0]);
    private final UnsafeBuffer compareBuffer = new UnsafeBuffer(new byte[0]);
    private final UnsafeBuffer resultBuffer = new UnsafeBuffer(new byte[0]);

    /**
     * An executor running the triples of a capability table.
     *
     * @param capabilities what the provider advertises.
     */
    public AtomicExecutor(final AtomicCapabilities capabilities)
    {
        this.capabilities = capabilities;
    }

    /**
     * The capability table this executor runs.
     *
     * @return the table.
     */
    public AtomicCapabilities capabilities()
    {
        return capabilities;
    }

    /**
     * {@code fi_atomicvalid}: the largest count for a non-fetching atomic, or {@code -EOPNOTSUPP}.
     *
     * @param op       the op.
     * @param datatype the datatype.
     * @return the count or a negative errno.
     */
    public long atomicValid(final AtomicOp op, final AtomicDatatype datatype)
    {
        return capabilities.valid(AtomicCapabilities.Kind.ATOMIC, op, datatype);
    }

    /**
     * {@code fi_fetch_atomicvalid}: the largest count for a fetching atomic, or {@code -EOPNOTSUPP}.
     *
     * @param op       the op.
     * @param datatype the datatype.
     * @return the count or a negative errno.
     */
    public long fetchAtomicValid(final AtomicOp op, final AtomicDatatype datatype)
    {
        return capabilities.valid(AtomicCapabilities.Kind.FETCH, op, datatype);
    }

    /**
     * {@code fi_compare_atomicvalid}: the largest count for a compare atomic, or {@code -EOPNOTSUPP}.
     *
     * @param op       the op.
     * @param datatype the datatype.
     * @return the count or a negative errno.
     */
    public long compareAtomicValid(final AtomicOp op, final AtomicDatatype datatype)
    {
        return capabilities.valid(AtomicCapabilities.Kind.COMPARE, op, datatype);
    }

    /**
     * The memory-region rights the target must check ({@link MemoryRegistry#verify}) before running an
     * operation, following {@code fi_atomic(3)}: a base atomic writes the target ({@code REMOTE_WRITE}); a
     * fetching or compare atomic also returns it, so the region must be enabled for remote read as well
     * ({@code REMOTE_READ | REMOTE_WRITE}); a fetching ATOMIC_READ only reads ({@code REMOTE_READ}).
     * Allocates nothing.
     *
     * @param kind the family.
     * @param op   the op.
     * @return the access flags to pass to {@link MemoryRegistry#verify}.
     */
    public static long remoteAccess(final AtomicCapabilities.Kind kind, final AtomicOp op)
    {
        if (kind == AtomicCapabilities.Kind.ATOMIC)
        {
            return Flags.REMOTE_WRITE;
        }
        return op == AtomicOp.ATOMIC_READ ? Flags.REMOTE_READ : Flags.REMOTE_READ | Flags.REMOTE_WRITE;
    }

    /**
     * {@code fi_atomic} at the target: {@code target[i] = op(target[i], operand[i])} for each element.
     *
     * @param op             the op.
     * @param datatype       the element type.
     * @param targetAddress  raw address of the first target element (already verified against its MR).
     * @param operandAddress raw address of the operand vector.
     * @param count          the number of elements, 1 to {@link #atomicValid}.
     * @return 0, {@code -EOPNOTSUPP} for an unsupported triple, {@code -EMSGSIZE} for more elements than
     * {@link #atomicValid} allows, {@code -EINVAL} for a count below 1, a null argument or a zero address; on
     * error no memory is touched.
     */
    public int atomic(
        final AtomicOp op,
        final AtomicDatatype datatype,
        final long targetAddress,
        final long operandAddress,
        final int count)
    {
        return execute(AtomicCapabilities.Kind.ATOMIC, op, datatype, targetAddress, operandAddress, 0, 0, count);
    }

    /**
     * {@code fi_fetch_atomic} at the target: {@code result[i] = target[i]; target[i] = op(target[i],
     * operand[i])} for each element. For {@link AtomicOp#ATOMIC_READ} the operand is not read and may be 0.
     *
     * @param op             the op.
     * @param datatype       the element type.
     * @param targetAddress  raw address of the first target element.
     * @param operandAddress raw address of the operand vector.
     * @param resultAddress  raw address where the old values go.
     * @param count          the number of elements, 1 to {@link #fetchAtomicValid}.
     * @return 0, {@code -EOPNOTSUPP}, {@code -EMSGSIZE} or {@code -EINVAL} as for {@link #atomic}; on error no
     * memory is touched.
     */
    public int fetchAtomic(
        final AtomicOp op,
        final AtomicDatatype datatype,
        final long targetAddress,
        final long operandAddress,
        final long resultAddress,
        final int count)
    {
        return execute(
            AtomicCapabilities.Kind.FETCH, op, datatype, targetAddress, operandAddress, 0, resultAddress, count);
    }

    /**
     * {@code fi_compare_atomic} at the target: {@code result[i] = target[i]}, then the conditional or masked
     * swap of {@code op} with {@code operand[i]} and {@code compare[i]}.
     *
     * @param op             a compare-family op (CSWAP* or MSWAP).
     * @param datatype       the element type.
     * @param targetAddress  raw address of the first target element.
     * @param operandAddress raw address of the operand (swap value) vector.
     * @param compareAddress raw address of the compare (or mask) vector.
     * @param resultAddress  raw address where the old values go.
     * @param count          the number of elements, 1 to {@link #compareAtomicValid}.
     * @return 0, {@code -EOPNOTSUPP}, {@code -EMSGSIZE} or {@code -EINVAL} as for {@link #atomic}; on error no
     * memory is touched.
     */
    public int compareAtomic(
        final AtomicOp op,
        final AtomicDatatype datatype,
        final long targetAddress,
        final long operandAddress,
        final long compareAddress,
        final long resultAddress,
        final int count)
    {
        return execute(
            AtomicCapabilities.Kind.COMPARE,
            op,
            datatype,
            targetAddress,
            operandAddress,
            compareAddress,
            resultAddress,
            count);
    }

    private int execute(
        final AtomicCapabilities.Kind kind,
        final AtomicOp op,
        final AtomicDatatype datatype,
        final long targetAddress,
        final long operandAddress,
        final long compareAddress,
        final long resultAddress,
        final int count)
    {
        if (op == null || datatype == null)
        {
            return EINVAL;
        }
        final long max = capabilities.valid(kind, op, datatype);
        if (max < 0)
        {
            return EOPNOTSUPP;
        }
        if (count > max)
        {
            return EMSGSIZE; // fi_atomic(3): more elements than the provider supports in one request
        }
        if (count <= 0 || targetAddress == 0 ||
            (op != AtomicOp.ATOMIC_READ && operandAddress == 0) ||
            (kind == AtomicCapabilities.Kind.COMPARE && compareAddress == 0) ||
            (kind != AtomicCapabilities.Kind.ATOMIC && resultAddress == 0))
        {
            return EINVAL;
        }

        final int length = count * datatype.size();
        targetBuffer.wrap(targetAddress, length);
        if (op != AtomicOp.ATOMIC_READ)
        {
            operandBuffer.wrap(operandAddress, length);
        }
        if (kind == AtomicCapabilities.Kind.COMPARE)
        {
            compareBuffer.wrap(compareAddress, length);
        }
        final boolean fetch = kind != AtomicCapabilities.Kind.ATOMIC;
        if (fetch)
        {
            resultBuffer.wrap(resultAddress, length);
        }

        switch (datatype)
        {
            case FLOAT:
                floats(op, fetch, count);
                break;
            case DOUBLE:
                doubles(op, fetch, count);
                break;
            case FLOAT_COMPLEX:
                floatComplexes(op, fetch, count);
                break;
            case DOUBLE_COMPLEX:
                doubleComplexes(op, fetch, count);
                break;
            default:
                integers(op, datatype, fetch, count);
                break;
        }
        return 0;
    }

    private void integers(final AtomicOp op, final AtomicDatatype datatype, final boolean fetch, final int count)
    {
        final UnsafeBuffer target = targetBuffer;
        final UnsafeBuffer operandVector = operandBuffer;
        final UnsafeBuffer compareVector = compareBuffer;
        final int size = datatype.size();
        final boolean unsigned64 = datatype == AtomicDatatype.UINT64;
        final boolean read = op == AtomicOp.ATOMIC_READ;
        final boolean compareFamily = op.isCompare();

        for (int i = 0, offset = 0; i < count; i++, offset += size)
        {
            final long old = readInteger(target, offset, datatype);
            final long operand = read ? 0 : readInteger(operandVector, offset, datatype);
            final long compare = compareFamily ? readInteger(compareVector, offset, datatype) : 0;
            long next = old;
            boolean store = true;
            switch (op)
            {
                case MIN:
                    store = compareIntegers(operand, old, unsigned64) < 0;
                    next = operand;
                    break;
                case MAX:
                    store = compareIntegers(operand, old, unsigned64) > 0;
                    next = operand;
                    break;
                case SUM:
                    next = old + operand; // wraps when narrowed back to the element width
                    break;
                case PROD:
                    next = old * operand; // the low bits of a product do not depend on signedness
                    break;
                case LOR:
                    next = old != 0 || operand != 0 ? 1 : 0;
                    break;
                case LAND:
                    next = old != 0 && operand != 0 ? 1 : 0;
                    break;
                case BOR:
                    next = old | operand;
                    break;
                case BAND:
                    next = old & operand;
                    break;
                case LXOR:
                    next = (old != 0) != (operand != 0) ? 1 : 0;
                    break;
                case BXOR:
                    next = old ^ operand;
                    break;
                case ATOMIC_WRITE:
                    next = operand;
                    break;
                case CSWAP:
                    store = compare == old;
                    next = operand;
                    break;
                case CSWAP_NE:
                    store = compare != old;
                    next = operand;
                    break;
                case CSWAP_LE:
                    store = compareIntegers(compare, old, unsigned64) <= 0;
                    next = operand;
                    break;
                case CSWAP_LT:
                    store = compareIntegers(compare, old, unsigned64) < 0;
                    next = operand;
                    break;
                case CSWAP_GE:
                    store = compareIntegers(compare, old, unsigned64) >= 0;
                    next = operand;
                    break;
                case CSWAP_GT:
                    store = compareIntegers(compare, old, unsigned64) > 0;
                    next = operand;
                    break;
                case MSWAP:
                    next = (operand & compare) | (old & ~compare);
                    break;
                default: // ATOMIC_READ
                    store = false;
                    break;
            }
            if (fetch)
            {
                writeInteger(resultBuffer, offset, size, old);
            }
            if (store)
            {
                writeInteger(target, offset, size, next);
            }
        }
    }

    private void floats(final AtomicOp op, final boolean fetch, final int count)
    {
        final UnsafeBuffer target = targetBuffer;
        final boolean read = op == AtomicOp.ATOMIC_READ;
        final boolean compareFamily = op.isCompare();

        for (int i = 0, offset = 0; i < count; i++, offset += Float.BYTES)
        {
            final float old = target.getFloat(offset);
            final float operand = read ? 0 : operandBuffer.getFloat(offset);
            final float compare = compareFamily ? compareBuffer.getFloat(offset) : 0;
            float next = old;
            boolean store = true;
            switch (op)
            {
                case MIN:
                    store = old > operand; // C comparison: false when either is NaN
                    next = operand;
                    break;
                case MAX:
                    store = old < operand;
                    next = operand;
                    break;
                case SUM:
                    next = old + operand;
                    break;
                case PROD:
                    next = old * operand;
                    break;
                case LOR:
                    next = old != 0 || operand != 0 ? 1 : 0;
                    break;
                case LAND:
                    next = old != 0 && operand != 0 ? 1 : 0;
                    break;
                case LXOR:
                    next = (old != 0) != (operand != 0) ? 1 : 0;
                    break;
                case ATOMIC_WRITE:
                    next = operand;
                    break;
                case CSWAP:
                    store = compare == old;
                    next = operand;
                    break;
                case CSWAP_NE:
                    store = compare != old;
                    next = operand;
                    break;
                case CSWAP_LE:
                    store = compare <= old;
                    next = operand;
                    break;
                case CSWAP_LT:
                    store = compare < old;
                    next = operand;
                    break;
                case CSWAP_GE:
                    store = compare >= old;
                    next = operand;
                    break;
                case CSWAP_GT:
                    store = compare > old;
                    next = operand;
                    break;
                default: // ATOMIC_READ; the capability table excludes the bitwise ops
                    store = false;
                    break;
            }
            if (fetch)
            {
                resultBuffer.putFloat(offset, old);
            }
            if (store)
            {
                target.putFloat(offset, next);
            }
        }
    }

    private void doubles(final AtomicOp op, final boolean fetch, final int count)
    {
        final UnsafeBuffer target = targetBuffer;
        final boolean read = op == AtomicOp.ATOMIC_READ;
        final boolean compareFamily = op.isCompare();

        for (int i = 0, offset = 0; i < count; i++, offset += Double.BYTES)
        {
            final double old = target.getDouble(offset);
            final double operand = read ? 0 : operandBuffer.getDouble(offset);
            final double compare = compareFamily ? compareBuffer.getDouble(offset) : 0;
            double next = old;
            boolean store = true;
            switch (op)
            {
                case MIN:
                    store = old > operand; // C comparison: false when either is NaN
                    next = operand;
                    break;
                case MAX:
                    store = old < operand;
                    next = operand;
                    break;
                case SUM:
                    next = old + operand;
                    break;
                case PROD:
                    next = old * operand;
                    break;
                case LOR:
                    next = old != 0 || operand != 0 ? 1 : 0;
                    break;
                case LAND:
                    next = old != 0 && operand != 0 ? 1 : 0;
                    break;
                case LXOR:
                    next = (old != 0) != (operand != 0) ? 1 : 0;
                    break;
                case ATOMIC_WRITE:
                    next = operand;
                    break;
                case CSWAP:
                    store = compare == old;
                    next = operand;
                    break;
                case CSWAP_NE:
                    store = compare != old;
                    next = operand;
                    break;
                case CSWAP_LE:
                    store = compare <= old;
                    next = operand;
                    break;
                case CSWAP_LT:
                    store = compare < old;
                    next = operand;
                    break;
                case CSWAP_GE:
                    store = compare >= old;
                    next = operand;
                    break;
                case CSWAP_GT:
                    store = compare > old;
                    next = operand;
                    break;
                default: // ATOMIC_READ; the capability table excludes the bitwise ops
                    store = false;
                    break;
            }
            if (fetch)
            {
                resultBuffer.putDouble(offset, old);
            }
            if (store)
            {
                target.putDouble(offset, next);
            }
        }
    }

    private void floatComplexes(final AtomicOp op, final boolean fetch, final int count)
    {
        final UnsafeBuffer target = targetBuffer;
        final boolean read = op == AtomicOp.ATOMIC_READ;
        final boolean compareFamily = op.isCompare();

        for (int i = 0, re = 0; i < count; i++, re += 2 * Float.BYTES)
        {
            final int im = re + Float.BYTES;
            final float oldRe = target.getFloat(re);
            final float oldIm = target.getFloat(im);
            final float opRe = read ? 0 : operandBuffer.getFloat(re);
            final float opIm = read ? 0 : operandBuffer.getFloat(im);
            final float cmpRe = compareFamily ? compareBuffer.getFloat(re) : 0;
            final float cmpIm = compareFamily ? compareBuffer.getFloat(im) : 0;
            float nextRe = opRe;
            float nextIm = opIm;
            boolean store = true;
            switch (op)
            {
                case SUM:
                    nextRe = oldRe + opRe;
                    nextIm = oldIm + opIm;
                    break;
                case PROD:
                    nextRe = oldRe * opRe - oldIm * opIm;
                    nextIm = oldRe * opIm + oldIm * opRe;
                    break;
                case LOR:
                    nextRe = (oldRe != 0 || oldIm != 0) || (opRe != 0 || opIm != 0) ? 1 : 0;
                    nextIm = 0;
                    break;
                case LAND:
                    nextRe = (oldRe != 0 || oldIm != 0) && (opRe != 0 || opIm != 0) ? 1 : 0;
                    nextIm = 0;
                    break;
                case LXOR:
                    nextRe = (oldRe != 0 || oldIm != 0) != (opRe != 0 || opIm != 0) ? 1 : 0;
                    nextIm = 0;
                    break;
                case ATOMIC_WRITE:
                    break;
                case CSWAP:
                    store = cmpRe == oldRe && cmpIm == oldIm;
                    break;
                case CSWAP_NE:
                    store = !(cmpRe == oldRe && cmpIm == oldIm);
                    break;
                default: // ATOMIC_READ; the capability table excludes the ordered and bitwise ops
                    store = false;
                    break;
            }
            if (fetch)
            {
                resultBuffer.putFloat(re, oldRe);
                resultBuffer.putFloat(im, oldIm);
            }
            if (store)
            {
                target.putFloat(re, nextRe);
                target.putFloat(im, nextIm);
            }
        }
    }

    private void doubleComplexes(final AtomicOp op, final boolean fetch, final int count)
    {
        final UnsafeBuffer target = targetBuffer;
        final boolean read = op == AtomicOp.ATOMIC_READ;
        final boolean compareFamily = op.isCompare();

        for (int i = 0, re = 0; i < count; i++, re += 2 * Double.BYTES)
        {
            final int im = re + Double.BYTES;
            final double oldRe = target.getDouble(re);
            final double oldIm = target.getDouble(im);
            final double opRe = read ? 0 : operandBuffer.getDouble(re);
            final double opIm = read ? 0 : operandBuffer.getDouble(im);
            final double cmpRe = compareFamily ? compareBuffer.getDouble(re) : 0;
            final double cmpIm = compareFamily ? compareBuffer.getDouble(im) : 0;
            double nextRe = opRe;
            double nextIm = opIm;
            boolean store = true;
            switch (op)
            {
                case SUM:
                    nextRe = oldRe + opRe;
                    nextIm = oldIm + opIm;
                    break;
                case PROD:
                    nextRe = oldRe * opRe - oldIm * opIm;
                    nextIm = oldRe * opIm + oldIm * opRe;
                    break;
                case LOR:
                    nextRe = (oldRe != 0 || oldIm != 0) || (opRe != 0 || opIm != 0) ? 1 : 0;
                    nextIm = 0;
                    break;
                case LAND:
                    nextRe = (oldRe != 0 || oldIm != 0) && (opRe != 0 || opIm != 0) ? 1 : 0;
                    nextIm = 0;
                    break;
                case LXOR:
                    nextRe = (oldRe != 0 || oldIm != 0) != (opRe != 0 || opIm != 0) ? 1 : 0;
                    nextIm = 0;
                    break;
                case ATOMIC_WRITE:
                    break;
                case CSWAP:
                    store = cmpRe == oldRe && cmpIm == oldIm;
                    break;
                case CSWAP_NE:
                    store = !(cmpRe == oldRe && cmpIm == oldIm);
                    break;
                default: // ATOMIC_READ; the capability table excludes the ordered and bitwise ops
                    store = false;
                    break;
            }
            if (fetch)
            {
                resultBuffer.putDouble(re, oldRe);
                resultBuffer.putDouble(im, oldIm);
            }
            if (store)
            {
                target.putDouble(re, nextRe);
                target.putDouble(im, nextIm);
            }
        }
    }

    private static int compareIntegers(final long a, final long b, final boolean unsigned64)
    {
        // Narrow unsigned types are zero-extended on read, so only UINT64 needs an unsigned comparison.
        return unsigned64 ? Long.compareUnsigned(a, b) : Long.compare(a, b);
    }

    private static long readInteger(final UnsafeBuffer buffer, final int offset, final AtomicDatatype datatype)
    {
        switch (datatype)
        {
            case INT8:
                return buffer.getByte(offset);
            case UINT8:
                return buffer.getByte(offset) & 0xFFL;
            case INT16:
                return buffer.getShort(offset);
            case UINT16:
                return buffer.getShort(offset) & 0xFFFFL;
            case INT32:
                return buffer.getInt(offset);
            case UINT32:
                return buffer.getInt(offset) & 0xFFFF_FFFFL;
            default:
                return buffer.getLong(offset);
        }
    }

    private static void writeInteger(final UnsafeBuffer buffer, final int offset, final int size, final long value)
    {
        switch (size)
        {
            case 1:
                buffer.putByte(offset, (byte) value);
                break;
            case 2:
                buffer.putShort(offset, (short) value);
                break;
            case 4:
                buffer.putInt(offset, (int) value);
                break;
            default:
                buffer.putLong(offset, value);
                break;
        }
    }
}
