package io.jfabric;

import io.jfabric.conformance.SemanticsConformance;

/**
 * {@link SemanticsConformance} over {@code inproc}.
 */
class InprocSemanticsTest extends SemanticsConformance
{
    InprocSemanticsTest()
    {
        super(InprocConformance.FACTORY);
    }
}
