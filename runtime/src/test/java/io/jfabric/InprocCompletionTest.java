package io.jfabric;

import io.jfabric.conformance.CompletionConformance;

/**
 * {@link CompletionConformance} over {@code inproc}.
 */
class InprocCompletionTest extends CompletionConformance
{
    InprocCompletionTest()
    {
        super(InprocConformance.FACTORY);
    }
}
