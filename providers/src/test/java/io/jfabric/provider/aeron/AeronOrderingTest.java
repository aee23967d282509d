package io.jfabric.provider.aeron;

import io.jfabric.conformance.OrderingConformance;

/**
 * {@link OrderingConformance} over {@code aeron}.
 */
class AeronOrderingTest extends OrderingConformance
{
    AeronOrderingTest()
    {
        super(AeronConformance.factory());
    }
}
