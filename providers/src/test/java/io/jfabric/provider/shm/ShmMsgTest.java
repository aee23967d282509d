package io.jfabric.provider.shm;

import io.jfabric.conformance.MsgConformance;

/**
 * {@link MsgConformance} over {@code shm}.
 */
class ShmMsgTest extends MsgConformance
{
    ShmMsgTest()
    {
        super(ShmConformance.factory());
    }
}
