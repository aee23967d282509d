package io.jfabric.opbackend;

import io.jfabric.conformance.SemanticsConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link SemanticsConformance} over the operation-level {@code oploop} provider, less the cases
 * {@link OpLoopbackDifferences} declares.
 */
@ExtendWith(OpLoopbackDifferences.class)
class OpLoopbackSemanticsTest extends SemanticsConformance
{
    OpLoopbackSemanticsTest()
    {
        super(OpLoopbackConformance.FACTORY);
    }
}
