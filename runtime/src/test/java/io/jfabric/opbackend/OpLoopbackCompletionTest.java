package io.jfabric.opbackend;

import io.jfabric.conformance.CompletionConformance;

/**
 * {@link CompletionConformance} over the operation-level {@code oploop} provider.
 */
class OpLoopbackCompletionTest extends CompletionConformance
{
    OpLoopbackCompletionTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
