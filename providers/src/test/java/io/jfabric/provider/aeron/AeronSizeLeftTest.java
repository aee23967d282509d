package io.jfabric.provider.aeron;

import io.jfabric.conformance.SizeLeftConformance;

/**
 * {@link SizeLeftConformance} over {@code aeron}.
 */
class AeronSizeLeftTest extends SizeLeftConformance
{
    AeronSizeLeftTest()
    {
        super(AeronConformance.factory());
    }
}
