package io.jfabric.provider.aeron;

import io.jfabric.conformance.FlowControlConformance;

/**
 * {@link FlowControlConformance} over {@code aeron}.
 */
class AeronFlowControlTest extends FlowControlConformance
{
    AeronFlowControlTest()
    {
        super(AeronConformance.factory());
    }
}
