package io.jfabric.opbackend;

import io.jfabric.conformance.LargeTransferConformance;

/**
 * {@link LargeTransferConformance} over the operation-level {@code oploop} provider.
 */
class OpLoopbackLargeTransferTest extends LargeTransferConformance
{
    OpLoopbackLargeTransferTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
