package io.jfabric.provider.shm;

import io.jfabric.conformance.WaitConformance;

/**
 * {@link WaitConformance} over shm: poll sets, trywait and wait channels over two domains with their own ring files.
 */
class ShmWaitTest extends WaitConformance
{
    ShmWaitTest()
    {
        super(ShmConformance.factory());
    }
}
