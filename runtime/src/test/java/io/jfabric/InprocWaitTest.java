package io.jfabric;

import io.jfabric.conformance.WaitConformance;

/**
 * {@link WaitConformance} over {@code inproc}.
 */
class InprocWaitTest extends WaitConformance
{
    InprocWaitTest()
    {
        super(InprocConformance.FACTORY);
    }
}
