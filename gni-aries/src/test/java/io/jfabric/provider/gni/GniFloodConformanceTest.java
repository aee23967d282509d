package io.jfabric.provider.gni;

import io.jfabric.conformance.FloodConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link FloodConformance} over the {@code gni} provider, less the cases {@link GniDifferences} declares.
 */
@ExtendWith(GniDifferences.class)
class GniFloodConformanceTest extends FloodConformance
{
    GniFloodConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
