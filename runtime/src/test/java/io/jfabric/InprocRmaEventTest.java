package io.jfabric;

import io.jfabric.conformance.RmaEventConformance;

/**
 * {@link RmaEventConformance} over {@code inproc}.
 */
class InprocRmaEventTest extends RmaEventConformance
{
    InprocRmaEventTest()
    {
        super(InprocConformance.FACTORY);
    }
}
