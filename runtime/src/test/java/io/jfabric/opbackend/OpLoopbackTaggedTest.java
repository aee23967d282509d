package io.jfabric.opbackend;

import io.jfabric.conformance.TaggedConformance;

/**
 * {@link TaggedConformance} over the operation-level {@code oploop} provider.
 */
class OpLoopbackTaggedTest extends TaggedConformance
{
    OpLoopbackTaggedTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
