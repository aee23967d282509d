package io.jfabric.provider.gni;

import io.jfabric.conformance.AtomicQueryConformance;

/**
 * {@link AtomicQueryConformance} over the {@code gni} provider.
 */
class GniAtomicQueryConformanceTest extends AtomicQueryConformance
{
    GniAtomicQueryConformanceTest()
    {
        super(GniConformance.WITH_ATOMICS);
    }
}
