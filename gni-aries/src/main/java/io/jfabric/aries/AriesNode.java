package io.jfabric.aries;

import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AtomicBuffer;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The emulated Aries device of one process ({@code /dev/kgni0}): its device address, its NIC engine (an Agrona
 * {@link Agent} that moves frames and answers remote accesses without the application calling anything, as the
 * hardware does), its wire, its statistics and its fault plan. Communication domains are created here.
 * <p>
 * Two ways to run the engine: give {@link #agent()} to an {@code AgentRunner} (autonomous, its own thread), or call
 * {@link #doWork()} from a test harness (deterministic: nothing moves between calls). Both may run at once: the agent
 * then steps the node only when nobody has called {@link #doWork()} for 100 µs, so that a node driven by its owner is
 * not also stepped (and its lock taken) by a second thread, and a node left alone still moves.
 * <p>
 * Threading: every API call of the node's objects ({@link Cdm}, {@link GniNic}, {@link GniCq}, {@link GniEp}) and
 * the engine's duty cycle are serialised by the node's lock (a spin lock, uncontended in deterministic mode); the
 * engine's duty cycle only tries it, so an application thread never waits for more than one engine step.
 */
public final class AriesNode implements AutoCloseable
{
    /**
     * Configuration of a node. Fluent; {@link #conclude()} checks it.
     */
    public static final class Context
    {
        private int deviceAddress = -1;
        private NodeDirectory directory;
        private JobRegistry jobs;
        private AriesWire wire;
        private FaultPlan faults;
        private int maxChunk = 32 * 1024;
        private TimingModel timing;

        /**
         * @param deviceAddress the node's 32-bit device address (its id in the emulated system).
         * @return this.
         */
        public Context deviceAddress(final int deviceAddress)
        {
            this.deviceAddress = deviceAddress;
            return this;
        }

        /**
         * @param directory the system's directory (shared by all processes).
         * @return this.
         */
        public Context directory(final NodeDirectory directory)
        {
            this.directory = directory;
            return this;
        }

        /**
         * @param jobs the job registry (cookie to ptag).
         * @return this.
         */
        public Context jobs(final JobRegistry jobs)
        {
            this.jobs = jobs;
            return this;
        }

        /**
         * @param wire the wire; owned by the node from now on (closed with it).
         * @return this.
         */
        public Context wire(final AriesWire wire)
        {
            this.wire = wire;
            return this;
        }

        /**
         * @param faults a fault plan, or null for none.
         * @return this.
         */
        public Context faults(final FaultPlan faults)
        {
            this.faults = faults;
            return this;
        }

        /**
         * @param timing a timing model for virtual-clock completion times, or null (the default: events as soon as
         *               the engine completes them).
         * @return this.
         */
        public Context timing(final TimingModel timing)
        {
            this.timing = timing;
            return this;
        }

        /**
         * @param maxChunk largest payload of one PUT/GET frame (BTE transfers are cut into such frames).
         * @return this.
         */
        public Context maxChunk(final int maxChunk)
        {
            this.maxChunk = maxChunk;
            return this;
        }

        /**
         * Check the configuration.
         *
         * @return this.
         * @throws GniException INVALID_PARAM when something required is missing.
         */
        public Context conclude()
        {
            if (null == directory || null == jobs || null == wire || maxChunk < 64)
            {
                throw new GniException(GniRc.INVALID_PARAM, "directory, jobs and wire are required, maxChunk >= 64");
            }
            if (-1 == deviceAddress)
            {
                throw new GniException(GniRc.INVALID_PARAM, "device address required");
            }
            return this;
        }
    }

    final int deviceAddress;
    final NodeDirectory directory;
    final JobRegistry jobs;
    final AriesWire wire;
    final FaultPlan faults;
    private static final int LOCK_SPINS = 64;
    /** How long the owner must leave the node alone before the agent steps it again. */
    private static final long OWNER_QUIET_NS = 100_000;

    final TimingModel timing;
    final AriesStats stats = new AriesStats();
    final AriesEngine engine;
    private final AtomicInteger lock = new AtomicInteger();
    /** The thread holding {@link #lock} (written by it under the lock), and how often it re-entered. */
    private Thread holder;
    private int depth;
    private final Agent agent;
    /** Duty cycles run through {@link #doWork()} (the owner's), published with a release store. */
    private final AtomicLong ownerSteps = new AtomicLong();
    /** {@link #ownerSteps} at the agent's last visit, and when it was seen to change (the agent's thread only). */
    private long agentSeenOwnerSteps = -1;
    private long ownerSeenAtNs;
    private volatile boolean closed;

    private AriesNode(final Context context)
    {
        this.deviceAddress = context.deviceAddress;
        this.directory = context.directory;
        this.jobs = context.jobs;
        this.wire = context.wire;
        this.faults = context.faults;
        this.timing = context.timing;
        final int chunk = Math.min(context.maxChunk, wire.maxFrameLength() - AriesFrameDescriptor.HEADER_LENGTH);
        this.engine = new AriesEngine(this, chunk);
        this.agent = new Agent()
        {
            public int doWork()
            {
                final long ownerSteps = AriesNode.this.ownerSteps.get();
                if (ownerSteps != agentSeenOwnerSteps)
                {
                    // The owner (the domain's duty cycle, through doWork()) stepped the node since this agent's
                    // last visit: it is being driven, so this agent stays out of its way without touching the lock
                    // (a holder preempted on a loaded host would stall the owner) and steps it again only once it
                    // has been left alone for OWNER_QUIET_NS.
                    agentSeenOwnerSteps = ownerSteps;
                    ownerSeenAtNs = System.nanoTime();
                    return 0;
                }
                if (System.nanoTime() - ownerSeenAtNs < OWNER_QUIET_NS)
                {
                    return 0;
                }
                if (!tryLock())
                {
                    return 0;
                }
                try
                {
                    return engine.doWork();
                }
                finally
                {
                    unlockStep();
                }
            }

            public String roleName()
            {
                return "aries-nic-" + Integer.toHexString(deviceAddress);
            }
        };
    }

    /**
     * Open a node.
     *
     * @param context its configuration.
     * @return the node.
     */
    public static AriesNode open(final Context context)
    {
        return new AriesNode(context.conclude());
    }

    /**
     * @return the node's device address.
     */
    public int deviceAddress()
    {
        return deviceAddress;
    }

    /**
     * @return the system directory.
     */
    public NodeDirectory directory()
    {
        return directory;
    }

    /**
     * A block of the wire's shared pool ({@link AriesWire#allocateShared}). Control path, thread-safe.
     *
     * @param length bytes, at least 1.
     * @return the block, or null when the wire has none (the in-JVM wire).
     */
    public AtomicBuffer allocateShared(final int length)
    {
        return wire.allocateShared(length);
    }

    /**
     * Give a block from {@link #allocateShared} back. Control path, thread-safe.
     *
     * @param buffer the block.
     * @return false when it is not one of the wire's blocks.
     */
    public boolean freeShared(final DirectBuffer buffer)
    {
        return wire.freeShared(buffer);
    }

    /**
     * The XPMEM-like fast path (not a NIC transaction): copy {@code length} bytes of node {@code device}'s memory at
     * {@code srcAddress} (an address in that node's process, inside its shared pool) to {@code dstAddress} here,
     * directly through the mapping of the peer's pool. Under the node's lock, so that the wire does not unmap the
     * peer's pool during the copy. Any thread.
     *
     * @param device     the peer node's device address.
     * @param inst       an instance id of a CDM on it.
     * @param srcAddress the source in the peer's process.
     * @param dstAddress the destination in this process.
     * @param length     bytes, at least 1.
     * @return true when copied; false when the range cannot be read directly (not in the peer's pool, the peer
     * gone, no pool on this wire): nothing was written.
     */
    public boolean directCopy(
        final int device, final int inst, final long srcAddress, final long dstAddress, final long length)
    {
        lock();
        try
        {
            final long peer = engine.peerOf(device, inst);
            final long local = peer < 0 ? 0 : wire.directAddress(peer, srcAddress, length);
            if (0 == local)
            {
                return false;
            }
            UnsafeApi.copyMemory(local, dstAddress, length);
            return true;
        }
        finally
        {
            unlock();
        }
    }

    /**
     * @return the statistics.
     */
    public AriesStats stats()
    {
        return stats;
    }

    /**
     * @return the fault plan, or null.
     */
    public FaultPlan faults()
    {
        return faults;
    }

    /**
     * @return the NIC engine as an agent, for an {@code AgentRunner}.
     */
    public Agent agent()
    {
        return agent;
    }

    /**
     * Run one duty cycle of the NIC engine (the deterministic harness's step).
     *
     * @return work done (frames moved, events published).
     */
    public int doWork()
    {
        lock();
        try
        {
            return engine.doWork();
        }
        finally
        {
            // Written under the lock (callers of doWork are serialised by it): a release store, no fence.
            ownerSteps.lazySet(ownerSteps.get() + 1);
            unlockStep();
        }
    }

    /**
     * Hold the node's lock across a batch of calls of this thread (a provider's progress pass: {@link #doWork()},
     * then its CQ and mailbox polls): the calls inside take the lock again for free (it is re-entrant for its
     * holder) instead of once each. Not a uGNI call; an emulator detail that changes nothing the NIC does (the
     * engine thread only tries the lock and steps the node later, application threads wait as for any call).
     * Pair every call with {@link #exitBatch()}.
     */
    public void enterBatch()
    {
        lock();
    }

    /**
     * End a batch begun by {@link #enterBatch()}.
     */
    public void exitBatch()
    {
        // The calls inside counted their statistics (their own releases marked them); the batch itself counts none.
        unlockStep();
    }

    /**
     * @return how many duty cycles the engine has run.
     */
    public long step()
    {
        return engine.step;
    }

    /**
     * @return the node's virtual clock in nanoseconds (0 without a {@link TimingModel}).
     */
    public long virtualTimeNs()
    {
        return engine.virtualNs;
    }

    /**
     * {@code GNI_CdmCreate}: a communication domain.
     *
     * @param instId the inst id; unique on the node (see {@link NodeDirectory#allocateInstId}).
     * @param ptag   the job's ptag.
     * @param cookie the job's cookie.
     * @param modes  {@code GNI_CDM_MODE_*} bits, recorded (the emulator always behaves as ERR_NO_KILL).
     * @return the domain.
     * @throws GniException INVALID_PARAM when the inst id is out of range or taken by another domain on the node.
     */
    public Cdm cdmCreate(final int instId, final int ptag, final int cookie, final int modes)
    {
        lock();
        try
        {
            if (!directory.claimInstId(deviceAddress, instId))
            {
                throw new GniException(GniRc.INVALID_PARAM, "inst id " + instId + " taken or out of range on node " +
                    Integer.toHexString(deviceAddress));
            }
            return new Cdm(this, instId, ptag, cookie, modes);
        }
        finally
        {
            unlock();
        }
    }

    /**
     * Close the node: its NICs stop answering and its wire closes.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        lock();
        try
        {
            engine.close();
        }
        finally
        {
            unlock();
        }
        wire.close();
    }

    void lock()
    {
        final Thread me = Thread.currentThread();
        if (holder == me)
        {
            // Re-entered by its holder (a batch, enterBatch): only this thread ever wrote itself into holder, so a
            // stale value read by another thread never equals that thread.
            depth++;
            return;
        }
        // Spin briefly, then yield: a holder preempted on a loaded host (the engine thread) gets the core back
        // instead of being spun against for its whole time slice.
        int spins = 0;
        while (!lock.compareAndSet(0, 1))
        {
            if (++spins < LOCK_SPINS)
            {
                Thread.onSpinWait();
            }
            else
            {
                Thread.yield();
            }
        }
        holder = me;
    }

    boolean tryLock()
    {
        final Thread me = Thread.currentThread();
        if (holder == me)
        {
            depth++;
            return true;
        }
        if (lock.compareAndSet(0, 1))
        {
            holder = me;
            return true;
        }
        return false;
    }

    /**
     * Release after a call that may have counted statistics (every call but an engine step).
     */
    void unlock()
    {
        engine.statsTouched = true;
        unlockStep();
    }

    /**
     * Release after an engine step (which publishes what it counted itself).
     */
    private void unlockStep()
    {
        if (depth > 0)
        {
            depth--;
            return;
        }
        holder = null;
        // A release store (no full fence: a spin lock's unlock needs only release ordering): the next holder, whose
        // CAS acquires, sees everything written under the lock.
        lock.lazySet(0);
    }
}
