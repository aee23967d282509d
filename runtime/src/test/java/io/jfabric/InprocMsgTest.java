package io.jfabric;

import io.jfabric.conformance.MsgConformance;

/**
 * {@link MsgConformance} over {@code inproc}.
 */
class InprocMsgTest extends MsgConformance
{
    InprocMsgTest()
    {
        super(InprocConformance.FACTORY);
    }
}
