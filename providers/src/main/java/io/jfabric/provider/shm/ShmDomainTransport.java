package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.SharedAddressTable;
import io.jfabric.spi.FrameHandler;
import io.jfabric.spi.TransportEventHandler;
import io.jfabric.spi.TransportCounters;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.status.AtomicCounter;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The shm back-end of one domain. The domain owns a mapped file with two inbound rings, one for requests and one
 * for answers (see {@link ShmRingDescriptor}); the SPI polls a transport per domain and has no endpoint life
 * cycle, so the rings are per domain and frames name the endpoint. Peers map that file and write frames into it,
 * and this domain maps each peer's file the same way.
 * <p>
 * Peer keys are {@code entry << 16 | endpoint}: the entry is this domain's index for a peer name
 * ({@link ShmPeer}, 0 = itself), stable for the life of the domain, so a restarted peer keeps its keys. A writer
 * puts its sender slot (in the receiver's file) + 1 in each record's type; the receiver maps the slot to its own
 * entry for that name and rewrites the frame's source key before the agent sees it.
 * <p>
 * Liveness: the agent's {@link #poll} runs a scan every {@link ShmConfiguration#SCAN_INTERVAL_MS} (it reads the
 * clock only when the process's {@link ShmHeartbeat} ticked, not on every poll): a peer whose
 * file is closed, overwritten or truncated, or whose heartbeat is stale and whose incarnation's liveness lock is
 * free or gone ({@link ShmLiveness}; never a pid lookup), is dead. The transport reports it to the runtime
 * ({@link TransportEventHandler#onPeerDown} with {@code EIO}; the runtime fails what it awaits from that peer) and
 * delivers no further frame until the runtime has taken the event; later offers to it fail with
 * {@code -EIO} until its name is owned again (checked on demand, at most every
 * {@link ShmConfiguration#REATTACH_INTERVAL_MS}). A record a dead writer claimed but never committed is
 * turned into padding ({@code ManyToOneRingBuffer.unblock}) so that the ring keeps flowing: the slot still names
 * the incarnation that claimed it, because a restarted writer takes a fresh slot. A damaged own ring fails every
 * operation with {@code EIO} instead of going deaf.
 * <p>
 * Threading: {@link #offer}, {@link #poll} and {@link #endpointIndex} run on the domain agent only; the address
 * methods are control path, thread-safe (a monitor guards the name table); {@link #close()} after the agent
 * stopped.
 */
final class ShmDomainTransport implements DomainTransport
{
    /** Bits of the endpoint index in a peer key. */
    static final int ENDPOINT_BITS = 16;
    /** Mask of the endpoint index in a peer key. */
    static final long ENDPOINT_MASK = (1L << ENDPOINT_BITS) - 1;

    private final Path dir;
    /** The socket format of the domain's info, or null ({@code FI_ADDR_STR}); set once after open. */
    private volatile io.jfabric.AddressFormat socketFormat;
    private final ShmRingFile own;
    private final String name;
    private final ManyToOneRingBuffer inbound;
    private final ManyToOneRingBuffer inboundAnswers;
    private final int slotCount;
    private final int[] slotEntry;
    private final long[] slotIncarnation;
    private final Map<String, ShmPeer> byName = new HashMap<>();
    private volatile ShmPeer[] peers;
    private int peerCount;
    private volatile boolean handoff;
    private volatile boolean closed;
    private final Object poolLock = new Object();
    private volatile ShmPool pool;
    private long directReads;
    /** Events for the runtime (peer down, transport errors), oldest at 0; agent thread. */
    private long[] eventPeer = new long[16];
    private int[] eventErrno = new int[16];
    private String[] eventDetail = new String[16];
    private int eventCount;
    // Counters in the process's counters file (registerCounters, before the agent runs); agent thread only.
    private AtomicCounter ringFullRetries = TransportCounters.NONE.newCounter("shm ring-full retries");
    private AtomicCounter peersSeenDead = TransportCounters.NONE.newCounter("shm peers seen dead");
    private final ControlledMessageHandler adapter = this::onRecord;
    private FrameHandler current;
    /** The entry and writer incarnation of the record being delivered ({@link #sourceEpoch}); -1: none. */
    private int deliveringEntry = -1;
    private long deliveringEpoch;

    private long nextScanMs;
    private final ShmHeartbeat heartbeat = ShmHeartbeat.instance();
    /** The heartbeat count at the last clock read ({@link #poll}). */
    private long lastBeat = -1;
    /** Polls since the last clock read. */
    private int pollsSinceClock;
    /** Polls after which {@link #poll} reads the clock even without a heartbeat tick. */
    private static final int CLOCK_POLLS = 1 << 16;
    private long nextSlotSweepMs;
    private final long[] lastHead = {-1, -1};
    private final long[] stuckSinceMs = new long[2];
    /** Our own ring was found damaged: nothing is read from it any more and every operation fails (EIO). */
    private volatile boolean ownBroken;
    private long dropped;
    private int[] releaseSlot = new int[8];
    private long[] releaseIncarnation = new long[8];
    private long[] releasePosition = new long[8];
    private long[] releaseAnswerPosition = new long[8];
    private int releaseCount;

    private ShmDomainTransport(final Path dir, final ShmRingFile own)
    {
        this.dir = dir;
        this.own = own;
        this.name = own.name();
        this.inbound = own.ring();
        this.inboundAnswers = own.answers();
        this.slotCount = own.slotCount();
        this.slotEntry = new int[slotCount];
        this.slotIncarnation = new long[slotCount];
        Arrays.fill(slotEntry, -1);
        final ShmPeer self = new ShmPeer(0, name);
        final int slot = own.claimSlot(own.incarnation(), self.nameAscii);
        self.file = own;
        self.ring = inbound;
        self.answers = inboundAnswers;
        self.typeId = slot + 1;
        self.incarnation = own.incarnation();
        self.state = ShmPeer.LIVE;
        byName.put(name, self);
        peers = new ShmPeer[]{self, null, null, null, null, null, null, null};
        peerCount = 1;
    }

    /**
     * Open the back-end of a domain: reclaim stale files, then create this domain's ring file.
     *
     * @param requestedName the name asked for ({@code FI_SOURCE}), or null for the process default.
     * @return the transport.
     * @throws FabricException EADDRINUSE when a living process owns the requested name; EIO/EACCES on file
     *                         problems; EINVAL for a bad configuration.
     */
    static ShmDomainTransport open(final String requestedName)
    {
        final Path dir = ShmConfiguration.directory();
        final int capacity = ShmConfiguration.ringCapacity();
        ShmMappedBuffer.configureYoungPhase(ShmConfiguration.checkedUpdates());
        ShmRingFile.reclaimStale(dir);
        final String defaultName = defaultName();
        final ShmRingFile file;
        if (null == requestedName || defaultName.equals(requestedName))
        {
            // The default name is a family: each domain of the process takes the first free of <pid>, <pid>-1, ...
            ShmRingFile created = null;
            for (int i = 0; null == created; i++)
            {
                try
                {
                    created = ShmRingFile.create(dir, 0 == i ? defaultName : defaultName + "-" + i, capacity,
                        ShmConfiguration.SENDER_SLOTS);
                }
                catch (final FabricException ex)
                {
                    if (Errno.EADDRINUSE != ex.errno() || i >= 4096)
                    {
                        throw ex;
                    }
                }
            }
            file = created;
        }
        else
        {
            file = ShmRingFile.create(dir, requestedName, capacity, ShmConfiguration.SENDER_SLOTS);
        }
        final ShmDomainTransport transport = new ShmDomainTransport(dir, file);
        ShmHeartbeat.instance().register(file);
        return transport;
    }

    /**
     * @return the default domain name of this process: its pid.
     */
    static String defaultName()
    {
        return Long.toString(ProcessIdentity.PID);
    }

    /**
     * @return this domain's name.
     */
    String name()
    {
        return name;
    }

    /**
     * @return this domain's ring file.
     */
    ShmRingFile ownFile()
    {
        return own;
    }

    /**
     * @return inbound records dropped as too short or from an unknown writer (agent thread; for tests and
     * diagnostics).
     */
    long dropped()
    {
        return dropped;
    }

    /**
     * What this domain thinks of a peer name (for tests and diagnostics; any thread).
     *
     * @param peerName the name.
     * @return "LIVE", "DEAD" or "UNKNOWN" (never seen).
     */
    synchronized String peerState(final String peerName)
    {
        final ShmPeer peer = byName.get(peerName);
        return null == peer ? "UNKNOWN" : ShmPeer.LIVE == peer.state ? "LIVE" : "DEAD";
    }

    /**
     * @return true once this domain found its own ring file cut or overwritten and stopped touching it (any
     * thread; for tests and diagnostics).
     */
    boolean ownBroken()
    {
        return ownBroken;
    }

    @Override
    public int maxFrameLength()
    {
        return inbound.maxMsgLength();
    }

    @Override
    public byte[] endpointAddress(final int endpointIndex)
    {
        return form(new ShmAddress(name, endpointIndex));
    }

    /**
     * A domain opened with a socket-address info gives socket addresses where the mapping has one
     * ({@link ShmSockAddr}).
     */
    void socketFormat(final io.jfabric.AddressFormat format)
    {
        socketFormat = format;
    }

    private byte[] form(final ShmAddress address)
    {
        final io.jfabric.AddressFormat format = socketFormat;
        final byte[] socket = null == format ? null : ShmSockAddr.encode(address, format);
        return null != socket ? socket : address.textBytes();
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
    public byte[] address(final long peerKey)
    {
        final ShmPeer[] ps = peers;
        final int entry = (int) (peerKey >>> ENDPOINT_BITS);
        if (peerKey < 0 || entry >= ps.length || null == ps[entry])
        {
            throw new FabricException(Errno.EINVAL, "shm: no peer with key " + peerKey);
        }
        return form(new ShmAddress(ps[entry].name, (int) (peerKey & ENDPOINT_MASK)));
    }

    /**
     * Resolve an address (text or binary) into a peer key, mapping the peer's ring file on first use.
     *
     * @param address the address.
     * @return the key, or -1 when the address is not a shm address or nobody owns its name.
     * @throws FabricException EIO when the name's ring file is corrupted or truncated, EACCES when it cannot be
     *                         opened, ENOSPC when its sender table is full.
     */
    @Override
    public long resolve(final byte[] address)
    {
        final ShmAddress parsed = ShmAddress.parse(address);
        if (null == parsed || closed)
        {
            return -1;
        }
        if (ownBroken)
        {
            throw new FabricException(Errno.EIO, "shm: domain " + name + " cannot communicate: its own ring file " +
                own.path() + " was damaged (overwritten or truncated); close the domain and open a new one");
        }
        if (name.equals(parsed.name()))
        {
            return key(0, parsed.endpoint());
        }
        ShmPeer peer;
        synchronized (this)
        {
            peer = byName.get(parsed.name());
        }
        if (null != peer && ShmPeer.LIVE == peer.state && isCurrent(peer))
        {
            return key(peer.index, parsed.endpoint());
        }
        final ShmRingFile file = ShmRingFile.openPeer(dir, parsed.name());
        if (null == file)
        {
            return -1;
        }
        if (file.claimSlot(own.incarnation(), peersSelfName()) < 0)
        {
            file.close();
            throw new FabricException(Errno.ENOSPC, "shm: the sender table of " + parsed.text() + " is full (" +
                file.slotCount() + " writers)");
        }
        synchronized (this)
        {
            peer = byName.get(parsed.name());
            if (null == peer)
            {
                peer = newPeer(parsed.name());
                install(peer, file);
                publish(peer);
            }
            else
            {
                // The agent owns the entry: hand the mapping over, it installs it on its next duty cycle.
                final ShmRingFile previous = peer.pending.getAndSet(file);
                if (null != previous)
                {
                    previous.close();
                }
                handoff = true;
            }
        }
        return key(peer.index, parsed.endpoint());
    }

    /**
     * Is the incarnation a live entry maps still the one that owns the name? A name closed and opened again (or
     * restarted) since the agent last looked must be mapped again, or sends would go to the old, unread ring.
     * Control path (reads the file's header); the entry's incarnation is published before its volatile state.
     */
    private boolean isCurrent(final ShmPeer peer)
    {
        final ShmRingFile.Header header = ShmRingFile.Header.read(ShmRingFile.pathOf(dir, peer.name));
        return null != header && null == header.defect() && ShmRingDescriptor.STATE_ACTIVE == header.state() &&
            header.incarnation() == peer.incarnation;
    }

    private byte[] peersSelfName()
    {
        return peers[0].nameAscii;
    }

    private static long key(final int entry, final int endpoint)
    {
        return ((long) entry << ENDPOINT_BITS) | endpoint;
    }

    /**
     * A new entry (caller holds the monitor); not yet visible to the agent.
     */
    private ShmPeer newPeer(final String peerName)
    {
        return new ShmPeer(peerCount, peerName);
    }

    /**
     * Make an entry visible (caller holds the monitor): a volatile store of the table orders the entry's fields
     * before the agent's read of it.
     */
    private void publish(final ShmPeer peer)
    {
        ShmPeer[] ps = peers;
        if (peer.index >= ps.length)
        {
            ps = Arrays.copyOf(ps, ps.length * 2);
        }
        else
        {
            ps = ps.clone();
        }
        ps[peer.index] = peer;
        byName.put(peer.name, peer);
        peerCount++;
        peers = ps;
    }

    /**
     * Point an entry at a mapped file whose sender slot this domain already claimed (or claims now).
     *
     * @return true when installed; false when the peer's sender table is full (the file is closed).
     */
    private boolean install(final ShmPeer peer, final ShmRingFile file)
    {
        int slot;
        try
        {
            slot = file.claimSlot(own.incarnation(), peersSelfName());
        }
        catch (final FabricException ex)
        {
            // Its file was cut under the mapping (EIO): not a usable incarnation.
            slot = -1;
        }
        if (slot < 0)
        {
            file.close();
            return false;
        }
        peer.file = file;
        peer.ring = file.ring();
        peer.answers = file.answers();
        peer.typeId = slot + 1;
        peer.incarnation = file.incarnation();
        peer.nextProcessCheckMs = 0;
        peer.state = ShmPeer.LIVE;
        return true;
    }

    /**
     * {@inheritDoc} shm counts offers refused by a full peer ring ({@code shm ring-full retries}) and peers it
     * declared dead ({@code shm peers seen dead}).
     */
    @Override
    public void registerCounters(final TransportCounters counters)
    {
        ringFullRetries = counters.newCounter("shm ring-full retries");
        peersSeenDead = counters.newCounter("shm peers seen dead");
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
        final ShmPeer[] ps = peers;
        final int entry = (int) (peerKey >>> ENDPOINT_BITS);
        if (peerKey < 0 || entry >= ps.length || null == ps[entry])
        {
            return Errno.EHOSTUNREACH.negated();
        }
        if (handoff)
        {
            // A mapping handed over by an AV insert (a new incarnation of the name) is used from the next send on.
            installHandoffs();
        }
        final ShmPeer peer = ps[entry];
        if (ownBroken || (ShmPeer.LIVE != peer.state && !reattach(peer, System.currentTimeMillis())))
        {
            // A domain that can no longer read its own ring would never see the answers: fail, never go deaf.
            return Errno.EIO.negated();
        }
        // Answers to the peer's requests go to its answer ring, never behind requests it cannot take yet.
        final ManyToOneRingBuffer ring = LANE_ANSWER == lane ? peer.answers : peer.ring;
        final int length = headerLength + payloadLength;
        if (length > ring.maxMsgLength())
        {
            return Errno.EMSGSIZE.negated();
        }
        try
        {
            final int index = ring.tryClaim(peer.typeId, length);
            if (index < 0)
            {
                ringFullRetries.incrementRelease();
                return 0;
            }
            final AtomicBuffer buffer = ring.buffer();
            buffer.putBytes(index, header, headerOffset, headerLength);
            if (payloadLength > 0)
            {
                buffer.putBytes(index + headerLength, payload, payloadOffset, payloadLength);
            }
            // commit publishes the record with a release store of its length.
            ring.commit(index);
        }
        catch (final IllegalStateException ex)
        {
            // The ring's owner took this domain for dead and turned the claim into padding: the frame is lost.
            return Errno.EIO.negated();
        }
        catch (final InternalError ex)
        {
            // The JVM's answer to a fault in a mapped file (SIGBUS): the peer's ring (the destination) or our own
            // pool (the source of a send from a pool block) was cut under us. Find which: one fstat each.
            onOfferFault(entry, peer);
            return Errno.EIO.negated();
        }
        return 1;
    }

    /**
     * A fault while offering a frame: blame the file that was cut, never a healthy one.
     */
    private void onOfferFault(final int entry, final ShmPeer peer)
    {
        final ShmPool p = pool;
        if (0 == entry)
        {
            // Our own ring (a send to ourselves) or our pool: either way this domain's own files are damaged.
            breakOwn(null != p && p.truncated() && !own.truncated() && own.headerIntact());
        }
        else if (null != p && p.truncated() && null != peer.file && !peer.file.truncated() &&
            peer.file.headerIntact())
        {
            // The payload came from our own pool block, which was cut: the peer is not to blame.
            breakOwn(true);
        }
        else
        {
            fail(peer);
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * The peer's entry: every endpoint of one peer name (any incarnation) shares it.
     */
    @Override
    public long peerDomain(final long peerKey)
    {
        return peerKey >>> ENDPOINT_BITS;
    }

    @Override
    public int pollEvents(final TransportEventHandler handler, final int limit)
    {
        final int n = Math.min(limit, eventCount);
        for (int i = 0; i < n; i++)
        {
            if (null == eventDetail[i])
            {
                handler.onPeerDown(eventPeer[i], eventErrno[i]);
            }
            else
            {
                handler.onTransportError(eventErrno[i], eventDetail[i]);
            }
        }
        if (n > 0)
        {
            eventCount -= n;
            System.arraycopy(eventPeer, n, eventPeer, 0, eventCount);
            System.arraycopy(eventErrno, n, eventErrno, 0, eventCount);
            System.arraycopy(eventDetail, n, eventDetail, 0, eventCount);
            Arrays.fill(eventDetail, eventCount, eventCount + n, null);
        }
        return n;
    }

    /**
     * Queue an event for the runtime (agent thread); {@code detail} null for a peer down.
     */
    private void report(final long peerKey, final int errno, final String detail)
    {
        if (eventCount == eventPeer.length)
        {
            eventPeer = Arrays.copyOf(eventPeer, eventCount * 2);
            eventErrno = Arrays.copyOf(eventErrno, eventCount * 2);
            eventDetail = Arrays.copyOf(eventDetail, eventCount * 2);
        }
        eventPeer[eventCount] = peerKey;
        eventErrno[eventCount] = errno;
        eventDetail[eventCount] = detail;
        eventCount++;
    }

    @Override
    public int poll(final FrameHandler handler, final int limit)
    {
        final long beat = heartbeat.beats();
        if (beat != lastBeat || ++pollsSinceClock >= CLOCK_POLLS)
        {
            // The clock is read only when the process's heartbeat ticked (every HEARTBEAT_INTERVAL_MS), not on
            // every poll, or after CLOCK_POLLS polls without a tick (a heartbeat thread that ended must not stop
            // the scans); a scan is due at most half an interval early so that a tick just before it is not lost.
            lastBeat = beat;
            pollsSinceClock = 0;
            final long now = System.currentTimeMillis();
            if (now >= nextScanMs - ShmConfiguration.SCAN_INTERVAL_MS / 2)
            {
                scan(now);
            }
        }
        if (handoff)
        {
            installHandoffs();
        }
        int work = 0;
        if (ownBroken || eventCount > 0)
        {
            // Events go first: the runtime must fail what a dead peer owed before any later frame is seen.
            return work;
        }
        current = handler;
        try
        {
            // Answers first: they complete operations and free what requests wait for.
            work += inboundAnswers.controlledRead(adapter, limit - work);
            return work >= limit ? work : work + inbound.controlledRead(adapter, limit - work);
        }
        catch (final InternalError ex)
        {
            // A fault (SIGBUS) reading our own mapped ring, or a peer's pool during a direct copy: the file was cut.
            onPollFault();
            return work;
        }
    }

    /**
     * {@inheritDoc} shm: the same search as a fault caught in {@link #poll} (own ring, own pool, a peer's pool).
     */
    @Override
    public void onFault(final Throwable fault)
    {
        onPollFault();
    }

    /**
     * A fault while frames were handled: our ring cut (stop reading it), our pool cut (a send to ourselves), or the
     * pool of the peer whose message was being copied directly (that peer is declared dead: the frame is lost).
     */
    private void onPollFault()
    {
        if (own.truncated() || !own.headerIntact())
        {
            breakOwn(false);
            return;
        }
        final ShmPool p = pool;
        if (null != p && p.truncated())
        {
            breakOwn(true);
            return;
        }
        boolean blamed = false;
        final ShmPeer[] ps = peers;
        for (int i = 1; i < ps.length; i++)
        {
            final ShmPeer peer = ps[i];
            if (null != peer && ShmPeer.LIVE == peer.state && null != peer.pool && peer.pool.truncated())
            {
                fail(peer);
                blamed = true;
            }
        }
        if (!blamed)
        {
            // A fault nobody can be found guilty of: our ring is the one we were reading; stop.
            breakOwn(false);
        }
    }

    private ControlledMessageHandler.Action onRecord(
        final int typeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final int slot = typeId - 1;
        if (slot < 0 || slot >= slotCount || length < MIN_FRAME_LENGTH)
        {
            dropped++;
            return ControlledMessageHandler.Action.COMMIT;
        }
        int entry = slotEntry[slot];
        final long writer = own.slotIncarnation(slot);
        if (entry < 0 || writer != slotIncarnation[slot])
        {
            entry = learnWriter(slot, writer);
            if (entry < 0)
            {
                dropped++;
                return ControlledMessageHandler.Action.COMMIT;
            }
        }
        if (eventCount > 0)
        {
            // A newer incarnation of the writer failed the old one: the runtime takes that event first.
            return ControlledMessageHandler.Action.ABORT;
        }
        // The writer put its own endpoint index in the source key; make it this domain's key for the writer.
        final int at = index + SOURCE_KEY_OFFSET;
        buffer.putLong(at, key(entry, (int) (buffer.getLong(at) & ENDPOINT_MASK)));
        // The incarnation that wrote this record (its sender slot's), for sourceEpoch: frames of an earlier
        // incarnation still queued, or a newer one's before it is mapped, keep their own flow-control account.
        deliveringEntry = entry;
        deliveringEpoch = writer;
        try
        {
            return current.onFrame(buffer, index, length) ?
                ControlledMessageHandler.Action.COMMIT : ControlledMessageHandler.Action.ABORT;
        }
        finally
        {
            deliveringEntry = -1;
        }
    }

    /**
     * First record from a sender slot, or the slot changed hands: find (or create) the entry of the writer's name
     * and, when this is a newer incarnation than the one mapped, fail the old one and map the new one.
     *
     * @return the entry index, or -1 when the slot names no valid writer.
     */
    private int learnWriter(final int slot, final long writer)
    {
        if (writer <= 0)
        {
            return -1;
        }
        final String writerName = own.slotName(slot);
        if (null == writerName)
        {
            return -1;
        }
        ShmPeer peer;
        synchronized (this)
        {
            peer = byName.get(writerName);
            if (null == peer)
            {
                peer = newPeer(writerName);
                publish(peer);
            }
        }
        if (0 != peer.index && (null == peer.file || writer > peer.incarnation))
        {
            final long now = System.currentTimeMillis();
            if (ShmPeer.LIVE == peer.state)
            {
                // A newer incarnation writes: the one we knew is gone, and with it everything it owed us.
                fail(peer);
            }
            peer.nextReattachMs = 0;
            reattach(peer, now);
        }
        if (writer >= peer.incarnation)
        {
            peer.inboundSlot = slot;
            peer.inboundIncarnation = writer;
        }
        slotEntry[slot] = peer.index;
        slotIncarnation[slot] = writer;
        return peer.index;
    }

    /**
     * Try to reach a dead peer's name again: a mapping handed over by the control path, or (rate-limited) a fresh
     * look at the file system.
     *
     * @return true when the peer is live now.
     */
    private boolean reattach(final ShmPeer peer, final long now)
    {
        if (closed || ownBroken)
        {
            return false;
        }
        ShmRingFile file = peer.pending.getAndSet(null);
        if (null == file && now >= peer.nextReattachMs)
        {
            peer.nextReattachMs = now + ShmConfiguration.REATTACH_INTERVAL_MS;
            try
            {
                file = ShmRingFile.openPeer(dir, peer.name);
            }
            catch (final FabricException ex)
            {
                file = null;
            }
        }
        if (null == file)
        {
            return false;
        }
        if (ShmPeer.LIVE == peer.state)
        {
            if (file.incarnation() <= peer.incarnation)
            {
                file.close();
                return true;
            }
            fail(peer);
        }
        return install(peer, file);
    }

    private void installHandoffs()
    {
        handoff = false;
        final ShmPeer[] ps = peers;
        for (int i = 1; i < ps.length; i++)
        {
            final ShmPeer peer = ps[i];
            if (null != peer && null != peer.pending.get())
            {
                reattach(peer, System.currentTimeMillis());
            }
        }
    }

    /**
     * Our own ring is damaged: stop reading it and touching it (a truncated file faults), stop its heartbeat, and
     * report every peer and ourselves down (the runtime fails every operation waiting for an answer with EIO);
     * later offers fail with EIO too ({@link #offer}), and AV inserts throw. The application learns it from its
     * completions instead of waiting forever for answers this domain can no longer read.
     */
    private void breakOwn(final boolean ringIntact)
    {
        if (ownBroken)
        {
            return;
        }
        ownBroken = true;
        if (ringIntact)
        {
            // Only our pool was cut: the ring is sound, so tell peers by its state word (they fail what they wait
            // for from us, and never read the cut pool again).
            own.markClosed();
        }
        ShmHeartbeat.instance().unregister(own);
        final ShmPeer[] ps = peers;
        for (int i = 1; i < ps.length; i++)
        {
            if (null != ps[i] && ShmPeer.LIVE == ps[i].state)
            {
                fail(ps[i]);
            }
        }
        report(key(0, 0), Errno.EIO.value(), null);
        final ShmPool p = pool;
        report(key(0, 0), Errno.EIO.value(), ringIntact && null != p ?
            "shm: domain " + name + ": its shared pool file " + p.path() + " was truncated" :
            "shm: domain " + name + ": its own ring file " + own.path() + " was damaged (overwritten or truncated)");
    }

    /**
     * The peer is gone: report it down (the runtime fails everything it owes with EIO), schedule its sender slot
     * for release once its last record has been read, unmap its file.
     */
    private void fail(final ShmPeer peer)
    {
        peer.state = ShmPeer.DEAD;
        report(key(peer.index, 0), Errno.EIO.value(), null);
        peersSeenDead.incrementRelease();
        if (ownBroken)
        {
            // Our own slot table cannot be trusted (nor touched, when truncated): no slot release.
            peer.inboundSlot = -1;
        }
        else if (peer.inboundSlot >= 0)
        {
            scheduleRelease(peer.inboundSlot, peer.inboundIncarnation, inbound.producerPosition(),
                inboundAnswers.producerPosition());
            peer.inboundSlot = -1;
        }
        if (!ownBroken)
        {
            releaseSlotsOf(peer, Math.max(peer.incarnation, peer.inboundIncarnation));
        }
        if (null != peer.file)
        {
            peer.file.close();
            peer.file = null;
            peer.ring = null;
            peer.answers = null;
        }
        closePool(peer);
        peer.nextReattachMs = 0;
    }

    /**
     * Every sender slot of our ring that an incarnation of the peer's name up to {@code upTo} holds (one per
     * incarnation that wrote to us, as restarted writers take fresh slots): released once read past.
     */
    private void releaseSlotsOf(final ShmPeer peer, final long upTo)
    {
        final long head = inbound.producerPosition();
        final long answerHead = inboundAnswers.producerPosition();
        for (int slot = 0; slot < slotCount; slot++)
        {
            final long writer = own.slotIncarnation(slot);
            if (writer > 0 && writer <= upTo && peer.name.equals(own.slotName(slot)))
            {
                scheduleRelease(slot, writer, head, answerHead);
            }
        }
    }

    private void scheduleRelease(
        final int slot, final long incarnation, final long position, final long answerPosition)
    {
        if (releaseCount == releaseSlot.length)
        {
            releaseSlot = Arrays.copyOf(releaseSlot, releaseCount * 2);
            releaseIncarnation = Arrays.copyOf(releaseIncarnation, releaseCount * 2);
            releasePosition = Arrays.copyOf(releasePosition, releaseCount * 2);
            releaseAnswerPosition = Arrays.copyOf(releaseAnswerPosition, releaseCount * 2);
        }
        releaseSlot[releaseCount] = slot;
        releaseIncarnation[releaseCount] = incarnation;
        releasePosition[releaseCount] = position;
        releaseAnswerPosition[releaseCount] = answerPosition;
        releaseCount++;
    }

    private void scan(final long now)
    {
        nextScanMs = now + ShmConfiguration.SCAN_INTERVAL_MS;
        if (ownBroken)
        {
            return;
        }
        if (own.truncated() || !own.headerIntact())
        {
            // Someone truncated or overwrote our own ring: reading it could fault. Peers see the damage too.
            breakOwn(false);
            return;
        }
        final ShmPool ownPool = pool;
        if (null != ownPool && ownPool.truncated())
        {
            // Our pool was cut: a send from it (or a peer's direct read of it) would fault.
            breakOwn(true);
            return;
        }
        own.heartbeat(now);
        final ShmPeer[] ps = peers;
        for (int i = 1; i < ps.length; i++)
        {
            final ShmPeer peer = ps[i];
            if (null == peer || ShmPeer.LIVE != peer.state)
            {
                continue;
            }
            final ShmRingFile file = peer.file;
            // One fstat per peer and scan: a file cut under its mapping faults when touched beyond its end.
            if (ShmRingDescriptor.STATE_ACTIVE != file.state() || !file.headerIntact() || file.truncated())
            {
                fail(peer);
            }
            else if (null != peer.pool && peer.pool.truncated())
            {
                // Its pool was cut under our mapping: what it sends from there can be read by nobody (it fails
                // itself the same way when it sees it).
                fail(peer);
            }
            else if (now - file.heartbeat() > ShmConfiguration.STALE_AFTER_MS && now >= peer.nextProcessCheckMs)
            {
                // A stale heartbeat asks the kernel: the incarnation's lock (never its pid, which another PID
                // namespace cannot see) decides.
                peer.nextProcessCheckMs = now + ShmConfiguration.PROCESS_CHECK_INTERVAL_MS;
                if (!ShmLiveness.alive(dir, peer.name, peer.incarnation, now - file.heartbeat()))
                {
                    fail(peer);
                }
            }
        }
        if (ownBroken)
        {
            return;
        }
        releaseDrainedSlots();
        unblockDeadClaims(inbound, 0, now);
        unblockDeadClaims(inboundAnswers, 1, now);
        if (now >= nextSlotSweepMs)
        {
            nextSlotSweepMs = now + ShmConfiguration.UNBLOCK_UNKNOWN_AFTER_MS;
            sweepDeadSlots();
        }
    }

    /**
     * Release the slots of dead incarnations this domain does not watch (a writer that claimed a slot and died or
     * closed before this domain learned of it): restarted writers take fresh slots, so without this the table
     * would fill up. Slots of live, known writers are skipped (no system call in steady state).
     */
    private void sweepDeadSlots()
    {
        final ShmPeer[] ps = peers;
        for (int slot = 0; slot < slotCount; slot++)
        {
            final long writer = own.slotIncarnation(slot);
            if (writer <= 0 || writer == own.incarnation() || releaseScheduled(slot, writer))
            {
                continue;
            }
            final int entry = slotEntry[slot];
            if (entry > 0 && entry < ps.length && null != ps[entry] && slotIncarnation[slot] == writer &&
                ShmPeer.LIVE == ps[entry].state && ps[entry].incarnation == writer)
            {
                continue;
            }
            if (slotWriterDead(slot))
            {
                scheduleRelease(slot, writer, inbound.producerPosition(), inboundAnswers.producerPosition());
            }
        }
    }

    private boolean releaseScheduled(final int slot, final long incarnation)
    {
        for (int i = 0; i < releaseCount; i++)
        {
            if (releaseSlot[i] == slot && releaseIncarnation[i] == incarnation)
            {
                return true;
            }
        }
        return false;
    }

    private void releaseDrainedSlots()
    {
        if (0 == releaseCount)
        {
            return;
        }
        final long head = inbound.consumerPosition();
        final long answerHead = inboundAnswers.consumerPosition();
        int kept = 0;
        for (int i = 0; i < releaseCount; i++)
        {
            if (head >= releasePosition[i] && answerHead >= releaseAnswerPosition[i])
            {
                own.releaseSlot(releaseSlot[i], releaseIncarnation[i]);
                if (slotIncarnation[releaseSlot[i]] == releaseIncarnation[i])
                {
                    slotEntry[releaseSlot[i]] = -1;
                }
            }
            else
            {
                releaseSlot[kept] = releaseSlot[i];
                releaseIncarnation[kept] = releaseIncarnation[i];
                releasePosition[kept] = releasePosition[i];
                releaseAnswerPosition[kept] = releaseAnswerPosition[i];
                kept++;
            }
        }
        releaseCount = kept;
    }

    /**
     * A writer that died between claiming and committing a record leaves it uncommitted at the head of the ring,
     * and nothing behind it can be read. When the head has not moved since the last scan and holds such a claim
     * of a dead writer, turn it into padding ({@code ManyToOneRingBuffer.unblock}, as the Aeron driver does for
     * dead clients). A claim whose writer cannot be told is unblocked after
     * {@link ShmConfiguration#UNBLOCK_UNKNOWN_AFTER_MS} if any writer of the ring is dead.
     */
    private void unblockDeadClaims(final ManyToOneRingBuffer ring, final int which, final long now)
    {
        final long head = ring.consumerPosition();
        if (head != lastHead[which] || head == ring.producerPosition())
        {
            lastHead[which] = head;
            stuckSinceMs[which] = now;
            return;
        }
        final AtomicBuffer buffer = ring.buffer();
        final int headIndex = (int) (head & (ring.capacity() - 1));
        if (buffer.getIntVolatile(RecordDescriptor.lengthOffset(headIndex)) > 0)
        {
            // A committed record: the agent is back-pressured (a full CQ), not blocked.
            stuckSinceMs[which] = now;
            return;
        }
        final int slot = buffer.getInt(RecordDescriptor.typeOffset(headIndex)) - 1;
        // The slot still names the incarnation that made the claim: a restarted writer never takes it over.
        final boolean writerDead = slot >= 0 && slot < slotCount && slotWriterDead(slot);
        if ((writerDead && now - stuckSinceMs[which] >= ShmConfiguration.SCAN_INTERVAL_MS) ||
            (now - stuckSinceMs[which] >= ShmConfiguration.UNBLOCK_UNKNOWN_AFTER_MS && anyWriterDead()))
        {
            ring.unblock();
            stuckSinceMs[which] = now;
            if (writerDead)
            {
                // Nothing more can come from that incarnation: its slot is free once read past.
                scheduleRelease(slot, own.slotIncarnation(slot), inbound.producerPosition(),
                    inboundAnswers.producerPosition());
            }
        }
    }

    private boolean anyWriterDead()
    {
        for (int slot = 0; slot < slotCount; slot++)
        {
            if (slotWriterDead(slot))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Is the incarnation holding a sender slot known dead (its liveness lock free or gone)? Unknown counts as
     * alive. Control-path cost (opens a file): called only for a ring whose head is stuck.
     */
    private boolean slotWriterDead(final int slot)
    {
        final long writer = own.slotIncarnation(slot);
        if (writer <= 0 || writer == own.incarnation())
        {
            return false;
        }
        // A slot whose name is not written yet is being claimed by a living writer.
        final String writerName = own.slotName(slot);
        return null != writerName && ShmLiveness.DEAD == ShmLiveness.check(dir, writerName, writer);
    }

    /**
     * Close: mark the ring closed (peers fail what they wait for from us), stop the heartbeat, remove the file,
     * unmap everything. The agent must have stopped.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (!ownBroken && !own.truncated())
        {
            own.markClosed();
        }
        ShmHeartbeat.instance().unregister(own);
        own.delete();
        synchronized (this)
        {
            for (final ShmPeer peer : peers)
            {
                if (null == peer || 0 == peer.index)
                {
                    continue;
                }
                if (null != peer.file)
                {
                    peer.file.close();
                    peer.file = null;
                }
                closePool(peer);
                final ShmRingFile pendingFile = peer.pending.getAndSet(null);
                if (null != pendingFile)
                {
                    pendingFile.close();
                }
                peer.state = ShmPeer.DEAD;
            }
        }
        eventCount = 0;
        synchronized (poolLock)
        {
            if (null != pool)
            {
                pool.close();
            }
        }
        own.close();
    }

    /**
     * {@inheritDoc}
     * <p>
     * The pool file is created on the first call ({@link ShmConfiguration#POOL_SIZE_PROP} bytes) and announced in
     * this domain's ring header.
     *
     * @throws FabricException EOPNOTSUPP when the pool is disabled (size 0); ENOMEM when exhausted; EIO when the
     *                         file cannot be created.
     */
    @Override
    public AtomicBuffer allocateShared(final int length)
    {
        synchronized (poolLock)
        {
            if (closed)
            {
                throw new FabricException(Errno.EINVAL, "shm: domain " + name + " is closed");
            }
            ShmPool p = pool;
            if (null == p)
            {
                final long size = ShmConfiguration.poolSize();
                if (0 == size)
                {
                    throw new FabricException(Errno.EOPNOTSUPP, "shm: the shared pool is disabled (" +
                        ShmConfiguration.POOL_SIZE_PROP + "=0)");
                }
                p = ShmPool.create(dir, name, own.incarnation(), size);
                pool = p;
                // Release: the file is in place before peers learn that it exists.
                own.announcePool(size);
            }
            return p.allocate(length);
        }
    }

    @Override
    public boolean freeShared(final DirectBuffer buffer)
    {
        final ShmPool p = pool;
        return null != p && p.free(buffer);
    }

    /**
     * {@inheritDoc}
     * <p>
     * A range is readable when it lies in the peer's shared pool and the peer is live with its ring still active
     * (checked now, before every copy). The peer's pool file is mapped on the first such request of each peer
     * incarnation (control-path work on the agent, once). A peer that dies or closes after this check leaves the
     * pages mapped here until the agent notices (removing a file does not take pages from a mapping), so the copy
     * reads stale but valid memory, never past the mapping.
     */
    @Override
    public long directAddress(final long peerKey, final long address, final long length)
    {
        final int entry = (int) (peerKey >>> ENDPOINT_BITS);
        final ShmPeer[] ps = peers;
        if (peerKey < 0 || entry >= ps.length || null == ps[entry] || length <= 0)
        {
            return 0;
        }
        if (0 == entry)
        {
            final ShmPool p = pool;
            final long local = null == p ? 0 : p.localAddress(address, length);
            if (0 != local)
            {
                if (p.truncated())
                {
                    // One fstat before every direct copy: a copy from a cut file would fault.
                    breakOwn(true);
                    return 0;
                }
                directReads++;
            }
            return local;
        }
        final ShmPeer peer = ps[entry];
        final ShmRingFile file = peer.file;
        if (ShmPeer.LIVE != peer.state || null == file || ShmRingDescriptor.STATE_ACTIVE != file.state())
        {
            return 0;
        }
        ShmPeerPool mapped = peer.pool;
        if (null != mapped && mapped.ringIncarnation() != peer.incarnation)
        {
            closePool(peer);
            mapped = null;
        }
        if (null == mapped)
        {
            final long announced = file.poolLength();
            if (0 == announced || peer.poolFailedIncarnation == peer.incarnation)
            {
                return 0;
            }
            mapped = ShmPeerPool.open(dir, peer.name, peer.incarnation, file.pid(), announced);
            if (null == mapped)
            {
                peer.poolFailedIncarnation = peer.incarnation;
                return 0;
            }
            peer.pool = mapped;
        }
        final long local = mapped.translate(address, length);
        if (0 != local)
        {
            if (mapped.truncated())
            {
                // One fstat before every direct copy: a copy from a cut file would fault.
                fail(peer);
                return 0;
            }
            directReads++;
        }
        return local;
    }

    /**
     * {@inheritDoc}
     * <p>
     * {@code -EIO} once this domain's own ring was cut or overwritten: nothing can arrive any more ({@code breakOwn}
     * reported every peer down; the agent fails the posted receives).
     */
    @Override
    public int status()
    {
        return ownBroken ? Errno.EIO.negated() : 0;
    }

    /**
     * {@inheritDoc}
     * <p>
     * The incarnation of the peer's ring file while it is live, a different value once it is declared dead; a
     * restart under the same name (same keys) maps a newer incarnation. This domain itself: its own incarnation.
     */
    @Override
    public long peerEpoch(final long peerKey)
    {
        final int entry = (int) (peerKey >>> ENDPOINT_BITS);
        final ShmPeer[] ps = peers;
        if (peerKey < 0 || entry >= ps.length || null == ps[entry])
        {
            return 0;
        }
        final ShmPeer peer = ps[entry];
        return ShmPeer.LIVE == peer.state ? peer.incarnation : ~peer.incarnation;
    }

    /**
     * {@inheritDoc}
     * <p>
     * While a record is being delivered: the incarnation of the writer whose sender slot it came from (a restarted
     * peer writes through a fresh slot), else {@link #peerEpoch}.
     */
    @Override
    public long sourceEpoch(final long peerKey)
    {
        if (deliveringEntry >= 0 && (int) (peerKey >>> ENDPOINT_BITS) == deliveringEntry && peerKey >= 0)
        {
            return deliveringEpoch;
        }
        return peerEpoch(peerKey);
    }

    /**
     * @return ranges {@link #directAddress} answered as readable (the agent copies a message directly only when
     * every one of its segments is; agent thread; read it after a completion the agent published, for tests and
     * diagnostics).
     */
    long directReads()
    {
        return directReads;
    }

    private static void closePool(final ShmPeer peer)
    {
        if (null != peer.pool)
        {
            peer.pool.close();
            peer.pool = null;
        }
    }

    /**
     * @return this domain's shared pool, null until the first allocation (for tests).
     */
    ShmPool pool()
    {
        return pool;
    }

    @Override
    public String toString()
    {
        return "ShmDomainTransport{" + ShmAddress.SCHEME + name + ", " + own.path() + "}";
    }

    /**
     * {@inheritDoc}
     * <p>
     * shm: the file {@code <name>.av} in the shm directory, shared by the processes of this user (see
     * {@link ShmSharedAddressTable}).
     */
    @Override
    public SharedAddressTable sharedAddressTable(final String name, final boolean create, final int capacity)
    {
        return create ? ShmSharedAddressTable.create(dir, name, capacity) : ShmSharedAddressTable.open(dir, name);
    }
}
