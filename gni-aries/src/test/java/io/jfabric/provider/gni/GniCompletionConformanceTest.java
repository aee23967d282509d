package io.jfabric.provider.gni;

import io.jfabric.conformance.CompletionConformance;

/**
 * {@link CompletionConformance} over the {@code gni} provider: every case runs.
 */
class GniCompletionConformanceTest extends CompletionConformance
{
    GniCompletionConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
