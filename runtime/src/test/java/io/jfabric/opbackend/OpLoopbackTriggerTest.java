package io.jfabric.opbackend;

import io.jfabric.conformance.TriggerConformance;

/**
 * {@link TriggerConformance} over the operation-level {@code oploop} provider.
 */
class OpLoopbackTriggerTest extends TriggerConformance
{
    OpLoopbackTriggerTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
