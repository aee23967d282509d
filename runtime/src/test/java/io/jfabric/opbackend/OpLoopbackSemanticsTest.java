package io.jfabric.opbackend;

import io.jfabric.conformance.SemanticsConformance;

/**
 * {@link SemanticsConformance} over the operation-level {@code oploop} provider.
 */
class OpLoopbackSemanticsTest extends SemanticsConformance
{
    OpLoopbackSemanticsTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
