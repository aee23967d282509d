package io.jfabric.provider.aeron;

import io.jfabric.conformance.MsgConformance;

/**
 * {@link MsgConformance} over {@code aeron}.
 */
class AeronMsgTest extends MsgConformance
{
    AeronMsgTest()
    {
        super(AeronConformance.factory());
    }
}
