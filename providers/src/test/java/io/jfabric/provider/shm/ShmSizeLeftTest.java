package io.jfabric.provider.shm;

import io.jfabric.conformance.SizeLeftConformance;

/**
 * {@link SizeLeftConformance} over {@code shm}.
 */
class ShmSizeLeftTest extends SizeLeftConformance
{
    ShmSizeLeftTest()
    {
        super(ShmConformance.factory());
    }
}
