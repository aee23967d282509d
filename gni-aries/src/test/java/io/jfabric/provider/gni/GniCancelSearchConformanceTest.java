package io.jfabric.provider.gni;

import io.jfabric.conformance.CancelSearchConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link CancelSearchConformance} over the {@code gni} provider, less the cases {@link GniDifferences} declares.
 */
@ExtendWith(GniDifferences.class)
class GniCancelSearchConformanceTest extends CancelSearchConformance
{
    GniCancelSearchConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
