package io.jfabric.provider.aeron;

import io.jfabric.conformance.RmaConformance;

/**
 * {@link RmaConformance} over {@code aeron}.
 */
class AeronRmaTest extends RmaConformance
{
    AeronRmaTest()
    {
        super(AeronConformance.factory());
    }
}
