package io.jfabric.opbackend;

import io.jfabric.conformance.RmaConformance;

/**
 * {@link RmaConformance} over the operation-level {@code oploop} provider.
 */
class OpLoopbackRmaTest extends RmaConformance
{
    OpLoopbackRmaTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
