package io.jfabric.provider.aeron;

import io.jfabric.conformance.LargeTransferConformance;

/**
 * {@link LargeTransferConformance} over {@code aeron}, the two domains on one driver reaching each other over
 * {@code aeron:ipc}.
 */
class AeronIpcLargeTransferTest extends LargeTransferConformance
{
    AeronIpcLargeTransferTest()
    {
        super(AeronConformance.ipcFactory());
    }
}
