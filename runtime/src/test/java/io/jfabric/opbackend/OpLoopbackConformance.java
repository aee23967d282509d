package io.jfabric.opbackend;

import io.jfabric.Info;
import io.jfabric.conformance.PairFactory;

/**
 * The operation-level {@link LoopbackOperationProvider} in the conformance suite ({@code io.jfabric.conformance}): its
 * {@link PairFactory}. Each {@code OpLoopback*Test} of this package is one suite class run over it.
 */
final class OpLoopbackConformance
{
    /** oploop: inproc's infos renamed (the provider is opened by name only). */
    static final PairFactory FACTORY = new PairFactory()
    {
        @Override
        public String provider()
        {
            return LoopbackOperationProvider.NAME;
        }

        @Override
        public Info info(final Info hints)
        {
            return LoopbackOperationProvider.info(hints);
        }
    };

    private OpLoopbackConformance()
    {
    }
}
