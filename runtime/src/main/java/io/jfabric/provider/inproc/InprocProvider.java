package io.jfabric.provider.inproc;

import io.jfabric.AddressFormat;
import io.jfabric.AvType;
import io.jfabric.DomainAttr;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.Protocol;
import io.jfabric.ResourceMgmt;
import io.jfabric.RxAttr;
import io.jfabric.Threading;
import io.jfabric.TxAttr;
import io.jfabric.Version;
import io.jfabric.agent.DomainAgent;
import io.jfabric.spi.DatagramInfo;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.FrameOrdering;
import io.jfabric.spi.Provider;
import io.jfabric.spi.TransportProvider;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The {@code inproc} provider: endpoints in one JVM, frames moved between domains through rings in direct
 * memory, no files, no sockets. It advertises only what works: RDM endpoints (then MSG endpoints connected through
 * passive endpoints, and DGRAM endpoints without RMA/atomics) with {@code FI_MSG},
 * {@code FI_TAGGED} (send, receive, directed receive, multi-recv, source addresses) and {@code FI_RMA} and
 * {@code FI_ATOMIC} (read, write and every atomic of the runtime's executor, run by the target's agent after the MR
 * check; MR mode 0: offsets into regions, application keys), messages and RMA up to {@link #MAX_MSG_SIZE} bytes
 * (eager up to the transport's 8 KiB threshold, then rendezvous; RMA above one frame is streamed in chunks),
 * {@code iov_limit} and {@code rma_iov_limit} {@link DomainAgent#MAX_IOV} on both sides.
 * <p>
 * Threading: thread-safe.
 */
public final class InprocProvider implements TransportProvider
{
    /** Provider name. */
    public static final String NAME = "inproc";
    /** Largest message in bytes; above the transport's eager threshold (8 KiB) messages go by rendezvous. */
    public static final int MAX_MSG_SIZE = 64 * 1024 * 1024;
    /** Largest inject payload in bytes. */
    public static final int INJECT_SIZE = 256;
    /** Largest {@code FI_EP_DGRAM} message in bytes: the runtime's eager threshold (a datagram is one frame). */
    public static final int DGRAM_MAX_MSG_SIZE = 8192;
    /** Transmit and receive queue depth. */
    public static final int QUEUE_SIZE = 1024;
    /** Bytes of each domain's inbound frame ring. */
    static final int INBOUND_CAPACITY = 1 << 22;

    /** Transmit and receive contexts of a scalable endpoint, at most (each takes an endpoint index). */
    private static final int CONTEXTS = 16;
    private static final long CAPS = Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC | Flags.SEND | Flags.RECV |
        Flags.READ | Flags.WRITE | Flags.REMOTE_READ | Flags.REMOTE_WRITE | Flags.MULTI_RECV | Flags.SOURCE |
        Flags.DIRECTED_RECV | Flags.RMA_EVENT | Flags.FENCE | Flags.TRIGGER | Flags.LOCAL_COMM |
        Flags.NAMED_RX_CTX | Flags.SHARED_AV;
    private static final long TX_OP_FLAGS = Flags.COMPLETION | Flags.INJECT | Flags.INJECT_COMPLETE |
        Flags.TRANSMIT_COMPLETE | Flags.DELIVERY_COMPLETE | Flags.MORE | Flags.REMOTE_CQ_DATA | Flags.FENCE;
    private static final long RX_OP_FLAGS = Flags.COMPLETION | Flags.MULTI_RECV | Flags.MORE;

    private final Info rdm = Info.builder()
        .caps(CAPS)
        .mode(0)
        .addrFormat(AddressFormat.STR)
        .txAttr(TxAttr.builder().caps(CAPS & Flags.TX_ATTR_CAPS)
            .opFlags(TX_OP_FLAGS).msgOrder(FrameOrdering.MSG_ORDER).injectSize(INJECT_SIZE).size(QUEUE_SIZE)
            .iovLimit(DomainAgent.MAX_IOV).rmaIovLimit(DomainAgent.MAX_IOV).build())
        .rxAttr(RxAttr.builder().caps(CAPS & Flags.RX_ATTR_CAPS).opFlags(RX_OP_FLAGS)
            .msgOrder(FrameOrdering.MSG_ORDER)
            .size(QUEUE_SIZE).iovLimit(DomainAgent.MAX_IOV).build())
        .epAttr(EpAttr.builder().type(EndpointType.RDM).protocol(Protocol.JFABRIC_INPROC).protocolVersion(1)
            .maxMsgSize(MAX_MSG_SIZE).maxOrderRawSize(FrameOrdering.MAX_ORDER_SIZE)
            .maxOrderWarSize(FrameOrdering.MAX_ORDER_WAR_SIZE)
            .maxOrderWawSize(FrameOrdering.MAX_ORDER_SIZE).memTagFormat(-1L)
            .txCtxCnt(CONTEXTS).rxCtxCnt(CONTEXTS).build())
        .domainAttr(DomainAttr.builder().name("inproc").threading(Threading.SAFE)
            .controlProgress(Progress.AUTO).dataProgress(Progress.AUTO).resourceMgmt(ResourceMgmt.ENABLED)
            .avType(AvType.UNSPEC).mrMode(0).cqDataSize(8).cqCnt(1024).epCnt(256).txCtxCnt(256).rxCtxCnt(256)
            .maxEpTxCtx(CONTEXTS).maxEpRxCtx(CONTEXTS).maxEpStxCtx(1).maxEpSrxCtx(1)
            .cntrCnt(1024).mrIovLimit(4).mrCnt(65536).mrKeySize(8).maxErrData(0)
            .caps(Flags.LOCAL_COMM).build())
        .fabricAttr(FabricAttr.builder().name("inproc").build())
        .build();
    private final List<Info> infos = List.of(
        rdm,
        rdm.toBuilder()
            .caps(CAPS & ~(Flags.DIRECTED_RECV | Flags.NAMED_RX_CTX))
            .epAttr(rdm.epAttr().toBuilder().type(EndpointType.MSG).txCtxCnt(1).rxCtxCnt(1).build())
            .build(),
        // FI_EP_DGRAM: messages of one eager frame, no RMA or atomics (RUNTIME.md, "Datagram endpoints and
        // multicast"); the rings are reliable, stronger than a datagram asks.
        DatagramInfo.of(rdm, DGRAM_MAX_MSG_SIZE));

    /**
     * Public no-argument constructor for {@link java.util.ServiceLoader}.
     */
    public InprocProvider()
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
     * {@inheritDoc}
     */
    @Override
    public int rank()
    {
        return 50;
    }

    /**
     * {@inheritDoc}
     * <p>
     * inproc adds {@code FI_SOURCE}: the agent resolves every arrival's source address anyway (directed receive
     * matches on it), so reporting it costs nothing.
     */
    @Override
    public long freeSecondaryCaps()
    {
        return Provider.DEFAULT_FREE_SECONDARY_CAPS | Flags.SOURCE;
    }

    /**
     * {@inheritDoc}
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
            return (InprocDomainTransport.SCHEME + "0:0").getBytes(StandardCharsets.US_ASCII);
        }
        if (null != node && node.startsWith(InprocDomainTransport.SCHEME) &&
            InprocDomainTransport.parse(node.getBytes(StandardCharsets.US_ASCII)) >= 0)
        {
            return node.getBytes(StandardCharsets.US_ASCII);
        }
        return null;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public DomainTransport openDomain(final Info info)
    {
        return InprocDomainTransport.open(INBOUND_CAPACITY);
    }

    /**
     * {@inheritDoc} Inproc domains are all in this JVM: MSG endpoints connect directly.
     */
    @Override
    public boolean inProcessOnly()
    {
        return true;
    }
}
