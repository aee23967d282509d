package io.jfabric.provider.gni;

import io.jfabric.conformance.PairFactory;

/**
 * The {@code gni} provider in the conformance suite ({@code io.jfabric.conformance}): its {@link PairFactory}, the
 * default (getInfo's first gni info for the hints). Each {@code Gni*ConformanceTest} of this package is one suite
 * class run over it, the cases gni answers differently declared in {@link GniDifferences}.
 */
final class GniConformance
{
    static final PairFactory FACTORY = () -> GniProvider.NAME;

    private GniConformance()
    {
    }
}
