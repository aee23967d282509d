package io.jfabric.provider.shm;

import io.jfabric.conformance.ConnectionConformance;

/**
 * {@link ConnectionConformance} over {@code shm}.
 */
class ShmConnectionTest extends ConnectionConformance
{
    ShmConnectionTest()
    {
        super(ShmConformance.factory());
    }
}
