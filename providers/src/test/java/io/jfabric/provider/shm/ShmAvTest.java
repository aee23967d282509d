package io.jfabric.provider.shm;

import io.jfabric.conformance.AvConformance;

/**
 * {@link AvConformance} over shm: event AVs and named AVs over two domains with their own ring files.
 */
class ShmAvTest extends AvConformance
{
    ShmAvTest()
    {
        super(ShmConformance.factory());
    }
}
