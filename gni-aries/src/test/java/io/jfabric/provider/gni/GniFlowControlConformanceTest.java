package io.jfabric.provider.gni;

import io.jfabric.conformance.FlowControlConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link FlowControlConformance} over the {@code gni} provider, less the cases {@link GniDifferences} and
 * {@link GniProtocolDifferences} declare.
 */
@ExtendWith(GniDifferences.class)
@ExtendWith(GniProtocolDifferences.class)
class GniFlowControlConformanceTest extends FlowControlConformance
{
    GniFlowControlConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
