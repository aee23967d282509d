package io.jfabric.provider.gni;

import io.jfabric.conformance.RmaConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link RmaConformance} over the {@code gni} provider, less the cases {@link GniDifferences} declares.
 */
@ExtendWith(GniDifferences.class)
class GniRmaConformanceTest extends RmaConformance
{
    GniRmaConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
