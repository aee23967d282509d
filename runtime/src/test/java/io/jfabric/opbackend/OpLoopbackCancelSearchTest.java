package io.jfabric.opbackend;

import io.jfabric.conformance.CancelSearchConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link CancelSearchConformance} over the operation-level {@code oploop} provider, less the cases
 * {@link OpLoopbackDifferences} declares.
 */
@ExtendWith(OpLoopbackDifferences.class)
class OpLoopbackCancelSearchTest extends CancelSearchConformance
{
    OpLoopbackCancelSearchTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
