package io.jfabric.provider.shm;

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
import io.jfabric.SockAddr;
import io.jfabric.ResourceMgmt;
import io.jfabric.RxAttr;
import io.jfabric.Threading;
import io.jfabric.TxAttr;
import io.jfabric.Version;
import io.jfabric.spi.DatagramInfo;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.FrameOrdering;
import io.jfabric.spi.TransportProvider;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The {@code shm} provider: RDM endpoints in one or many processes of one host, each domain with an inbound ring
 * in a mapped file under {@code /dev/shm/jfabric-<uid>} (see {@link ShmConfiguration}), liveness by heartbeat and
 * process checks. Addresses are {@code fi_shm://<name>[:<endpoint>]} ({@code FI_ADDR_STR}); the binary form of
 * {@link ShmAddress#binary()} is accepted wherever a text address is.
 * <p>
 * It advertises what the runtime's domain agent does over any transport: {@code FI_MSG}, {@code FI_TAGGED}
 * (directed receive, multi-recv, source addresses), {@code FI_RMA} and {@code FI_ATOMIC} executed by the target's
 * agent, {@code FI_RMA_EVENT} (remote counters and writedata completions at the target), {@code FI_FENCE}; eager
 * messages up to {@link #EAGER_THRESHOLD}, rendezvous above it up to {@link #MAX_MSG_SIZE}. Data progress is
 * {@code FI_PROGRESS_MANUAL} unless the application asks for {@code FI_PROGRESS_AUTO}.
 * <p>
 * Threading: thread-safe.
 */
public final class ShmProvider implements TransportProvider
{
    /** Provider name. */
    public static final String NAME = "shm";
    /** Largest message in bytes (rendezvous in 256 KiB chunks above the eager threshold). */
    public static final int MAX_MSG_SIZE = 64 * 1024 * 1024;
    /** Largest inject payload in bytes (copied into the command at post time). */
    public static final int INJECT_SIZE = 4096;
    /** Messages above this many bytes go by rendezvous (the runtime's default threshold). */
    public static final int EAGER_THRESHOLD = 8192;
    /** Largest {@code FI_EP_DGRAM} message in bytes: one eager frame ({@link #EAGER_THRESHOLD}). */
    public static final int DGRAM_MAX_MSG_SIZE = EAGER_THRESHOLD;
    /** Transmit and receive queue depth. */
    public static final int QUEUE_SIZE = 1024;
    /**
     * Remote ranges per RMA or atomic ({@code rma_iov_limit}): the runtime's agent carries up to its iov limit (8) in
     * a frame's remote list or a streamed request, over any transport.
     */
    public static final int RMA_IOV_LIMIT = 8;

    /** Transmit and receive contexts of a scalable endpoint, at most (each takes an endpoint index). */
    private static final int CONTEXTS = 16;
    private static final long CAPS = Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC | Flags.SEND | Flags.RECV |
        Flags.READ | Flags.WRITE | Flags.REMOTE_READ | Flags.REMOTE_WRITE | Flags.MULTI_RECV | Flags.SOURCE |
        Flags.DIRECTED_RECV | Flags.RMA_EVENT | Flags.FENCE | Flags.TRIGGER | Flags.LOCAL_COMM |
        Flags.NAMED_RX_CTX | Flags.SHARED_AV;
    private static final long TX_OP_FLAGS = Flags.COMPLETION | Flags.INJECT | Flags.INJECT_COMPLETE |
        Flags.TRANSMIT_COMPLETE | Flags.DELIVERY_COMPLETE | Flags.MORE | Flags.REMOTE_CQ_DATA | Flags.FENCE;
    private static final long RX_OP_FLAGS = Flags.COMPLETION | Flags.MULTI_RECV | Flags.MORE;

    private final Info manual = Info.builder()
        .caps(CAPS)
        .mode(0)
        .addrFormat(AddressFormat.STR)
        .txAttr(TxAttr.builder().caps(CAPS & Flags.TX_ATTR_CAPS)
            .opFlags(TX_OP_FLAGS).msgOrder(FrameOrdering.MSG_ORDER).injectSize(INJECT_SIZE).size(QUEUE_SIZE).iovLimit(4)
            .rmaIovLimit(RMA_IOV_LIMIT).build())
        .rxAttr(RxAttr.builder().caps(CAPS & Flags.RX_ATTR_CAPS).opFlags(RX_OP_FLAGS)
            .msgOrder(FrameOrdering.MSG_ORDER).size(QUEUE_SIZE).iovLimit(1).build())
        .epAttr(EpAttr.builder().type(EndpointType.RDM).protocol(Protocol.JFABRIC_SHM).protocolVersion(1)
            .maxMsgSize(MAX_MSG_SIZE).maxOrderRawSize(FrameOrdering.MAX_ORDER_SIZE)
            .maxOrderWarSize(FrameOrdering.MAX_ORDER_WAR_SIZE)
            .maxOrderWawSize(FrameOrdering.MAX_ORDER_SIZE).memTagFormat(-1L)
            .txCtxCnt(CONTEXTS).rxCtxCnt(CONTEXTS).build())
        .domainAttr(DomainAttr.builder().name(NAME).threading(Threading.SAFE)
            .controlProgress(Progress.AUTO).dataProgress(Progress.MANUAL).resourceMgmt(ResourceMgmt.ENABLED)
            .avType(AvType.UNSPEC).mrMode(0).cqDataSize(8).cqCnt(1024).epCnt(256).txCtxCnt(256).rxCtxCnt(256)
            .maxEpTxCtx(CONTEXTS).maxEpRxCtx(CONTEXTS).maxEpStxCtx(1).maxEpSrxCtx(1)
            .cntrCnt(1024).mrIovLimit(4).mrCnt(65536).mrKeySize(8).maxErrData(0)
            .caps(Flags.LOCAL_COMM).build())
        .fabricAttr(FabricAttr.builder().name(NAME).build())
        .build();
    // Listed after the MANUAL info so that MANUAL is the default; an application asking for AUTO gets this one.
    private final Info auto = manual.toBuilder()
        .domainAttr(manual.domainAttr().toBuilder().dataProgress(Progress.AUTO).build())
        .build();
    // The socket-address infos (ShmSockAddr's mapping) come last and only for hints that ask for a socket format.
    private final List<Info> infos = List.of(
        manual,
        auto,
        // FI_EP_MSG: connected through a passive endpoint (connection management as frames of the rings), every
        // op family on the one peer; FI_DIRECTED_RECV has no meaning with one peer.
        manual.toBuilder()
            .caps(CAPS & ~(Flags.DIRECTED_RECV | Flags.NAMED_RX_CTX))
            .epAttr(manual.epAttr().toBuilder().type(EndpointType.MSG).txCtxCnt(1).rxCtxCnt(1).build())
            .build(),
        auto.toBuilder()
            .caps(CAPS & ~(Flags.DIRECTED_RECV | Flags.NAMED_RX_CTX))
            .epAttr(auto.epAttr().toBuilder().type(EndpointType.MSG).txCtxCnt(1).rxCtxCnt(1).build())
            .build(),
        // FI_EP_DGRAM: one eager frame per datagram, no RMA or atomics; the rings never lose a frame, which is
        // more than a datagram asks (SHM.md, "Datagram endpoints").
        DatagramInfo.of(manual, DGRAM_MAX_MSG_SIZE),
        DatagramInfo.of(auto, DGRAM_MAX_MSG_SIZE),
        manual.toBuilder().addrFormat(AddressFormat.SOCKADDR_IN6).build(),
        auto.toBuilder().addrFormat(AddressFormat.SOCKADDR_IN6).build());

    /**
     * Public no-argument constructor for {@link java.util.ServiceLoader}.
     */
    public ShmProvider()
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
     * The socket-address infos are offered only to hints naming a socket format ({@link ShmSockAddr}).
     *
     * @param info one of the infos.
     * @return true for the socket-address infos.
     */
    @Override
    public boolean offeredOnlyForItsAddressFormat(final Info info)
    {
        return ShmSockAddr.socketFormat(info.addrFormat());
    }

    /**
     * After inproc (50), which moves frames without files and is faster inside one JVM.
     *
     * @return 60.
     */
    @Override
    public int rank()
    {
        return 60;
    }

    /**
     * Addresses are {@code FI_ADDR_STR}: no node and service gives this process's default name
     * ({@code fi_shm://<pid>}, each domain then takes the first free of {@code <pid>}, {@code <pid>-1}, ...); a node
     * {@code fi_shm://name[:endpoint]} or a plain name (with an optional numeric service as the endpoint index)
     * names that domain; a service alone is taken as the name.
     *
     * @param format  the info's format.
     * @param node    the node or null.
     * @param service the service or null.
     * @param flags   getInfo flags.
     * @return the address, or null when the node is not a valid shm name.
     */
    @Override
    public byte[] resolveAddress(final AddressFormat format, final String node, final String service, final long flags)
    {
        if (AddressFormat.STR != format)
        {
            return null;
        }
        if (null == node && null == service)
        {
            return (ShmAddress.SCHEME + ShmDomainTransport.defaultName()).getBytes(StandardCharsets.US_ASCII);
        }
        if (null != node && node.startsWith(ShmAddress.SCHEME))
        {
            final ShmAddress address = ShmAddress.parseText(node);
            return null == address ? null : address.textBytes();
        }
        final String name = null != node ? node : service;
        final String endpoint = null != node ? service : null;
        if (!ShmRingDescriptor.validName(name))
        {
            return null;
        }
        final ShmAddress address = ShmAddress.parseText(ShmAddress.SCHEME + name +
            (null == endpoint ? "" : ":" + endpoint));
        return null == address ? null : address.textBytes();
    }

    /**
     * Open a domain's ring: named by the info's source address, or the process default.
     *
     * @param info the info.
     * @return the transport.
     * @throws FabricException EINVAL when the source address is not a shm address; EADDRINUSE when a living
     *                         process owns the name; EIO or EACCES on file problems.
     */
    @Override
    public DomainTransport openDomain(final Info info)
    {
        final byte[] src = info.srcAddr();
        String requested = null;
        if (ShmSockAddr.socketFormat(info.addrFormat()) && (null == src || ShmSockAddr.isSockAddr(src)))
        {
            return openSocketNamed(info, src);
        }
        if (null != src && src.length > 0)
        {
            final ShmAddress address = ShmAddress.parse(src);
            if (null == address)
            {
                throw new FabricException(Errno.EINVAL, "shm: source address '" +
                    new String(src, StandardCharsets.US_ASCII) + "' is not fi_shm://<name>");
            }
            requested = address.name();
        }
        return ShmDomainTransport.open(requested);
    }

    /**
     * A domain of a socket-address info: named {@code in-<port>} after its source address ({@link ShmSockAddr});
     * port 0 (or no source) takes the first free port from one derived from the pid.
     */
    private static DomainTransport openSocketNamed(final Info info, final byte[] src)
    {
        if (null != src && ShmSockAddr.port(src) > 0)
        {
            final ShmAddress address = ShmSockAddr.parse(src, true);
            if (null == address)
            {
                throw new FabricException(Errno.EINVAL, "shm: source address " + SockAddr.toAddressString(src) +
                    " is not a loopback socket address (127.0.H.L:port, [::1]:port, or the wildcard)");
            }
            final ShmDomainTransport transport = ShmDomainTransport.open(address.name());
            transport.socketFormat(info.addrFormat());
            return transport;
        }
        final int base = 10_000 + (int) (ProcessIdentity.PID % 50_000);
        for (int i = 0; ; i++)
        {
            try
            {
                final ShmDomainTransport transport = ShmDomainTransport.open(ShmSockAddr.PREFIX + (base + i));
                transport.socketFormat(info.addrFormat());
                return transport;
            }
            catch (final FabricException ex)
            {
                if (Errno.EADDRINUSE != ex.errno() || i >= 4096 || base + i >= 65535)
                {
                    throw ex;
                }
            }
        }
    }
}
