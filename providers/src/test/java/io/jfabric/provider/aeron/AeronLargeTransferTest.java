package io.jfabric.provider.aeron;

import io.jfabric.conformance.LargeTransferConformance;

/**
 * {@link LargeTransferConformance} over {@code aeron}.
 */
class AeronLargeTransferTest extends LargeTransferConformance
{
    AeronLargeTransferTest()
    {
        super(AeronConformance.factory());
    }
}
