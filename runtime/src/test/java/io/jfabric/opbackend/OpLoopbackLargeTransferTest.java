package io.jfabric.opbackend;

import io.jfabric.conformance.LargeTransferConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link LargeTransferConformance} over the operation-level {@code oploop} provider, less the cases
 * {@link OpLoopbackDifferences} declares.
 */
@ExtendWith(OpLoopbackDifferences.class)
class OpLoopbackLargeTransferTest extends LargeTransferConformance
{
    OpLoopbackLargeTransferTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
