package io.jfabric.provider.gni;

import io.jfabric.conformance.ScalableEndpointConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link ScalableEndpointConformance} over the {@code gni} provider, less the cases {@link GniDifferences} declares.
 */
@ExtendWith(GniDifferences.class)
class GniScalableEndpointConformanceTest extends ScalableEndpointConformance
{
    GniScalableEndpointConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
