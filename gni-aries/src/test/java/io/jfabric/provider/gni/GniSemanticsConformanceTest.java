package io.jfabric.provider.gni;

import io.jfabric.conformance.SemanticsConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link SemanticsConformance} over the {@code gni} provider, less the cases {@link GniDifferences} declares.
 */
@ExtendWith(GniDifferences.class)
class GniSemanticsConformanceTest extends SemanticsConformance
{
    GniSemanticsConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
