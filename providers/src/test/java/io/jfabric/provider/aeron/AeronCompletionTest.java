package io.jfabric.provider.aeron;

import io.jfabric.conformance.CompletionConformance;

/**
 * {@link CompletionConformance} over {@code aeron}.
 */
class AeronCompletionTest extends CompletionConformance
{
    AeronCompletionTest()
    {
        super(AeronConformance.factory());
    }
}
