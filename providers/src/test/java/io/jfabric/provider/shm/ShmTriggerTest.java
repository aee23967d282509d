package io.jfabric.provider.shm;

import io.jfabric.conformance.TriggerConformance;

/**
 * {@link TriggerConformance} over {@code shm}.
 */
class ShmTriggerTest extends TriggerConformance
{
    ShmTriggerTest()
    {
        super(ShmConformance.factory());
    }
}
