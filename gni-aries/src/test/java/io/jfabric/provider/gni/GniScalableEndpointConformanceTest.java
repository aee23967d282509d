package io.jfabric.provider.gni;

import io.jfabric.conformance.ScalableEndpointConformance;

/**
 * {@link ScalableEndpointConformance} over the {@code gni} provider: every case runs.
 */
class GniScalableEndpointConformanceTest extends ScalableEndpointConformance
{
    GniScalableEndpointConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
