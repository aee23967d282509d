package io.jfabric.provider.gni;

import io.jfabric.conformance.TaggedConformance;

/**
 * {@link TaggedConformance} over the {@code gni} provider: every case runs.
 */
class GniTaggedConformanceTest extends TaggedConformance
{
    GniTaggedConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
