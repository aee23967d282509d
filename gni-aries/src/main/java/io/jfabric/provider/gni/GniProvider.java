package io.jfabric.provider.gni;

import io.jfabric.AddressFormat;
import io.jfabric.AvType;
import io.jfabric.DomainAttr;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
import io.jfabric.Errno;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MrMode;
import io.jfabric.MsgOrder;
import io.jfabric.Progress;
import io.jfabric.Protocol;
import io.jfabric.ResourceMgmt;
import io.jfabric.RxAttr;
import io.jfabric.Threading;
import io.jfabric.TxAttr;
import io.jfabric.Version;
import io.jfabric.aries.GniAddress;
import io.jfabric.spi.AddressCodec;
import io.jfabric.spi.AddressVectorRules;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.FabricBackend;
import io.jfabric.spi.Operation;
import io.jfabric.spi.ProviderCapabilities;
import io.jfabric.spi.TransportProvider;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code gni} provider of fi_gni(7) on the emulated Cray Aries NIC ({@code io.jfabric.aries}): the runtime keeps
 * the objects, receive matching and completions; the provider's {@link GniBackend} moves every byte with the NIC's
 * own mechanisms (lazy VC connect over datagrams, SMSG mailboxes, rendezvous by remote GET, FMA and BTE RMA, the AMO
 * unit). See {@code gni-aries/GNI-PROVIDER.md}.
 * <p>
 * getInfo (GNI.md §2.15): RDM, DGRAM, then MSG (connected through {@link GniCmChannel}), each with basic registration
 * ({@code OFI_MR_BASIC_MAP}) and, when asked for, scalable ({@code FI_MR_MMU_NOTIFY}); {@code FI_ADDR_GNI} and, when
 * asked for, {@code FI_ADDR_STR}; caps MSG, RMA, TAGGED, ATOMIC, DIRECTED_RECV, READ, WRITE, SEND, RECV, REMOTE_READ,
 * REMOTE_WRITE plus the free secondary MULTI_RECV, FENCE, LOCAL_COMM, REMOTE_COMM, and SOURCE, SOURCE_ERR and
 * RMA_EVENT only when requested; mode 0; fabric {@code gni}, domain {@code /sys/class/gni/kgni0}; FI_PROTO_GNI;
 * threading SAFE; progress AUTO; inject 64; tx/rx size 500; iov 8, RMA iov 1; domain caps REMOTE_COMM.
 * <p>
 * Threading: thread-safe.
 */
public final class GniProvider implements TransportProvider
{
    /** Provider name. */
    public static final String NAME = "gni";
    /** Domain name, the device file's path upstream. */
    public static final String DOMAIN_NAME = "/sys/class/gni/kgni0";
    /** {@code GNIX_INJECT_SIZE}. */
    public static final int INJECT_SIZE = 64;
    /** {@code GNIX_TX_SIZE_DEFAULT} / {@code GNIX_RX_SIZE_DEFAULT}. */
    public static final int QUEUE_SIZE = 500;
    /**
     * Largest message: upstream's {@code GNIX_MAX_MSG_SIZE}, 2^32 - 1. Nothing here bounds it lower: a rendezvous
     * pull GETs straight into each receive buffer and an iov send registers each buffer (no staging, no gather); one
     * buffer is at most 2^31 - 1 bytes (a Java buffer's capacity, and a single NIC post's length), so a larger
     * message is an iov.
     */
    public static final long MAX_MSG_SIZE = (1L << 32) - 1;
    /** Bytes of a domain authorization key: {@code struct fi_gni_auth_key} (type, cookie). */
    public static final int AUTH_KEY_SIZE = 8;

    /** The largest {@code rx_ctx_bits} of an address vector (GNI.md §2.13: more is EINVAL). */
    public static final int MAX_RX_CTX_BITS = 8;

    /** {@code GNIX_SEP_MAX_CNT}: transmit and receive contexts of a scalable endpoint, at most (GNI.md §2.14). */
    public static final int MAX_CONTEXTS = 128;

    private static final long CAPS = Flags.MSG | Flags.RMA | Flags.TAGGED | Flags.ATOMIC | Flags.DIRECTED_RECV |
        Flags.NAMED_RX_CTX | Flags.READ | Flags.WRITE | Flags.SEND | Flags.RECV | Flags.REMOTE_READ |
        Flags.REMOTE_WRITE | Flags.MULTI_RECV | Flags.TRIGGER | Flags.FENCE | Flags.LOCAL_COMM | Flags.REMOTE_COMM |
        Flags.SOURCE | Flags.SOURCE_ERR | Flags.RMA_EVENT;
    private static final long FREE = Flags.MULTI_RECV | Flags.TRIGGER | Flags.FENCE | Flags.LOCAL_COMM |
        Flags.REMOTE_COMM;
    private static final long TX_OP_FLAGS = Flags.COMPLETION | Flags.INJECT | Flags.INJECT_COMPLETE |
        Flags.TRANSMIT_COMPLETE | Flags.DELIVERY_COMPLETE | Flags.MORE | Flags.REMOTE_CQ_DATA | Flags.FENCE;
    private static final long RX_OP_FLAGS = Flags.COMPLETION | Flags.MULTI_RECV | Flags.MORE;
    /** {@code OFI_MR_BASIC_MAP}: basic registration in 1.5 terms. */
    private static final long MR_MODE = MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY;
    /**
     * Scalable registration in 1.5 terms ({@code FI_MR_MMU_NOTIFY}): requested keys, offsets into the region (asked
     * for with that mr_mode; {@code FI_MR_SCALABLE} itself is refused, as upstream).
     */
    private static final long MR_MODE_SCALABLE = MrMode.MMU_NOTIFY;


    private final List<Info> infos;

    /**
     * Public no-argument constructor for {@link java.util.ServiceLoader}.
     */
    public GniProvider()
    {
        final List<Info> list = new ArrayList<>();
        for (final AddressFormat format : new AddressFormat[] {AddressFormat.GNI, AddressFormat.STR})
        {
            for (final EndpointType type : new EndpointType[] {EndpointType.RDM, EndpointType.DGRAM, EndpointType.MSG})
            {
                list.add(info(type, format, MR_MODE));
                list.add(info(type, format, MR_MODE_SCALABLE));
            }
        }
        infos = List.copyOf(list);
    }

    private static Info info(final EndpointType type, final AddressFormat format, final long mrMode)
    {
        // A MSG endpoint has its one peer: no named receive contexts, no scalable endpoint (the runtime's rule).
        final boolean msg = EndpointType.MSG == type;
        final long caps = msg ? CAPS & ~(Flags.NAMED_RX_CTX | Flags.DIRECTED_RECV) : CAPS;
        final int contexts = msg ? 1 : MAX_CONTEXTS;
        return Info.builder()
            .caps(caps)
            .mode(0)
            .addrFormat(format)
            .txAttr(TxAttr.builder().caps(caps & Flags.TX_ATTR_CAPS).opFlags(TX_OP_FLAGS).msgOrder(MsgOrder.SAS)
                .compOrder(0).injectSize(INJECT_SIZE).size(QUEUE_SIZE).iovLimit(8).rmaIovLimit(1).build())
            .rxAttr(RxAttr.builder().caps(caps & Flags.RX_ATTR_CAPS).opFlags(RX_OP_FLAGS).msgOrder(MsgOrder.SAS)
                .compOrder(0).size(QUEUE_SIZE).iovLimit(8).build())
            .epAttr(EpAttr.builder().type(type).protocol(Protocol.GNI).protocolVersion(1).maxMsgSize(MAX_MSG_SIZE)
                .maxOrderRawSize(MAX_MSG_SIZE).maxOrderWarSize(MAX_MSG_SIZE).maxOrderWawSize(MAX_MSG_SIZE)
                .memTagFormat(-1L).txCtxCnt(contexts).rxCtxCnt(contexts).build())
            .domainAttr(DomainAttr.builder().name(DOMAIN_NAME).threading(Threading.SAFE)
                .controlProgress(Progress.AUTO).dataProgress(Progress.AUTO).resourceMgmt(ResourceMgmt.ENABLED)
                .avType(AvType.UNSPEC).mrMode(mrMode).cqDataSize(8).cqCnt(1024).epCnt(GniName.MAX_ENDPOINTS)
                .txCtxCnt(GniName.MAX_ENDPOINTS).rxCtxCnt(GniName.MAX_ENDPOINTS).maxEpTxCtx(contexts)
                .maxEpRxCtx(contexts).cntrCnt(1024).mrIovLimit(1).mrCnt(65535)
                .mrKeySize(8).maxErrData(GniName.LENGTH).caps(Flags.REMOTE_COMM).build())
            .fabricAttr(FabricAttr.builder().name(NAME).build())
            .build();
    }

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public Version version()
    {
        return Version.of(1, 0);
    }

    @Override
    public List<Info> infos()
    {
        return infos;
    }

    /**
     * After inproc (50), shm (60) and aeron: a NIC emulation, chosen by name.
     *
     * @return 90.
     */
    @Override
    public int rank()
    {
        return 90;
    }

    /**
     * MULTI_RECV, TRIGGER, FENCE, LOCAL_COMM and REMOTE_COMM (upstream's {@code GNIX_EP_SEC_CAPS}, GNI.md §2.15);
     * SOURCE, SOURCE_ERR and RMA_EVENT only when requested ({@code GNIX_EP_SEC_CAPS_FULL}).
     *
     * @return the free secondary caps.
     */
    @Override
    public long freeSecondaryCaps()
    {
        return FREE;
    }

    @Override
    public ProviderCapabilities capabilities(final Info info)
    {
        // The registration rules depend on the mr_mode and the authorization key (GniRegistrations).
        return ProviderCapabilities.builder()
            .atomics(GniAtomics.TABLE)
            .memoryRegistration(GniRegistrations.policy(info))
            .authKeySize(AUTH_KEY_SIZE)
            .refuse(Operation.TINJECTDATA, Errno.ENOSYS)
            // fi_gni(7), KNOWN BUGS: fi_shutdown is strictly local, the connected peer is not notified.
            .localShutdown(true)
            // fi_gni(7): FI_EVENT is unsupported; GNI.md 2.13: named vectors, insertsvc and insertsym ENOSYS, a
            // map lookup or remove of an unknown address ENOENT, rx_ctx_bits at most 8.
            .addressVectors(AddressVectorRules.DEFAULT.refuseEvent(Errno.ENOSYS).refuseNamed(Errno.ENOSYS)
                .refuseServiceInsert(Errno.ENOSYS).unknownMapAddress(Errno.ENOENT).maxRxCtxBits(MAX_RX_CTX_BITS))
            .build();
    }

    /**
     * A fabric with gni's fabric extensions ({@link GniFabric}).
     *
     * @param info the fabric's info.
     * @return the fabric's back-end.
     */
    @Override
    public FabricBackend openFabric(final Info info)
    {
        return new GniFabric();
    }

    /**
     * The {@code gni;...} text form.
     *
     * @return {@link GniAddress#CODEC}.
     */
    @Override
    public List<AddressCodec> addressCodecs()
    {
        return List.of(GniAddress.CODEC);
    }

    /**
     * No node and service: no address yet (each domain's NIC gets its device address when it opens). A node in
     * either gni form (the 48-byte name is not text, so only {@code gni;...} arrives here) names that endpoint.
     *
     * @param format  the info's format.
     * @param node    the node or null.
     * @param service the service or null.
     * @param flags   getInfo flags.
     * @return the name in {@code format}, or null.
     */
    @Override
    public byte[] resolveAddress(final AddressFormat format, final String node, final String service, final long flags)
    {
        if (null == node || (AddressFormat.GNI != format && AddressFormat.STR != format))
        {
            return null == node && null == service && (AddressFormat.GNI == format || AddressFormat.STR == format) ?
                new byte[0] : null;
        }
        final long key = GniName.parse(node.getBytes(StandardCharsets.US_ASCII));
        if (key < 0)
        {
            return null;
        }
        return AddressFormat.GNI == format ? GniName.binary(key, GniConfiguration.DEFAULT_COOKIE) :
            node.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public DomainTransport openDomain(final Info info)
    {
        return GniDomainTransport.open(info);
    }
}
