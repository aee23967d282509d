package io.jfabric.provider.gni;

import io.jfabric.conformance.WaitConformance;

/**
 * {@link WaitConformance} over the {@code gni} provider.
 */
class GniWaitConformanceTest extends WaitConformance
{
    GniWaitConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
