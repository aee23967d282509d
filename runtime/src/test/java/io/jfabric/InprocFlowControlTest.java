package io.jfabric;

import io.jfabric.conformance.FlowControlConformance;

/**
 * {@link FlowControlConformance} over {@code inproc}.
 */
class InprocFlowControlTest extends FlowControlConformance
{
    InprocFlowControlTest()
    {
        super(InprocConformance.FACTORY);
    }
}
