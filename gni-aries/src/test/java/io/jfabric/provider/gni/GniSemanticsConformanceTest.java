package io.jfabric.provider.gni;

import io.jfabric.conformance.SemanticsConformance;

/**
 * {@link SemanticsConformance} over the {@code gni} provider: every case runs.
 */
class GniSemanticsConformanceTest extends SemanticsConformance
{
    GniSemanticsConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
