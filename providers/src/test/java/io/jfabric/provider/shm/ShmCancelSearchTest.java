package io.jfabric.provider.shm;

import io.jfabric.conformance.CancelSearchConformance;

/**
 * {@link CancelSearchConformance} over {@code shm}.
 */
class ShmCancelSearchTest extends CancelSearchConformance
{
    ShmCancelSearchTest()
    {
        super(ShmConformance.factory());
    }
}
