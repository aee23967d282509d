package io.jfabric.provider.shm;

import io.jfabric.conformance.AtomicQueryConformance;

/**
 * {@link AtomicQueryConformance} over {@code shm}.
 */
class ShmAtomicQueryTest extends AtomicQueryConformance
{
    ShmAtomicQueryTest()
    {
        super(ShmConformance.factory());
    }
}
