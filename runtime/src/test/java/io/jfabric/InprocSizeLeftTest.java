package io.jfabric;

import io.jfabric.conformance.SizeLeftConformance;

/**
 * {@link SizeLeftConformance} over {@code inproc}.
 */
class InprocSizeLeftTest extends SizeLeftConformance
{
    InprocSizeLeftTest()
    {
        super(InprocConformance.FACTORY);
    }
}
