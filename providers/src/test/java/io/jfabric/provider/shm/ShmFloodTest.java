package io.jfabric.provider.shm;

import io.jfabric.conformance.FloodConformance;

/**
 * {@link FloodConformance} over {@code shm}.
 */
class ShmFloodTest extends FloodConformance
{
    ShmFloodTest()
    {
        super(ShmConformance.factory());
    }
}
