package io.jfabric.provider.aeron;

import io.jfabric.conformance.SemanticsConformance;

/**
 * {@link SemanticsConformance} over {@code aeron}.
 */
class AeronSemanticsTest extends SemanticsConformance
{
    AeronSemanticsTest()
    {
        super(AeronConformance.factory());
    }
}
