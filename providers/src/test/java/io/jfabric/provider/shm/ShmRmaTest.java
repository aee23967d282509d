package io.jfabric.provider.shm;

import io.jfabric.conformance.RmaConformance;

/**
 * {@link RmaConformance} over {@code shm}.
 */
class ShmRmaTest extends RmaConformance
{
    ShmRmaTest()
    {
        super(ShmConformance.factory());
    }
}
