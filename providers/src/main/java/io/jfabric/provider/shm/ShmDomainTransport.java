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
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The shm back-end of one domain. The domain owns a mapped ring file (header, heartbeat, sender table: see
 * {@link ShmRingDescriptor}). Every writer domain incarnation, this one included, creates its own lane file into
 * it ({@link ShmLaneFile}: a request ring and an answer ring, single producer) and announces it in a sender slot
 * claimed under a file lock; the agent polls every announced lane, answers first, round-robin with a bounded batch
 * per lane, so no peer starves another. No update of mapped memory is atomic (no CAS, which HotSpot 17 cannot
 * survive on a file cut under the mapping when it runs interpreted).
 * <p>
 * Peer keys are {@code entry << 16 | endpoint}: the entry is this domain's index for a peer name
 * ({@link ShmPeer}, 0 = itself), stable for the life of the domain, so a restarted peer keeps its keys. The lane a
 * record came from names its writer; the receiver rewrites the frame's source key to its entry for that name before
 * the agent sees it.
 * <p>
 * Liveness: the agent's {@link #poll} runs a scan every {@link ShmConfiguration#SCAN_INTERVAL_MS} (it reads the
 * clock only when the process's {@link ShmHeartbeat} ticked, not on every poll): a peer whose
 * file is closed, overwritten or truncated, or whose heartbeat is stale and whose incarnation's liveness lock is
 * free or gone ({@link ShmLiveness}; never a pid lookup), is dead. The transport reports it to the runtime
 * ({@link TransportEventHandler#onPeerDown} with {@code EIO}; the runtime fails what it awaits from that peer) and
 * delivers no further frame until the runtime has taken the event; later offers to it fail with
 * {@code -EIO} until its name is owned again (checked on demand, at most every
 * {@link ShmConfiguration#REATTACH_INTERVAL_MS}). A dead writer's lane is read to its end, then dropped (unmapped,
 * removed, its slot released); a record it claimed but never committed keeps a negative length and is never read,
 * and it blocks nobody else, as no other writer shares the lane. A damaged own ring fails every operation with
 * {@code EIO} instead of going deaf.
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
    /** The record type of every frame in a lane (the lane names its writer). */
    static final int RECORD_TYPE = 1;
    /** Records read from one lane per poll before the next lane's turn. */
    static final int LANE_BATCH = 32;

    /** The socket format of the domain's info, or null ({@code FI_ADDR_STR}); set once after open. */
    private volatile io.jfabric.AddressFormat socketFormat;
    private final ShmRingFile own;
    private final String name;
    private final int laneCapacity;
    private final int maxFrameLength;
    private final int slotCount;
    /** Inbound lanes by sender slot (null: none), and the slots that have one, polled round-robin from cursor. */
    private final ShmInboundLane[] lanes;
    private final int[] active;
    private int activeCount;
    private int cursor;
    private long seenGeneration = -1;
    /** A slot whose lane could not be mapped: the writer incarnation refused (retried when the slot changes). */
    private final long[] refused;
    private ShmInboundLane reading;
    /** The reader side of this domain's lane to itself: polled only while something sent to itself is unread. */
    private ShmInboundLane selfLane;
    private boolean selfPending;
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
    /** Our own ring was found damaged: nothing is read from it any more and every operation fails (EIO). */
    private volatile boolean ownBroken;
    private long dropped;

    private ShmDomainTransport(final Path dir, final ShmRingFile own, final ShmLaneFile ownLane, final int capacity)
    {
        this.dir = dir;
        this.own = own;
        this.name = own.name();
        this.laneCapacity = capacity;
        this.maxFrameLength = ownLane.requests().maxMsgLength();
        this.slotCount = own.slotCount();
        this.lanes = new ShmInboundLane[slotCount];
        this.active = new int[slotCount];
        this.refused = new long[slotCount];
        final ShmPeer self = new ShmPeer(0, name);
        self.file = own;
        self.lane = ownLane;
        self.ring = ownLane.requests();
        self.answers = ownLane.answers();
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
        // The lane to itself (sends to its own addresses), reserved now: a full file system answers at open.
        ShmLaneFile selfLane = null;
        try
        {
            selfLane = ShmLaneFile.writer(dir, file.name(), file.incarnation(), file.name(), file.incarnation(),
                capacity);
            if (file.claimSlot(file.incarnation(), file.name().getBytes(StandardCharsets.US_ASCII)) < 0)
            {
                throw new FabricException(Errno.EIO, "shm: no sender slot for itself in " + file.path());
            }
        }
        catch (final RuntimeException ex)
        {
            if (null != selfLane)
            {
                selfLane.close();
                selfLane.delete();
            }
            file.delete();
            file.close();
            throw ex;
        }
        final ShmDomainTransport transport = new ShmDomainTransport(dir, file, selfLane, capacity);
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
        return maxFrameLength;
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
    public long contextKey(final long peerKey, final int offset)
    {
        // Keys are peer entry << ENDPOINT_BITS | endpointIndex: the next endpoints of one peer are the next keys.
        return peerKey < 0 || offset < 0 || (peerKey & ENDPOINT_MASK) + offset > ENDPOINT_MASK ? -1 : peerKey + offset;
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
        final ShmPeer.Attachment attachment;
        try
        {
            attachment = attach(file);
        }
        catch (final RuntimeException ex)
        {
            file.close();
            throw ex;
        }
        if (null == attachment)
        {
            // No free slot: a table of no slots, or a file cut under its mapping since it was opened, is a damaged
            // peer ring (EIO), not a full one (seen when a ring was cut while it was being inserted).
            final boolean damaged = file.slotCount() <= 0 || file.truncated();
            file.close();
            throw damaged ?
                new FabricException(Errno.EIO, "shm: the ring file of " + parsed.text() + " was cut or damaged (" +
                file.slotCount() + " sender slots)") :
                new FabricException(Errno.ENOSPC, "shm: the sender table of " + parsed.text() + " is full (" +
                file.slotCount() + " writers)");
        }
        synchronized (this)
        {
            peer = byName.get(parsed.name());
            if (null == peer)
            {
                peer = newPeer(parsed.name());
                install(peer, attachment);
                publish(peer);
            }
            else
            {
                // The agent owns the entry: hand the mapping over, it installs it on its next duty cycle.
                final ShmPeer.Attachment previous = peer.pending.getAndSet(attachment);
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
     * Create (or map again) our lane file into a peer's mapped ring file and announce it in its sender table.
     *
     * @return the attachment, or null when the peer's sender table is full (the lane file is removed; the ring
     * file is left to the caller).
     * @throws FabricException ENOSPC when the lane file does not fit; EIO on file errors (the ring file is left to
     *                         the caller).
     */
    private ShmPeer.Attachment attach(final ShmRingFile file)
    {
        final ShmLaneFile lane = ShmLaneFile.writer(dir, file.name(), file.incarnation(), name, own.incarnation(),
            laneCapacity);
        final int slot;
        try
        {
            slot = file.claimSlot(own.incarnation(), peersSelfName());
        }
        catch (final RuntimeException ex)
        {
            lane.close();
            lane.delete();
            throw ex;
        }
        if (slot < 0)
        {
            lane.close();
            lane.delete();
            return null;
        }
        return new ShmPeer.Attachment(file, lane);
    }

    /**
     * Point an entry at a peer's mapped file and our announced lane into it.
     */
    private void install(final ShmPeer peer, final ShmPeer.Attachment attachment)
    {
        peer.file = attachment.file();
        peer.lane = attachment.lane();
        peer.ring = attachment.lane().requests();
        peer.answers = attachment.lane().answers();
        peer.incarnation = attachment.file().incarnation();
        peer.nextProcessCheckMs = 0;
        peer.state = ShmPeer.LIVE;
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
        final OneToOneRingBuffer ring = LANE_ANSWER == lane ? peer.answers : peer.ring;
        final int length = headerLength + payloadLength;
        if (length > ring.maxMsgLength())
        {
            return Errno.EMSGSIZE.negated();
        }
        try
        {
            final int index = ring.tryClaim(RECORD_TYPE, length);
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
            if (0 == entry)
            {
                selfPending = true;
            }
        }
        catch (final InternalError ex)
        {
            // The JVM's answer to a fault in a mapped file (SIGBUS): our lane into the peer (the destination) or our
            // own pool (the source of a send from a pool block) was cut under us. Find which: one fstat each.
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
        else if (null != p && p.truncated() && null != peer.lane && !peer.lane.truncated())
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
        if (ownBroken)
        {
            return 0;
        }
        int work = 0;
        current = handler;
        try
        {
            if (own.slotGeneration() != seenGeneration)
            {
                // A writer announced (or we released) a lane: one pass over the sender table.
                refreshLanes();
            }
            if (eventCount > 0)
            {
                // Events go first: the runtime must fail what a dead peer owed before any later frame is seen.
                return work;
            }
            if (selfPending && null != selfLane)
            {
                // Sends to itself: read only while some are unread (no empty polls of an idle lane per cycle).
                reading = selfLane;
                work += selfLane.answers.controlledRead(adapter, Math.min(LANE_BATCH, limit - work));
                if (work < limit)
                {
                    work += selfLane.requests.controlledRead(adapter, Math.min(LANE_BATCH, limit - work));
                }
                selfPending = !selfLane.file.drained();
            }
            final int n = activeCount;
            if (0 == n)
            {
                return work;
            }
            // Round-robin start and a bounded batch per lane: no writer starves another. Answers first: they
            // complete operations and free what requests wait for.
            final int start = cursor >= n ? 0 : cursor;
            cursor = start + 1 >= n ? 0 : start + 1;
            int at = start;
            for (int i = 0; i < n && work < limit; i++)
            {
                reading = lanes[active[at]];
                work += reading.answers.controlledRead(adapter, Math.min(LANE_BATCH, limit - work));
                at = at + 1 == n ? 0 : at + 1;
            }
            at = start;
            for (int i = 0; i < n && work < limit; i++)
            {
                reading = lanes[active[at]];
                work += reading.requests.controlledRead(adapter, Math.min(LANE_BATCH, limit - work));
                at = at + 1 == n ? 0 : at + 1;
            }
            return work;
        }
        catch (final InternalError ex)
        {
            // A fault (SIGBUS) reading a mapped lane or our own ring file, or a peer's pool during a direct copy:
            // a file was cut.
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
        if (null != selfLane && selfLane.file.truncated())
        {
            breakOwn(false);
            return;
        }
        for (int i = activeCount - 1; i >= 0; i--)
        {
            final ShmInboundLane lane = lanes[active[i]];
            if (lane.file.truncated())
            {
                if (0 == lane.entry)
                {
                    breakOwn(false);
                    return;
                }
                failLane(i);
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
        if (length < MIN_FRAME_LENGTH)
        {
            dropped++;
            return ControlledMessageHandler.Action.COMMIT;
        }
        if (eventCount > 0)
        {
            // A peer was failed while frames were handled: the runtime takes that event first.
            return ControlledMessageHandler.Action.ABORT;
        }
        final ShmInboundLane lane = reading;
        // The writer put its own endpoint index in the source key; make it this domain's key for the writer.
        final int at = index + SOURCE_KEY_OFFSET;
        buffer.putLong(at, key(lane.entry, (int) (buffer.getLong(at) & ENDPOINT_MASK)));
        // The incarnation that wrote this record (its lane's), for sourceEpoch: frames of an earlier incarnation
        // still queued, or a newer one's before it is mapped, keep their own flow-control account.
        deliveringEntry = lane.entry;
        deliveringEpoch = lane.writer;
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
     * The sender table changed: map the lane of every newly announced writer (control-path work on the agent, once
     * per writer incarnation; nothing is allocated when nothing changed).
     */
    private void refreshLanes()
    {
        seenGeneration = own.slotGeneration();
        for (int slot = 0; slot < slotCount; slot++)
        {
            final long writer = own.slotIncarnation(slot);
            final ShmInboundLane lane = lanes[slot];
            if (null != lane)
            {
                if (lane.writer == writer || lane == selfLane)
                {
                    continue;
                }
                // Only this domain releases its slots: a slot that changed under a lane means a damaged table.
                dropLane(indexOfActive(slot), false);
            }
            if (writer <= 0 || refused[slot] == writer)
            {
                continue;
            }
            final String writerName = own.slotName(slot);
            if (null == writerName)
            {
                continue;
            }
            ShmLaneFile file;
            try
            {
                file = ShmLaneFile.reader(dir, name, own.incarnation(), writerName, writer);
            }
            catch (final FabricException ex)
            {
                file = null;
                // The live incarnation of a peer we know announced a lane we cannot map (cut or damaged before we
                // mapped it): nothing it sends can reach us, so what we await from it would wait for ever. It is
                // failed (EIO), as for a lane cut under our mapping.
                failWriter(writerName, writer);
            }
            final int entry = null == file ? -1 : learnWriter(writer, writerName);
            if (entry < 0)
            {
                if (null != file)
                {
                    file.close();
                }
                // Swept (slot released) once its writer is dead.
                refused[slot] = writer;
                continue;
            }
            lanes[slot] = new ShmInboundLane(slot, writer, writerName, entry, file);
            if (0 == entry && writer == own.incarnation())
            {
                selfLane = lanes[slot];
                selfPending = true;
            }
            else
            {
                active[activeCount++] = slot;
            }
        }
    }

    private void failWriter(final String writerName, final long writer)
    {
        final ShmPeer peer;
        synchronized (this)
        {
            peer = byName.get(writerName);
        }
        if (null != peer && 0 != peer.index && ShmPeer.LIVE == peer.state && peer.incarnation == writer)
        {
            fail(peer);
        }
    }

    private int indexOfActive(final int slot)
    {
        for (int i = 0; i < activeCount; i++)
        {
            if (active[i] == slot)
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * Stop reading a lane: unmap it and, when {@code release}, remove its file and free its sender slot.
     */
    private void dropLane(final int activeIndex, final boolean release)
    {
        final int slot = active[activeIndex];
        final ShmInboundLane lane = lanes[slot];
        lanes[slot] = null;
        active[activeIndex] = active[--activeCount];
        if (cursor >= activeCount)
        {
            cursor = 0;
        }
        lane.file.close();
        if (release)
        {
            lane.file.delete();
            if (!ownBroken)
            {
                own.releaseSlot(slot, lane.writer);
            }
        }
    }

    /**
     * An inbound lane was cut under its mapping: stop reading it, and fail its writer if it is the live one.
     */
    private void failLane(final int activeIndex)
    {
        final ShmInboundLane lane = lanes[active[activeIndex]];
        final ShmPeer peer = peers[lane.entry];
        dropLane(activeIndex, true);
        if (ShmPeer.LIVE == peer.state && peer.incarnation == lane.writer)
        {
            fail(peer);
        }
    }

    /**
     * A newly announced writer: find (or create) the entry of its name and, when this is a newer incarnation than
     * the one mapped, fail the old one and map the new one (to answer it).
     *
     * @return the entry index.
     */
    private int learnWriter(final long writer, final String writerName)
    {
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
        ShmPeer.Attachment attachment = peer.pending.getAndSet(null);
        if (null == attachment && now >= peer.nextReattachMs)
        {
            peer.nextReattachMs = now + ShmConfiguration.REATTACH_INTERVAL_MS;
            ShmRingFile file = null;
            try
            {
                file = ShmRingFile.openPeer(dir, peer.name);
                if (null != file && ShmPeer.LIVE == peer.state && file.incarnation() <= peer.incarnation)
                {
                    file.close();
                    return true;
                }
                attachment = null == file ? null : attach(file);
            }
            catch (final FabricException ex)
            {
                attachment = null;
            }
            if (null == attachment && null != file)
            {
                file.close();
            }
        }
        if (null == attachment)
        {
            return false;
        }
        if (ShmPeer.LIVE == peer.state)
        {
            if (attachment.file().incarnation() <= peer.incarnation)
            {
                attachment.close();
                return true;
            }
            fail(peer);
        }
        install(peer, attachment);
        return true;
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
     * The peer is gone: report it down (the runtime fails everything it owes with EIO) and unmap its file and our
     * lane into it; the lane file stays for its reader to drain unless the reader is dead (then it is removed now).
     * Its lanes into us are read to their end and dropped by the scan once it is dead.
     */
    private void fail(final ShmPeer peer)
    {
        peer.state = ShmPeer.DEAD;
        report(key(peer.index, 0), Errno.EIO.value(), null);
        peersSeenDead.incrementRelease();
        if (null != peer.lane)
        {
            peer.lane.close();
            if (ShmLiveness.DEAD == ShmLiveness.check(dir, peer.name, peer.incarnation))
            {
                peer.lane.delete();
            }
            peer.lane = null;
            peer.ring = null;
            peer.answers = null;
        }
        if (null != peer.file)
        {
            peer.file.close();
            peer.file = null;
        }
        closePool(peer);
        peer.nextReattachMs = 0;
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
            if (!file.headerIntact() || file.truncated())
            {
                fail(peer);
            }
            else if (ShmRingDescriptor.STATE_ACTIVE != file.state())
            {
                // Closed in order: what it wrote before closing (the answer to a delivery-complete send, say) is
                // read first; it is failed at the first scan that finds its lane drained.
                if (!unreadFrom(peer))
                {
                    fail(peer);
                }
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
                    if (unreadFrom(peer))
                    {
                        // Dead, but what it committed before dying is read first: asked again at the next scan.
                        peer.nextProcessCheckMs = 0;
                    }
                    else
                    {
                        fail(peer);
                    }
                }
            }
        }
        if (ownBroken)
        {
            return;
        }
        dropDeadLanes(now);
        if (now >= nextSlotSweepMs)
        {
            nextSlotSweepMs = now + ShmConfiguration.SLOT_SWEEP_INTERVAL_MS;
            sweepRefusedSlots();
        }
    }

    /**
     * Is a committed frame of the peer's live incarnation still unread in its lane into us (never when that lane was
     * cut: it cannot be read)?
     */
    private boolean unreadFrom(final ShmPeer peer)
    {
        for (int i = 0; i < activeCount; i++)
        {
            final ShmInboundLane lane = lanes[active[i]];
            if (lane.entry == peer.index && lane.writer == peer.incarnation)
            {
                return !lane.file.truncated() && !lane.file.drained();
            }
        }
        return false;
    }

    /**
     * Drop the lanes of dead writers once read to their end (a claim never committed counts as nothing), and the
     * lanes cut under their mapping. A lane of the live incarnation of its entry costs nothing here but one fstat.
     */
    private void dropDeadLanes(final long now)
    {
        if (null != selfLane && selfLane.file.truncated())
        {
            breakOwn(false);
            return;
        }
        final ShmPeer[] ps = peers;
        for (int i = activeCount - 1; i >= 0; i--)
        {
            final ShmInboundLane lane = lanes[active[i]];
            if (lane.file.truncated())
            {
                if (0 == lane.entry)
                {
                    breakOwn(false);
                    return;
                }
                failLane(i);
                continue;
            }
            final ShmPeer peer = ps[lane.entry];
            if (0 == lane.entry || (ShmPeer.LIVE == peer.state && peer.incarnation == lane.writer) ||
                now < lane.nextCheckMs)
            {
                continue;
            }
            lane.nextCheckMs = now + ShmConfiguration.SCAN_INTERVAL_MS;
            // Dead first, drained second: a record committed just before the writer died is seen by the second.
            if (ShmLiveness.DEAD == ShmLiveness.check(dir, lane.writerName, lane.writer) && lane.file.drained())
            {
                dropLane(i, true);
            }
        }
    }

    /**
     * Free the slots whose lane could not be mapped (its file gone or damaged) once their writer is dead, so that
     * the table does not fill up with restarted writers' old slots.
     */
    private void sweepRefusedSlots()
    {
        for (int slot = 0; slot < slotCount; slot++)
        {
            final long writer = refused[slot];
            if (0 != writer && null == lanes[slot])
            {
                if (own.slotIncarnation(slot) != writer)
                {
                    refused[slot] = 0;
                }
                else if (ShmLiveness.DEAD == ShmLiveness.check(dir, own.slotName(slot), writer))
                {
                    own.releaseSlot(slot, writer);
                    refused[slot] = 0;
                }
                else
                {
                    // A live writer whose lane we could not map, that we have since come to know as a peer (we
                    // inserted it after its lane was refused): nothing it sends reaches us, so it is failed.
                    failWriter(own.slotName(slot), writer);
                }
            }
        }
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
                if (null != peer.lane)
                {
                    // Left for its reader to drain (what we sent before closing still arrives) unless it is gone.
                    peer.lane.close();
                    if (ShmPeer.LIVE != peer.state ||
                        ShmLiveness.DEAD == ShmLiveness.check(dir, peer.name, peer.incarnation))
                    {
                        peer.lane.delete();
                    }
                    peer.lane = null;
                }
                if (null != peer.file)
                {
                    peer.file.close();
                    peer.file = null;
                }
                closePool(peer);
                final ShmPeer.Attachment pendingAttachment = peer.pending.getAndSet(null);
                if (null != pendingAttachment)
                {
                    pendingAttachment.close();
                }
                peer.state = ShmPeer.DEAD;
            }
            final ShmPeer self = peers[0];
            self.lane.close();
            self.lane.delete();
        }
        // Our inbound lanes: nobody reads them any more (orphans are removed by the stale-file scan).
        if (null != selfLane)
        {
            lanes[selfLane.slot] = null;
            selfLane.file.close();
            selfLane = null;
        }
        while (activeCount > 0)
        {
            final ShmInboundLane lane = lanes[active[activeCount - 1]];
            lanes[lane.slot] = null;
            activeCount--;
            lane.file.close();
            lane.file.delete();
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
