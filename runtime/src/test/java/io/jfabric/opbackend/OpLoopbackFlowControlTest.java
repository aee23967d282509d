package io.jfabric.opbackend;

import io.jfabric.conformance.FlowControlConformance;

/**
 * {@link FlowControlConformance} over the operation-level {@code oploop} provider.
 */
class OpLoopbackFlowControlTest extends FlowControlConformance
{
    OpLoopbackFlowControlTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
