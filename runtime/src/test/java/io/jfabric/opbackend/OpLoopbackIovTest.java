package io.jfabric.opbackend;

import io.jfabric.conformance.IovConformance;

/**
 * {@link IovConformance} over the operation-level {@code oploop} provider.
 */
class OpLoopbackIovTest extends IovConformance
{
    OpLoopbackIovTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
