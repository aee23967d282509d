package io.jfabric;

import io.jfabric.conformance.DgramConformance;

/**
 * {@link DgramConformance} over {@code inproc}.
 */
class InprocDgramTest extends DgramConformance
{
    InprocDgramTest()
    {
        super(InprocConformance.FACTORY);
    }
}
