package io.jfabric.opbackend;

import io.jfabric.conformance.AtomicConformance;

/**
 * {@link AtomicConformance} over the operation-level {@code oploop} provider.
 */
class OpLoopbackAtomicTest extends AtomicConformance
{
    OpLoopbackAtomicTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
