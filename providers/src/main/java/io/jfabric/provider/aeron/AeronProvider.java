package io.jfabric.provider.aeron;

import io.jfabric.AddressFormat;
import io.jfabric.AvType;
import io.jfabric.DomainAttr;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
import io.jfabric.Errno;
import io.jfabric.FabricAttr;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.Protocol;
import io.jfabric.ResourceMgmt;
import io.jfabric.RxAttr;
import io.jfabric.Threading;
import io.jfabric.TxAttr;
import io.jfabric.Version;
import io.jfabric.spi.DatagramInfo;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.FabricBackend;
import io.jfabric.spi.FrameOrdering;
import io.jfabric.spi.TransportProvider;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The {@code aeron} provider: RDM endpoints across processes and hosts over Aeron's reliable UDP unicast. Each
 * fabric runs (or attaches to) a media driver ({@link AeronFabricBackend}); each domain listens on one UDP
 * {@code host:port} with a stream for requests and the next for answers, and sends to each peer domain through two
 * exclusive publications ({@link AeronDomainTransport}). Aeron does reliability, ordering, flow control and
 * liveness; the runtime's domain agent does the protocol (matching, rendezvous, RMA and atomics by the target's
 * agent, credits) over it as over every frame transport. Addresses are {@code fi_aeron://host:port[/stream[/ep]]}
 * ({@code FI_ADDR_STR}); a {@code struct sockaddr_in}/{@code in6} is accepted wherever an address is taken, and
 * infos in {@code FI_SOCKADDR_IN}/{@code IN6} name endpoint 0 of a domain by its socket address.
 * <p>
 * Data progress is {@code FI_PROGRESS_AUTO} by default, {@code FI_PROGRESS_MANUAL} on request.
 * <p>
 * Threading: thread-safe.
 */
public final class AeronProvider implements TransportProvider
{
    /** Provider name. */
    public static final String NAME = "aeron";
    /** Largest message in bytes (rendezvous in chunks of at most 256 KiB above the eager threshold). */
    public static final int MAX_MSG_SIZE = 64 * 1024 * 1024;
    /** Largest inject payload in bytes (copied into the command at post time). */
    public static final int INJECT_SIZE = 4096;
    /** Transmit and receive queue depth. */
    public static final int QUEUE_SIZE = 1024;
    /** Remote ranges per RMA or atomic ({@code rma_iov_limit}), as the runtime's agent carries them. */
    public static final int RMA_IOV_LIMIT = 8;

    /** Transmit and receive contexts of a scalable endpoint, at most (each takes an endpoint index). */
    private static final int CONTEXTS = 16;
    private static final long CAPS = Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC | Flags.SEND | Flags.RECV |
        Flags.READ | Flags.WRITE | Flags.REMOTE_READ | Flags.REMOTE_WRITE | Flags.MULTI_RECV | Flags.SOURCE |
        Flags.DIRECTED_RECV | Flags.RMA_EVENT | Flags.FENCE | Flags.TRIGGER | Flags.LOCAL_COMM |
        Flags.NAMED_RX_CTX | Flags.REMOTE_COMM;
    private static final long TX_OP_FLAGS = Flags.COMPLETION | Flags.INJECT | Flags.INJECT_COMPLETE |
        Flags.TRANSMIT_COMPLETE | Flags.DELIVERY_COMPLETE | Flags.MORE | Flags.REMOTE_CQ_DATA | Flags.FENCE;
    private static final long RX_OP_FLAGS = Flags.COMPLETION | Flags.MULTI_RECV | Flags.MORE;

    private final Info auto = Info.builder()
        .caps(CAPS)
        .mode(0)
        .addrFormat(AddressFormat.STR)
        .txAttr(TxAttr.builder().caps(CAPS & Flags.TX_ATTR_CAPS)
            .opFlags(TX_OP_FLAGS).msgOrder(FrameOrdering.MSG_ORDER).injectSize(INJECT_SIZE).size(QUEUE_SIZE).iovLimit(4)
            .rmaIovLimit(RMA_IOV_LIMIT).build())
        .rxAttr(RxAttr.builder().caps(CAPS & Flags.RX_ATTR_CAPS).opFlags(RX_OP_FLAGS)
            .msgOrder(FrameOrdering.MSG_ORDER).size(QUEUE_SIZE).iovLimit(1).build())
        .epAttr(EpAttr.builder().type(EndpointType.RDM).protocol(Protocol.JFABRIC_AERON).protocolVersion(1)
            .maxMsgSize(MAX_MSG_SIZE).maxOrderRawSize(FrameOrdering.MAX_ORDER_SIZE)
            .maxOrderWarSize(FrameOrdering.MAX_ORDER_WAR_SIZE)
            .maxOrderWawSize(FrameOrdering.MAX_ORDER_SIZE).memTagFormat(-1L)
            .txCtxCnt(CONTEXTS).rxCtxCnt(CONTEXTS).build())
        .domainAttr(DomainAttr.builder().name(NAME).threading(Threading.SAFE)
            .controlProgress(Progress.AUTO).dataProgress(Progress.AUTO).resourceMgmt(ResourceMgmt.ENABLED)
            .avType(AvType.UNSPEC).mrMode(0).cqDataSize(8).cqCnt(1024).epCnt(256).txCtxCnt(256).rxCtxCnt(256)
            .maxEpTxCtx(CONTEXTS).maxEpRxCtx(CONTEXTS).maxEpStxCtx(1).maxEpSrxCtx(1)
            .cntrCnt(1024).mrIovLimit(4).mrCnt(65536).mrKeySize(8).maxErrData(0)
            .caps(Flags.LOCAL_COMM | Flags.REMOTE_COMM).build())
        .fabricAttr(FabricAttr.builder().name(NAME).build())
        .build();
    // Listed after the AUTO info so that AUTO is the default; an application asking for MANUAL gets this one.
    private final Info manual = auto.toBuilder()
        .domainAttr(auto.domainAttr().toBuilder().dataProgress(Progress.MANUAL).build())
        .build();
    // FI_EP_MSG: connected through a passive endpoint (connection management as frames on the streams).
    private final Info msgAuto = auto.toBuilder()
        .caps(CAPS & ~(Flags.DIRECTED_RECV | Flags.NAMED_RX_CTX))
        .epAttr(auto.epAttr().toBuilder().type(EndpointType.MSG).txCtxCnt(1).rxCtxCnt(1).build())
        .build();
    // RDM in FI_ADDR_STR first (the default); then the same in FI_SOCKADDR_IN and FI_SOCKADDR_IN6
    // (AeronSocketNames); then MSG (passive endpoints are named in FI_ADDR_STR only); then DGRAM (a datagram is one
    // UDP packet on a reliable=false stream: AERON.md, "Datagram endpoints").
    private final List<Info> infos = Stream.concat(
        AeronSocketNames.withSocketFormats(List.of(auto, manual)).stream(),
        Stream.of(msgAuto, msgAuto.toBuilder()
            .domainAttr(auto.domainAttr().toBuilder().dataProgress(Progress.MANUAL).build())
            .build(),
            DatagramInfo.of(auto, AeronConfiguration.datagramMaxMsgSize()),
            DatagramInfo.of(manual, AeronConfiguration.datagramMaxMsgSize())))
        .collect(Collectors.toUnmodifiableList());

    /**
     * Public no-argument constructor for {@link java.util.ServiceLoader}.
     */
    public AeronProvider()
    {
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String name()
    {
        return NAME;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public Version version()
    {
        return Version.of(1, 0);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public List<Info> infos()
    {
        return infos;
    }

    /**
     * After inproc (50) and shm (60), which are faster within one JVM or one host.
     *
     * @return 70.
     */
    @Override
    public int rank()
    {
        return 70;
    }

    /**
     * Addresses are {@code FI_ADDR_STR}. No node and service: {@code fi_aeron://<host>:0} (host
     * {@link AeronConfiguration#HOST_PROP}, port 0: the domain takes a free port when it opens); a node
     * {@code fi_aeron://...} as given; a node (host) and a numeric service (port); a numeric service alone is a port
     * on the default host. No name is looked up here (the domain resolves its host when it opens, an address
     * vector when it inserts).
     *
     * @param format  the info's format.
     * @param node    the node or null.
     * @param service the service or null.
     * @param flags   getInfo flags.
     * @return the address, or null when the node and service do not make an aeron address.
     */
    @Override
    public byte[] resolveAddress(final AddressFormat format, final String node, final String service, final long flags)
    {
        if (AddressFormat.STR != format)
        {
            return null;
        }
        if (null != node && node.startsWith(AeronAddress.SCHEME))
        {
            final AeronAddress address = AeronAddress.parseText(node);
            return null == address ? null : address.textBytes();
        }
        final String host = null == node ? AeronConfiguration.host() : node;
        final String port = null == service ? "0" : service;
        final String text = AeronAddress.SCHEME + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
        final AeronAddress address = AeronAddress.parseText(text);
        return null == address ? null : address.textBytes();
    }

    /**
     * Start (or attach to) the fabric's media driver and connect a client.
     *
     * @param info the fabric's info.
     * @return the backend.
     */
    @Override
    public FabricBackend openFabric(final Info info)
    {
        return AeronFabricBackend.open();
    }

    /**
     * A domain needs its fabric's media driver.
     *
     * @param info the info.
     * @return never.
     * @throws FabricException ENOSYS always.
     */
    @Override
    public DomainTransport openDomain(final Info info)
    {
        throw new FabricException(Errno.ENOSYS, "aeron: a domain opens within a fabric (Fabric.domain)");
    }

    /**
     * Open a domain listening on the info's source address (port 0 or none: a free port on the default host).
     *
     * @param fabric the fabric's backend.
     * @param info   the info.
     * @return the transport.
     * @throws FabricException EINVAL for a source address that is not an aeron address or a host that does not
     *                         resolve; EADDRINUSE when a domain of this fabric listens there already; EIO when Aeron
     *                         cannot listen there.
     */
    @Override
    public DomainTransport openDomain(final FabricBackend fabric, final Info info)
    {
        if (!(fabric instanceof AeronFabricBackend backend))
        {
            throw new FabricException(Errno.EINVAL, "aeron: the fabric is not an aeron fabric");
        }
        final byte[] src = info.srcAddr();
        AeronAddress address = null;
        if (null != src && src.length > 0)
        {
            address = AeronAddress.parse(src);
            if (null == address)
            {
                throw new FabricException(Errno.EINVAL, "aeron: source address '" +
                    new String(src, StandardCharsets.US_ASCII) + "' is not fi_aeron://<host>:<port>[/<stream>]");
            }
        }
        else
        {
            address = new AeronAddress(AeronConfiguration.host(), 0, AeronConfiguration.DEFAULT_STREAM, 0);
        }
        final AeronDomainTransport transport = AeronDomainTransport.open(backend, address);
        transport.socketNames(AeronSocketNames.socketFormat(info.addrFormat()));
        return transport;
    }
}
