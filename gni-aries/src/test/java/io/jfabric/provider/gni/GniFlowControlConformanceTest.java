package io.jfabric.provider.gni;

import io.jfabric.conformance.FlowControlConformance;

/**
 * {@link FlowControlConformance} over the {@code gni} provider: every case runs.
 */
class GniFlowControlConformanceTest extends FlowControlConformance
{
    GniFlowControlConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
