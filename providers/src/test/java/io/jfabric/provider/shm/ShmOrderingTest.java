package io.jfabric.provider.shm;

import io.jfabric.conformance.OrderingConformance;

/**
 * {@link OrderingConformance} over {@code shm}.
 */
class ShmOrderingTest extends OrderingConformance
{
    ShmOrderingTest()
    {
        super(ShmConformance.factory());
    }
}
