package io.jfabric.provider.gni;

import io.jfabric.conformance.TaggedConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link TaggedConformance} over the {@code gni} provider, less the cases {@link GniDifferences} declares.
 */
@ExtendWith(GniDifferences.class)
class GniTaggedConformanceTest extends TaggedConformance
{
    GniTaggedConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
