package io.jfabric.agent;

import io.jfabric.matching.MatchingEngine;
import io.jfabric.ring.CompletionRing;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

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

    /** Unexpected slots allocated up front; the arrays double from there (see {@link #allocateSlot()}). */
    private static final int INITIAL_SLOTS = 64;

    final int index;
    final MatchingEngine engine;
    /** Payload memory of unexpected eager messages, allocated lazily. */
    final UnexpectedStore store;
    private final int maxSlots;
    private int[] freeSlots;
    private int freeCount;
    /** Per slot: the stored payload's address (0: none) and length. */
    long[] slotPayload;
    long[] slotPayloadLength;
    /** Per slot: the flow-control account it is charged to (null: none), the account's epoch and the bytes. */
    PeerAccount[] slotAccount;
    long[] slotEpoch;
    long[] slotCharge;
    /** Flow-control accounts by peer key (created on first contact, kept for the endpoint's life). */
    final Long2ObjectHashMap<PeerAccount> accounts = new Long2ObjectHashMap<>();
    PeerAccount lastAccount;
    /**
     * Sends of this endpoint waiting for credit in the agent (written by the agent only, read by posting threads:
     * a post answers {@code -EAGAIN} when it reaches the transmit queue size).
     */
    volatile int deferredSends;
    /**
     * Arrivals held back while this endpoint's receive CQ (or the domain's answer queue) is full, in arrival order
     * (frame copies in a FIFO; see {@code DomainAgent.hold}); created on first use. Agent only.
     */
    PeerAccount held;
    /** In the agent's list of endpoints with held arrivals. */
    boolean holding;
    CompletionRing txCq;
    CompletionRing rxCq;
    boolean txSelective;
    /** An {@code FI_EP_DGRAM} endpoint: its sends spend no credit and go on the unreliable lane, its arrivals are
     * charged to no sender (RUNTIME.md, "Datagram endpoints and multicast"). */
    boolean datagram;
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
    /**
     * Where arrivals at this endpoint are matched, stored and completed: itself, or the state of the shared receive
     * context ({@code fi_srx_context}) it is bound to (control path, before enable).
     */
    EndpointState rx = this;
    /**
     * Per unexpected slot: the index of the endpoint the message arrived at (the one its sender addressed): answers
     * about the slot (CTS, FIN) go out from it. Differs from {@link #index} only on a shared receive context.
     */
    int[] slotArrival;
    /** Per unexpected slot: true when it holds a rendezvous request instead of a payload. */
    boolean[] rendezvous;
    long[] rvSenderKey;
    /** Per unexpected slot: the sender's segments ({@code DomainAgent.MAX_IOV} per slot) and their count. */
    long[] rvSrcAddress;
    long[] rvSrcLength;
    int[] rvSrcCount;
    long[] rvCookie;
    long[] rvFrameFlags;
    long[] rvContext;
    long[] rvFlags;
    long[] rvLength;
    long[] rvBuffer;
    long[] rvTag;
    long[] rvData;
    long[] rvSource;
    long[] rvOverflow;
    long[] rvReceiveHandle;
    boolean[] rvSilent;
    /** Per unexpected slot: the message carried remote CQ data ({@code FI_REMOTE_CQ_DATA}). */
    boolean[] remoteData;
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
    /** {@code FI_SOURCE | FI_SOURCE_ERR}: a message from an address not in the AV completes as EADDRNOTAVAIL. */
    boolean sourceErr;
    /** The provider reports a multi-recv buffer's release as a separate completion (not on the last message). */
    boolean multiRecvSeparate;
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
     * The open endpoint a provider names by index, bounds-checked (an index from a back-end is not trusted).
     *
     * @param endpoints the domain's endpoint table.
     * @param index     the endpoint's index.
     * @return the endpoint, or null when the index is out of range or names no open endpoint.
     */
    static EndpointState at(final AtomicReferenceArray<EndpointState> endpoints, final int index)
    {
        return index >= 0 && index < DomainAgent.MAX_ENDPOINTS ? endpoints.get(index) : null;
    }

    /**
     * Create the state of an endpoint.
     *
     * @param index             the endpoint's index in its domain.
     * @param rxSize            posted-receive capacity.
     * @param unexpectedEntries most unexpected messages stored (from all peers; the store grows up to it).
     * @param slotSize          the eager threshold: the largest payload an unexpected message stores.
     * @param maxMessageSize    the largest message.
     */
    public EndpointState(
        final int index, final int rxSize, final int unexpectedEntries, final int slotSize, final long maxMessageSize)
    {
        this.index = index;
        this.engine = new MatchingEngine(MatchingSettings.context(rxSize, unexpectedEntries));
        this.store = new UnexpectedStore(Math.max(8, slotSize), FlowControl.unexpectedBytes());
        // Slots also carry matched rendezvous receives until their data is in (at most rxSize of them).
        this.maxSlots = (int) Math.min(Integer.MAX_VALUE / DomainAgent.MAX_IOV, (long) unexpectedEntries + rxSize + 1);
        final int slots = Math.min(INITIAL_SLOTS, maxSlots);
        this.freeSlots = new int[slots];
        for (int i = 0; i < slots; i++)
        {
            freeSlots[i] = slots - 1 - i;
        }
        this.freeCount = slots;
        this.silentReceives = new Long2LongHashMap(Math.max(16, rxSize * 2), 0.5f, 0);
        // Posted receives and rendezvous pulls in progress (both bounded by rxSize); grows only past that.
        this.receivePins = new Long2LongHashMap(Math.max(16, rxSize * 4), 0.5f, -1);
        this.slotPayload = new long[slots];
        this.slotPayloadLength = new long[slots];
        this.slotAccount = new PeerAccount[slots];
        this.slotEpoch = new long[slots];
        this.slotCharge = new long[slots];
        this.rendezvous = new boolean[slots];
        this.slotArrival = new int[slots];
        this.rvSenderKey = new long[slots];
        this.rvSrcAddress = new long[slots * DomainAgent.MAX_IOV];
        this.rvSrcLength = new long[slots * DomainAgent.MAX_IOV];
        this.rvSrcCount = new int[slots];
        this.rvCookie = new long[slots];
        this.rvFrameFlags = new long[slots];
        this.rvContext = new long[slots];
        this.rvFlags = new long[slots];
        this.rvLength = new long[slots];
        this.rvBuffer = new long[slots];
        this.rvTag = new long[slots];
        this.rvData = new long[slots];
        this.rvSource = new long[slots];
        this.rvOverflow = new long[slots];
        this.rvReceiveHandle = new long[slots];
        this.rvSilent = new boolean[slots];
        this.remoteData = new boolean[slots];
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
     * Bind a shared receive context (control path, before enable): messages arriving at this endpoint are matched
     * against the context's posted receives, stored in its unexpected store and completed into its queue; answers
     * still go out from this endpoint, and flow-control credit is still this endpoint's.
     *
     * @param shared the shared receive context's state.
     * @return this.
     */
    public EndpointState sharedRx(final EndpointState shared)
    {
        this.rx = null == shared ? this : shared;
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
     * {@code FI_SOURCE_ERR} with {@code FI_SOURCE} (control path, before enable): a received message whose source
     * is not in the bound AV completes as an error, {@code EADDRNOTAVAIL}, with the source's address as err_data.
     *
     * @param enabled true for the endpoint's caps holding both.
     * @return this.
     */
    public EndpointState sourceErr(final boolean enabled)
    {
        this.sourceErr = enabled;
        return this;
    }

    /**
     * An {@code FI_EP_DGRAM} endpoint (control path, before enable): its sends spend no credit, wait for no answer
     * and go on {@code DomainTransport.LANE_UNRELIABLE}; a message arriving with no posted receive is kept within
     * the unexpected store's bounds, charged to no sender, else dropped and counted.
     *
     * @param enabled true for a datagram endpoint.
     * @return this.
     */
    public EndpointState datagram(final boolean enabled)
    {
        this.datagram = enabled;
        return this;
    }

    /**
     * How a multi-recv buffer's release is reported (control path, before enable): with true, the message
     * completions never carry {@code FI_MULTI_RECV} and a separate entry (the buffer's context, flags
     * {@code FI_MULTI_RECV}, length 0, buffer 0) follows the last one; with false the last message carries it.
     *
     * @param separate the provider's choice.
     * @return this.
     */
    public EndpointState multiRecvSeparate(final boolean separate)
    {
        this.multiRecvSeparate = separate;
        return this;
    }

    /**
     * @return true when a multi-recv release is reported as a separate entry.
     */
    public boolean multiRecvSeparate()
    {
        return multiRecvSeparate;
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

    /**
     * Take a slot (metadata only; payload memory comes from {@link #store}). The slot arrays double when all are
     * in use, up to the endpoint's bound (agent thread; memory kept for later floods).
     *
     * @return the slot, or -1 at the bound.
     */
    int allocateSlot()
    {
        if (0 == freeCount && !growSlots())
        {
            return -1;
        }
        return freeSlots[--freeCount];
    }

    private boolean growSlots()
    {
        final int old = rendezvous.length;
        if (old >= maxSlots)
        {
            return false;
        }
        final int n = (int) Math.min(maxSlots, 2L * old);
        slotPayload = Arrays.copyOf(slotPayload, n);
        slotPayloadLength = Arrays.copyOf(slotPayloadLength, n);
        slotAccount = Arrays.copyOf(slotAccount, n);
        slotEpoch = Arrays.copyOf(slotEpoch, n);
        slotCharge = Arrays.copyOf(slotCharge, n);
        rendezvous = Arrays.copyOf(rendezvous, n);
        slotArrival = Arrays.copyOf(slotArrival, n);
        rvSenderKey = Arrays.copyOf(rvSenderKey, n);
        rvSrcAddress = Arrays.copyOf(rvSrcAddress, n * DomainAgent.MAX_IOV);
        rvSrcLength = Arrays.copyOf(rvSrcLength, n * DomainAgent.MAX_IOV);
        rvSrcCount = Arrays.copyOf(rvSrcCount, n);
        rvCookie = Arrays.copyOf(rvCookie, n);
        rvFrameFlags = Arrays.copyOf(rvFrameFlags, n);
        rvContext = Arrays.copyOf(rvContext, n);
        rvFlags = Arrays.copyOf(rvFlags, n);
        rvLength = Arrays.copyOf(rvLength, n);
        rvBuffer = Arrays.copyOf(rvBuffer, n);
        rvTag = Arrays.copyOf(rvTag, n);
        rvData = Arrays.copyOf(rvData, n);
        rvSource = Arrays.copyOf(rvSource, n);
        rvOverflow = Arrays.copyOf(rvOverflow, n);
        rvReceiveHandle = Arrays.copyOf(rvReceiveHandle, n);
        rvSilent = Arrays.copyOf(rvSilent, n);
        remoteData = Arrays.copyOf(remoteData, n);
        freeSlots = Arrays.copyOf(freeSlots, n);
        for (int i = n - 1; i >= old; i--)
        {
            freeSlots[freeCount++] = i;
        }
        return true;
    }

    /**
     * Release a slot and its payload block; the charge goes back to its account when the account is still in the
     * epoch it was charged in.
     *
     * @param slot the slot.
     * @return the account that got a message back (the agent decides on a credit frame), or null.
     */
    PeerAccount freeSlot(final int slot)
    {
        rendezvous[slot] = false;
        final long payload = slotPayload[slot];
        if (0 != payload)
        {
            store.free(payload, slotPayloadLength[slot]);
            slotPayload[slot] = 0;
        }
        final PeerAccount account = slotAccount[slot];
        slotAccount[slot] = null;
        freeSlots[freeCount++] = slot;
        if (null != account && account.inEpoch == slotEpoch[slot])
        {
            account.consumed++;
            account.consumedBytes += slotCharge[slot];
            return account;
        }
        return null;
    }

    long slotAddress(final int slot)
    {
        return slotPayload[slot];
    }

    /**
     * Give a slot payload memory for {@code length} bytes (call {@link UnexpectedStore#canAllocate} first).
     *
     * @return the address, or 0 when the store is full.
     */
    long storePayload(final int slot, final long length)
    {
        final long address = store.allocate(length);
        slotPayload[slot] = address;
        slotPayloadLength[slot] = length;
        return address;
    }

    /**
     * @return sends of this endpoint waiting for credit (any thread; a volatile read).
     */
    public int deferredSends()
    {
        return deferredSends;
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

    /**
     * Release an operation's pinned buffers (agent thread).
     *
     * @param pin the operation's {@link PinTable} slot, or {@link PinTable#NONE}.
     */
    void releasePin(final int pin)
    {
        if (pin >= 0 && null != pins)
        {
            pins.release(pin);
        }
    }

    /**
     * The context an answer's cookie stands for, releasing the operation's pinned buffers (issue 10): call once the
     * answer is taken, after any copy into the operation's buffers (agent thread).
     *
     * @param cookie the cookie the answer echoes.
     * @return the operation's context.
     */
    long finishPinned(final long cookie)
    {
        return null == pins ? cookie : pins.finish(cookie);
    }
}
