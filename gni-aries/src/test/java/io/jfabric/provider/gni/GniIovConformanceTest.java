package io.jfabric.provider.gni;

import io.jfabric.conformance.IovConformance;

/**
 * {@link IovConformance} over the {@code gni} provider: every case runs.
 */
class GniIovConformanceTest extends IovConformance
{
    GniIovConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
