package io.jfabric.provider.shm;

import io.jfabric.conformance.LargeTransferConformance;

/**
 * {@link LargeTransferConformance} over {@code shm}.
 */
class ShmLargeTransferTest extends LargeTransferConformance
{
    ShmLargeTransferTest()
    {
        super(ShmConformance.factory());
    }
}
