package io.jfabric.provider.aeron;

import io.jfabric.conformance.SemanticsConformance;

/**
 * {@link SemanticsConformance} over {@code aeron}, the two domains on one driver reaching each other over
 * {@code aeron:ipc}.
 */
class AeronIpcSemanticsTest extends SemanticsConformance
{
    AeronIpcSemanticsTest()
    {
        super(AeronConformance.ipcFactory());
    }
}
