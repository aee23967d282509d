package io.jfabric.provider.aeron;

import io.jfabric.conformance.ScalableEndpointConformance;

/**
 * {@link ScalableEndpointConformance} over {@code aeron}.
 */
class AeronScalableEndpointTest extends ScalableEndpointConformance
{
    AeronScalableEndpointTest()
    {
        super(AeronConformance.factory());
    }
}
