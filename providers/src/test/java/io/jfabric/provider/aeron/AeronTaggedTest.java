package io.jfabric.provider.aeron;

import io.jfabric.conformance.TaggedConformance;

/**
 * {@link TaggedConformance} over {@code aeron}.
 */
class AeronTaggedTest extends TaggedConformance
{
    AeronTaggedTest()
    {
        super(AeronConformance.factory());
    }
}
