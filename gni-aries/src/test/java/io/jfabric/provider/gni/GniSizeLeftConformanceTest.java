package io.jfabric.provider.gni;

import io.jfabric.conformance.SizeLeftConformance;

/**
 * {@link SizeLeftConformance} over the {@code gni} provider: every case runs.
 */
class GniSizeLeftConformanceTest extends SizeLeftConformance
{
    GniSizeLeftConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
