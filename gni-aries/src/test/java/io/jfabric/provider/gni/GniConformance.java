package io.jfabric.provider.gni;

import io.jfabric.DomainAttr;
import io.jfabric.Info;
import io.jfabric.MrMode;
import io.jfabric.conformance.PairFactory;

/**
 * The {@code gni} provider in the conformance suite ({@code io.jfabric.conformance}): its {@link PairFactory}. The
 * suite registers memory with requested keys and addresses RMA by offset, which is gni's scalable registration mode:
 * the factory asks for it ({@code FI_MR_MMU_NOTIFY}). Each {@code Gni*ConformanceTest} of this package is one suite
 * class run over it, the cases gni answers differently declared in {@link GniDifferences}.
 */
final class GniConformance
{
    static final PairFactory FACTORY = new PairFactory()
    {
        @Override
        public String provider()
        {
            return GniProvider.NAME;
        }

        @Override
        public Info info(final Info hints)
        {
            final DomainAttr domain = hints.domainAttr();
            final DomainAttr scalable = (null == domain ? DomainAttr.builder() : domain.toBuilder())
                .mrMode(MrMode.MMU_NOTIFY).build();
            return PairFactory.super.info(hints.toBuilder().domainAttr(scalable).build());
        }
    };

    private GniConformance()
    {
    }
}
