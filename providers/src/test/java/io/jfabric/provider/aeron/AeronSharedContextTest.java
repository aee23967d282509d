package io.jfabric.provider.aeron;

import io.jfabric.conformance.SharedContextConformance;

/**
 * {@link SharedContextConformance} over {@code aeron}.
 */
class AeronSharedContextTest extends SharedContextConformance
{
    AeronSharedContextTest()
    {
        super(AeronConformance.factory());
    }
}
