package io.jfabric;

/**
 * {@code struct fi_atomic_attr}: what {@link Domain#queryAtomic(AtomicDatatype, AtomicOp, AtomicAttr, long)} answers
 * for a supported datatype and operation: the largest element count one operation may carry and the size of one
 * element in bytes.
 * <p>
 * Mutable, filled by the query; reuse it across queries. Threading: not thread-safe.
 */
public final class AtomicAttr
{
    long count;
    long size;

    /**
     * @return {@code count}: the largest number of elements one atomic operation of the queried kind may carry.
     */
    public long count()
    {
        return count;
    }

    /**
     * @return {@code size}: bytes of one element of the queried datatype.
     */
    public long size()
    {
        return size;
    }
}
