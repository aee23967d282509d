package io.jfabric.provider.shm;

import io.jfabric.conformance.SlotQueueConformance;

/**
 * {@link SlotQueueConformance} over {@code shm}.
 */
class ShmSlotQueueTest extends SlotQueueConformance
{
    ShmSlotQueueTest()
    {
        super(ShmConformance.factory());
    }
}
