package io.jfabric.provider.gni;

import io.jfabric.conformance.FloodConformance;

/**
 * {@link FloodConformance} over the {@code gni} provider: every case runs.
 */
class GniFloodConformanceTest extends FloodConformance
{
    GniFloodConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
