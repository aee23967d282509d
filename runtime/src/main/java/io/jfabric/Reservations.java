package io.jfabric;

import io.jfabric.agent.DomainAgent;
import io.jfabric.agent.PinTable;
import io.jfabric.ring.CompletionRing;
import org.agrona.DirectBuffer;

import java.nio.ByteBuffer;

/**
 * One endpoint's resources that a post takes before its command is written and gives back when the command
 * cannot be written: a slot in the bound completion queue (each post that will complete reserves one, so the agent
 * never finds the queue full) and pins in the endpoint's {@link PinTable} (the buffers stay reachable until the
 * agent releases them at completion, and the transmit's slot names it in the target's answer).
 * <p>
 * Threading: {@link #open} runs once, in {@code Endpoint.enable()}, before the endpoint's volatile enabled flag is
 * set; every other call comes from a posting thread after it read that flag, so it sees what {@link #open} wrote.
 * The rings and the pin table are safe for many producers. Allocation-free after {@link #open}.
 */
final class Reservations
{
    /** A pin helper's answer: the pin table is full (the post answers {@code -EAGAIN}). */
    static final int PIN_FULL = -2;

    private CompletionRing txRing;
    private CompletionRing rxRing;
    private boolean txSelective;
    private boolean rxSelective;
    private PinTable pins;
    /** A shared transmit context's queue (its pin table), or null: the endpoint's own table. */
    private PinTable shared;

    /**
     * Take the bound queues and create the pin table (enable).
     *
     * @param txRing      the transmit CQ's ring, or null.
     * @param txSelective transmit selective completion.
     * @param rxRing      the receive CQ's ring, or null.
     * @param rxSelective receive selective completion.
     * @param capacity    pin table slots.
     * @return the pin table (the agent releases its slots).
     */
    PinTable open(
        final CompletionRing txRing,
        final boolean txSelective,
        final CompletionRing rxRing,
        final boolean rxSelective,
        final int capacity)
    {
        this.txRing = txRing;
        this.txSelective = txSelective;
        this.rxRing = rxRing;
        this.rxSelective = rxSelective;
        this.pins = null != shared ? shared : new PinTable(capacity);
        return pins;
    }

    /**
     * Post into a shared transmit context's queue instead of a table of the endpoint's own (bind, before
     * {@link #open}): each transmit takes one of its entries until it completes.
     *
     * @param queue the context's table, or null for the endpoint's own.
     */
    void shareTransmitQueue(final PinTable queue)
    {
        this.shared = queue;
    }

    /**
     * Pin-table slots: enough for every completion the bound queues can hold (each post reserves one), at least
     * the tx and rx sizes; more operations in flight at once (silent ones) answer {@code -EAGAIN}.
     *
     * @param txCqSize the transmit CQ's size, 0 when none.
     * @param rxCqSize the receive CQ's size, 0 when none.
     * @param txSize   the tx attribute's size.
     * @param rxSize   the endpoint's receive queue size.
     * @return the capacity.
     */
    static int pinCapacity(final long txCqSize, final long rxCqSize, final long txSize, final int rxSize)
    {
        final long queues = txCqSize + rxCqSize;
        final long sizes = Math.max(1, txSize) + (long) rxSize;
        return (int) Math.min(1 << 17, Math.max(256, Math.max(queues, sizes)) + DomainAgent.MAX_IOV);
    }

    /**
     * {@code fi_tx_size_left}'s share of these resources: the transmit CQ's unreserved slots (when every post
     * takes one: a queue is bound without selective completion) and the pin table's free slots (each transmit
     * takes at least one until it completes). A scan of the pin table: control path.
     *
     * @param bound the other bound (the queue size).
     * @return the smaller of {@code bound} and the room.
     */
    long txRoom(final long bound)
    {
        return Math.min(room(txRing, txSelective, bound), (long) pins.capacity() - pins.pinned());
    }

    /**
     * {@code fi_rx_size_left}'s share: the receive CQ's unreserved slots (unless selective) and the pin table's
     * free slots (a receive into a {@code ByteBuffer} takes one).
     *
     * @param bound the other bound (the queue size).
     * @return the smaller of {@code bound} and the room.
     */
    long rxRoom(final long bound)
    {
        return Math.min(room(rxRing, rxSelective, bound), (long) pins.capacity() - pins.pinned());
    }

    private static long room(final CompletionRing ring, final boolean selective, final long bound)
    {
        return null == ring || selective ? bound : Math.min(bound, ring.size() - ring.reserved());
    }

    /**
     * Reserve a transmit completion, unless the post completes silently (INJECT, or selective without
     * COMPLETION) or no queue is bound.
     *
     * @param flags the post's flags.
     * @return false when the queue is full.
     */
    boolean reserveTx(final long flags)
    {
        final CompletionRing ring = txRing;
        if (null == ring || (flags & Flags.INJECT) != 0 || (txSelective && (flags & Flags.COMPLETION) == 0))
        {
            return true;
        }
        return ring.reserve();
    }

    /**
     * Give back what {@link #reserveTx} took for the same flags.
     *
     * @param flags the post's flags.
     */
    void releaseTx(final long flags)
    {
        final CompletionRing ring = txRing;
        if (null != ring && (flags & Flags.INJECT) == 0 && (!txSelective || (flags & Flags.COMPLETION) != 0))
        {
            ring.release(1);
        }
    }

    /**
     * The ring a receive with these flags completes into: none under rx selective completion without
     * FI_COMPLETION (no successful completion), else the bound receive queue (may be null).
     *
     * @param flags the receive's flags.
     * @return the ring, or null.
     */
    CompletionRing receiveRing(final long flags)
    {
        return rxSelective && (flags & Flags.COMPLETION) == 0 ? null : rxRing;
    }

    /**
     * @return the bound receive queue's ring, or null (a tagged search's answer goes there).
     */
    CompletionRing rxRing()
    {
        return rxRing;
    }

    /**
     * Pin a receive buffer's holder (none for raw memory).
     *
     * @param holder the holder ({@link PostChecks#holder}), or null.
     * @return the slot, {@link PinTable#NONE} without a holder, or a negative value when the table is full.
     */
    int pinReceive(final Object holder)
    {
        return null == holder ? PinTable.NONE : pins.pin(holder, PinTable.NONE);
    }

    /**
     * Pin the holders of the first {@code count} buffers (those that have one), chained before {@code link}.
     *
     * @param iov   the buffers.
     * @param count how many.
     * @param link  the chain to put them before.
     * @return the first slot, {@code link} when none has a holder, or {@link #PIN_FULL} (nothing pinned, the
     * chain given released).
     */
    int pinIov(final DirectBuffer[] iov, final int count, final int link)
    {
        int first = link;
        for (int k = count - 1; k >= 0; k--)
        {
            final ByteBuffer holder = null == iov || null == iov[k] ? null : iov[k].byteBuffer();
            if (null != holder)
            {
                final int slot = pins.pin(holder, first);
                if (slot < 0)
                {
                    pins.release(first);
                    return PIN_FULL;
                }
                first = slot;
            }
        }
        return first;
    }

    /**
     * Pin up to two holders (either may be null) of one operation, chained.
     *
     * @param first  the first holder.
     * @param second the second holder.
     * @return the first slot, {@link PinTable#NONE} when neither has a holder, or {@link #PIN_FULL}.
     */
    int pinChain(final Object first, final Object second)
    {
        int chain = PinTable.NONE;
        if (null != second)
        {
            chain = pins.pin(second, chain);
            if (chain < 0)
            {
                return PIN_FULL;
            }
        }
        if (null != first)
        {
            final int slot = pins.pin(first, chain);
            if (slot < 0)
            {
                pins.release(chain);
                return PIN_FULL;
            }
            chain = slot;
        }
        return chain;
    }

    /**
     * Pin a transmit: {@code holder} (may be null) chained before {@code chain} (slots from {@link #pinIov}, or
     * {@link PinTable#NONE}); a transmit always gets a slot, since a target's answer names the operation by it.
     *
     * @param holder  the holder, or null.
     * @param chain   slots pinned before, {@link PinTable#NONE} or {@link #PIN_FULL}.
     * @param context the operation's context.
     * @return the first slot holding {@code context}, or {@link #PIN_FULL} (nothing left pinned).
     */
    int pinTransmit(final Object holder, final int chain, final long context)
    {
        if (PIN_FULL == chain)
        {
            return PIN_FULL;
        }
        final PinTable pins = this.pins;
        final int slot = null == holder && chain >= 0 ? chain :
            pins.pin(null == holder ? PinTable.NO_HOLDER : holder, chain);
        if (slot < 0)
        {
            pins.release(chain);
            return PIN_FULL;
        }
        pins.context(slot, context);
        return slot;
    }

    /**
     * Release a chain of slots (a post whose command could not be written).
     *
     * @param pin the first slot (none for a negative value).
     */
    void release(final int pin)
    {
        pins.release(pin);
    }

    /**
     * Release every slot: the endpoint is closed and its operations are dropped (no-op before {@link #open}).
     */
    void releaseAll()
    {
        // A shared transmit context's queue holds other endpoints' operations: it is released when it closes.
        if (null != pins && pins != shared)
        {
            pins.releaseAll();
        }
    }
}
