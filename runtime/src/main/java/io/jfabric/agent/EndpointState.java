package io.jfabric.agent;

import io.jfabric.matching.MatchingContext;
import io.jfabric.matching.MatchingEngine;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * What the domain agent knows about one endpoint: its matching engine, the completion queues and counters it is
 * bound to, its address vector id and its unexpected-message storage.
 * <p>
 * Threading: the bindings are written on the control path before the endpoint is enabled and published through
 * the domain's endpoint table (a volatile array store); after that the state is read and mutated by the domain
 * agent only.
 */
public final class EndpointState
{
    /** Most receives with several buffers posted at once per endpoint (more wait in the receive ring). */
    static final int RX_IOV_ENTRIES = 256;

    final int index;
    final MatchingEngine engine;
    final UnsafeBuffer slab;
    final int slotSize;
    final int[] freeSlots;
    int freeCount;
    CompletionRing txCq;
    CompletionRing rxCq;
    boolean txSelective;
    boolean rxSelective;
    /** Receives posted without FI_COMPLETION under rx selective completion: handle to 1 (single) or 2 (multi). */
    final Long2LongHashMap silentReceives;
    boolean immediateSilent;
    CounterCell sendCounter;
    CounterCell recvCounter;
    CounterCell readCounter;
    CounterCell writeCounter;
    CounterCell remoteReadCounter;
    CounterCell remoteWriteCounter;
    int avId = -1;
    /** Operations sent and still waiting for the target's answer (RMA, atomics, delivery-complete sends). */
    long outstanding;
    /** Per unexpected slot: true when it holds a rendezvous request instead of a payload. */
    final boolean[] rendezvous;
    final long[] rvSenderKey;
    /** Per unexpected slot: the sender's segments ({@code DomainAgent.MAX_IOV} per slot) and their count. */
    final long[] rvSrcAddress;
    final long[] rvSrcLength;
    final int[] rvSrcCount;
    final long[] rvCookie;
    final long[] rvFrameFlags;
    final long[] rvContext;
    final long[] rvFlags;
    final long[] rvLength;
    final long[] rvBuffer;
    final long[] rvTag;
    final long[] rvData;
    final long[] rvSource;
    final long[] rvOverflow;
    final long[] rvReceiveHandle;
    final boolean[] rvSilent;
    /** Per unexpected slot: the message carried remote CQ data ({@code FI_REMOTE_CQ_DATA}). */
    final boolean[] remoteData;
    /**
     * Posted receives with several buffers ({@code recvv}, {@code trecvv}, {@code recvmsg} with an iov): the
     * matching engine holds {@link #IOV_HANDLE}{@code | entry} as the buffer address and the total as its length;
     * the segments live here ({@code DomainAgent.MAX_IOV} per entry) until the receive completes or is cancelled.
     */
    final long[] rxIovAddress;
    final long[] rxIovLength;
    final int[] rxIovCount;
    private final int[] rxIovFree;
    private int rxIovFreeCount;

    /** The endpoint's pinned buffers (issue 10): the agent releases an operation's slots when it completes. */
    PinTable pins;
    /**
     * Pin slots of posted receives, by receive handle (a rendezvous matched at post time: by {@code RV_PIN_KEY |
     * unexpected slot}); {@link #MULTI_RECV_PIN} marks a multi-recv buffer, released with its last completion.
     */
    final Long2LongHashMap receivePins;
    /** Key of a rendezvous pull's pin in {@link #receivePins} when its receive had no handle. */
    static final long RV_PIN_KEY = Long.MIN_VALUE;
    /** Bit of a {@link #receivePins} value: the receive is a multi-recv buffer. */
    static final long MULTI_RECV_PIN = 1L << 32;
    /** Bit of a multi-recv {@link #receivePins} value: its last message was matched (the buffer is released). */
    static final long MULTI_RECV_DONE = 1L << 33;
    /** One rendezvous pull still copying into a multi-recv buffer, counted from bit 40 of a pin value. */
    static final long MULTI_RECV_PULL = 1L << 40;

    /** Marks a matching-engine buffer address as an rx iov entry (a raw address is never negative). */
    static final long IOV_HANDLE = Long.MIN_VALUE;

    /**
     * Create the state of an endpoint.
     *
     * @param index             the endpoint's index in its domain.
     * @param rxSize            posted-receive capacity.
     * @param unexpectedEntries unexpected-message capacity.
     * @param slotSize          the eager threshold: one unexpected slot holds an eager payload.
     * @param maxMessageSize    the largest message (bounds the unexpected bytes with the entry count).
     */
    public EndpointState(
        final int index, final int rxSize, final int unexpectedEntries, final int slotSize, final long maxMessageSize)
    {
        this.index = index;
        this.engine = new MatchingEngine(new MatchingContext()
            .rxSize(rxSize)
            .unexpectedEntries(unexpectedEntries)
            .unexpectedBytes(unexpectedEntries * Math.max(slotSize, maxMessageSize)));
        this.slotSize = Math.max(8, slotSize);
        this.slab = new UnsafeBuffer(ByteBuffer.allocateDirect(unexpectedEntries * slotSize));
        this.freeSlots = new int[unexpectedEntries];
        for (int i = 0; i < unexpectedEntries; i++)
        {
            freeSlots[i] = unexpectedEntries - 1 - i;
        }
        this.freeCount = unexpectedEntries;
        this.silentReceives = new Long2LongHashMap(Math.max(16, rxSize * 2), 0.5f, 0);
        this.receivePins = new Long2LongHashMap(Math.max(16, (rxSize + unexpectedEntries) * 2), 0.5f, -1);
        this.rendezvous = new boolean[unexpectedEntries];
        this.rvSenderKey = new long[unexpectedEntries];
        this.rvSrcAddress = new long[unexpectedEntries * DomainAgent.MAX_IOV];
        this.rvSrcLength = new long[unexpectedEntries * DomainAgent.MAX_IOV];
        this.rvSrcCount = new int[unexpectedEntries];
        this.rvCookie = new long[unexpectedEntries];
        this.rvFrameFlags = new long[unexpectedEntries];
        this.rvContext = new long[unexpectedEntries];
        this.rvFlags = new long[unexpectedEntries];
        this.rvLength = new long[unexpectedEntries];
        this.rvBuffer = new long[unexpectedEntries];
        this.rvTag = new long[unexpectedEntries];
        this.rvData = new long[unexpectedEntries];
        this.rvSource = new long[unexpectedEntries];
        this.rvOverflow = new long[unexpectedEntries];
        this.rvReceiveHandle = new long[unexpectedEntries];
        this.rvSilent = new boolean[unexpectedEntries];
        this.remoteData = new boolean[unexpectedEntries];
        final int iovEntries = Math.max(1, Math.min(rxSize, RX_IOV_ENTRIES));
        this.rxIovAddress = new long[iovEntries * DomainAgent.MAX_IOV];
        this.rxIovLength = new long[iovEntries * DomainAgent.MAX_IOV];
        this.rxIovCount = new int[iovEntries];
        this.rxIovFree = new int[iovEntries];
        for (int i = 0; i < iovEntries; i++)
        {
            rxIovFree[i] = iovEntries - 1 - i;
        }
        this.rxIovFreeCount = iovEntries;
    }

    /**
     * @return the endpoint's index in its domain.
     */
    public int index()
    {
        return index;
    }

    /**
     * Bind the transmit completion queue (control path, before enable).
     *
     * @param cq        the queue storage.
     * @param selective true with {@code FI_SELECTIVE_COMPLETION}.
     * @return this.
     */
    public EndpointState txCq(final CompletionRing cq, final boolean selective)
    {
        this.txCq = cq;
        this.txSelective = selective;
        return this;
    }

    /**
     * Bind the receive completion queue (control path, before enable).
     *
     * @param cq        the queue storage.
     * @param selective true with {@code FI_SELECTIVE_COMPLETION}: only receives posted with {@code FI_COMPLETION}
     *                  produce successful completions.
     * @return this.
     */
    public EndpointState rxCq(final CompletionRing cq, final boolean selective)
    {
        this.rxCq = cq;
        this.rxSelective = selective;
        return this;
    }

    /**
     * Bind the send counter (control path).
     *
     * @param counter the counter.
     * @return this.
     */
    public EndpointState sendCounter(final CounterCell counter)
    {
        this.sendCounter = counter;
        return this;
    }

    /**
     * Bind the receive counter (control path).
     *
     * @param counter the counter.
     * @return this.
     */
    public EndpointState recvCounter(final CounterCell counter)
    {
        this.recvCounter = counter;
        return this;
    }

    /**
     * Bind the RMA counters (control path); each may be null.
     *
     * @param read        counts completed reads.
     * @param write       counts completed writes.
     * @param remoteRead  counts reads of this endpoint's memory by peers.
     * @param remoteWrite counts writes into this endpoint's memory by peers.
     * @return this.
     */
    public EndpointState rmaCounters(
        final CounterCell read, final CounterCell write, final CounterCell remoteRead, final CounterCell remoteWrite)
    {
        this.readCounter = read;
        this.writeCounter = write;
        this.remoteReadCounter = remoteRead;
        this.remoteWriteCounter = remoteWrite;
        return this;
    }

    /**
     * The endpoint's pin table (control path, before enable).
     *
     * @param table the table the endpoint pins its operations' buffers in.
     * @return this.
     */
    public EndpointState pins(final PinTable table)
    {
        this.pins = table;
        return this;
    }

    /**
     * Bind the address vector (control path).
     *
     * @param avId the AV's id in the domain.
     * @return this.
     */
    public EndpointState avId(final int avId)
    {
        this.avId = avId;
        return this;
    }

    int allocateSlot()
    {
        return freeCount == 0 ? -1 : freeSlots[--freeCount];
    }

    void freeSlot(final int slot)
    {
        rendezvous[slot] = false;
        freeSlots[freeCount++] = slot;
    }

    long slotAddress(final int slot)
    {
        return slab.addressOffset() + (long) slot * slotSize;
    }

    /**
     * @return a free rx iov entry, or -1 when all are in use.
     */
    int allocateRxIov()
    {
        return rxIovFreeCount == 0 ? -1 : rxIovFree[--rxIovFreeCount];
    }

    /**
     * Release the rx iov entry a buffer address names; a raw address is left alone.
     *
     * @param address a matching-engine buffer address.
     */
    void releaseRxIov(final long address)
    {
        if (address < 0)
        {
            rxIovFree[rxIovFreeCount++] = (int) (address & ~IOV_HANDLE);
        }
    }

    /**
     * The address to report in a completion's {@code buf} for a matching-engine buffer address: itself, or the
     * first segment of an rx iov entry.
     *
     * @param address a matching-engine buffer address.
     * @return a raw address.
     */
    long bufferOf(final long address)
    {
        return address < 0 ? rxIovAddress[(int) (address & ~IOV_HANDLE) * DomainAgent.MAX_IOV] : address;
    }
}
