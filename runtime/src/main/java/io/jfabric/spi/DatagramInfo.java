package io.jfabric.spi;

import io.jfabric.EndpointType;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MsgOrder;

/**
 * The {@code FI_EP_DGRAM} info a frame-transport provider offers beside its {@code FI_EP_RDM} one: the same domain,
 * fabric and queue attributes, the message capabilities only, and a {@code max_msg_size} that one frame carries
 * (a datagram never goes by rendezvous). The runtime's rules for such endpoints are common to every provider
 * (RUNTIME.md, "Datagram endpoints and multicast"): a send completes once its frame is handed to the transport,
 * spends no credit, waits for no answer from the target and goes on {@link DomainTransport#LANE_UNRELIABLE}; a
 * message larger than {@code max_msg_size} is refused with {@code -EMSGSIZE} at post; {@code FI_DELIVERY_COMPLETE}
 * (and {@code FI_COMMIT_COMPLETE}) is not offered and refused with {@code -EINVAL}.
 * <p>
 * Constants and a pure function only.
 */
public final class DatagramInfo
{
    /** What a datagram endpoint does not have: RMA, atomics and what only they use. */
    public static final long CAPS_REFUSED = Flags.RMA | Flags.ATOMIC | Flags.READ | Flags.WRITE | Flags.REMOTE_READ |
        Flags.REMOTE_WRITE | Flags.RMA_EVENT | Flags.FENCE | Flags.RMA_PMEM;
    /**
     * Bytes the runtime puts in front of a message's payload in its frame: a transport that carries a datagram in
     * a packet of its own subtracts it from the packet size to choose {@code max_msg_size}.
     */
    public static final int FRAME_OVERHEAD = 64;
    /** Transmit op flags a datagram endpoint refuses: completions that need an answer from the target. */
    public static final long OP_FLAGS_REFUSED = Flags.DELIVERY_COMPLETE | Flags.COMMIT_COMPLETE;

    private DatagramInfo()
    {
    }

    /**
     * The datagram info derived from a reliable one.
     *
     * @param reliable   the provider's {@code FI_EP_RDM} info.
     * @param maxMsgSize the largest datagram in bytes (at most what the transport carries in one eager frame).
     * @return the info: type {@code FI_EP_DGRAM}, {@link #CAPS_REFUSED} and {@link #OP_FLAGS_REFUSED} removed,
     * {@code inject_size} at most {@code maxMsgSize}, send-after-send order only, no RMA order sizes.
     */
    public static Info of(final Info reliable, final long maxMsgSize)
    {
        final long order = reliable.txAttr().msgOrder() & MsgOrder.SAS;
        return reliable.toBuilder()
            .caps(reliable.caps() & ~CAPS_REFUSED)
            .txAttr(reliable.txAttr().toBuilder()
                .caps(reliable.txAttr().caps() & ~CAPS_REFUSED)
                .opFlags(reliable.txAttr().opFlags() & ~OP_FLAGS_REFUSED)
                .msgOrder(order)
                .injectSize(Math.min(reliable.txAttr().injectSize(), maxMsgSize))
                .rmaIovLimit(0)
                .build())
            .rxAttr(reliable.rxAttr().toBuilder()
                .caps(reliable.rxAttr().caps() & ~CAPS_REFUSED)
                .msgOrder(reliable.rxAttr().msgOrder() & MsgOrder.SAS)
                .build())
            .epAttr(reliable.epAttr().toBuilder()
                .type(EndpointType.DGRAM)
                .maxMsgSize(maxMsgSize)
                .maxOrderRawSize(0)
                .maxOrderWarSize(0)
                .maxOrderWawSize(0)
                .build())
            .build();
    }
}
