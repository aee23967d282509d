package io.jfabric.provider.shm;

import io.jfabric.conformance.IovConformance;

/**
 * {@link IovConformance} over {@code shm}.
 */
class ShmIovTest extends IovConformance
{
    ShmIovTest()
    {
        super(ShmConformance.factory());
    }
}
