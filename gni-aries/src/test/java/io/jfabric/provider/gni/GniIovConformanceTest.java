package io.jfabric.provider.gni;

import io.jfabric.conformance.IovConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link IovConformance} over the {@code gni} provider, less the cases {@link GniDifferences} declares.
 */
@ExtendWith(GniDifferences.class)
class GniIovConformanceTest extends IovConformance
{
    GniIovConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
