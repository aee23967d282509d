package io.jfabric.provider.gni;

import io.jfabric.conformance.SizeLeftConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link SizeLeftConformance} over the {@code gni} provider, less the cases {@link GniDifferences} declares.
 */
@ExtendWith(GniDifferences.class)
class GniSizeLeftConformanceTest extends SizeLeftConformance
{
    GniSizeLeftConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
