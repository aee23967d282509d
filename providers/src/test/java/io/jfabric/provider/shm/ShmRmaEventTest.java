package io.jfabric.provider.shm;

import io.jfabric.conformance.RmaEventConformance;

/**
 * {@link RmaEventConformance} over {@code shm}.
 */
class ShmRmaEventTest extends RmaEventConformance
{
    ShmRmaEventTest()
    {
        super(ShmConformance.factory());
    }
}
