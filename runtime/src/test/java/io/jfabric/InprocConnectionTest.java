package io.jfabric;

import io.jfabric.conformance.ConnectionConformance;

/**
 * {@link ConnectionConformance} over {@code inproc}.
 */
class InprocConnectionTest extends ConnectionConformance
{
    InprocConnectionTest()
    {
        super(InprocConformance.FACTORY);
    }
}
