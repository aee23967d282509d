package io.jfabric.opbackend;

import io.jfabric.conformance.OrderingConformance;

/**
 * {@link OrderingConformance} over the operation-level {@code oploop} provider.
 */
class OpLoopbackOrderingTest extends OrderingConformance
{
    OpLoopbackOrderingTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
