package io.jfabric;

import io.jfabric.conformance.IovConformance;

/**
 * {@link IovConformance} over {@code inproc}.
 */
class InprocIovTest extends IovConformance
{
    InprocIovTest()
    {
        super(InprocConformance.FACTORY);
    }
}
