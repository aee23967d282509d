package io.jfabric.opbackend;

import io.jfabric.conformance.RmaEventConformance;

/**
 * {@link RmaEventConformance} over the operation-level {@code oploop} provider.
 */
class OpLoopbackRmaEventTest extends RmaEventConformance
{
    OpLoopbackRmaEventTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
