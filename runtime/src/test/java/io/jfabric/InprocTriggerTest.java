package io.jfabric;

import io.jfabric.conformance.TriggerConformance;

/**
 * {@link TriggerConformance} over {@code inproc}.
 */
class InprocTriggerTest extends TriggerConformance
{
    InprocTriggerTest()
    {
        super(InprocConformance.FACTORY);
    }
}
