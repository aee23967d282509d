package io.jfabric.provider.gni;

import io.jfabric.conformance.LargeTransferConformance;

/**
 * {@link LargeTransferConformance} over the {@code gni} provider: every case runs.
 */
class GniLargeTransferConformanceTest extends LargeTransferConformance
{
    GniLargeTransferConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
