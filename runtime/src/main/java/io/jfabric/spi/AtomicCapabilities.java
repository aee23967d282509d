package io.jfabric.spi;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Errno;
import io.jfabric.FabricException;

import java.util.Arrays;

/**
 * The set of (family, op, datatype) triples a provider advertises, and the largest atomic payload, which
 * together answer the {@code fi_atomicvalid}, {@code fi_fetch_atomicvalid} and
 * {@code fi_compare_atomicvalid} queries.
 * <p>
 * {@link #full(int)} is everything the runtime's atomic executor implements, which is libfabric's util table
 * ({@code prov/util/src/util_atomic.c}) less the types Java cannot represent:
 * <ul>
 *     <li>atomic (no fetch): MIN, MAX on integers and real floats; SUM, PROD, LOR, LAND, LXOR and
 *         ATOMIC_WRITE on integers, real floats and complex floats; BOR, BAND, BXOR on integers;
 *         ATOMIC_READ and the compare ops never;</li>
 *     <li>fetch: the same plus ATOMIC_READ on every type;</li>
 *     <li>compare: CSWAP and CSWAP_NE on every type; CSWAP_LE/LT/GE/GT on integers and real floats;
 *         MSWAP on integers;</li>
 *     <li>LONG_DOUBLE, LONG_DOUBLE_COMPLEX, INT128 and UINT128: nothing.</li>
 * </ul>
 * A provider narrows the table ({@link #without}, {@link #intersect}) or builds its own from
 * {@link #none(int)} with {@link #with}; a triple the executor cannot run is refused.
 * <p>
 * Immutable: every narrowing returns a new table. Thread-safe. Building is control path; {@link #valid}
 * and {@link #supports} allocate nothing.
 */
public final class AtomicCapabilities
{
    /**
     * The three atomic families of {@code fi_atomic(3)}.
     */
    public enum Kind
    {
        /** {@code fi_atomic}: update the target, return nothing. */
        ATOMIC,
        /** {@code fi_fetch_atomic}: update the target, return its old value. */
        FETCH,
        /** {@code fi_compare_atomic}: conditional or masked swap, return the old value. */
        COMPARE
    }

    private static final int OPS = AtomicOp.values().length;
    private static final int KINDS = Kind.values().length;

    private static final long INTEGERS = mask(
        AtomicDatatype.INT8, AtomicDatatype.UINT8, AtomicDatatype.INT16, AtomicDatatype.UINT16,
        AtomicDatatype.INT32, AtomicDatatype.UINT32, AtomicDatatype.INT64, AtomicDatatype.UINT64);
    private static final long REALS = INTEGERS | mask(AtomicDatatype.FLOAT, AtomicDatatype.DOUBLE);
    private static final long ALL = REALS | mask(AtomicDatatype.FLOAT_COMPLEX, AtomicDatatype.DOUBLE_COMPLEX);

    private static final long[] IMPLEMENTED = implemented();

    private final long[] masks;
    private final int maxBytes;
    private final int maxCount;

    private AtomicCapabilities(final long[] masks, final int maxBytes)
    {
        this(masks, maxBytes, Integer.MAX_VALUE);
    }

    private AtomicCapabilities(final long[] masks, final int maxBytes, final int maxCount)
    {
        this.masks = masks;
        this.maxBytes = maxBytes;
        this.maxCount = maxCount;
    }

    /**
     * Everything the executor implements (libfabric's util table, see the type comment).
     *
     * @param maxBytes the largest atomic payload in bytes (one vector of operands); the valid queries
     *                 answer {@code maxBytes / datatype.size()}.
     * @return the table.
     * @throws FabricException EINVAL when {@code maxBytes} is smaller than the largest supported element (16).
     */
    public static AtomicCapabilities full(final int maxBytes)
    {
        checkMaxBytes(maxBytes);
        return new AtomicCapabilities(IMPLEMENTED.clone(), maxBytes);
    }

    /**
     * An empty table, to build a provider's restricted set with {@link #with}.
     *
     * @param maxBytes the largest atomic payload in bytes.
     * @return the table.
     * @throws FabricException EINVAL when {@code maxBytes} is smaller than 16.
     */
    public static AtomicCapabilities none(final int maxBytes)
    {
        checkMaxBytes(maxBytes);
        return new AtomicCapabilities(new long[KINDS * OPS], maxBytes);
    }

    /**
     * This table with one more triple.
     *
     * @param kind     the family.
     * @param op       the op.
     * @param datatype the datatype.
     * @return a new table.
     * @throws FabricException EOPNOTSUPP when the executor cannot run the triple.
     */
    public AtomicCapabilities with(final Kind kind, final AtomicOp op, final AtomicDatatype datatype)
    {
        final int index = index(kind, op);
        final long bit = 1L << datatype.ordinal();
        if ((IMPLEMENTED[index] & bit) == 0)
        {
            throw new FabricException(Errno.EOPNOTSUPP,
                kind + " " + op.fiName() + " on " + datatype.fiName() + " is not implemented by the executor");
        }
        final long[] copy = masks.clone();
        copy[index] |= bit;
        return new AtomicCapabilities(copy, maxBytes, maxCount);
    }

    /**
     * This table without one triple.
     *
     * @param kind     the family.
     * @param op       the op.
     * @param datatype the datatype.
     * @return a new table.
     */
    public AtomicCapabilities without(final Kind kind, final AtomicOp op, final AtomicDatatype datatype)
    {
        final long[] copy = masks.clone();
        copy[index(kind, op)] &= ~(1L << datatype.ordinal());
        return new AtomicCapabilities(copy, maxBytes, maxCount);
    }

    /**
     * This table without a datatype in every family and op (for example a provider with 32- and 64-bit
     * types only removes the 8- and 16-bit ones).
     *
     * @param datatype the datatype to remove.
     * @return a new table.
     */
    public AtomicCapabilities without(final AtomicDatatype datatype)
    {
        final long[] copy = masks.clone();
        final long keep = ~(1L << datatype.ordinal());
        for (int i = 0; i < copy.length; i++)
        {
            copy[i] &= keep;
        }
        return new AtomicCapabilities(copy, maxBytes, maxCount);
    }

    /**
     * The triples both tables support, with the smaller payload limit.
     *
     * @param other the other table.
     * @return a new table.
     */
    public AtomicCapabilities intersect(final AtomicCapabilities other)
    {
        final long[] copy = masks.clone();
        for (int i = 0; i < copy.length; i++)
        {
            copy[i] &= other.masks[i];
        }
        return new AtomicCapabilities(copy, Math.min(maxBytes, other.maxBytes), Math.min(maxCount, other.maxCount));
    }

    /**
     * This table with another payload limit.
     *
     * @param maxBytes the largest atomic payload in bytes.
     * @return a new table.
     * @throws FabricException EINVAL when {@code maxBytes} is smaller than 16.
     */
    public AtomicCapabilities maxBytes(final int maxBytes)
    {
        checkMaxBytes(maxBytes);
        return new AtomicCapabilities(masks.clone(), maxBytes, maxCount);
    }

    /**
     * This table with a limit on the elements of one operation, whatever their size (a NIC that executes one
     * element per operation, as gni's AMO unit, answers the valid queries with 1).
     *
     * @param maxCount the most elements per operation, at least 1.
     * @return a new table.
     * @throws FabricException EINVAL when {@code maxCount} is below 1.
     */
    public AtomicCapabilities maxCount(final int maxCount)
    {
        if (maxCount < 1)
        {
            throw new FabricException(Errno.EINVAL, "atomic maxCount " + maxCount + " is below 1");
        }
        return new AtomicCapabilities(masks.clone(), maxBytes, maxCount);
    }

    /**
     * The most elements one operation may carry besides the byte limit ({@link Integer#MAX_VALUE}: none).
     *
     * @return the limit.
     */
    public int maxCount()
    {
        return maxCount;
    }

    /**
     * The largest atomic payload in bytes.
     *
     * @return the limit.
     */
    public int maxBytes()
    {
        return maxBytes;
    }

    /**
     * Whether the table holds a triple. Allocates nothing.
     *
     * @param kind     the family.
     * @param op       the op.
     * @param datatype the datatype.
     * @return true when supported.
     */
    public boolean supports(final Kind kind, final AtomicOp op, final AtomicDatatype datatype)
    {
        return (masks[index(kind, op)] & (1L << datatype.ordinal())) != 0;
    }

    /**
     * The {@code fi_*atomicvalid} answer: the largest element count one operation may carry, or
     * {@code -EOPNOTSUPP} when the triple is not supported (or an argument is null). Allocates nothing.
     *
     * @param kind     the family.
     * @param op       the op.
     * @param datatype the datatype.
     * @return the count ({@code maxBytes / datatype.size()}, at most {@link #maxCount()}) or a negative errno.
     */
    public long valid(final Kind kind, final AtomicOp op, final AtomicDatatype datatype)
    {
        if (kind == null || op == null || datatype == null || !supports(kind, op, datatype))
        {
            return -Errno.EOPNOTSUPP.value();
        }
        return Math.min(maxBytes / datatype.size(), maxCount);
    }

    /**
     * The datatypes supported for one family and op, one bit per {@link AtomicDatatype#value()}.
     *
     * @param kind the family.
     * @param op   the op.
     * @return the bit mask.
     */
    public long datatypeMask(final Kind kind, final AtomicOp op)
    {
        return masks[index(kind, op)];
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public boolean equals(final Object o)
    {
        return o instanceof AtomicCapabilities &&
            maxBytes == ((AtomicCapabilities) o).maxBytes && maxCount == ((AtomicCapabilities) o).maxCount &&
            Arrays.equals(masks, ((AtomicCapabilities) o).masks);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public int hashCode()
    {
        return 31 * (31 * Arrays.hashCode(masks) + maxBytes) + maxCount;
    }

    /**
     * Lists the supported triples, for diagnostics.
     *
     * @return e.g. {@code AtomicCapabilities{maxBytes=64, ATOMIC FI_MIN=[FI_INT8, ...], ...}}.
     */
    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("AtomicCapabilities{maxBytes=").append(maxBytes);
        for (final Kind kind : Kind.values())
        {
            for (final AtomicOp op : AtomicOp.values())
            {
                final long mask = masks[index(kind, op)];
                if (mask != 0)
                {
                    sb.append(", ").append(kind).append(' ').append(op.fiName()).append("=[");
                    String separator = "";
                    for (final AtomicDatatype datatype : AtomicDatatype.values())
                    {
                        if ((mask & (1L << datatype.ordinal())) != 0)
                        {
                            sb.append(separator).append(datatype.fiName());
                            separator = ", ";
                        }
                    }
                    sb.append(']');
                }
            }
        }
        return sb.append('}').toString();
    }

    private static int index(final Kind kind, final AtomicOp op)
    {
        return kind.ordinal() * OPS + op.ordinal();
    }

    private static void checkMaxBytes(final int maxBytes)
    {
        if (maxBytes < 16)
        {
            throw new FabricException(Errno.EINVAL, "atomic maxBytes " + maxBytes + " is below 16");
        }
    }

    private static long mask(final AtomicDatatype... datatypes)
    {
        long m = 0;
        for (final AtomicDatatype d : datatypes)
        {
            m |= 1L << d.ordinal();
        }
        return m;
    }

    private static long[] implemented()
    {
        final long[] m = new long[KINDS * OPS];
        for (final Kind kind : new Kind[]{ Kind.ATOMIC, Kind.FETCH })
        {
            final int base = kind.ordinal() * OPS;
            m[base + AtomicOp.MIN.ordinal()] = REALS;
            m[base + AtomicOp.MAX.ordinal()] = REALS;
            m[base + AtomicOp.SUM.ordinal()] = ALL;
            m[base + AtomicOp.PROD.ordinal()] = ALL;
            m[base + AtomicOp.LOR.ordinal()] = ALL;
            m[base + AtomicOp.LAND.ordinal()] = ALL;
            m[base + AtomicOp.BOR.ordinal()] = INTEGERS;
            m[base + AtomicOp.BAND.ordinal()] = INTEGERS;
            m[base + AtomicOp.LXOR.ordinal()] = ALL;
            m[base + AtomicOp.BXOR.ordinal()] = INTEGERS;
            m[base + AtomicOp.ATOMIC_WRITE.ordinal()] = ALL;
        }
        // fi_atomic(3): ATOMIC_READ is only meaningful when the old value is returned.
        m[Kind.FETCH.ordinal() * OPS + AtomicOp.ATOMIC_READ.ordinal()] = ALL;
        final int compare = Kind.COMPARE.ordinal() * OPS;
        m[compare + AtomicOp.CSWAP.ordinal()] = ALL;
        m[compare + AtomicOp.CSWAP_NE.ordinal()] = ALL;
        m[compare + AtomicOp.CSWAP_LE.ordinal()] = REALS;
        m[compare + AtomicOp.CSWAP_LT.ordinal()] = REALS;
        m[compare + AtomicOp.CSWAP_GE.ordinal()] = REALS;
        m[compare + AtomicOp.CSWAP_GT.ordinal()] = REALS;
        m[compare + AtomicOp.MSWAP.ordinal()] = INTEGERS;
        return m;
    }
}
