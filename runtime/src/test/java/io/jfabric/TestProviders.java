package io.jfabric;

import io.jfabric.spi.AddressCodec;
import io.jfabric.spi.Provider;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Test-only providers with known attributes, for exact getInfo tests through an explicit {@link Discovery}.
 */
final class TestProviders
{
    /** The field names of fi_gni(7)'s FI_ADDR_STR form after {@code gni;node;service}, in order. */
    static final List<String> GNI_FIELD_NAMES = List.of(
        "version", "device_addr", "cdm_id", "name_type", "cm_nic_cdm_id", "cookie", "rx_ctx_cnt", "key_offset");
    /** The GNI address form as a provider supplies it (key_offset optional). */
    static final AddressCodec GNI = AddressCodec.fields("gni", AddressFormat.GNI, GNI_FIELD_NAMES, 1);

    static final long ALPHA_CAPS = Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC | Flags.DIRECTED_RECV |
        Flags.PRIMARY_MODIFIERS | Flags.MULTI_RECV | Flags.SOURCE | Flags.FENCE | Flags.LOCAL_COMM | Flags.REMOTE_COMM;
    static final long ALPHA_TAG_FORMAT = 0x0000FFFFFFFFFFFFL;
    static final long ALPHA_MSG_ORDER = MsgOrder.SAS | MsgOrder.RAR | MsgOrder.WAW | MsgOrder.RAW | MsgOrder.WAR;
    static final long ALPHA_COMP_ORDER = CompOrder.NONE;
    static final long ALPHA_OP_FLAGS = Flags.COMPLETION | Flags.INJECT_COMPLETE | Flags.TRANSMIT_COMPLETE |
        Flags.DELIVERY_COMPLETE | Flags.MORE | Flags.FENCE | Flags.REMOTE_CQ_DATA;

    private TestProviders()
    {
    }

    /**
     * "alpha": sockaddr_in, RDM (first) and MSG infos, no modes needed, auto progress, rank 10.
     */
    static Provider alpha()
    {
        final Info rdm = Info.builder()
            .caps(ALPHA_CAPS)
            .mode(0)
            .addrFormat(AddressFormat.SOCKADDR_IN)
            .txAttr(TxAttr.builder().caps(ALPHA_CAPS).opFlags(ALPHA_OP_FLAGS).msgOrder(ALPHA_MSG_ORDER)
                .compOrder(ALPHA_COMP_ORDER).injectSize(64).size(1024).iovLimit(4).rmaIovLimit(4).build())
            .rxAttr(RxAttr.builder().caps(ALPHA_CAPS).opFlags(Flags.COMPLETION | Flags.MULTI_RECV)
                .msgOrder(ALPHA_MSG_ORDER).compOrder(ALPHA_COMP_ORDER).size(2048).iovLimit(4).build())
            .epAttr(EpAttr.builder().type(EndpointType.RDM).protocol(Protocol.SOCK_TCP).protocolVersion(1)
                .maxMsgSize(1L << 30).maxOrderRawSize(4096).maxOrderWarSize(4096).maxOrderWawSize(4096)
                .memTagFormat(ALPHA_TAG_FORMAT).txCtxCnt(1).rxCtxCnt(1).build())
            .domainAttr(DomainAttr.builder().name("alpha0").threading(Threading.DOMAIN)
                .controlProgress(Progress.AUTO).dataProgress(Progress.AUTO).resourceMgmt(ResourceMgmt.ENABLED)
                .avType(AvType.UNSPEC).mrMode(MrMode.LOCAL | MrMode.VIRT_ADDR | MrMode.PROV_KEY).mrKeySize(8)
                .cqDataSize(8).cqCnt(256).epCnt(128).txCtxCnt(128).rxCtxCnt(128).maxEpTxCtx(1).maxEpRxCtx(1)
                .cntrCnt(64).mrIovLimit(4).mrCnt(4096).maxErrData(64)
                .caps(Flags.LOCAL_COMM | Flags.REMOTE_COMM).build())
            .fabricAttr(FabricAttr.builder().name("alpha-fabric").build())
            .build();
        final Info msg = rdm.toBuilder()
            .caps(Flags.MSG | Flags.RMA | Flags.PRIMARY_MODIFIERS | Flags.SOURCE)
            .epAttr(rdm.epAttr().toBuilder().type(EndpointType.MSG).build())
            .build();
        return new FixedProvider("alpha", Version.of(2, 3), 10, List.of(rdm, msg));
    }

    /**
     * "beta": FI_ADDR_STR addresses with its own {@code fi_beta://} scheme, RDM, needs FI_CONTEXT, manual
     * progress, FI_THREAD_SAFE, rank 20.
     */
    static Provider beta()
    {
        final long caps = Flags.MSG | Flags.TAGGED | Flags.SEND | Flags.RECV;
        final Info rdm = Info.builder()
            .caps(caps)
            .mode(Mode.CONTEXT)
            .addrFormat(AddressFormat.STR)
            .txAttr(TxAttr.builder().caps(caps).mode(Mode.CONTEXT).msgOrder(MsgOrder.SAS).injectSize(16).size(64)
                .iovLimit(1).build())
            .rxAttr(RxAttr.builder().caps(caps).mode(Mode.CONTEXT).msgOrder(MsgOrder.SAS).size(64).iovLimit(1)
                .build())
            .epAttr(EpAttr.builder().type(EndpointType.RDM).protocol(Protocol.JFABRIC_SHM).protocolVersion(1)
                .maxMsgSize(65536).memTagFormat(0xFFFFFFFFL).txCtxCnt(1).rxCtxCnt(1).build())
            .domainAttr(DomainAttr.builder().name("beta0").threading(Threading.SAFE)
                .controlProgress(Progress.MANUAL).dataProgress(Progress.MANUAL).resourceMgmt(ResourceMgmt.ENABLED)
                .avType(AvType.TABLE).mrMode(0).cqDataSize(4).cqCnt(16).epCnt(16).cntrCnt(16).mrIovLimit(1)
                .build())
            .fabricAttr(FabricAttr.builder().name("beta-fabric").build())
            .build();
        return new FixedProvider("beta", Version.of(1, 0), 20, List.of(rdm))
        {
            @Override
            public byte[] resolveAddress(
                final AddressFormat format, final String node, final String service, final long flags)
            {
                if (format != AddressFormat.STR)
                {
                    return null;
                }
                final String text;
                if (node == null && service == null)
                {
                    text = "fi_beta://local";
                }
                else if (node != null && AddressString.isAddressString(node))
                {
                    text = "fi_beta".equals(AddressString.parse(node).scheme()) ? node : null;
                }
                else
                {
                    text = "fi_beta://" + (node == null ? "local" : node) + (service == null ? "" : ":" + service);
                }
                return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
            }
        };
    }

    /**
     * "gamma": a GNI-like provider with FI_ADDR_GNI addresses parsed from the {@code gni;...} form, DGRAM and
     * RDM, rank 30.
     */
    static Provider gamma()
    {
        final long caps = Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC | Flags.PRIMARY_MODIFIERS;
        final Info rdm = Info.builder()
            .caps(caps)
            .mode(Mode.CONTEXT)
            .addrFormat(AddressFormat.GNI)
            .txAttr(TxAttr.builder().caps(caps).msgOrder(MsgOrder.SAS).injectSize(64).size(500).iovLimit(8)
                .rmaIovLimit(1).build())
            .rxAttr(RxAttr.builder().caps(caps).msgOrder(MsgOrder.SAS).size(500).iovLimit(8).build())
            .epAttr(EpAttr.builder().type(EndpointType.RDM).protocol(Protocol.GNI).protocolVersion(1)
                .maxMsgSize(1L << 32).memTagFormat(-1L).txCtxCnt(1).rxCtxCnt(1).build())
            .domainAttr(DomainAttr.builder().name("gamma0").threading(Threading.COMPLETION)
                .controlProgress(Progress.AUTO).dataProgress(Progress.AUTO).resourceMgmt(ResourceMgmt.ENABLED)
                .avType(AvType.UNSPEC).mrMode(MrMode.BASIC).cqDataSize(4).cqCnt(8192).epCnt(-1L)
                .caps(Flags.REMOTE_COMM).build())
            .fabricAttr(FabricAttr.builder().name("gni").build())
            .nic(Nic.builder().deviceName("aries0").busType("FI_BUS_PCI").linkState("FI_LINK_UP").build())
            .build();
        final Info dgram = rdm.toBuilder().epAttr(rdm.epAttr().toBuilder().type(EndpointType.DGRAM).build()).build();
        return new FixedProvider("gamma", Version.of(1, 1), 30, List.of(rdm, dgram))
        {
            @Override
            public List<AddressCodec> addressCodecs()
            {
                return List.of(GNI);
            }

            @Override
            public byte[] resolveAddress(
                final AddressFormat format, final String node, final String service, final long flags)
            {
                if (format != AddressFormat.GNI)
                {
                    return null;
                }
                if (node == null)
                {
                    return new byte[] { 0, 0, 0, 0, 0, 0, 0, 0 };
                }
                if (!node.startsWith("gni;"))
                {
                    return null;
                }
                final AddressString a = GNI.parse(node);
                final long device = Long.decode(a.params().get("device_addr"));
                final long cdm = Long.decode(a.params().get("cdm_id"));
                final byte[] out = new byte[8];
                for (int i = 0; i < 4; i++)
                {
                    out[i] = (byte) (device >>> (8 * i));
                    out[4 + i] = (byte) (cdm >>> (8 * i));
                }
                return out;
            }
        };
    }

    /**
     * A provider named {@code name} (rank 5) offering alpha's RDM info changed by {@code change}, reporting
     * {@code freeCaps} as its free secondary caps.
     */
    static Provider variant(final String name, final UnaryOperator<Info.Builder> change, final long freeCaps)
    {
        final Info rdm = change.apply(alpha().infos().get(0).toBuilder()).build();
        return new FixedProvider(name, Version.of(1, 0), 5, List.of(rdm))
        {
            @Override
            public long freeSecondaryCaps()
            {
                return freeCaps;
            }
        };
    }

    /**
     * A provider named {@code name} (rank 5) offering alpha's RDM info with another address format and the
     * default free secondary caps.
     */
    static Provider withFormat(final String name, final AddressFormat format)
    {
        return variant(name, b -> b.addrFormat(format), Provider.DEFAULT_FREE_SECONDARY_CAPS);
    }

    /**
     * All three, in a deliberately unsorted order.
     */
    static List<Provider> all()
    {
        return List.of(gamma(), alpha(), beta());
    }

    /**
     * A provider with fixed infos.
     */
    static class FixedProvider implements Provider
    {
        private final String name;
        private final Version version;
        private final int rank;
        private final List<Info> infos;

        FixedProvider(final String name, final Version version, final int rank, final List<Info> infos)
        {
            this.name = name;
            this.version = version;
            this.rank = rank;
            this.infos = infos;
        }

        @Override
        public String name()
        {
            return name;
        }

        @Override
        public Version version()
        {
            return version;
        }

        @Override
        public List<Info> infos()
        {
            return infos;
        }

        @Override
        public int rank()
        {
            return rank;
        }
    }
}
