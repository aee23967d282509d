package io.jfabric;

import io.jfabric.conformance.SlotQueueConformance;

/**
 * {@link SlotQueueConformance} over {@code inproc}.
 */
class InprocSlotQueueTest extends SlotQueueConformance
{
    InprocSlotQueueTest()
    {
        super(InprocConformance.FACTORY);
    }
}
