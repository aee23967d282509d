package io.jfabric.opbackend;

import io.jfabric.conformance.MsgConformance;

/**
 * {@link MsgConformance} over the operation-level {@code oploop} provider.
 */
class OpLoopbackMsgTest extends MsgConformance
{
    OpLoopbackMsgTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
