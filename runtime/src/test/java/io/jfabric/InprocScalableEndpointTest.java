package io.jfabric;

import io.jfabric.conformance.ScalableEndpointConformance;

/**
 * {@link ScalableEndpointConformance} over {@code inproc}.
 */
class InprocScalableEndpointTest extends ScalableEndpointConformance
{
    InprocScalableEndpointTest()
    {
        super(InprocConformance.FACTORY);
    }
}
