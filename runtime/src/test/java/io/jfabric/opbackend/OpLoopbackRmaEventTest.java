package io.jfabric.opbackend;

import io.jfabric.conformance.RmaEventConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link RmaEventConformance} over the operation-level {@code oploop} provider.
 */
@ExtendWith(OpLoopbackDifferences.class)
class OpLoopbackRmaEventTest extends RmaEventConformance
{
    OpLoopbackRmaEventTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
