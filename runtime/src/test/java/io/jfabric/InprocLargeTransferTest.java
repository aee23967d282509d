package io.jfabric;

import io.jfabric.conformance.LargeTransferConformance;

/**
 * {@link LargeTransferConformance} over {@code inproc}.
 */
class InprocLargeTransferTest extends LargeTransferConformance
{
    InprocLargeTransferTest()
    {
        super(InprocConformance.FACTORY);
    }
}
