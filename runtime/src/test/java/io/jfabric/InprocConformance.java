package io.jfabric;

import io.jfabric.conformance.PairFactory;
import io.jfabric.provider.inproc.InprocProvider;

/**
 * The {@code inproc} provider in the conformance suite ({@code io.jfabric.conformance}): its {@link PairFactory}.
 * Each {@code Inproc*Test} of this package is one suite class run over it.
 */
final class InprocConformance
{
    /** inproc with the suite's defaults: nothing to prepare, full flood counts. */
    static final PairFactory FACTORY = () -> InprocProvider.NAME;

    private InprocConformance()
    {
    }
}
