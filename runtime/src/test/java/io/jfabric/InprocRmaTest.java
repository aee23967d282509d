package io.jfabric;

import io.jfabric.conformance.RmaConformance;

/**
 * {@link RmaConformance} over {@code inproc}.
 */
class InprocRmaTest extends RmaConformance
{
    InprocRmaTest()
    {
        super(InprocConformance.FACTORY);
    }
}
