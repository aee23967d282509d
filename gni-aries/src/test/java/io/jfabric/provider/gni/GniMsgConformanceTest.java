package io.jfabric.provider.gni;

import io.jfabric.conformance.MsgConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link MsgConformance} over the {@code gni} provider, less the cases {@link GniDifferences} declares.
 */
@ExtendWith(GniDifferences.class)
class GniMsgConformanceTest extends MsgConformance
{
    GniMsgConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
