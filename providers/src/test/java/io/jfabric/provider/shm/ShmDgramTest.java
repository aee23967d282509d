package io.jfabric.provider.shm;

import io.jfabric.conformance.DgramConformance;

/**
 * {@link DgramConformance} over {@code shm}.
 */
class ShmDgramTest extends DgramConformance
{
    ShmDgramTest()
    {
        super(ShmConformance.factory());
    }
}
