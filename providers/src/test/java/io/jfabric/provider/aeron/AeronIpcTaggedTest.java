package io.jfabric.provider.aeron;

import io.jfabric.conformance.TaggedConformance;

/**
 * {@link TaggedConformance} over {@code aeron}, the two domains on one driver reaching each other over
 * {@code aeron:ipc}.
 */
class AeronIpcTaggedTest extends TaggedConformance
{
    AeronIpcTaggedTest()
    {
        super(AeronConformance.ipcFactory());
    }
}
