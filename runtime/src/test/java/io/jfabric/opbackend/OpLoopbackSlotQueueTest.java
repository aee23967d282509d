package io.jfabric.opbackend;

import io.jfabric.conformance.SlotQueueConformance;

/**
 * {@link SlotQueueConformance} over the operation-level {@code oploop} provider.
 */
class OpLoopbackSlotQueueTest extends SlotQueueConformance
{
    OpLoopbackSlotQueueTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
