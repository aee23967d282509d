package io.jfabric.provider.aeron;

import io.jfabric.conformance.SlotQueueConformance;

/**
 * {@link SlotQueueConformance} over {@code aeron}.
 */
class AeronSlotQueueTest extends SlotQueueConformance
{
    AeronSlotQueueTest()
    {
        super(AeronConformance.factory());
    }
}
