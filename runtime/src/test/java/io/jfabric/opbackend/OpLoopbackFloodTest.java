package io.jfabric.opbackend;

import io.jfabric.conformance.FloodConformance;

/**
 * {@link FloodConformance} over the operation-level {@code oploop} provider.
 */
class OpLoopbackFloodTest extends FloodConformance
{
    OpLoopbackFloodTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
