package io.jfabric.opbackend;

import io.jfabric.conformance.AtomicQueryConformance;

/**
 * {@link AtomicQueryConformance} over the operation-level {@code oploop} provider.
 */
class OpLoopbackAtomicQueryTest extends AtomicQueryConformance
{
    OpLoopbackAtomicQueryTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
