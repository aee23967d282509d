package io.jfabric;

import io.jfabric.conformance.AtomicQueryConformance;

/**
 * {@link AtomicQueryConformance} over {@code inproc}.
 */
class InprocAtomicQueryTest extends AtomicQueryConformance
{
    InprocAtomicQueryTest()
    {
        super(InprocConformance.FACTORY);
    }
}
