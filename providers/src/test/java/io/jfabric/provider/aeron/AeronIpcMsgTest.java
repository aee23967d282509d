package io.jfabric.provider.aeron;

import io.jfabric.conformance.MsgConformance;

/**
 * {@link MsgConformance} over {@code aeron}, the two domains on one driver reaching each other over
 * {@code aeron:ipc}.
 */
class AeronIpcMsgTest extends MsgConformance
{
    AeronIpcMsgTest()
    {
        super(AeronConformance.ipcFactory());
    }
}
