package io.jfabric.provider.gni;

import io.jfabric.conformance.TriggerConformance;

/**
 * {@link TriggerConformance} over the {@code gni} provider.
 */
class GniTriggerConformanceTest extends TriggerConformance
{
    GniTriggerConformanceTest()
    {
        super(GniConformance.WITH_ATOMICS);
    }
}
