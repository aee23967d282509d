package io.jfabric.provider.gni;

import io.jfabric.DomainAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MrMode;
import io.jfabric.conformance.PairFactory;

/**
 * The {@code gni} provider in the conformance suite ({@code io.jfabric.conformance}): its {@link PairFactory}. The
 * suite registers memory with requested keys and addresses RMA by offset, which is gni's scalable registration mode:
 * the factory asks for it ({@code FI_MR_MMU_NOTIFY}). Each {@code Gni*ConformanceTest} of this package is one suite
 * class run over it; a case gni answers differently is overridden there by its gni form, whose reason
 * {@link GniDifferences} catalogues. The suite requests keys
 * beyond fi_gni(7)'s default user limit of 192 per authorization key, so its domains use a key of their own whose
 * limit the factory raises to 4095 before the key's first use ({@code FI_GNI_FAB_OPS_2}, as an application would).
 */
final class GniConformance
{
    static final PairFactory FACTORY = factory(0);

    /**
     * The factory of the suite classes that run atomics over the suite's RMA infos (which ask for
     * {@code FI_MSG | FI_TAGGED | FI_RMA}): it adds {@code FI_ATOMIC} to hints that ask for {@code FI_RMA}, as an
     * application that runs atomics must, since gni gates atomics by the endpoints' caps as upstream's
     * {@code gnix_ops_allowed} does ({@link GniPeerCaps}).
     */
    static final PairFactory WITH_ATOMICS = factory(Flags.ATOMIC);

    private static PairFactory factory(final long atomics)
    {
        return new PairFactory()
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
                final DomainAttr.Builder builder = (null == domain ? DomainAttr.builder() : domain.toBuilder())
                    .mrMode(MrMode.MMU_NOTIFY);
                if (null == domain || null == domain.authKey())
                {
                    builder.authKey(KEY);
                }
                final DomainAttr scalable = builder.build();
                final long caps = 0 != (hints.caps() & Flags.RMA) ? hints.caps() | atomics : hints.caps();
                return PairFactory.super.info(hints.toBuilder().caps(caps).domainAttr(scalable).build());
            }
        };
    }

    /** The suite's authorization key. */
    static final byte[] KEY = GniOpsTest.authKey(0x5a5a_c0f0);

    static
    {
        if (GniAuthKeys.limit(GniDomainTransport.cookie(KEY), GniOps.GNIX_USER_KEY_LIMIT) != 4095)
        {
            GniAuthKeys.limit(GniDomainTransport.cookie(KEY), GniOps.GNIX_USER_KEY_LIMIT, 4095);
        }
    }

    private GniConformance()
    {
    }
}
