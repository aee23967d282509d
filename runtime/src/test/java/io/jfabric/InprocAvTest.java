package io.jfabric;

import io.jfabric.conformance.AvConformance;

/**
 * {@link AvConformance} over {@code inproc}.
 */
class InprocAvTest extends AvConformance
{
    InprocAvTest()
    {
        super(InprocConformance.FACTORY);
    }
}
