package io.jfabric;

import io.jfabric.conformance.TaggedConformance;

/**
 * {@link TaggedConformance} over {@code inproc}.
 */
class InprocTaggedTest extends TaggedConformance
{
    InprocTaggedTest()
    {
        super(InprocConformance.FACTORY);
    }
}
