package io.jfabric.provider.aeron;

import io.jfabric.conformance.TriggerConformance;

/**
 * {@link TriggerConformance} over {@code aeron}.
 */
class AeronTriggerTest extends TriggerConformance
{
    AeronTriggerTest()
    {
        super(AeronConformance.factory());
    }
}
