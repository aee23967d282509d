package io.jfabric.provider.gni;

import io.jfabric.conformance.MsgConformance;

/**
 * {@link MsgConformance} over the {@code gni} provider: every case runs.
 */
class GniMsgConformanceTest extends MsgConformance
{
    GniMsgConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
