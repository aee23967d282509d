package io.jfabric.provider.shm;

import io.jfabric.conformance.TaggedConformance;

/**
 * {@link TaggedConformance} over {@code shm}.
 */
class ShmTaggedTest extends TaggedConformance
{
    ShmTaggedTest()
    {
        super(ShmConformance.factory());
    }
}
