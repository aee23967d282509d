package io.jfabric.provider.aeron;

import io.aeron.Aeron;
import io.aeron.ControlledFragmentAssembler;
import io.aeron.ExclusivePublication;
import io.aeron.Image;
import io.aeron.Publication;
import io.aeron.ReservedValueSupplier;
import io.aeron.Subscription;
import io.aeron.exceptions.AeronException;
import io.aeron.logbuffer.ControlledFragmentHandler;
import io.aeron.logbuffer.FrameDescriptor;
import io.aeron.logbuffer.Header;
import io.aeron.protocol.DataHeaderFlyweight;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.FrameHandler;
import io.jfabric.spi.TransportCounters;
import io.jfabric.spi.TransportEventHandler;
import org.agrona.BitUtil;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The aeron back-end of one domain: one UDP channel ({@code host:port}) with two subscriptions, the domain's stream
 * for requests and the next stream for answers (polled first, so answers never wait behind requests), and per peer
 * domain two {@link ExclusivePublication}s to the peer's streams, created at the first send without blocking the
 * agent (until they are connected, offers answer back-pressure). Frames are opaque Aeron messages; the transport
 * touches only the source key. Aeron does reliability, ordering, flow control and liveness: a frame either arrives
 * once, in order per lane, or the peer is reported down.
 * <p>
 * Peer keys are {@code entry << 16 | endpoint}, the entry being this domain's index for a peer domain (host, port,
 * stream; 0 = itself). A publication's first message is a <em>hello</em> (Aeron reserved value {@link #HELLO})
 * naming the sender's domain address, incarnation and lane, so that the receiver maps the publication's session to
 * its entry for the sender and rewrites each frame's source key into that entry's key. Frames from a session no
 * hello named are dropped and counted.
 * <p>
 * Liveness: a peer whose offers answer {@code NOT_CONNECTED} (Aeron found no receiver for its publication
 * connection timeout) for longer than the liveness timeout, whose publications never connect within it after the
 * first send ({@code EHOSTUNREACH}), whose inbound image went away, or whose hello names a new incarnation, is
 * reported down ({@link TransportEventHandler#onPeerDown}); later offers to it fail at once until its publications
 * connect again after a disconnection or it says hello as a new incarnation, and {@link #peerEpoch} changes each
 * time. A down peer's sessions stay mapped (what the same incarnation sent is still delivered); an inbound image
 * that Aeron made again after a gap (frames lost with the old image) counts as a fall and a return of the peer.
 * <p>
 * Threading: {@link #offer}, {@link #poll}, {@link #pollEvents}, {@link #peerEpoch} run on the domain agent only;
 * the address methods are control path, thread-safe (a monitor guards the name table); {@link #close()} after the
 * agent stopped.
 */
final class AeronDomainTransport implements DomainTransport
{
    /** Bits of the endpoint index in a peer key. */
    static final int ENDPOINT_BITS = 16;
    /** Mask of the endpoint index in a peer key. */
    static final long ENDPOINT_MASK = (1L << ENDPOINT_BITS) - 1;
    /** Aeron reserved value of a hello message; data frames carry 0. */
    static final long HELLO = 0x6A66_6865_6C6C_6F21L;
    private static final int HELLO_INCARNATION_OFFSET = 0;
    private static final int HELLO_LANE_OFFSET = 8;
    /**
     * Set beside the lane in a hello said after a fall of the peer it goes to (a return): the peer, LIVE, takes it
     * as that fall and return even when it never heard this lane's hello before ({@link #returned}).
     */
    private static final int HELLO_RETURNING = 2;
    private static final int HELLO_ADDRESS_OFFSET = 12;
    private static final long RESOLVE_TIMEOUT_MS = 10_000;
    private static final int REASSEMBLY_CAPACITY = 64 * 1024;
    /** {@link #poll} reads the clock once in this many polls (a power of two). */
    private static final int CLOCK_POLLS = 16;
    /** How often the registry is read for a new incarnation of a DOWN peer on this driver, milliseconds. */
    private static final long IPC_LOOKUP_INTERVAL_MS = 250;

    private final AeronFabricBackend fabric;
    private final Aeron aeron;
    private final AeronAddress local;
    private final String publicationParams;
    private final int maxFrameLength;
    private final long livenessTimeoutMs;
    private final long connectWaitMs;
    private final long incarnation;
    private final Subscription requests;
    private final Subscription answers;
    /** Datagrams ({@link #LANE_UNRELIABLE}): stream + 2, {@code reliable=false} (a lost packet is skipped). */
    private final Subscription datagrams;
    private final String datagramParams;
    /** The IPC side (processes sharing this driver), or null when off. */
    private final Subscription ipcRequests;
    private final Subscription ipcAnswers;
    private final AeronIpcRegistry registry;
    private final int termLength;
    private final Map<String, AeronPeer> byKey = new HashMap<>();
    private volatile AeronPeer[] peers;
    private int peerCount;
    private volatile boolean closed;
    private volatile byte[] socketName;

    // Agent thread only from here on.
    private final Int2IntHashMap sessionEntry = new Int2IntHashMap(-1);
    /** Sessions of the IPC subscriptions (their ids are this driver's, apart from the UDP ones). */
    private final Int2IntHashMap ipcSessionEntry = new Int2IntHashMap(-1);
    private final ControlledFragmentHandler fragmentHandler =
        (buffer, offset, length, header) -> onFragment(buffer, offset, length, header, false);
    private final ControlledFragmentHandler ipcFragmentHandler =
        (buffer, offset, length, header) -> onFragment(buffer, offset, length, header, true);
    // Reassembly into direct memory: the runtime copies payloads by address, which a heap buffer has not.
    private final ControlledFragmentAssembler requestAssembler =
        new ControlledFragmentAssembler(fragmentHandler, REASSEMBLY_CAPACITY, true);
    private final ControlledFragmentAssembler answerAssembler =
        new ControlledFragmentAssembler(fragmentHandler, REASSEMBLY_CAPACITY, true);
    private final ControlledFragmentAssembler datagramAssembler =
        new ControlledFragmentAssembler(fragmentHandler, REASSEMBLY_CAPACITY, true);
    private final ControlledFragmentAssembler ipcRequestAssembler =
        new ControlledFragmentAssembler(ipcFragmentHandler, REASSEMBLY_CAPACITY, true);
    private final ControlledFragmentAssembler ipcAnswerAssembler =
        new ControlledFragmentAssembler(ipcFragmentHandler, REASSEMBLY_CAPACITY, true);
    private final ReservedValueSupplier helloValue = (termBuffer, termOffset, frameLength) -> HELLO;
    /** Small frames of one duty cycle to one peer and lane go as one Aeron message (bench/README.md). */
    private final AeronFrameBatcher batcher = new AeronFrameBatcher(AeronConfiguration.datagramMtu(), this::refused);
    private final AeronFrameBatcher.FrameSink batchSink = this::onBatchFrame;
    private final UnsafeBuffer empty = new UnsafeBuffer(new byte[0]);
    private final UnsafeBuffer hello;
    private final int helloLength;
    private FrameHandler current;
    private int delivered;
    private long nextScanMs;
    /** Polls so far; {@link #poll} reads the clock once in {@link #CLOCK_POLLS}. */
    private long polls;
    private long[] eventPeer = new long[16];
    private int[] eventErrno = new int[16];
    private int eventCount;
    private AtomicCounter backPressure = TransportCounters.NONE.newCounter("aeron back-pressure retries");
    private AtomicCounter peersDown = TransportCounters.NONE.newCounter("aeron peers down");
    private AtomicCounter dropped = TransportCounters.NONE.newCounter("aeron frames dropped");
    private AtomicCounter ipcPeers = TransportCounters.NONE.newCounter("aeron ipc peers");

    private AeronDomainTransport(
        final AeronFabricBackend fabric,
        final AeronAddress local,
        final Subscription requests,
        final Subscription answers,
        final Subscription datagrams,
        final AeronIpcListener ipc,
        final int termLength)
    {
        this.fabric = fabric;
        this.aeron = fabric.aeron();
        this.local = local;
        this.requests = requests;
        this.answers = answers;
        this.datagrams = datagrams;
        this.ipcRequests = null == ipc ? null : ipc.requests();
        this.ipcAnswers = null == ipc ? null : ipc.answers();
        this.termLength = termLength;
        this.publicationParams = "|term-length=" + termLength;
        this.datagramParams = publicationParams + "|mtu=" + AeronConfiguration.datagramMtu();
        this.maxFrameLength = FrameDescriptor.computeMaxMessageLength(termLength);
        this.livenessTimeoutMs = fabric.livenessTimeoutMs();
        this.connectWaitMs = AeronConfiguration.connectWaitMs();
        long id = 0;
        while (0 == id)
        {
            id = ThreadLocalRandom.current().nextLong();
        }
        this.incarnation = id;
        final byte[] address = local.textBytes();
        this.helloLength = HELLO_ADDRESS_OFFSET + address.length;
        this.hello = new UnsafeBuffer(new byte[helloLength]);
        hello.putLong(HELLO_INCARNATION_OFFSET, incarnation, ByteOrder.LITTLE_ENDIAN);
        hello.putBytes(HELLO_ADDRESS_OFFSET, address);
        this.registry = null == ipc ? null : ipc.register(fabric, local, incarnation);
        final AeronPeer self = new AeronPeer(0, local);
        self.ipc = null == registry ? null : registry.lookup(local);
        // No publications to itself until the first send to itself (startPublications): most domains never send to
        // themselves, and two idle publications (IPC, or UDP with ipc=false) and their images cost every duty cycle
        // of the media driver (its conductor tracks each one's position) and of the agent (an image per poll).
        byKey.put(local.domainKey(), self);
        peers = new AeronPeer[]{self, null, null, null, null, null, null, null};
        peerCount = 1;
    }

    /**
     * Open a domain listening on {@code requested} (port 0: a free port; the host resolved first).
     *
     * @param fabric    the fabric's backend.
     * @param requested the address to listen on (endpoint ignored).
     * @return the transport.
     * @throws FabricException EINVAL for an unresolvable host or a bad setting, EADDRINUSE when a domain of this
     *                         fabric listens on that stream already, EIO when Aeron refuses the channel.
     */
    static AeronDomainTransport open(final AeronFabricBackend fabric, final AeronAddress requested)
    {
        final int termLength = AeronConfiguration.termLength();
        final AeronAddress resolved = requested.resolved();
        if (null == resolved)
        {
            throw new FabricException(Errno.EINVAL, "aeron: host '" + requested.host() + "' does not resolve");
        }
        if (0 != resolved.port() && !fabric.claim(resolved.withEndpoint(0).domainKey()))
        {
            throw new FabricException(Errno.EADDRINUSE, "aeron: a domain of this fabric listens on " +
                resolved.withEndpoint(0).text() + " already");
        }
        final Aeron aeron = fabric.aeron();
        Subscription requests = null;
        Subscription answers = null;
        Subscription datagrams = null;
        AeronIpcListener ipc = null;
        AeronAddress local = resolved.withEndpoint(0);
        try
        {
            // The channel tag lets the answers' subscription share the socket the driver bound for the requests'
            // (a second subscription naming a port the driver chose would try to bind it again).
            final long tag = aeron.nextCorrelationId();
            requests = AeronListenRetry.subscribe(fabric, local.channel() + "|tags=" + tag, local.stream(), local);
            if (0 == local.port())
            {
                final int port = awaitPort(requests);
                local = new AeronAddress(local.host(), port, local.stream(), 0);
                fabric.claim(local.domainKey());
            }
            answers = aeron.addSubscription("aeron:udp?tags=" + tag, local.stream() + 1);
            datagrams = aeron.addSubscription("aeron:udp?tags=" + tag + "|reliable=false", local.stream() + 2);
            ipc = AeronConfiguration.ipc() ? AeronIpcListener.open(aeron) : null;
            return new AeronDomainTransport(fabric, local, requests, answers, datagrams, ipc, termLength);
        }
        catch (final AeronException | IllegalStateException | IllegalArgumentException ex)
        {
            CloseHelper.quietCloseAll(ipc, datagrams, answers, requests);
            fabric.release(local.domainKey());
            final boolean inUse = ex instanceof AeronException && AeronListenRetry.addressInUse((AeronException) ex);
            throw new FabricException(inUse ? Errno.EADDRINUSE : Errno.EIO,
                "aeron: cannot listen on " + local.text() + ": " + ex.getMessage());
        }
    }

    private static int awaitPort(final Subscription subscription)
    {
        final long deadline = System.currentTimeMillis() + RESOLVE_TIMEOUT_MS;
        while (true)
        {
            final String endpoint = subscription.resolvedEndpoint();
            if (null != endpoint)
            {
                return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
            }
            if (System.currentTimeMillis() > deadline)
            {
                throw new IllegalStateException("the driver did not bind " + subscription.channel() + " in time");
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /**
     * @return the address this domain listens on (endpoint 0).
     */
    AeronAddress local()
    {
        return local;
    }

    /**
     * @return the incarnation this domain's hellos name.
     */
    long incarnation()
    {
        return incarnation;
    }

    @Override
    public int maxFrameLength()
    {
        return maxFrameLength;
    }

    /**
     * Name endpoint 0 of the default stream by its socket address (a domain opened from an {@code FI_SOCKADDR_IN}
     * or {@code IN6} info); other endpoints and streams keep the text form, which a sockaddr cannot carry.
     *
     * @param socket true for socket names.
     */
    void socketNames(final boolean socket)
    {
        socketName = socket ? AeronSocketNames.socketName(local) : null;
    }

    @Override
    public byte[] endpointAddress(final int endpointIndex)
    {
        return 0 == endpointIndex && null != socketName ? socketName.clone() :
            local.withEndpoint(endpointIndex).textBytes();
    }

    @Override
    public long localKey(final int endpointIndex)
    {
        return endpointIndex & ENDPOINT_MASK;
    }

    @Override
    public int endpointIndex(final long peerKey)
    {
        return (int) (peerKey & ENDPOINT_MASK);
    }

    @Override
    public long contextKey(final long peerKey, final int offset)
    {
        // Keys are peer entry << ENDPOINT_BITS | endpointIndex: the next endpoints of one peer are the next keys.
        return peerKey < 0 || offset < 0 || (peerKey & ENDPOINT_MASK) + offset > ENDPOINT_MASK ? -1 : peerKey + offset;
    }

    @Override
    public long peerDomain(final long peerKey)
    {
        return peerKey >>> ENDPOINT_BITS;
    }

    @Override
    public long peerEpoch(final long peerKey)
    {
        final AeronPeer[] ps = peers;
        final int entry = (int) (peerKey >>> ENDPOINT_BITS);
        return peerKey < 0 || entry >= ps.length || null == ps[entry] ? 0 : ps[entry].epoch;
    }

    @Override
    public byte[] address(final long peerKey)
    {
        final AeronPeer[] ps = peers;
        final int entry = (int) (peerKey >>> ENDPOINT_BITS);
        if (peerKey < 0 || entry >= ps.length || null == ps[entry])
        {
            throw new FabricException(Errno.EINVAL, "aeron: no peer with key " + peerKey);
        }
        return ps[entry].address.withEndpoint((int) (peerKey & ENDPOINT_MASK)).textBytes();
    }

    /**
     * Resolve an address (text or socket address) into a peer key; the host is looked up here, on the control path.
     * Nothing is sent: the publications to the peer are made at the first send.
     *
     * @param address the address.
     * @return the key, or -1 when the bytes are not an aeron address, its host does not resolve or its port is 0.
     */
    @Override
    public long resolve(final byte[] address)
    {
        final AeronAddress parsed = AeronAddress.parse(address);
        if (null == parsed || closed || 0 == parsed.port())
        {
            return -1;
        }
        final AeronAddress resolved = parsed.resolved();
        if (null == resolved)
        {
            return -1;
        }
        final AeronPeer peer = entryOf(resolved.withEndpoint(0));
        awaitConnected(peer);
        return key(peer.index, resolved.endpoint());
    }

    /**
     * Give a peer's publications a moment ({@link AeronConfiguration#CONNECT_WAIT_PROP}) to connect, so that the
     * first send to a live peer goes at once (a MANUAL-progress application may call progress once and then wait
     * on the peer). Control path; only reads what the client holds (the peer's fields are the agent's). A peer that
     * does not answer in time is not an error: its first send waits for it, up to the liveness timeout.
     */
    private void awaitConnected(final AeronPeer peer)
    {
        final long requestRegistration = peer.requestRegistration;
        final long answerRegistration = peer.answerRegistration;
        if (requestRegistration < 0 || answerRegistration < 0)
        {
            return;
        }
        final long deadline = System.currentTimeMillis() + connectWaitMs;
        try
        {
            while (true)
            {
                final ExclusivePublication request = aeron.getExclusivePublication(requestRegistration);
                final ExclusivePublication answer = aeron.getExclusivePublication(answerRegistration);
                if ((null != request && null != answer && request.isConnected() && answer.isConnected()) ||
                    System.currentTimeMillis() > deadline)
                {
                    return;
                }
                Thread.yield();
            }
        }
        catch (final AeronException ex)
        {
            // the driver refused the channel: the first send reports it
        }
    }

    /**
     * The entry of a peer domain, made when new (any thread).
     */
    private synchronized AeronPeer entryOf(final AeronAddress domain)
    {
        AeronPeer peer = byKey.get(domain.domainKey());
        if (null == peer)
        {
            peer = new AeronPeer(peerCount, domain);
            peer.ipc = null == registry ? null : registry.lookup(domain);
            if (null != peer.ipc)
            {
                ipcPeers.incrementRelease();
            }
            requestPublications(peer);
            AeronPeer[] ps = peers;
            ps = peer.index >= ps.length ? Arrays.copyOf(ps, ps.length * 2) : ps.clone();
            ps[peer.index] = peer;
            byKey.put(domain.domainKey(), peer);
            peerCount++;
            // A volatile store of the table publishes the entry's final fields to the agent.
            peers = ps;
        }
        return peer;
    }

    /**
     * Ask the driver for a new peer's publications as soon as the peer is known (an address vector insert, a hello):
     * they connect in the background, so that the first send (often an answer sent in the same duty cycle that
     * completed a receive, with manual progress) finds them ready. Nothing waits here; a failure leaves the peer to
     * be retried at its first send.
     */
    private void requestPublications(final AeronPeer peer)
    {
        final String channel = null != peer.ipc ? AeronIpcRegistry.CHANNEL + "?term-length=" + termLength :
            peer.address.channel() + publicationParams;
        final int stream = null != peer.ipc ? peer.ipc.stream() : peer.address.stream();
        try
        {
            peer.requestRegistration = aeron.asyncAddExclusivePublication(channel, stream);
            peer.answerRegistration = aeron.asyncAddExclusivePublication(channel, stream + 1);
        }
        catch (final AeronException ex)
        {
            peer.requestRegistration = -1;
            peer.answerRegistration = -1;
        }
    }

    private static long key(final int entry, final int endpoint)
    {
        return ((long) entry << ENDPOINT_BITS) | endpoint;
    }

    /**
     * {@inheritDoc} aeron counts offers answered back-pressure, admin action or not connected yet
     * ({@code aeron back-pressure retries}), peers reported down ({@code aeron peers down}) and inbound frames
     * dropped because no hello named their session ({@code aeron frames dropped}).
     */
    @Override
    public void registerCounters(final TransportCounters counters)
    {
        backPressure = counters.newCounter("aeron back-pressure retries");
        peersDown = counters.newCounter("aeron peers down");
        dropped = counters.newCounter("aeron frames dropped");
        ipcPeers = counters.newCounter("aeron ipc peers");
        if (null != peers[0].ipc)
        {
            ipcPeers.incrementRelease();
        }
    }

    @Override
    public int offer(
        final long peerKey,
        final int lane,
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        final AeronPeer[] ps = peers;
        final int entry = (int) (peerKey >>> ENDPOINT_BITS);
        if (peerKey < 0 || entry >= ps.length || null == ps[entry] || closed)
        {
            return Errno.EHOSTUNREACH.negated();
        }
        if (headerLength + payloadLength > maxFrameLength)
        {
            return Errno.EMSGSIZE.negated();
        }
        final AeronPeer peer = ps[entry];
        if (AeronPeer.LIVE != peer.state)
        {
            final int status = connect(peer, System.currentTimeMillis());
            if (status <= 0)
            {
                if (0 == status)
                {
                    backPressure.incrementRelease();
                }
                return status;
            }
        }
        final ExclusivePublication publication = LANE_ANSWER == lane ? peer.answers :
            (LANE_UNRELIABLE == lane ? datagramPublication(peer) : peer.requests);
        if (null == publication)
        {
            // The datagram publication is being made (first datagram to this peer): as back-pressure.
            backPressure.incrementRelease();
            return 0;
        }
        if (LANE_UNRELIABLE != lane)
        {
            final long batched = batcher.offer(peer, lane, publication, header, headerOffset, headerLength, payload,
                payloadOffset, payloadLength);
            if (AeronFrameBatcher.ACCEPTED == batched)
            {
                return 1;
            }
            if (AeronFrameBatcher.DIRECT != batched)
            {
                return refused(peer, batched);
            }
        }
        final long result = publication.offer(header, headerOffset, headerLength,
            0 == payloadLength ? empty : payload, payloadOffset, payloadLength, null);
        if (result > 0)
        {
            peer.notConnectedSinceMs = 0;
            return 1;
        }
        return refused(peer, result);
    }

    /**
     * {@inheritDoc} aeron sends the batches of small frames this duty cycle gathered ({@link AeronFrameBatcher}).
     */
    @Override
    public int flush()
    {
        return closed ? 0 : batcher.flush();
    }

    /**
     * The publication of datagrams to a LIVE peer, asked of the driver at the first datagram (null until it is
     * there). Its session id is the request publication's, so that the peer maps its frames to this domain through
     * the hello of the (reliable) request lane: a datagram lane has no hello of its own that could be lost.
     */
    private ExclusivePublication datagramPublication(final AeronPeer peer)
    {
        if (null != peer.datagrams)
        {
            return peer.datagrams;
        }
        try
        {
            if (peer.datagramRegistration < 0)
            {
                peer.datagramRegistration = aeron.asyncAddExclusivePublication(peer.address.channel() +
                    datagramParams + "|session-id=" + peer.requests.sessionId(), peer.address.stream() + 2);
            }
            peer.datagrams = aeron.getExclusivePublication(peer.datagramRegistration);
        }
        catch (final AeronException ex)
        {
            peer.datagramRegistration = -1;
            down(peer, Errno.EHOSTUNREACH.value());
        }
        return peer.datagrams;
    }

    private int refused(final AeronPeer peer, final long result)
    {
        if (Publication.BACK_PRESSURED == result || Publication.ADMIN_ACTION == result)
        {
            backPressure.incrementRelease();
            return 0;
        }
        if (Publication.NOT_CONNECTED == result)
        {
            final long now = System.currentTimeMillis();
            if (0 == peer.notConnectedSinceMs)
            {
                peer.notConnectedSinceMs = now;
            }
            else if (now - peer.notConnectedSinceMs > livenessTimeoutMs)
            {
                down(peer, Errno.EIO.value());
                return Errno.EIO.negated();
            }
            backPressure.incrementRelease();
            return 0;
        }
        // CLOSED or MAX_POSITION_EXCEEDED: this publication can never send again.
        down(peer, Errno.EIO.value());
        return Errno.EIO.negated();
    }

    /**
     * Move a peer that is not LIVE along: ask for its publications, wait for them and their connection, say hello.
     *
     * @return 1 when LIVE now, 0 while connecting, or a negative errno when it is down.
     */
    private int connect(final AeronPeer peer, final long now)
    {
        switch (peer.state)
        {
            case AeronPeer.NEW:
                startPublications(peer, now);
                return AeronPeer.CONNECTING == peer.state ? progress(peer, now) : -peer.downErrno;
            case AeronPeer.CONNECTING:
                // Coming back after a fall: fail fast until LIVE (and the new epoch), so that no frame is queued
                // across the epoch change (one that was hung the peer's flow control for good).
                final int status = progress(peer, now);
                return 0 == status && 0 != peer.downErrno ? -peer.downErrno : status;
            case AeronPeer.DOWN:
                return -peer.downErrno;
            default:
                return 1;
        }
    }

    private void startPublications(final AeronPeer peer, final long now)
    {
        if (peer.requestRegistration < 0 || peer.answerRegistration < 0)
        {
            requestPublications(peer);
            if (peer.requestRegistration < 0)
            {
                down(peer, Errno.EHOSTUNREACH.value());
                return;
            }
        }
        peer.state = AeronPeer.CONNECTING;
        peer.connectingSinceMs = now;
        peer.hellosSent = 0;
    }

    private int progress(final AeronPeer peer, final long now)
    {
        try
        {
            if (null == peer.requests)
            {
                peer.requests = aeron.getExclusivePublication(peer.requestRegistration);
            }
            if (null == peer.answers)
            {
                peer.answers = aeron.getExclusivePublication(peer.answerRegistration);
            }
        }
        catch (final AeronException ex)
        {
            // The driver refused the channel (an address it cannot send to).
            down(peer, Errno.EHOSTUNREACH.value());
            return Errno.EHOSTUNREACH.negated();
        }
        if (null != peer.requests && null != peer.answers &&
            peer.requests.isConnected() && peer.answers.isConnected() && (0 != peer.hellosSent || roomForHellos(peer)))
        {
            final int returning = 0 != peer.downErrno ? HELLO_RETURNING : 0;
            if (0 == (peer.hellosSent & 1) && sayHello(peer.requests, LANE_REQUEST | returning))
            {
                peer.hellosSent |= 1;
            }
            if (0 == (peer.hellosSent & 2) && sayHello(peer.answers, LANE_ANSWER | returning))
            {
                peer.hellosSent |= 2;
            }
            if (3 == peer.hellosSent)
            {
                peer.state = AeronPeer.LIVE;
                peer.notConnectedSinceMs = 0;
                if (0 != peer.downErrno)
                {
                    // Back after a fall: a new epoch (the first connection keeps epoch 0, credits already flow).
                    peer.epoch++;
                    restoreInbound(peer);
                }
                return 1;
            }
        }
        if (now - peer.connectingSinceMs > livenessTimeoutMs)
        {
            final boolean connected = connected(peer);
            down(peer, connected ? Errno.EIO.value() : Errno.EHOSTUNREACH.value());
            peer.helloTimedOut = connected;
            return -peer.downErrno;
        }
        return 0;
    }

    /**
     * Both hellos of a connection go in one call, or neither: the peer mirrors a return at the first one it hears
     * and starts its account over, while ours starts over when both were offered (LIVE); frames it sent in between
     * would be charged to our old account and their credit never come back. A publication just connected again
     * can refuse an offer until the driver moved its limit, so wait until both have room.
     */
    private boolean roomForHellos(final AeronPeer peer)
    {
        final long needed =
            BitUtil.align(helloLength + DataHeaderFlyweight.HEADER_LENGTH, FrameDescriptor.FRAME_ALIGNMENT);
        return peer.requests.availableWindow() >= needed && peer.answers.availableWindow() >= needed;
    }

    /**
     * Take a DOWN peer's publications from the client when they were asked for but never taken (it fell before its
     * first send); a refused channel leaves them null.
     */
    private void fetchPublications(final AeronPeer peer)
    {
        if (peer.requestRegistration < 0 || peer.answerRegistration < 0)
        {
            return;
        }
        try
        {
            if (null == peer.requests)
            {
                peer.requests = aeron.getExclusivePublication(peer.requestRegistration);
            }
            if (null == peer.answers)
            {
                peer.answers = aeron.getExclusivePublication(peer.answerRegistration);
            }
        }
        catch (final AeronException ex)
        {
            // The driver refused the channel: the peer stays down.
        }
    }

    /**
     * @param laneField the lane, with {@link #HELLO_RETURNING} after a fall of the peer.
     */
    private boolean sayHello(final ExclusivePublication publication, final int laneField)
    {
        hello.putInt(HELLO_LANE_OFFSET, laneField, ByteOrder.LITTLE_ENDIAN);
        return publication.offer(hello, 0, helloLength, helloValue) > 0;
    }

    /**
     * Report a peer down (once per fall): the runtime fails what it awaits from it. Its inbound sessions stay
     * mapped: what the same incarnation sent is still delivered, in order, while it is down (a peer wrongly found
     * down, its process alive, completed those sends; dropping them lost them without an error). Only a new
     * incarnation's hello, or its new IPC streams, forget the old sessions ({@link #forgetInbound}).
     */
    private void down(final AeronPeer peer, final int errno)
    {
        if (AeronPeer.DOWN == peer.state)
        {
            return;
        }
        peer.state = AeronPeer.DOWN;
        peer.downErrno = errno;
        peer.epoch++;
        peer.sawDisconnect = !connected(peer);
        peer.sawInboundLoss = !inboundPresent(peer);
        report(key(peer.index, 0), errno);
        peersDown.incrementRelease();
    }

    private static boolean connected(final AeronPeer peer)
    {
        return null != peer.requests && null != peer.answers && peer.requests.isConnected() &&
            peer.answers.isConnected();
    }

    /**
     * @return true when the peer has inbound sessions and the image of each is there.
     */
    private boolean inboundPresent(final AeronPeer peer)
    {
        return 0 != peer.hasInbound &&
            (0 == (peer.hasInbound & 1) || null != inboundImage(peer, 0)) &&
            (0 == (peer.hasInbound & 2) || null != inboundImage(peer, 1));
    }

    private void forgetInbound(final AeronPeer peer)
    {
        for (int lane = 0; lane < 2; lane++)
        {
            // Also a lane no longer watched (its image was missing at the last return) but still listened to.
            final Int2IntHashMap sessions = sessions(peer, lane);
            if (sessions.get(peer.inboundSession[lane]) == peer.index)
            {
                sessions.remove(peer.inboundSession[lane]);
            }
        }
        // The sessions are remembered (hasInbound stays) for the liveness scan; the new incarnation's hellos map
        // its own sessions.
    }

    /**
     * A peer is LIVE again after a fall: make sure the sessions its last hellos named are listened to (the same
     * process; they stayed mapped while it was down, see {@link #down}). A session whose image is not there now is
     * still listened to, since its image may be on its way back (Aeron makes it again, same session, when the peer's
     * publication is heard again: a LIVE peer says no second hello that would name it), but no longer watched for
     * liveness; a restarted peer's new sessions come with its hellos.
     */
    private void restoreInbound(final AeronPeer peer)
    {
        for (int lane = 0; lane < 2; lane++)
        {
            if (0 != (peer.hasInbound & (1 << lane)))
            {
                sessions(peer, lane).put(peer.inboundSession[lane], peer.index);
                if (null == inboundImage(peer, lane))
                {
                    peer.hasInbound &= ~(1 << lane);
                }
            }
        }
    }

    private void report(final long peerKey, final int errno)
    {
        if (eventCount == eventPeer.length)
        {
            eventPeer = Arrays.copyOf(eventPeer, eventCount * 2);
            eventErrno = Arrays.copyOf(eventErrno, eventCount * 2);
        }
        eventPeer[eventCount] = peerKey;
        eventErrno[eventCount] = errno;
        eventCount++;
    }

    @Override
    public int pollEvents(final TransportEventHandler handler, final int limit)
    {
        final int n = Math.min(limit, eventCount);
        for (int i = 0; i < n; i++)
        {
            handler.onPeerDown(eventPeer[i], eventErrno[i]);
        }
        if (n > 0)
        {
            eventCount -= n;
            System.arraycopy(eventPeer, n, eventPeer, 0, eventCount);
            System.arraycopy(eventErrno, n, eventErrno, 0, eventCount);
        }
        return n;
    }

    @Override
    public int poll(final FrameHandler handler, final int limit)
    {
        // The clock only every CLOCK_POLLS polls, not on every duty cycle (issue 16): a busy agent polls every
        // microsecond or so, an idle one backs off to at most a millisecond, so a scan is late by a few ms at most.
        if (0 == (++polls & (CLOCK_POLLS - 1)))
        {
            final long now = System.currentTimeMillis();
            if (now >= nextScanMs)
            {
                scan(now);
            }
        }
        if (eventCount > 0)
        {
            // Events go first: the runtime fails what a dead peer owed before any later frame is seen.
            return 0;
        }
        current = handler;
        delivered = 0;
        // Answers first: they complete operations and free what requests wait for.
        answers.controlledPoll(answerAssembler, limit);
        if (null != ipcAnswers && delivered < limit && 0 == eventCount)
        {
            ipcAnswers.controlledPoll(ipcAnswerAssembler, limit - delivered);
        }
        if (delivered < limit && 0 == eventCount)
        {
            requests.controlledPoll(requestAssembler, limit - delivered);
        }
        if (delivered < limit && 0 == eventCount)
        {
            datagrams.controlledPoll(datagramAssembler, limit - delivered);
        }
        if (null != ipcRequests && delivered < limit && 0 == eventCount)
        {
            ipcRequests.controlledPoll(ipcRequestAssembler, limit - delivered);
        }
        return delivered;
    }

    private ControlledFragmentHandler.Action onFragment(
        final DirectBuffer buffer, final int offset, final int length, final Header header, final boolean ipc)
    {
        final int session = header.sessionId();
        if (HELLO == header.reservedValue())
        {
            onHello(session, buffer, offset, length, ipc, header);
            return ControlledFragmentHandler.Action.COMMIT;
        }
        if (eventCount > 0)
        {
            return ControlledFragmentHandler.Action.ABORT;
        }
        final int entry = (ipc ? ipcSessionEntry : sessionEntry).get(session);
        if (entry < 0 || length < MIN_FRAME_LENGTH)
        {
            dropped.incrementRelease();
            return ControlledFragmentHandler.Action.CONTINUE;
        }
        final int lane = lane(header, ipc);
        final Object image = header.context();
        if (lane <= LANE_ANSWER && image != peers[entry].readImage[lane] && image instanceof Image &&
            gapResynced(peers[entry], lane, (Image) image))
        {
            // The first frame of an image Aeron made again after a gap: the peer's fall and return go first (the
            // frame comes back at the next poll, charged to the new epoch).
            return ControlledFragmentHandler.Action.ABORT;
        }
        if (AeronFrameBatcher.BATCH == header.reservedValue())
        {
            // Request and answer streams differ in their lowest bit (stream, stream + 1).
            final ControlledFragmentHandler.Action action =
                batcher.deliver(buffer, offset, length, header, entry, header.streamId() & 1, ipc, batchSink);
            if (ControlledFragmentHandler.Action.ABORT != action)
            {
                consumed(entry, lane, header);
            }
            return action;
        }
        // The sender put its endpoint index in the source key; make it this domain's key for the sender.
        final MutableDirectBuffer frame = (MutableDirectBuffer) buffer;
        final int at = offset + SOURCE_KEY_OFFSET;
        frame.putLong(at, key(entry, (int) (frame.getLong(at, ByteOrder.LITTLE_ENDIAN) & ENDPOINT_MASK)),
            ByteOrder.LITTLE_ENDIAN);
        if (current.onFrame(buffer, offset, length))
        {
            delivered++;
            consumed(entry, lane, header);
            return ControlledFragmentHandler.Action.CONTINUE;
        }
        return ControlledFragmentHandler.Action.ABORT;
    }

    /**
     * @return the lane of a fragment's stream: {@link #LANE_REQUEST}, {@link #LANE_ANSWER}, or above them for the
     * datagram stream (its images are left out of the read positions).
     */
    private int lane(final Header header, final boolean ipc)
    {
        final int stream = header.streamId();
        return ipc ? (stream == ipcAnswers.streamId() ? LANE_ANSWER : LANE_REQUEST) : stream - local.stream();
    }

    /**
     * Remember how far a peer's inbound session on the request or answer lane was read ({@link #gapResynced},
     * {@link #skipped}).
     */
    private void consumed(final int entry, final int lane, final Header header)
    {
        if (lane <= LANE_ANSWER)
        {
            peers[entry].inboundPosition[lane] = header.position();
        }
    }

    /**
     * An image of a peer's inbound session on a lane is read for the first time: when it starts beyond what was read
     * of the one before (Aeron made it again at the sender's position, what the old one had not received is lost),
     * a LIVE peer is resynchronised ({@link #resync}) before anything of the new image is delivered. Checked here,
     * on the frame, and not only by the liveness scan: the scan runs once per 20 ms and the agent had mostly read
     * the new image's first frames before it, so that their positions hid the gap; when the lost frames were sent
     * after the peer's flow-control account started over, their credit never came back and its stream stalled
     * (issue 14, {@code AeronWronglyDownTest}'s third case under load).
     *
     * @return true when the peer was resynchronised (an event waits: the frame is taken again at the next poll).
     */
    private boolean gapResynced(final AeronPeer peer, final int lane, final Image image)
    {
        if (gap(peer, lane, image) && AeronPeer.LIVE == peer.state)
        {
            resync(peer);
            return true;
        }
        return false;
    }

    /**
     * Take a new image of a peer's inbound session on a lane as the one read from now on.
     *
     * @return true when it starts beyond what was read of the one before; the read position moves to its start, so
     * that a gap is seen once.
     */
    private static boolean gap(final AeronPeer peer, final int lane, final Image image)
    {
        peer.readImage[lane] = image;
        if (image.joinPosition() > peer.inboundPosition[lane])
        {
            peer.inboundPosition[lane] = image.joinPosition();
            return true;
        }
        return false;
    }

    /**
     * @return true when an image of a peer's inbound sessions was made again by Aeron and starts after what was read
     * of the one before (Aeron joins a new image at the sender's position: what the old one had not received is
     * lost); the read positions then move to the new images' starts, so a gap is reported once.
     */
    private boolean skipped(final AeronPeer peer)
    {
        boolean skipped = false;
        for (int lane = 0; lane < 2; lane++)
        {
            // Also a lane no longer watched for liveness (its image was missing at the last return): its image
            // comes back, after a gap, later.
            if (sessions(peer, lane).get(peer.inboundSession[lane]) == peer.index)
            {
                final Image image = inboundImage(peer, lane);
                if (null != image && image != peer.readImage[lane] && gap(peer, lane, image))
                {
                    skipped = true;
                }
            }
        }
        return skipped;
    }

    /**
     * Frames of a LIVE peer were lost in Aeron ({@link #skipped}) while neither side found the other down: as a
     * fall and a return here (what we await from it fails, our epoch changes) and hellos again, so that the peer
     * does the same ({@link #returned}). Without it both sides stay LIVE with flow-control accounts that no longer
     * agree: the credit of the lost frames never comes back and the peer's stream to us stalls for good.
     */
    private void resync(final AeronPeer peer)
    {
        peer.epoch += 2;
        batcher.carryOver(peer, peer.epoch - 2);
        report(key(peer.index, 0), Errno.EIO.value());
        peersDown.incrementRelease();
        reconnect(peer);
    }

    /**
     * One frame of a batch ({@link AeronFrameBatcher#deliver}): as a frame of its own in {@link #onFragment}.
     */
    private boolean onBatchFrame(final DirectBuffer buffer, final int offset, final int length, final int entry)
    {
        if (eventCount > 0)
        {
            return false;
        }
        final MutableDirectBuffer frame = (MutableDirectBuffer) buffer;
        final int at = offset + SOURCE_KEY_OFFSET;
        frame.putLong(at, key(entry, (int) (frame.getLong(at, ByteOrder.LITTLE_ENDIAN) & ENDPOINT_MASK)),
            ByteOrder.LITTLE_ENDIAN);
        if (current.onFrame(buffer, offset, length))
        {
            delivered++;
            return true;
        }
        return false;
    }

    /**
     * A publication's first message: map its session to the sender's entry. A new incarnation of a known peer
     * means the old one is gone: it is reported down first, and our hellos go to the new one again.
     */
    private void onHello(
        final int session,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final boolean ipc,
        final Header header)
    {
        final long position = header.position();
        if (length <= HELLO_ADDRESS_OFFSET)
        {
            return;
        }
        final long theirIncarnation = buffer.getLong(offset + HELLO_INCARNATION_OFFSET, ByteOrder.LITTLE_ENDIAN);
        final int laneField = buffer.getInt(offset + HELLO_LANE_OFFSET, ByteOrder.LITTLE_ENDIAN);
        final int lane = laneField & 1;
        final AeronAddress sender = AeronAddress.parseText(buffer.getStringWithoutLengthAscii(
            offset + HELLO_ADDRESS_OFFSET, length - HELLO_ADDRESS_OFFSET));
        if (null == sender || 0 == theirIncarnation)
        {
            return;
        }
        final AeronPeer peer = entryOf(sender.withEndpoint(0));
        if (0 != peer.incarnation && theirIncarnation != peer.incarnation)
        {
            // A restart under the same address, seen before the old one was found dead.
            down(peer, Errno.EIO.value());
        }
        if (0 != peer.incarnation && theirIncarnation != peer.incarnation)
        {
            // The old incarnation's sessions are gone with it: what they still hold is dropped.
            forgetInbound(peer);
            peer.hasInbound = 0;
        }
        if (theirIncarnation != peer.incarnation)
        {
            peer.incarnation = theirIncarnation;
            final boolean renewed = renewIpc(peer);
            if (AeronPeer.DOWN == peer.state && (renewed || (null != peer.requests && null != peer.answers)))
            {
                // Say hello to the new incarnation: it has not heard ours.
                reconnect(peer);
            }
        }
        else if (AeronPeer.DOWN == peer.state && null != peer.requests && null != peer.answers)
        {
            // The same incarnation again: its publication to us reconnected after a link failure. Try ours again
            // (a peer found down while our publications stayed connected would otherwise wait for a disconnection
            // that never comes).
            reconnect(peer);
        }
        else if (AeronPeer.LIVE == peer.state &&
            (0 != (peer.hasInbound & (1 << lane)) || 0 != (laneField & HELLO_RETURNING)))
        {
            // A lane heard before, or a peer that says it comes back (it fell before it ever said hello to us: it
            // had only received).
            returned(peer, lane);
        }
        if (sessions(peer, lane).get(peer.inboundSession[lane]) == peer.index)
        {
            sessions(peer, lane).remove(peer.inboundSession[lane]);
        }
        peer.inboundSession[lane] = session;
        peer.inboundPosition[lane] = position;
        peer.readImage[lane] = header.context() instanceof Image ? (Image) header.context() : null;
        peer.hasInbound |= 1 << lane;
        peer.inboundIpc = ipc ? peer.inboundIpc | (1 << lane) : peer.inboundIpc & ~(1 << lane);
        sessions(peer, lane).put(session, peer.index);
    }

    /**
     * A LIVE peer's same incarnation says hello again on a lane we heard before: it went down and came back on its
     * side alone (its epoch changed, ours did not); what we sent it meanwhile was delivered (its sessions stay
     * mapped) unless Aeron lost it with an image, and its answers to us failed. Do the same here: report it
     * down (what we await from it fails) and change the epoch (both flow-control accounts start over, as at its
     * side), and stay LIVE (our publications and its hellos are there). Once per return: its two lanes' hellos
     * count as one.
     */
    private void returned(final AeronPeer peer, final int lane)
    {
        final int bit = 1 << lane;
        if (0 == peer.returnLanes || 0 != (peer.returnLanes & bit))
        {
            peer.returnLanes = bit;
            // As a fall and a return (an epoch a dead incarnation could carry is never reused).
            peer.epoch += 2;
            batcher.carryOver(peer, peer.epoch - 2);
            report(key(peer.index, 0), Errno.EIO.value());
            peersDown.incrementRelease();
        }
        else
        {
            peer.returnLanes = 0;
        }
    }

    /**
     * @return the session map of the subscription a peer's inbound session on a lane arrives on.
     */
    private Int2IntHashMap sessions(final AeronPeer peer, final int lane)
    {
        return 0 != (peer.inboundIpc & (1 << lane)) ? ipcSessionEntry : sessionEntry;
    }

    /**
     * @return the image of a peer's inbound session on a lane, on the subscription it arrives on, or null.
     */
    private Image inboundImage(final AeronPeer peer, final int lane)
    {
        final boolean ipc = 0 != (peer.inboundIpc & (1 << lane));
        final Subscription subscription = LANE_ANSWER == lane ? (ipc ? ipcAnswers : answers) :
            (ipc ? ipcRequests : requests);
        return subscription.imageBySessionId(peer.inboundSession[lane]);
    }

    /**
     * A new incarnation of a peer said hello: when it is on this driver under new IPC streams (a restart under the
     * same address), or no longer on it, its publications are made again to follow it.
     *
     * @return true when new publications were asked for.
     */
    private boolean renewIpc(final AeronPeer peer)
    {
        if (null != registry && 0 != peer.index && null != peer.ipc)
        {
            final AeronIpcRegistry.Entry fresh = registry.lookup(peer.address);
            return !peer.ipc.sameAs(fresh) && renewIpc(peer, fresh);
        }
        return false;
    }

    /**
     * Close a peer's publications and ask for new ones to where the registry names it now (its new IPC streams,
     * or its UDP channel when {@code fresh} is null). Agent thread; the peer is DOWN (its epoch changes when it is
     * LIVE again).
     *
     * @return true when the new publications were asked for.
     */
    private boolean renewIpc(final AeronPeer peer, final AeronIpcRegistry.Entry fresh)
    {
        closePublications(peer);
        peer.requests = null;
        peer.answers = null;
        peer.datagrams = null;
        peer.datagramRegistration = -1;
        if (null == fresh)
        {
            ipcPeers.decrementRelease();
        }
        peer.ipc = fresh;
        requestPublications(peer);
        return peer.requestRegistration >= 0;
    }

    private void reconnect(final AeronPeer peer)
    {
        peer.state = AeronPeer.CONNECTING;
        peer.connectingSinceMs = System.currentTimeMillis();
        peer.hellosSent = 0;
        peer.sawDisconnect = false;
        peer.sawInboundLoss = false;
        peer.helloTimedOut = false;
        peer.returnLanes = 0;
    }

    /**
     * The liveness scan: publications that went away or came back, peers that stay unreachable, inbound images
     * that went away.
     */
    private void scan(final long now)
    {
        nextScanMs = now + AeronConfiguration.SCAN_INTERVAL_MS;
        final AeronPeer[] ps = peers;
        for (int i = 0; i < ps.length; i++)
        {
            final AeronPeer peer = ps[i];
            if (null == peer)
            {
                continue;
            }
            switch (peer.state)
            {
                case AeronPeer.CONNECTING:
                    progress(peer, now);
                    break;
                case AeronPeer.LIVE:
                    if (!connected(peer))
                    {
                        if (0 == peer.notConnectedSinceMs)
                        {
                            peer.notConnectedSinceMs = now;
                        }
                        else if (now - peer.notConnectedSinceMs > livenessTimeoutMs / 2)
                        {
                            // Aeron already waited its publication connection timeout before saying so.
                            down(peer, Errno.EIO.value());
                        }
                    }
                    break;
                case AeronPeer.DOWN:
                    if (null != peer.ipc && now >= peer.nextIpcLookupMs)
                    {
                        // A peer on this driver restarts under the same address with new IPC streams: follow them.
                        peer.nextIpcLookupMs = now + IPC_LOOKUP_INTERVAL_MS;
                        final AeronIpcRegistry.Entry fresh = registry.lookup(peer.address);
                        if (null != fresh && !fresh.sameAs(peer.ipc) && renewIpc(peer, fresh))
                        {
                            peer.incarnation = fresh.incarnation();
                            forgetInbound(peer);
                            peer.hasInbound = 0;
                            reconnect(peer);
                            progress(peer, now);
                            break;
                        }
                    }
                    if (null == peer.requests || null == peer.answers)
                    {
                        // Found down before it was ever sent to (its inbound image went away): take the
                        // publications asked for when it became known, so that their connection brings it back.
                        fetchPublications(peer);
                    }
                    if (null != peer.requests && null != peer.answers)
                    {
                        final boolean inbound = inboundPresent(peer);
                        if (!inbound)
                        {
                            peer.sawInboundLoss = true;
                        }
                        if (!connected(peer))
                        {
                            peer.sawDisconnect = true;
                        }
                        else if (peer.sawDisconnect || (peer.sawInboundLoss && inbound) ||
                            (peer.helloTimedOut && inbound && now - peer.connectingSinceMs > 2 * livenessTimeoutMs &&
                            (null == peer.ipc || registry.alive(peer.ipc, now))))
                        {
                            // Connected again after a disconnection: a restarted (or reachable again) peer. Or its
                            // publications to us came back (their images went away and are there again) while ours
                            // stayed connected: reachable again. Its side may be LIVE already, its hellos lost with
                            // the old images, and a LIVE side sends no hello that would wake this one. Or its
                            // hellos could not be offered in time while everything stayed connected (its window
                            // was full): nothing else would change, so try again once per liveness timeout.
                            reconnect(peer);
                            progress(peer, now);
                        }
                    }
                    break;
                default:
                    break;
            }
            if (skipped(peer) && AeronPeer.LIVE == peer.state)
            {
                // Its publication's image here was made again after a gap: frames it sent were lost in Aeron.
                resync(peer);
            }
            if (0 != peer.hasInbound && AeronPeer.DOWN != peer.state)
            {
                if ((0 != (peer.hasInbound & 1) && null == inboundImage(peer, 0)) ||
                    (0 != (peer.hasInbound & 2) && null == inboundImage(peer, 1)))
                {
                    // Its publications to us went away: it closed or died.
                    down(peer, Errno.EIO.value());
                }
            }
            if (null != peer.ipc && 0 != i && AeronPeer.NEW != peer.state && AeronPeer.DOWN != peer.state &&
                !registry.alive(peer.ipc, now))
            {
                // A peer on this driver whose client stopped beating: killed (its publications and subscriptions
                // stay in the driver until the driver's client timeout, longer than ours).
                down(peer, Errno.EIO.value());
            }
        }
    }

    /**
     * Close the publications and subscriptions; the fabric's client and driver stay.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final AeronPeer[] ps = peers;
        for (final AeronPeer peer : ps)
        {
            if (null != peer)
            {
                closePublications(peer);
            }
        }
        if (null != registry)
        {
            registry.unregister(local, incarnation);
        }
        CloseHelper.quietCloseAll(ipcAnswers, ipcRequests, datagrams, answers, requests);
        fabric.release(local.domainKey());
    }

    private void closePublications(final AeronPeer peer)
    {
        if (null == peer.requests && peer.requestRegistration >= 0)
        {
            quietRemove(peer.requestRegistration);
        }
        if (null == peer.answers && peer.answerRegistration >= 0)
        {
            quietRemove(peer.answerRegistration);
        }
        if (null == peer.datagrams && peer.datagramRegistration >= 0)
        {
            quietRemove(peer.datagramRegistration);
        }
        CloseHelper.quietCloseAll(peer.requests, peer.answers, peer.datagrams);
    }

    private void quietRemove(final long registration)
    {
        try
        {
            final ExclusivePublication publication = aeron.getExclusivePublication(registration);
            if (null != publication)
            {
                publication.close();
            }
            else
            {
                aeron.asyncRemovePublication(registration);
            }
        }
        catch (final AeronException ex)
        {
            // the driver refused it: nothing to close
        }
    }

    @Override
    public String toString()
    {
        return "AeronDomainTransport{" + new String(local.textBytes(), StandardCharsets.US_ASCII) + "}";
    }
}
