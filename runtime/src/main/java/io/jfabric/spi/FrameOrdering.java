package io.jfabric.spi;

import io.jfabric.MsgOrder;

/**
 * The orderings the runtime's generic protocol gives every frame transport (one that delivers a peer's frames in
 * the order it offered them, as inproc, shm and aeron do), for a provider to advertise in {@code tx_attr.msg_order},
 * {@code rx_attr.msg_order} and {@code ep_attr.max_order_*_size}.
 * <p>
 * Why these and no more: the target's agent executes an RMA write or an atomic that travels in one frame when the
 * frame arrives, and answers a read by copying the memory when the answer leaves, later; requests to a peer leave in
 * posting order (one waiting for flow control is a barrier to later ones). So a read, or a later write, issued
 * after a one-frame write sees it: read-after-write and write-after-write hold up to {@link #MAX_ORDER_SIZE} bytes
 * for the earlier write (every transport carries a write of that size, from one buffer, an iov or to several
 * ranges, in one frame; a larger write is streamed after a CTS and may land after later requests). Write-after-read
 * does not hold: a later write in the same batch of frames lands before the read's answer is copied, so
 * {@code max_order_war_size} is 0 and {@code FI_ORDER_WAR} is not offered. Send-after-send is the message order.
 * <p>
 * Constants only.
 */
public final class FrameOrdering
{
    /** The {@code msg_order} bits: {@code FI_ORDER_SAS} and the read/write-after-write orders of RMA and atomics. */
    public static final long MSG_ORDER = MsgOrder.SAS | MsgOrder.RAW | MsgOrder.WAW | MsgOrder.RMA_RAW |
        MsgOrder.RMA_WAW | MsgOrder.ATOMIC_RAW | MsgOrder.ATOMIC_WAW;
    /** {@code max_order_raw_size} and {@code max_order_waw_size}: bytes of the earlier write. */
    public static final long MAX_ORDER_SIZE = 4096;
    /** {@code max_order_war_size}: none. */
    public static final long MAX_ORDER_WAR_SIZE = 0;

    private FrameOrdering()
    {
    }
}
