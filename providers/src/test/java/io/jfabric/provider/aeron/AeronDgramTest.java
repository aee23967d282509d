package io.jfabric.provider.aeron;

import io.jfabric.conformance.DgramConformance;

/**
 * {@link DgramConformance} over {@code aeron}.
 */
class AeronDgramTest extends DgramConformance
{
    AeronDgramTest()
    {
        super(AeronConformance.factory());
    }
}
