package io.jfabric;

import io.jfabric.conformance.AtomicConformance;

/**
 * {@link AtomicConformance} over {@code inproc}.
 */
class InprocAtomicTest extends AtomicConformance
{
    InprocAtomicTest()
    {
        super(InprocConformance.FACTORY);
    }
}
