package io.jfabric;

import io.jfabric.conformance.OrderingConformance;

/**
 * {@link OrderingConformance} over {@code inproc}.
 */
class InprocOrderingTest extends OrderingConformance
{
    InprocOrderingTest()
    {
        super(InprocConformance.FACTORY);
    }
}
