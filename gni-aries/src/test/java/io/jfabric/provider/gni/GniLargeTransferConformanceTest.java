package io.jfabric.provider.gni;

import io.jfabric.conformance.LargeTransferConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link LargeTransferConformance} over the {@code gni} provider, less the cases {@link GniDifferences} declares.
 */
@ExtendWith(GniDifferences.class)
class GniLargeTransferConformanceTest extends LargeTransferConformance
{
    GniLargeTransferConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
