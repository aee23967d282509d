package io.jfabric.provider.shm;

import io.jfabric.conformance.SharedContextConformance;

/**
 * {@link SharedContextConformance} over {@code shm}.
 */
class ShmSharedContextTest extends SharedContextConformance
{
    ShmSharedContextTest()
    {
        super(ShmConformance.factory());
    }
}
