package io.jfabric.provider.shm;

import io.jfabric.conformance.ScalableEndpointConformance;

/**
 * {@link ScalableEndpointConformance} over {@code shm}.
 */
class ShmScalableEndpointTest extends ScalableEndpointConformance
{
    ShmScalableEndpointTest()
    {
        super(ShmConformance.factory());
    }
}
