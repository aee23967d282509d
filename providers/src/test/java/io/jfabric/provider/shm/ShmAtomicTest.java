package io.jfabric.provider.shm;

import io.jfabric.conformance.AtomicConformance;

/**
 * {@link AtomicConformance} over {@code shm}.
 */
class ShmAtomicTest extends AtomicConformance
{
    ShmAtomicTest()
    {
        super(ShmConformance.factory());
    }
}
