package io.jfabric.provider.aeron;

import io.jfabric.conformance.AtomicConformance;

/**
 * {@link AtomicConformance} over {@code aeron}, the two domains on one driver reaching each other over
 * {@code aeron:ipc}.
 */
class AeronIpcAtomicTest extends AtomicConformance
{
    AeronIpcAtomicTest()
    {
        super(AeronConformance.ipcFactory());
    }
}
