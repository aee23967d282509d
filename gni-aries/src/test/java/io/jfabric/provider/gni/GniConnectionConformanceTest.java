package io.jfabric.provider.gni;

import io.jfabric.conformance.ConnectionConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link ConnectionConformance} over the {@code gni} provider, less the cases {@link GniDifferences} and
 * {@link GniProtocolDifferences} declare.
 */
@ExtendWith(GniDifferences.class)
@ExtendWith(GniProtocolDifferences.class)
class GniConnectionConformanceTest extends ConnectionConformance
{
    GniConnectionConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
