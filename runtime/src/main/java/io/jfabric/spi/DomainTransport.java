package io.jfabric.spi;

import io.jfabric.Info;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The back-end of one open domain: a <em>frame transport</em> that moves opaque frames between this domain's
 * endpoints and their peers. A provider adds only this and its attributes; the runtime's domain agent does the
 * protocol (what a frame means, which request waits for which answer), matching, flow control, completions and
 * counters.
 * <p>
 * Contract:
 * <ul>
 *     <li>Frames are opaque. A transport never reads a frame's opcode or fields, with one exception: the
 *     8-byte little-endian <em>source key</em> at {@link #SOURCE_KEY_OFFSET}, which the runtime fills with
 *     {@link #localKey} of the sending endpoint; a transport whose peers name each other differently (shm) may
 *     rewrite it on delivery into the key under which the receiver knows the sender.</li>
 *     <li>Lanes: the runtime picks a lane per frame ({@link #LANE_REQUEST}, {@link #LANE_ANSWER},
 *     {@link #LANE_UNRELIABLE}). Frames of one
 *     lane from one sender to one peer domain arrive in order, at most once, or not at all once the peer is
 *     reported down; frames of different lanes are not ordered. A transport reads the answer lane first, so that
 *     answers (completions, rendezvous data, credits) never wait behind requests the runtime cannot take yet.</li>
 *     <li>Failures: a transport that detects a dead peer reports it with
 *     {@link TransportEventHandler#onPeerDown} through {@link #pollEvents}; it never answers in the peer's place.
 *     The runtime keeps its own table of requests awaiting answers and fails them (error completions) itself. A
 *     transport delivers no frame read after it detected an event before the runtime has drained that event
 *     (events are ordered before later frames). An offer to a dead or unknown peer returns a negative errno.</li>
 * </ul>
 * <p>
 * Threading: {@link #offer}, {@link #poll}, {@link #pollEvents}, {@link #peerDomain} and {@link #endpointIndex}
 * are called by the domain agent only (one thread at a time); the address methods and {@link #close()} are
 * control-path calls, thread-safe.
 */
public interface DomainTransport extends AutoCloseable
{
    /** Lane of requests (messages, RMA and atomic requests, rendezvous requests). */
    int LANE_REQUEST = 0;
    /** Lane of answers (acknowledgements, responses, rendezvous data, credits); read before requests. */
    int LANE_ANSWER = 1;
    /**
     * Lane of datagrams ({@code FI_EP_DGRAM} messages): frames a transport may lose (never duplicate; in order per
     * sender and peer domain as far as they arrive). The runtime expects no answer to them. A transport without an
     * unreliable path carries them as {@link #LANE_REQUEST} frames (the default of every transport that compares
     * the lane with {@link #LANE_ANSWER} only).
     */
    int LANE_UNRELIABLE = 2;
    /** Offset in a frame of the 8-byte source key, the only frame field a transport may read or rewrite. */
    int SOURCE_KEY_OFFSET = 8;
    /** Shortest frame the runtime sends: every frame holds at least its source key. */
    int MIN_FRAME_LENGTH = SOURCE_KEY_OFFSET + 8;

    /**
     * The largest frame (header and payload) {@link #offer} accepts.
     *
     * @return bytes.
     */
    int maxFrameLength();

    /**
     * Messages longer than this go by rendezvous (the receiver pulls after matching); shorter ones are eager.
     *
     * @return bytes; 8 KiB by default.
     */
    default int eagerThreshold()
    {
        return 8192;
    }

    /**
     * The address bytes of local endpoint {@code endpointIndex} ({@code fi_getname}).
     *
     * @param endpointIndex the endpoint's index in the domain.
     * @return the address in the provider's format.
     */
    byte[] endpointAddress(int endpointIndex);

    /**
     * The peer key of local endpoint {@code endpointIndex}, as a peer sees it in frames.
     *
     * @param endpointIndex the endpoint's index in the domain.
     * @return a non-negative key.
     */
    long localKey(int endpointIndex);

    /**
     * Resolve an address (as produced by {@link #endpointAddress}) into a peer key.
     *
     * @param address the address bytes.
     * @return a non-negative peer key, or -1 when the address is malformed or not of this provider.
     */
    long resolve(byte[] address);

    /**
     * The address bytes of a peer key (the inverse of {@link #resolve}).
     *
     * @param peerKey a key from {@link #resolve}.
     * @return the address.
     */
    byte[] address(long peerKey);

    /**
     * The endpoint index within the peer's domain that a peer key names.
     *
     * @param peerKey a key from {@link #resolve}.
     * @return the index.
     */
    int endpointIndex(long peerKey);

    /**
     * The peer key of the endpoint {@code offset} places after the one {@code peerKey} names, in the same peer
     * domain: receive context {@code offset} of a peer's scalable endpoint, whose receive contexts take consecutive
     * endpoint indices from the one its name gives ({@code fi_rx_addr}, {@code FI_NAMED_RX_CTX}). Called on the
     * data path by posting threads: compute it, allocate nothing. Optional: the default, -1, means the transport
     * cannot name a peer's receive contexts (the provider then offers no {@code FI_NAMED_RX_CTX}).
     *
     * @param peerKey a key from {@link #resolve}.
     * @param offset  the receive context's index, at least 1.
     * @return the key, or -1 when it cannot be named (index past what a key holds).
     */
    default long contextKey(final long peerKey, final int offset)
    {
        return -1;
    }

    /**
     * The printable form of an address of this provider ({@code fi_av_straddr}). Control path, any thread.
     *
     * @param address the address bytes (not null).
     * @return the text, or null for the default (the bytes as US-ASCII text, for providers whose names are text).
     */
    default String straddr(final byte[] address)
    {
        return null;
    }

    /**
     * An endpoint opens in this domain ({@code fi_endpoint}): a transport may give each endpoint its own rings or
     * streams here. Called by {@code Domain.endpoint} on the application thread, before the endpoint exists for the
     * agent; its frames may arrive only after this returns. The default does nothing (one inbound path per domain).
     *
     * @param endpointIndex the endpoint's index in the domain.
     * @param info          the endpoint's info ({@code ep_attr.auth_key} included, when the provider accepts
     *                      keys).
     * @throws io.jfabric.FabricException to refuse the endpoint (nothing of it is left open).
     */
    default void openEndpoint(final int endpointIndex, final Info info)
    {
    }

    /**
     * {@code fi_mr_refresh} of one range of a registered region (fi_mr(3): the provider updates its registration of
     * those pages, for example after the application mapped them anew). Called by {@code MemoryRegion.refresh} on
     * the application thread, once per range, after the runtime checked that the region is open and that the range
     * lies within it. Control path, thread-safe.
     *
     * @param key     the region's key.
     * @param address raw address of the range's first byte.
     * @param length  bytes, at least 1.
     * @return 0, a negated errno; the default {@code -ENOSYS}: the provider offers no refresh.
     */
    default int refreshRegion(final long key, final long address, final long length)
    {
        return io.jfabric.Errno.ENOSYS.negated();
    }

    /**
     * An endpoint closed ({@code fi_close}), after the agent let go of it: release what {@link #openEndpoint} made.
     * Called once per successful {@link #openEndpoint}, on the application thread, before {@link #close()}. The
     * default does nothing.
     *
     * @param endpointIndex the endpoint's index in the domain.
     */
    default void closeEndpoint(final int endpointIndex)
    {
    }

    /**
     * A named domain-level extension ({@code fi_open_ops} on the domain, {@code Domain.openOps(name)}). Control
     * path, thread-safe.
     *
     * @param name the extension's name.
     * @return the extension, or null when there is none of that name (the runtime answers {@code ENOSYS}); the
     * default has none.
     */
    default OpsExtension openOps(final String name)
    {
        return null;
    }

    /**
     * A named endpoint-level extension ({@code fi_open_ops} on an endpoint, {@code Endpoint.openOps(name)}). Control
     * path, thread-safe; only for an endpoint between {@link #openEndpoint} and {@link #closeEndpoint}.
     *
     * @param endpointIndex the endpoint's index in the domain.
     * @param name          the extension's name.
     * @return the extension, or null when there is none of that name (ENOSYS); the default has none.
     */
    default OpsExtension openOps(final int endpointIndex, final String name)
    {
        return null;
    }

    /**
     * The peer domain a key belongs to: equal for every endpoint of one peer domain (see
     * {@link TransportEventHandler#onPeerDown}). Called by the domain agent only, off the data path.
     *
     * @param peerKey a key from {@link #resolve}, or a source key from a frame.
     * @return the peer domain's key; the default, the key itself, suits transports whose keys name domains.
     */
    default long peerDomain(final long peerKey)
    {
        return peerKey;
    }

    /**
     * Hand the events detected since the last call (peer down, transport errors) to {@code handler}, oldest first.
     * Called by the domain agent once per duty cycle, before {@link #poll}. Optional: the default reports nothing.
     *
     * @param handler receives each event.
     * @param limit   most events this call.
     * @return number of events delivered.
     */
    default int pollEvents(final TransportEventHandler handler, final int limit)
    {
        return 0;
    }

    /**
     * Send one opaque frame made of a header and a payload to the domain of {@code peerKey}, on {@code lane}.
     *
     * @param peerKey       the destination.
     * @param lane          {@link #LANE_REQUEST}, {@link #LANE_ANSWER} or {@link #LANE_UNRELIABLE}.
     * @param header        the frame header.
     * @param headerOffset  offset of the header.
     * @param headerLength  header bytes.
     * @param payload       the payload (may be null when {@code payloadLength} is 0).
     * @param payloadOffset offset of the payload.
     * @param payloadLength payload bytes.
     * @return 1 when sent, 0 on back-pressure (retry later), or a negative errno ({@code -EHOSTUNREACH} for an
     * unknown peer domain, {@code -EIO} for a dead one).
     */
    int offer(
        long peerKey,
        int lane,
        DirectBuffer header,
        int headerOffset,
        int headerLength,
        DirectBuffer payload,
        int payloadOffset,
        int payloadLength);

    /**
     * Allocate {@code length} bytes from this domain's shared-memory pool: memory a peer domain's agent can read
     * directly, so that a rendezvous send from it moves with one copy (see {@link #directAddress}). Control path,
     * thread-safe. Optional: the default has no pool.
     *
     * @param length bytes, at least 1.
     * @return a buffer over the allocated bytes, or null when this transport has no pool.
     * @throws io.jfabric.FabricException ENOMEM when the pool cannot hold {@code length} more bytes.
     */
    default AtomicBuffer allocateShared(final int length)
    {
        return null;
    }

    /**
     * Return a buffer from {@link #allocateShared} to the pool. Control path, thread-safe.
     *
     * @param buffer the buffer as allocated (same address and capacity).
     * @return true when released, false when this transport has no pool or the buffer is not one of its blocks.
     */
    default boolean freeShared(final DirectBuffer buffer)
    {
        return false;
    }

    /**
     * Can the agent read a peer's memory range {@code [address, address + length)} (an address in the peer's
     * process, as a rendezvous request names it) directly, and where is it mapped here? Asked right before the
     * agent copies, so an answer other than 0 promises the range stays readable for that copy (the peer is alive
     * and the mapping is not past its file's end). Called by the domain agent only.
     *
     * @param peerKey the peer that owns the range.
     * @param address the start in the peer's address space.
     * @param length  bytes, at least 1.
     * @return the local address of the range's first byte, or 0 when it is not directly readable (the default:
     * the agent pulls the data through frames).
     */
    default long directAddress(final long peerKey, final long address, final long length)
    {
        return 0;
    }

    /**
     * The epoch of the peer a key names: a value that changes whenever the peer behind the key dies or is replaced
     * by a new incarnation (shm: a restarted process under the same name keeps its peer keys). The agent's flow
     * control starts a peer's credit over when its epoch changes, so that a dead peer's unconsumed messages block
     * nobody and a restarted one begins with a fresh grant on both sides. Called by the domain agent only, on the
     * data path (keep it a field read). Optional: the default, 0, suits transports whose peers never restart
     * under the same key (inproc).
     *
     * @param peerKey a key from {@link #resolve}, or a source key from a frame.
     * @return the epoch.
     */
    default long peerEpoch(final long peerKey)
    {
        return 0;
    }

    /**
     * The epoch of the peer incarnation that wrote the frame being delivered now: called by the domain agent from
     * within {@link FrameHandler#onFrame}, for that frame's source key. It differs from {@link #peerEpoch} while
     * frames an earlier incarnation wrote are still queued after a newer one was mapped (they must not be charged
     * to the newer one's flow-control account), or when a newer incarnation's frame arrives before the transport
     * mapped it (it must not be charged to the older one's). Values of one key grow with each incarnation, as
     * {@link #peerEpoch} reports them while that incarnation is live. Optional: the default is {@link #peerEpoch}.
     *
     * @param peerKey the source key of the frame being delivered.
     * @return the epoch of the incarnation that wrote it.
     */
    default long sourceEpoch(final long peerKey)
    {
        return peerEpoch(peerKey);
    }

    /**
     * A fault the domain agent caught around its duty cycle that the transport's own guards did not: on HotSpot an
     * access to a mapped file that another process cut surfaces as an asynchronous {@link InternalError}, sometimes
     * after the access that faulted. The transport finds what was damaged and reports it as usual ({@code status},
     * {@link TransportEventHandler#onPeerDown}, {@link TransportEventHandler#onTransportError}). Agent thread. The
     * default does nothing (a transport that maps no files).
     *
     * @param fault what was caught (already counted and logged by the runtime).
     */
    default void onFault(final Throwable fault)
    {
    }

    /**
     * The end of a duty cycle: send what {@link #offer} accepted and kept back (a transport that gathers the small
     * frames of one cycle into one message per peer and lane sends them here). Called by the domain agent once per
     * duty cycle, after its last offer; a frame {@link #offer} accepted must leave here or at a later call (for
     * example when the network is back-pressured), never wait for another offer. Agent thread. Optional: the
     * default, for a transport that sends each frame in {@link #offer}, does nothing.
     *
     * @return work done (messages sent), for the agent's idle strategy.
     */
    default int flush()
    {
        return 0;
    }

    /**
     * Whether this domain can still receive: 0 while it works, a negative errno once it cannot (for example its own
     * inbound ring was damaged). The agent then fails every posted receive, and every receive posted later, with
     * that errno instead of leaving them waiting. Called by the domain agent once per duty cycle: keep it a field
     * read.
     * @return 0, or a negative errno.
     */
    default int status()
    {
        return 0;
    }

    /**
     * Allocate this transport's own counters (see {@link TransportCounters}); called once by the runtime after the
     * domain opened, before its agent runs. Optional: the default registers none.
     *
     * @param counters where to allocate them; the runtime frees them when the domain closes.
     */
    default void registerCounters(final TransportCounters counters)
    {
    }

    /**
     * The domain's operation-level back-end, for a provider with its own wire protocol: the runtime then hands it
     * the decoded send, RMA and atomic commands and its arrivals come back through the {@link OperationContext}
     * instead of frames (see {@link OperationBackend}). Asked once, when the domain's agent is made. The default,
     * null, makes this transport a frame transport under the runtime's generic protocol.
     *
     * @return the back-end, or null for a frame transport.
     */
    default OperationBackend operationBackend()
    {
        return null;
    }

    /**
     * Deliver inbound frames to {@code handler}, at most {@code limit}, answer lane first. Delivers nothing while
     * an event it detected waits for {@link #pollEvents}.
     *
     * @param handler receives each frame; a false return keeps that frame for a later poll (back-pressure).
     * @param limit   most frames this call.
     * @return number of frames consumed.
     */
    int poll(FrameHandler handler, int limit);

    /**
     * Release the back-end; later offers to this domain fail.
     */
    @Override
    void close();

    /**
     * The storage of a named address vector that other processes can open ({@code FI_SHARED_AV}): created (and
     * reserved for {@code capacity} entries) when {@code create}, else an existing one opened for reading. Control
     * path. Optional: the default, null, lets the runtime share the vector among the domains of this JVM only.
     *
     * @param name     the vector's name (letters, digits, '.', '_', '-'; at most 64 characters).
     * @param create   true for the creator, false for a read-only open.
     * @param capacity most entries (the creator's {@code count}).
     * @return the table, or null for the runtime's in-JVM table.
     * @throws io.jfabric.FabricException EEXIST when creating a name in use, ENOENT when opening a name that
     *                                    does not exist, or the transport's errno.
     */
    default SharedAddressTable sharedAddressTable(final String name, final boolean create, final int capacity)
    {
        return null;
    }

    /**
     * {@code fi_setname}: give local endpoint {@code endpointIndex} the source address {@code address} before it is
     * enabled. Control path. Optional: the default accepts the address the endpoint has already and refuses any
     * other with {@code -EOPNOTSUPP} (a transport whose addresses are fixed by its domain).
     *
     * @param endpointIndex the endpoint's index in the domain.
     * @param address       the address asked for.
     * @return 0, or a negative errno.
     */
    default int setEndpointAddress(final int endpointIndex, final byte[] address)
    {
        return java.util.Arrays.equals(address, endpointAddress(endpointIndex)) ? 0 :
            io.jfabric.Errno.EOPNOTSUPP.negated();
    }
}
