package io.jfabric.provider.gni;

import io.jfabric.conformance.CancelSearchConformance;

/**
 * {@link CancelSearchConformance} over the {@code gni} provider: every case runs.
 */
class GniCancelSearchConformanceTest extends CancelSearchConformance
{
    GniCancelSearchConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
