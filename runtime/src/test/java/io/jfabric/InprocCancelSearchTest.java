package io.jfabric;

import io.jfabric.conformance.CancelSearchConformance;

/**
 * {@link CancelSearchConformance} over {@code inproc}.
 */
class InprocCancelSearchTest extends CancelSearchConformance
{
    InprocCancelSearchTest()
    {
        super(InprocConformance.FACTORY);
    }
}
