package io.jfabric.provider.gni;

import io.jfabric.conformance.AtomicConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link AtomicConformance} over the {@code gni} provider, less the cases {@link GniDifferences} declares.
 */
@ExtendWith(GniDifferences.class)
class GniAtomicConformanceTest extends AtomicConformance
{
    GniAtomicConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
