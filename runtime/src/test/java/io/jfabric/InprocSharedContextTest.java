package io.jfabric;

import io.jfabric.conformance.SharedContextConformance;

/**
 * {@link SharedContextConformance} over {@code inproc}.
 */
class InprocSharedContextTest extends SharedContextConformance
{
    InprocSharedContextTest()
    {
        super(InprocConformance.FACTORY);
    }
}
