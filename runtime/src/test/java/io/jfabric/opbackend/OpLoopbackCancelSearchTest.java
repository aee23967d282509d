package io.jfabric.opbackend;

import io.jfabric.conformance.CancelSearchConformance;

/**
 * {@link CancelSearchConformance} over the operation-level {@code oploop} provider.
 */
class OpLoopbackCancelSearchTest extends CancelSearchConformance
{
    OpLoopbackCancelSearchTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
