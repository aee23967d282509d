package io.jfabric.loadtest;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.EqEntry;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.PassiveEndpoint;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One side of a ping-pong: a fabric, a domain, a completion queue, an endpoint (with its address vector for RDM
 * and DGRAM, its event queue for MSG), one transmit and one receive buffer, and the three data-path primitives the
 * ping-pong loops are made of: {@link #postRecv(int)}, {@link #send(int)} and {@link #awaitRecv(int)}.
 * <p>
 * Sends go as {@code fi_inject}/{@code fi_tinject} below the provider's inject size and as {@code fi_send}/
 * {@code fi_tsend} above it (as {@code fi_pingpong} does); the transmit side is bound with
 * {@code FI_SELECTIVE_COMPLETION} and sends are posted without {@code FI_COMPLETION}, so only receives (and
 * errors) produce completions. The transmit buffer is reused once the peer's answer arrived, which implies the
 * send is done.
 * <p>
 * Data path: the primitives return {@code 0} or {@code -errno}, never throw and never allocate. Every wait has a
 * deadline ({@code -ETIMEDOUT}) and ends early with {@code -ECANCELED} once {@link #abort()} was called (from
 * another thread, for example when the control connection to the peer is lost).
 * <p>
 * Threading: one application thread drives the data path; {@link #abort()} is safe from any thread. The bench
 * harness drives two sides from one thread by letting the waiting side {@link #assist(PingpongEndpoint) assist}
 * the other's manual progress.
 */
public final class PingpongEndpoint implements AutoCloseable
{
    /** The tag of every ping-pong message in tagged mode. */
    public static final long TAG = 0x5050;
    /** Smallest buffer allocated, so that zero-byte runs still have an address. */
    private static final int MIN_BUFFER = 64;
    private static final int CQ_SIZE = 64;
    private static final int DEADLINE_CHECK_MASK = 255;
    private static final int EVENT_SLICE_MS = 100;
    private static final int WAIT_SPINS = 1000;
    private static final int WAIT_YIELDS = 10;
    private static final long WAIT_MIN_PARK_NS = 1_000;
    private static final long WAIT_MAX_PARK_NS = 1_000_000;
    /** A one-cycle wait reads the queue at least once in this many idle rounds (a power of two). */
    private static final int READ_EVERY = 8;

    private final Fabric fabric;
    private final EventQueue eq;
    private final PassiveEndpoint pep;
    private final Domain domain;
    private final AddressVector av;
    private final CompletionQueue cq;
    private final Endpoint ep;
    private final UnsafeBuffer tx;
    private final UnsafeBuffer rx;
    private final boolean tagged;
    private final boolean manual;
    private final int injectSize;
    private final IdleStrategy idle;
    /** The wait idles by spinning: its work count is not used, so the read's own duty cycle is the round's only one. */
    private final boolean spinWait;
    /**
     * Manual progress over a network ({@link #overNetwork(Info)}) with a backing-off wait: each idle round runs one
     * duty cycle ({@link Domain#progress()}) and reads the queue only when it did work ({@link #READ_EVERY} rounds
     * at least), where a read that finds the queue empty would run a second one (as Aeron's ping polls once per
     * idle round).
     */
    private final boolean oneCycleWait;
    private final long timeoutNs;
    private final CompletionEntry entry = new CompletionEntry();
    private final CompletionErrorEntry errorEntry = new CompletionErrorEntry();
    private long peer = AddressVector.ADDR_UNSPEC;
    private PingpongEndpoint assist;
    private int lastProviderError;
    private volatile boolean aborted;

    private PingpongEndpoint(
        final Fabric fabric, final EventQueue eq, final PassiveEndpoint pep, final Domain domain,
        final AddressVector av, final CompletionQueue cq, final Endpoint ep, final Info info, final boolean tagged,
        final int maxSize, final String waitIdle, final long timeoutNs)
    {
        this.fabric = fabric;
        this.eq = eq;
        this.pep = pep;
        this.domain = domain;
        this.av = av;
        this.cq = cq;
        this.ep = ep;
        this.tagged = tagged;
        this.manual = domain.manualProgress();
        this.injectSize = (int) Math.min(Integer.MAX_VALUE, info.txAttr().injectSize());
        this.idle = networkWait(info, waitIdle);
        this.spinWait = idle instanceof BusySpinIdleStrategy || idle instanceof NoOpIdleStrategy;
        this.oneCycleWait = manual && !spinWait && overNetwork(info);
        this.timeoutNs = timeoutNs;
        final int capacity = Math.max(MIN_BUFFER, maxSize);
        tx = buffer(domain, capacity);
        rx = buffer(domain, capacity);
    }

    /**
     * A message buffer: from the domain's shared-memory pool when the provider has one and it has room (shm then
     * moves large messages with a single copy, as libfabric's shm does with its own single-copy mechanisms), else
     * plain direct memory.
     */
    private static UnsafeBuffer buffer(final Domain domain, final int capacity)
    {
        try
        {
            return new UnsafeBuffer(domain.allocateShared(capacity));
        }
        catch (final FabricException ex)
        {
            // EOPNOTSUPP (no pool) or ENOMEM (pool too small): plain direct memory works everywhere.
            return new UnsafeBuffer(ByteBuffer.allocateDirect(capacity));
        }
    }

    /**
     * The idle strategy of completion waits by name: as {@link Domain#idleStrategy(String)}, except that
     * {@code backoff} spins {@value #WAIT_SPINS} times (and yields {@value #WAIT_YIELDS} times) before it parks,
     * not Agrona's default 10 (and 5): a wait for the peer's answer usually ends within a few microseconds, and
     * yielding or parking sooner adds that much to most round trips.
     *
     * @param name {@code backoff} (also null), {@code spin}, {@code yield} or {@code sleep}.
     * @return a new idle strategy.
     * @throws FabricException EINVAL for an unknown name.
     */
    public static IdleStrategy waitStrategy(final String name)
    {
        if (null == name || "backoff".equals(name))
        {
            return new BackoffIdleStrategy(WAIT_SPINS, WAIT_YIELDS, WAIT_MIN_PARK_NS, WAIT_MAX_PARK_NS);
        }
        return Domain.idleStrategy(name);
    }

    /**
     * The completion waits' idle strategy for a provider whose answers come through media drivers and a network
     * stack ({@code aeron}): {@code backoff} is Agrona's default there (10 spins, 5 yields, then parks of 1 µs to
     * 1 ms), as in Aeron's own samples and the Aeron ping-pong it is compared with. An answer takes tens of
     * microseconds at least through two drivers, so {@value #WAIT_SPINS} spins of duty cycles only take the CPU the
     * drivers need (on 2 cores the round trip's p50 was about a quarter longer with them).
     */
    private static IdleStrategy networkWait(final Info info, final String name)
    {
        return waitStrategy(name, overNetwork(info));
    }

    /**
     * @param info a provider's info.
     * @return true for a provider whose answers come through media drivers and a network stack ({@code aeron}).
     */
    public static boolean overNetwork(final Info info)
    {
        return null != info && null != info.fabricAttr() && "aeron".equals(info.fabricAttr().provName());
    }

    /**
     * The idle strategy of completion waits by name, for a target over a network or not: over a network
     * {@code backoff} is Agrona's default (10 spins, 5 yields, parks of 1 µs to 1 ms), as in Aeron's samples;
     * otherwise as {@link #waitStrategy(String)}.
     *
     * @param name    {@code backoff} (also null), {@code spin}, {@code yield} or {@code sleep}.
     * @param network true when the answers come through media drivers and a network stack.
     * @return a new idle strategy.
     * @throws FabricException EINVAL for an unknown name.
     */
    public static IdleStrategy waitStrategy(final String name, final boolean network)
    {
        return network && (null == name || "backoff".equals(name)) ? new BackoffIdleStrategy() : waitStrategy(name);
    }

    /**
     * Open a connectionless side ({@code FI_EP_RDM} or {@code FI_EP_DGRAM}): its peer is set later with
     * {@link #peer(byte[])}.
     *
     * @param info         the info (from getInfo) naming the provider, endpoint type and progress.
     * @param tagged       tagged ({@code fi_tsend}) or untagged ({@code fi_send}) messages.
     * @param maxSize      largest message in bytes.
     * @param idleStrategy idle strategy of the AUTO progress thread and of this side's completion waits.
     * @param timeoutMs    the longest any wait may take.
     * @return the side, enabled.
     * @throws FabricException when the provider refuses an object.
     */
    public static PingpongEndpoint open(
        final Info info, final boolean tagged, final int maxSize, final String idleStrategy, final long timeoutMs)
    {
        return open(info, tagged, maxSize, idleStrategy, idleStrategy, timeoutMs);
    }

    /**
     * As {@link #open(Info, boolean, int, String, long)}, with one idle strategy for the AUTO progress thread and
     * another for this side's completion waits (a single thread driving both sides with manual progress should
     * not park between its own duty cycles).
     *
     * @param info         the info.
     * @param tagged       tagged or untagged messages.
     * @param maxSize      largest message in bytes.
     * @param idleStrategy idle strategy of the AUTO progress thread.
     * @param waitIdle     idle strategy of completion waits.
     * @param timeoutMs    the longest any wait may take.
     * @return the side, enabled.
     */
    public static PingpongEndpoint open(
        final Info info, final boolean tagged, final int maxSize, final String idleStrategy, final String waitIdle,
        final long timeoutMs)
    {
        if (EndpointType.MSG == info.epAttr().type())
        {
            throw new FabricException(Errno.EINVAL, "FI_EP_MSG endpoints connect: use listen() and connect()");
        }
        final Fabric fabric = Fabric.open(info);
        Domain domain = null;
        AddressVector av = null;
        CompletionQueue cq = null;
        try
        {
            domain = fabric.domain(info, idleStrategy);
            av = domain.addressVector(AvType.TABLE, 1);
            cq = domain.completionQueue(CQ_SIZE, tagged ? CqFormat.TAGGED : CqFormat.MSG);
            final Endpoint ep = domain.endpoint(info).bind(av, 0)
                .bind(cq, Flags.TRANSMIT | Flags.SELECTIVE_COMPLETION).bind(cq, Flags.RECV).enable();
            return new PingpongEndpoint(fabric, null, null, domain, av, cq, ep, info, tagged, maxSize, waitIdle,
                TimeUnit.MILLISECONDS.toNanos(timeoutMs));
        }
        catch (final RuntimeException ex)
        {
            closeQuietly(cq, av, domain, fabric);
            throw ex;
        }
    }

    /**
     * The server side of {@code FI_EP_MSG}: a passive endpoint listening for one connection.
     *
     * @param info the MSG info.
     * @return the listener; {@link Listener#name()} is what the client connects to.
     */
    public static Listener listen(final Info info)
    {
        final Fabric fabric = Fabric.open(info);
        EventQueue eq = null;
        try
        {
            eq = fabric.eventQueue(8);
            final PassiveEndpoint pep = fabric.passiveEndpoint(info).bind(eq, 0).listen();
            return new Listener(fabric, eq, pep);
        }
        catch (final RuntimeException ex)
        {
            closeQuietly(eq, fabric);
            throw ex;
        }
    }

    /**
     * The client side of {@code FI_EP_MSG}: connect to a listener's name and wait for {@code FI_CONNECTED}.
     *
     * @param info         the MSG info.
     * @param serverName   the passive endpoint's name.
     * @param tagged       tagged or untagged messages.
     * @param maxSize      largest message.
     * @param idleStrategy idle strategy.
     * @param timeoutMs    the longest any wait may take.
     * @param cancelled    polled while waiting: true ends the wait with ECANCELED (the peer stopped).
     * @return the connected side.
     * @throws FabricException when the connection is refused or not established in time (ETIMEDOUT).
     */
    public static PingpongEndpoint connect(
        final Info info, final byte[] serverName, final boolean tagged, final int maxSize, final String idleStrategy,
        final long timeoutMs, final BooleanSupplier cancelled)
    {
        final Fabric fabric = Fabric.open(info);
        EventQueue eq = null;
        Domain domain = null;
        CompletionQueue cq = null;
        Endpoint ep = null;
        try
        {
            eq = fabric.eventQueue(8);
            domain = fabric.domain(info, idleStrategy);
            cq = domain.completionQueue(CQ_SIZE, tagged ? CqFormat.TAGGED : CqFormat.MSG);
            ep = domain.endpoint(info).bind(eq, 0).bind(cq, Flags.TRANSMIT | Flags.SELECTIVE_COMPLETION)
                .bind(cq, Flags.RECV).enable();
            ep.connect(serverName, null);
            awaitEvent(eq, EventQueue.CONNECTED, timeoutMs, cancelled, "connection to the server's endpoint");
            final PingpongEndpoint side = new PingpongEndpoint(fabric, eq, null, domain, null, cq, ep, info, tagged,
                maxSize, idleStrategy, TimeUnit.MILLISECONDS.toNanos(timeoutMs));
            side.peer = 0;
            return side;
        }
        catch (final RuntimeException ex)
        {
            closeQuietly(ep, cq, domain, eq, fabric);
            throw ex;
        }
    }

    private static EqEntry awaitEvent(
        final EventQueue eq, final int event, final long timeoutMs, final BooleanSupplier cancelled, final String what)
    {
        final EqEntry e = new EqEntry();
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        int rc;
        // sread in slices so that a stopped peer ends the wait early
        while (1 != (rc = eq.sread(e, EVENT_SLICE_MS, 0)))
        {
            if (rc == Errno.EAVAIL.negated())
            {
                eq.readErr(e);
                throw new FabricException(Errno.of(e.err()), what + " failed: " + Errno.strerror(e.err()));
            }
            if (null != cancelled && cancelled.getAsBoolean())
            {
                throw new FabricException(Errno.ECANCELED, what + ": the peer stopped");
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new FabricException(Errno.ETIMEDOUT, what + ": no event within " + timeoutMs + " ms");
            }
        }
        if (e.event() != event)
        {
            throw new FabricException(Errno.EIO, what + ": unexpected event " + e.event());
        }
        return e;
    }

    /**
     * The address of this endpoint ({@code fi_getname}).
     *
     * @return the name bytes.
     */
    public byte[] name()
    {
        return ep.name();
    }

    /**
     * Insert the peer's address into the address vector; sends go there.
     *
     * @param peerName the peer's {@link #name()}.
     * @throws FabricException EADDRNOTAVAIL when the address vector refuses it.
     */
    public void peer(final byte[] peerName)
    {
        if (null == av)
        {
            return;
        }
        final long handle = av.insert(peerName);
        if (AddressVector.ADDR_NOTAVAIL == handle)
        {
            throw new FabricException(Errno.EADDRNOTAVAIL, "the peer's address " + av.straddr(peerName) +
                " is not available");
        }
        peer = handle;
    }

    /**
     * While this side waits, also run one duty cycle of {@code other}'s domain per idle round, so that one thread
     * can drive both sides with manual progress (the bench harness does).
     *
     * @param other the side to assist, or null.
     * @return this.
     */
    public PingpongEndpoint assist(final PingpongEndpoint other)
    {
        assist = other;
        return this;
    }

    /**
     * Make the current and every later wait return {@code -ECANCELED}. Safe from any thread.
     */
    public void abort()
    {
        aborted = true;
    }

    /**
     * @return whether {@link #abort()} was called.
     */
    public boolean aborted()
    {
        return aborted;
    }

    /**
     * @return the transmit buffer (fill it before {@link #send(int)}).
     */
    public UnsafeBuffer txBuffer()
    {
        return tx;
    }

    /**
     * @return the receive buffer (valid after {@link #awaitRecv(int)} returned 0).
     */
    public UnsafeBuffer rxBuffer()
    {
        return rx;
    }

    /**
     * @return the errno of the last error completion {@link #awaitRecv(int)} read (positive), or 0.
     */
    public int lastProviderError()
    {
        return lastProviderError;
    }

    /**
     * @return the domain (manual progress runs through it).
     */
    public Domain domain()
    {
        return domain;
    }

    /**
     * Post a receive of {@code length} bytes into the receive buffer, retrying while the provider answers
     * {@code -EAGAIN}.
     *
     * @param length the capacity posted; a longer message completes with ETRUNC.
     * @return 0, {@code -ETIMEDOUT}, {@code -ECANCELED} or the provider's {@code -errno}.
     */
    public int postRecv(final int length)
    {
        final Endpoint e = ep;
        int rc = tagged ? e.trecv(rx, 0, length, AddressVector.ADDR_UNSPEC, TAG, 0, 1) :
            e.recv(rx, 0, length, AddressVector.ADDR_UNSPEC, 1);
        if (Errno.EAGAIN.negated() == rc)
        {
            final long deadline = System.nanoTime() + timeoutNs;
            while (Errno.EAGAIN.negated() == rc)
            {
                rc = backOff(deadline);
                if (0 == rc)
                {
                    rc = tagged ? e.trecv(rx, 0, length, AddressVector.ADDR_UNSPEC, TAG, 0, 1) :
                        e.recv(rx, 0, length, AddressVector.ADDR_UNSPEC, 1);
                }
            }
        }
        return rc;
    }

    /**
     * Send {@code length} bytes of the transmit buffer to the peer: inject below the inject size, else a send
     * without completion. Retries while the provider answers {@code -EAGAIN}.
     *
     * @param length bytes.
     * @return 0, {@code -ETIMEDOUT}, {@code -ECANCELED} or the provider's {@code -errno}.
     */
    public int send(final int length)
    {
        int rc = sendOnce(length);
        if (Errno.EAGAIN.negated() == rc)
        {
            final long deadline = System.nanoTime() + timeoutNs;
            while (Errno.EAGAIN.negated() == rc)
            {
                rc = backOff(deadline);
                if (0 == rc)
                {
                    rc = sendOnce(length);
                }
            }
        }
        return rc;
    }

    private int sendOnce(final int length)
    {
        final Endpoint e = ep;
        if (length < injectSize)
        {
            return tagged ? e.tinject(tx, 0, length, peer, TAG) : e.inject(tx, 0, length, peer);
        }
        return tagged ? e.tsend(tx, 0, length, peer, TAG, 2) : e.send(tx, 0, length, peer, 2);
    }

    /**
     * Wait for the completion of the posted receive.
     *
     * @param length the length the message must have.
     * @return 0 when a message of exactly {@code length} bytes arrived; {@code -EMSGSIZE} for another length;
     * {@code -errno} of an error completion (see {@link #lastProviderError()}); {@code -ETIMEDOUT} at the deadline;
     * {@code -ECANCELED} after {@link #abort()}.
     */
    public int awaitRecv(final int length)
    {
        final CompletionQueue q = cq;
        final CompletionEntry e = entry;
        int rc = q.read(e);
        if (1 != rc)
        {
            final long deadline = System.nanoTime() + timeoutNs;
            final IdleStrategy idleStrategy = idle;
            idleStrategy.reset();
            int rounds = 0;
            if (oneCycleWait && Errno.EAGAIN.negated() == rc)
            {
                return awaitOneCycle(length, deadline);
            }
            while (1 != (rc = q.read(e)))
            {
                if (Errno.EAVAIL.negated() == rc)
                {
                    return readError();
                }
                if (Errno.EAGAIN.negated() != rc)
                {
                    return rc;
                }
                if (aborted)
                {
                    return Errno.ECANCELED.negated();
                }
                // with manual progress, protocol work in flight (a rendezvous handshake, chunks) keeps the wait
                // hot: the peer's next step needs this side's duty cycle, and parking here would stall it
                // (a read that finds the queue empty has run one duty cycle already: a spinning wait needs no second)
                int work = manual && !spinWait ? domain.progress() : 0;
                final PingpongEndpoint other = assist;
                if (null != other)
                {
                    work += other.domain.progress();
                }
                idleStrategy.idle(work);
                if (0 == (++rounds & DEADLINE_CHECK_MASK) && System.nanoTime() - deadline > 0)
                {
                    return Errno.ETIMEDOUT.negated();
                }
            }
        }
        return e.len() == length ? 0 : Errno.EMSGSIZE.negated();
    }

    /**
     * The rest of {@link #awaitRecv(int)} with {@link #oneCycleWait}: one duty cycle per idle round, a read when it
     * did work (a completion is written by a duty cycle, and with manual progress this thread runs them) or once in
     * {@link #READ_EVERY} rounds (a duty cycle run by another thread), the work count given to the idle strategy.
     */
    private int awaitOneCycle(final int length, final long deadline)
    {
        final CompletionQueue q = cq;
        final CompletionEntry e = entry;
        final IdleStrategy idleStrategy = idle;
        int rounds = 0;
        while (true)
        {
            if (aborted)
            {
                return Errno.ECANCELED.negated();
            }
            int work = domain.progress();
            final PingpongEndpoint other = assist;
            if (null != other)
            {
                work += other.domain.progress();
            }
            rounds++;
            if (work > 0 || 0 == (rounds & (READ_EVERY - 1)))
            {
                final int rc = q.read(e);
                if (1 == rc)
                {
                    return e.len() == length ? 0 : Errno.EMSGSIZE.negated();
                }
                if (Errno.EAVAIL.negated() == rc)
                {
                    return readError();
                }
                if (Errno.EAGAIN.negated() != rc)
                {
                    return rc;
                }
            }
            idleStrategy.idle(work);
            if (0 == (rounds & DEADLINE_CHECK_MASK) && System.nanoTime() - deadline > 0)
            {
                return Errno.ETIMEDOUT.negated();
            }
        }
    }

    private int readError()
    {
        if (1 == cq.readErr(errorEntry))
        {
            lastProviderError = errorEntry.err();
            return -Math.max(1, errorEntry.err());
        }
        return Errno.EIO.negated();
    }

    private int backOff(final long deadline)
    {
        if (aborted)
        {
            return Errno.ECANCELED.negated();
        }
        if (System.nanoTime() - deadline > 0)
        {
            return Errno.ETIMEDOUT.negated();
        }
        final PingpongEndpoint other = assist;
        if (null != other)
        {
            other.domain.progress();
        }
        domain.progress();
        idle.idle();
        return 0;
    }

    /**
     * Close every object, the endpoint first; errors while closing after a failure are swallowed.
     */
    @Override
    public void close()
    {
        closeQuietly(ep, cq, av, pep, domain, eq, fabric);
    }

    private static void closeQuietly(final AutoCloseable... resources)
    {
        for (final AutoCloseable r : resources)
        {
            if (null != r)
            {
                try
                {
                    r.close();
                }
                catch (final Exception ignore)
                {
                    // a side torn down after a failure may refuse to close cleanly (EBUSY); nothing to add
                }
            }
        }
    }

    /**
     * A passive endpoint of {@code FI_EP_MSG} waiting for the client's connection request.
     * <p>
     * Control path; one thread.
     */
    public static final class Listener implements AutoCloseable
    {
        private final Fabric fabric;
        private final EventQueue eq;
        private final PassiveEndpoint pep;

        private Listener(final Fabric fabric, final EventQueue eq, final PassiveEndpoint pep)
        {
            this.fabric = fabric;
            this.eq = eq;
            this.pep = pep;
        }

        /**
         * @return the passive endpoint's name, for the client's connect.
         */
        public byte[] name()
        {
            return pep.name();
        }

        /**
         * Wait for the connection request, open the accepting side, accept and wait for {@code FI_CONNECTED}.
         * The listener then belongs to the returned side (closed with it).
         *
         * @param tagged       tagged or untagged messages.
         * @param maxSize      largest message.
         * @param idleStrategy idle strategy.
         * @param timeoutMs    the longest any wait may take.
         * @param cancelled    polled while waiting: true ends the wait with ECANCELED (the peer stopped).
         * @return the connected side.
         * @throws FabricException ETIMEDOUT when no request comes in time.
         */
        public PingpongEndpoint accept(
            final boolean tagged, final int maxSize, final String idleStrategy, final long timeoutMs,
            final BooleanSupplier cancelled)
        {
            final Info info = awaitEvent(eq, EventQueue.CONNREQ, timeoutMs, cancelled, "waiting for the client's " +
                "connection request").info();
            Domain domain = null;
            CompletionQueue cq = null;
            Endpoint ep = null;
            try
            {
                domain = fabric.domain(info, idleStrategy);
                cq = domain.completionQueue(CQ_SIZE, tagged ? CqFormat.TAGGED : CqFormat.MSG);
                ep = domain.endpoint(info).bind(eq, 0).bind(cq, Flags.TRANSMIT | Flags.SELECTIVE_COMPLETION)
                    .bind(cq, Flags.RECV).enable();
                ep.accept(null);
                awaitEvent(eq, EventQueue.CONNECTED, timeoutMs, cancelled, "accepting the client's connection");
                final PingpongEndpoint side = new PingpongEndpoint(fabric, eq, pep, domain, null, cq, ep, info,
                    tagged, maxSize, idleStrategy, TimeUnit.MILLISECONDS.toNanos(timeoutMs));
                side.peer = 0;
                return side;
            }
            catch (final RuntimeException ex)
            {
                closeQuietly(ep, cq, domain);
                throw ex;
            }
        }

        /**
         * Close the passive endpoint, its event queue and the fabric (only when {@link #accept} was not
         * successful: an accepted side owns them).
         */
        @Override
        public void close()
        {
            closeQuietly(pep, eq, fabric);
        }
    }
}
