package io.jfabric.provider.aeron;

import io.jfabric.conformance.RmaEventConformance;

/**
 * {@link RmaEventConformance} over {@code aeron}.
 */
class AeronRmaEventTest extends RmaEventConformance
{
    AeronRmaEventTest()
    {
        super(AeronConformance.factory());
    }
}
