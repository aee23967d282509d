package io.jfabric.provider.aeron;

import io.jfabric.conformance.RmaConformance;

/**
 * {@link RmaConformance} over {@code aeron}, the two domains on one driver reaching each other over
 * {@code aeron:ipc}.
 */
class AeronIpcRmaTest extends RmaConformance
{
    AeronIpcRmaTest()
    {
        super(AeronConformance.ipcFactory());
    }
}
