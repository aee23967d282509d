package io.jfabric.provider.gni;

import io.jfabric.conformance.ConnectionConformance;

/**
 * {@link ConnectionConformance} over the {@code gni} provider: every case runs.
 */
class GniConnectionConformanceTest extends ConnectionConformance
{
    GniConnectionConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
