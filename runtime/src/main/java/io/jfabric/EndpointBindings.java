package io.jfabric;

import io.jfabric.agent.CounterCell;
import io.jfabric.agent.EndpointState;
import io.jfabric.agent.PinTable;
import io.jfabric.ring.CompletionRing;

/**
 * What an endpoint is bound to ({@code fi_ep_bind}): completion queues per direction (with selective completion),
 * counters per event kind, an address vector and an event queue. Binding checks the flags and the domain, counts
 * the binding on the bound object (which refuses to close while bound), and close undoes it.
 * <p>
 * Threading: guarded by the owning endpoint's monitor (its bind, enable and close are synchronized); enable hands
 * what is bound to the agent's {@link EndpointState} before the endpoint's volatile enabled flag is set.
 */
final class EndpointBindings
{
    private static final long CQ_BIND_FLAGS = Flags.TRANSMIT | Flags.RECV | Flags.SELECTIVE_COMPLETION;
    private static final long CNTR_BIND_FLAGS = Flags.SEND | Flags.RECV | Flags.READ | Flags.WRITE |
        Flags.REMOTE_READ | Flags.REMOTE_WRITE;

    private final Domain domain;
    private CompletionQueue txCq;
    private CompletionQueue rxCq;
    private boolean txSelective;
    private boolean rxSelective;
    private Counter sendCounter;
    private Counter recvCounter;
    private Counter readCounter;
    private Counter writeCounter;
    private Counter remoteReadCounter;
    private Counter remoteWriteCounter;
    private AddressVector av;
    private EventQueue eq;

    EndpointBindings(final Domain domain)
    {
        this.domain = domain;
    }

    /**
     * Bind a completion queue ({@code fi_ep_bind} with a CQ).
     *
     * @param cq    the queue.
     * @param flags TRANSMIT and/or RECV, optionally SELECTIVE_COMPLETION.
     * @throws FabricException EBADFLAGS for other flags or neither direction; EINVAL for another domain's queue or
     *                         a direction already bound.
     */
    void bind(final CompletionQueue cq, final long flags)
    {
        if ((flags & ~CQ_BIND_FLAGS) != 0 || (flags & (Flags.TRANSMIT | Flags.RECV)) == 0)
        {
            throw new FabricException(Errno.EBADFLAGS, "cq bind flags 0x" + Long.toHexString(flags));
        }
        if (cq.domain() != domain)
        {
            throw new FabricException(Errno.EINVAL, "completion queue belongs to another domain");
        }
        final boolean tx = (flags & Flags.TRANSMIT) != 0;
        final boolean rx = (flags & Flags.RECV) != 0;
        if ((tx && null != txCq) || (rx && null != rxCq))
        {
            throw new FabricException(Errno.EINVAL, "a completion queue is already bound for that direction");
        }
        if (tx)
        {
            txCq = cq;
            txSelective = (flags & Flags.SELECTIVE_COMPLETION) != 0;
            cq.bound(1);
        }
        if (rx)
        {
            rxCq = cq;
            rxSelective = (flags & Flags.SELECTIVE_COMPLETION) != 0;
            cq.bound(1);
        }
    }

    /**
     * Bind a counter to the event kinds in {@code flags}.
     *
     * @param counter the counter.
     * @param flags   a non-empty subset of SEND, RECV, READ, WRITE, REMOTE_READ, REMOTE_WRITE.
     * @throws FabricException EBADFLAGS for other flags; EINVAL for another domain's counter.
     */
    void bind(final Counter counter, final long flags)
    {
        if ((flags & ~CNTR_BIND_FLAGS) != 0 || 0 == flags)
        {
            throw new FabricException(Errno.EBADFLAGS, "counter bind flags 0x" + Long.toHexString(flags));
        }
        if (counter.domain() != domain)
        {
            throw new FabricException(Errno.EINVAL, "counter belongs to another domain");
        }
        sendCounter = (flags & Flags.SEND) != 0 ? counted(counter) : sendCounter;
        recvCounter = (flags & Flags.RECV) != 0 ? counted(counter) : recvCounter;
        readCounter = (flags & Flags.READ) != 0 ? counted(counter) : readCounter;
        writeCounter = (flags & Flags.WRITE) != 0 ? counted(counter) : writeCounter;
        remoteReadCounter = (flags & Flags.REMOTE_READ) != 0 ? counted(counter) : remoteReadCounter;
        remoteWriteCounter = (flags & Flags.REMOTE_WRITE) != 0 ? counted(counter) : remoteWriteCounter;
    }

    /**
     * A scalable endpoint's context at enable: take the scalable endpoint's AV, and its CQ and counters of the
     * context's direction, for what the context has not bound itself. Each taken object counts one more binding.
     *
     * @param from the scalable endpoint's bindings.
     * @param tx   a transmit context (transmit CQ; send, read and write counters).
     * @param rx   a receive context (receive CQ; recv, remote read and remote write counters).
     */
    void inherit(final EndpointBindings from, final boolean tx, final boolean rx)
    {
        if (null == av && null != from.av)
        {
            av = from.av;
            av.bound(1);
        }
        if (tx && null == txCq && null != from.txCq)
        {
            txCq = from.txCq;
            txSelective = from.txSelective;
            txCq.bound(1);
        }
        if (rx && null == rxCq && null != from.rxCq)
        {
            rxCq = from.rxCq;
            rxSelective = from.rxSelective;
            rxCq.bound(1);
        }
        if (tx)
        {
            sendCounter = inherited(sendCounter, from.sendCounter);
            readCounter = inherited(readCounter, from.readCounter);
            writeCounter = inherited(writeCounter, from.writeCounter);
        }
        if (rx)
        {
            recvCounter = inherited(recvCounter, from.recvCounter);
            remoteReadCounter = inherited(remoteReadCounter, from.remoteReadCounter);
            remoteWriteCounter = inherited(remoteWriteCounter, from.remoteWriteCounter);
        }
    }

    private static Counter inherited(final Counter own, final Counter from)
    {
        return null != own || null == from ? own : counted(from);
    }

    /**
     * @param flag {@link Flags#SEND}, {@link Flags#READ} or {@link Flags#WRITE}.
     * @return the counter bound for that kind of transmit, or null.
     */
    Counter transmitCounter(final long flag)
    {
        return Flags.SEND == flag ? sendCounter : Flags.READ == flag ? readCounter :
            Flags.WRITE == flag ? writeCounter : null;
    }

    private static Counter counted(final Counter counter)
    {
        counter.bound(1);
        return counter;
    }

    /**
     * Bind the address vector.
     *
     * @param addressVector the AV.
     * @param flags         0.
     * @throws FabricException EBADFLAGS for non-zero flags; EINVAL for another domain's AV or one already bound.
     */
    void bind(final AddressVector addressVector, final long flags)
    {
        if (0 != flags)
        {
            throw new FabricException(Errno.EBADFLAGS, "av bind flags 0x" + Long.toHexString(flags));
        }
        if (addressVector.domain() != domain || null != av)
        {
            throw new FabricException(Errno.EINVAL, "address vector of another domain, or one already bound");
        }
        av = addressVector;
        addressVector.bound(1);
    }

    /**
     * Bind the event queue.
     *
     * @param eventQueue the EQ.
     * @param flags      0.
     * @throws FabricException EBADFLAGS for non-zero flags.
     */
    void bind(final EventQueue eventQueue, final long flags)
    {
        if (0 != flags)
        {
            throw new FabricException(Errno.EBADFLAGS, "eq bind flags 0x" + Long.toHexString(flags));
        }
        eq = eventQueue;
    }

    /**
     * @return the bound address vector, or null.
     */
    AddressVector av()
    {
        return av;
    }

    /**
     * @return the bound event queue, or null (none after close).
     */
    EventQueue eq()
    {
        return eq;
    }

    /**
     * Open the endpoint's reservations over the bound queues.
     *
     * @param reservations the endpoint's reservations.
     * @param txSize       the tx attribute's size.
     * @param rxSize       the endpoint's receive queue size.
     * @return what {@link Reservations#open} returns.
     */
    PinTable open(final Reservations reservations, final long txSize, final int rxSize)
    {
        return reservations.open(ring(txCq), txSelective, ring(rxCq), rxSelective, Reservations.pinCapacity(
            null == txCq ? 0L : txCq.size(), null == rxCq ? 0L : rxCq.size(), txSize, rxSize));
    }

    /**
     * Hand the bound queues, counters and AV to the agent's state of the endpoint.
     *
     * @param state the state being built by enable.
     * @return {@code state}.
     */
    EndpointState describe(final EndpointState state)
    {
        return state
            .txCq(ring(txCq), txSelective)
            .rxCq(ring(rxCq), rxSelective)
            .sendCounter(cell(sendCounter))
            .recvCounter(cell(recvCounter))
            .rmaCounters(cell(readCounter), cell(writeCounter), cell(remoteReadCounter), cell(remoteWriteCounter))
            .avId(null == av ? -1 : av.id());
    }

    /**
     * @return the receive queue's ring, or null.
     */
    CompletionRing rxRing()
    {
        return ring(rxCq);
    }

    private static CompletionRing ring(final CompletionQueue cq)
    {
        return null == cq ? null : cq.ring();
    }

    private static CounterCell cell(final Counter counter)
    {
        return null == counter ? null : counter.cell();
    }

    /**
     * Undo every binding (close): each bound object counts one binding less; the event queue is let go.
     */
    void unbindAll()
    {
        if (null != txCq)
        {
            txCq.bound(-1);
        }
        if (null != rxCq)
        {
            rxCq.bound(-1);
        }
        final Counter[] counters =
            {sendCounter, recvCounter, readCounter, writeCounter, remoteReadCounter, remoteWriteCounter};
        for (final Counter c : counters)
        {
            if (null != c)
            {
                c.bound(-1);
            }
        }
        if (null != av)
        {
            av.bound(-1);
        }
        eq = null;
    }
}
