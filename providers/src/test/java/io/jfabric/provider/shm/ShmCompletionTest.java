package io.jfabric.provider.shm;

import io.jfabric.conformance.CompletionConformance;

/**
 * {@link CompletionConformance} over {@code shm}.
 */
class ShmCompletionTest extends CompletionConformance
{
    ShmCompletionTest()
    {
        super(ShmConformance.factory());
    }
}
