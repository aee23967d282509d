package io.jfabric.provider.gni;

import io.jfabric.conformance.CompletionConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link CompletionConformance} over the {@code gni} provider, less the cases {@link GniDifferences} declares.
 */
@ExtendWith(GniDifferences.class)
class GniCompletionConformanceTest extends CompletionConformance
{
    GniCompletionConformanceTest()
    {
        super(GniConformance.FACTORY);
    }
}
