package io.jfabric;

import io.jfabric.spi.AtomicCapabilities;
import io.jfabric.agent.CommandDescriptor;
import io.jfabric.agent.CommandProxy;
import io.jfabric.agent.DomainAgent;
import io.jfabric.agent.ProgressGuard;
import io.jfabric.ring.CompletionRing;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.MemoryRegistrationPolicy;
import io.jfabric.spi.SharedAddressTable;
import io.jfabric.spi.ProviderCapabilities;
import io.jfabric.spi.TransportEventHandler;
import io.jfabric.spi.TransportProvider;
import io.jfabric.stat.DomainCounters;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A resource domain ({@code fi_domain}): owns one {@link DomainAgent}, its command rings and its transport, and
 * opens endpoints, completion queues, counters and address vectors.
 * <p>
 * Progress: with {@code FI_PROGRESS_AUTO} an {@link AgentRunner} thread named {@code jfabric-<provider>-<domain>}
 * runs the agent with the named idle strategy; with {@code FI_PROGRESS_MANUAL} {@link #progress()} (called by CQ,
 * counter and EQ reads and {@code Endpoint.progress()}) runs one duty cycle inline, one thread at a time.
 * <p>
 * Threading: all methods are thread-safe. Closing with open child objects fails with {@code EBUSY}.
 */
public final class Domain implements AutoCloseable
{
    /** Entries of a completion queue opened with size 0 (the default: tx plus rx queue depth of the providers). */
    public static final int DEFAULT_CQ_SIZE = 2048;
    private static final int RING_CAPACITY = 1 << 20;

    private final Fabric fabric;
    private final Info info;
    private final String name;
    /** The provider's description for this domain's info (atomics, MR policy, keys, refused operations). */
    private final ProviderCapabilities capabilities;
    private final int mrIovLimit;
    private final DomainTransport transport;
    private final DomainAgent agent;
    /** Encodes every command the application threads put on the agent's rings (Endpoint, AddressVector, here). */
    private final CommandProxy proxy;
    private final DomainCounters counters;
    private final boolean manual;
    private final AgentRunner runner;
    private final AgentInvoker invoker;
    private final ProgressGroup group;
    private final ProgressGuard progressGuard = new ProgressGuard();
    private final AtomicInteger children = new AtomicInteger();
    private final AtomicInteger nextEndpoint = new AtomicInteger();
    private final AtomicInteger nextAv = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final SearchSink searchSink = new SearchSink();
    private final Object cancelLock = new Object();
    private long mrSequence;
    private long cancelSequence;
    /** Connection management through frames, made on first use (see {@link #connections()}). */
    private ConnectionManager connections;

    Domain(
        final Fabric fabric,
        final Info info,
        final TransportProvider provider,
        final String idleStrategy,
        final ProgressGroup group)
    {
        this.fabric = fabric;
        this.info = info;
        this.name = null == info.domainAttr().name() ? provider.name() : info.domainAttr().name();
        final IdleStrategy idle = idleStrategy(idleStrategy);
        this.capabilities = ProviderRules.capabilitiesOf(provider, info);
        ProviderRules.checkAuthKey(capabilities, info.domainAttr().authKey(), "domain_attr.auth_key");
        final MemoryRegistrationPolicy mrPolicy = capabilities.memoryRegistration();
        this.mrIovLimit = ProviderRules.mrIovLimit(mrPolicy, info);
        this.transport = provider.openDomain(fabric.backend(), info);
        this.counters = DomainCounters.open(provider.name(), name);
        final int maxMessage = (int) Math.max(0, Math.min(Integer.MAX_VALUE, info.epAttr().maxMsgSize()));
        try
        {
            transport.registerCounters(counters);
            this.agent = new DomainAgent("jfabric-" + provider.name() + "-" + name, transport, RING_CAPACITY,
                maxMessage, ProviderRules.registryMrMode(mrPolicy, info.domainAttr().mrMode()), mrIovLimit,
                capabilities.atomics(), counters);
        }
        catch (final RuntimeException ex)
        {
            // A bad setting (for example a flow-control property): the opened transport goes with the failed open.
            transport.close();
            counters.close();
            throw ex;
        }
        this.proxy = new CommandProxy(agent.controlRing(), agent.recvRing(), agent.sendRing(), this::progress);
        this.manual = Progress.MANUAL == info.domainAttr().dataProgress();
        if (manual)
        {
            runner = null;
            invoker = new AgentInvoker(counters, null, agent);
            invoker.start();
        }
        else if (null != group)
        {
            invoker = null;
            runner = null;
            group.add(agent);
        }
        else
        {
            invoker = null;
            runner = new AgentRunner(idle, counters, null, agent);
            AgentRunner.startOnThread(runner);
        }
        this.group = group;
    }

    /**
     * The idle strategy of an AUTO progress thread by name.
     *
     * @param name {@code backoff} (default, also for null), {@code spin}, {@code yield} or {@code sleep}.
     * @return a new idle strategy.
     * @throws FabricException EINVAL for an unknown name.
     */
    public static IdleStrategy idleStrategy(final String name)
    {
        if (null == name || "backoff".equals(name))
        {
            return new BackoffIdleStrategy();
        }
        switch (name)
        {
            case "spin":
                return new BusySpinIdleStrategy();
            case "yield":
                return new YieldingIdleStrategy();
            case "sleep":
                return new SleepingMillisIdleStrategy(1);
            default:
                throw new FabricException(Errno.EINVAL, "unknown idle strategy '" + name +
                    "' (backoff, spin, yield, sleep)");
        }
    }

    /**
     * @return the info the domain was opened with.
     */
    public Info info()
    {
        return info;
    }

    /**
     * @return the domain name.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return the fabric this domain belongs to.
     */
    public Fabric fabric()
    {
        return fabric;
    }

    /**
     * @return true when progress is {@code FI_PROGRESS_MANUAL}.
     */
    public boolean manualProgress()
    {
        return manual;
    }

    /**
     * @return the agent's role name (also the AUTO progress thread's name).
     */
    public String agentName()
    {
        return agent.roleName();
    }

    /**
     * Run one duty cycle of the agent when progress is manual and no other thread is running it; a no-op with
     * automatic progress. Allocation-free. Any thread.
     *
     * @return work done (0 when nothing to do, with AUTO progress, or when another thread holds the guard).
     */
    public int progress()
    {
        if (!manual || !progressGuard.tryEnter())
        {
            // No duty cycle here (AUTO, or another thread runs it): counted for a back-end that asked (RUNTIME.md,
            // "Application progress under AUTO").
            return agent.progressCall();
        }
        try
        {
            return invoker.invoke();
        }
        finally
        {
            // Release: the next thread to take the guard sees everything this duty cycle wrote.
            progressGuard.exit();
        }
    }

    /**
     * Manual progress only: run a duty cycle and then a kfabric tsearch on the calling thread, under the guard.
     */
    int tsearchNow(
        final int endpointIndex,
        final long src,
        final long tag,
        final long ignore,
        final long flags,
        final long context,
        final CompletionEntry result,
        final long[] source)
    {
        if (!progressGuard.tryEnter())
        {
            return Errno.EAGAIN.negated();
        }
        try
        {
            invoker.invoke();
            final SearchSink sink = searchSink;
            sink.entry = result;
            sink.source = source;
            return agent.tsearchNow(endpointIndex, src, tag, ignore, flags, context, sink);
        }
        finally
        {
            progressGuard.exit();
        }
    }

    /**
     * Open an endpoint ({@code fi_endpoint}): {@code FI_EP_RDM}, {@code FI_EP_DGRAM} (the same reliable path in
     * process) or {@code FI_EP_MSG} (connected through a {@link PassiveEndpoint}; an info with a connection
     * request handle opens the accepting side).
     *
     * @param epInfo the info (usually this domain's info); null means the domain's.
     * @return the endpoint, not yet enabled; the transport's {@code openEndpoint} hook has run.
     * @throws FabricException EOPNOTSUPP for other endpoint types or an {@code ep_attr.auth_key} the provider does
     *                         not take (EINVAL when longer than it takes), ENOSPC when too many are open, or the
     *                         transport's errno from its endpoint hook.
     */
    public Endpoint endpoint(final Info epInfo)
    {
        ensureOpen();
        final Info i = null == epInfo ? info : epInfo;
        final EndpointType type = i.epAttr().type();
        if (EndpointType.RDM != type && EndpointType.UNSPEC != type && EndpointType.DGRAM != type &&
            EndpointType.MSG != type)
        {
            throw new FabricException(Errno.EOPNOTSUPP, "endpoint type " + type.fiName() + " is not supported");
        }
        ProviderRules.checkAuthKey(capabilities, i.epAttr().authKey(), "ep_attr.auth_key");
        final int index = nextEndpoint.getAndIncrement();
        if (index >= DomainAgent.MAX_ENDPOINTS)
        {
            throw new FabricException(Errno.ENOSPC, "too many endpoints in domain " + name);
        }
        // The transport's endpoint hook first; if the endpoint cannot be made after it, the hook is undone.
        transport.openEndpoint(index, i);
        try
        {
            final Endpoint endpoint = new Endpoint(this, i, index);
            children.incrementAndGet();
            return endpoint;
        }
        catch (final RuntimeException ex)
        {
            transport.closeEndpoint(index);
            throw ex;
        }
    }

    /**
     * Open a completion queue ({@code fi_cq_open}).
     *
     * @param size   entries, 1..65536, or 0 for the default ({@link #DEFAULT_CQ_SIZE}, fi_cq(3): "a size of 0
     *               selects the provider's default").
     * @param format the entry format; UNSPEC means CONTEXT.
     * @return the queue.
     * @throws FabricException EINVAL for a bad size.
     */
    public CompletionQueue completionQueue(final int size, final CqFormat format)
    {
        ensureOpen();
        if (size < 0 || size > CompletionQueue.MAX_SIZE)
        {
            throw new FabricException(Errno.EINVAL, "cq size " + size + " out of range 0.." +
                CompletionQueue.MAX_SIZE + " (0 is the default, " + DEFAULT_CQ_SIZE + ")");
        }
        children.incrementAndGet();
        return new CompletionQueue(this, 0 == size ? DEFAULT_CQ_SIZE : size,
            null == format || CqFormat.UNSPEC == format ? CqFormat.CONTEXT : format);
    }

    /**
     * Open a counter ({@code fi_cntr_open}).
     *
     * @return the counter, at 0.
     */
    public Counter counter()
    {
        ensureOpen();
        children.incrementAndGet();
        return new Counter(this);
    }

    /**
     * {@code fi_poll_open}: a poll set over this domain's completion queues and counters.
     *
     * @return the poll set, empty.
     */
    public PollSet pollOpen()
    {
        ensureOpen();
        return new PollSet(this);
    }

    /**
     * Open an address vector ({@code fi_av_open}).
     *
     * @param type  TABLE or MAP; UNSPEC takes the info's type or TABLE.
     * @param count expected number of addresses (a sizing hint).
     * @return the address vector.
     * @throws FabricException ENOSPC when too many are open.
     */
    public AddressVector addressVector(final AvType type, final int count)
    {
        return addressVector(type, count, 0);
    }

    private AddressVector addressVector(final AvType type, final int count, final int rxCtxBits)
    {
        ensureOpen();
        final int id = nextAv.getAndIncrement();
        if (id >= DomainAgent.MAX_AVS)
        {
            throw new FabricException(Errno.ENOSPC, "too many address vectors in domain " + name);
        }
        AvType t = null == type ? AvType.UNSPEC : type;
        if (AvType.UNSPEC == t)
        {
            t = AvType.UNSPEC == info.domainAttr().avType() ? AvType.TABLE : info.domainAttr().avType();
        }
        agent.addressVector(id);
        children.incrementAndGet();
        return new AddressVector(this, t, id, Math.max(1, count), rxCtxBits, 0, null);
    }

    /**
     * Open a scalable endpoint ({@code fi_scalable_ep}): {@code ep_attr.tx_ctx_cnt} transmit and
     * {@code ep_attr.rx_ctx_cnt} receive contexts, opened with {@link ScalableEndpoint#txContext} and
     * {@link ScalableEndpoint#rxContext}.
     *
     * @param epInfo the info (null: the domain's); RDM or DGRAM.
     * @return the scalable endpoint, not yet enabled.
     * @throws FabricException see {@link ScalableEndpoint}.
     */
    public ScalableEndpoint scalableEndpoint(final Info epInfo)
    {
        ensureOpen();
        final ScalableEndpoint sep = ScalableEndpoint.open(this, null == epInfo ? info : epInfo);
        children.incrementAndGet();
        return sep;
    }

    /**
     * Open a shared receive context ({@code fi_srx_context}): an endpoint that only receives, at an endpoint index
     * of its own, for endpoints bound to it with {@link Endpoint#bind(Endpoint, long)}: their arrivals are matched
     * against the receives posted on it. Every bound endpoint must bind the same receive CQ.
     *
     * @param attr the receive attributes; null for the domain's.
     * @return the context, enabled by the first bound endpoint's enable (it takes that endpoint's AV, receive CQ and
     * receive counters).
     * @throws FabricException ENOSPC when the domain has no endpoint index left; EINVAL for a negative size; ENOSYS
     *                         when the provider offers no shared receive contexts ({@code max_ep_srx_ctx} 0).
     */
    public Endpoint srxContext(final RxAttr attr)
    {
        ensureOpen();
        return SharedContexts.openReceive(this, attr);
    }

    /**
     * Open a shared transmit context ({@code fi_stx_context}) for endpoints bound to it with
     * {@link Endpoint#bind(SharedTxContext, long)}.
     *
     * @param attr the transmit attributes; null for the domain's.
     * @return the context.
     * @throws FabricException ENOSYS when the provider offers no shared transmit contexts ({@code max_ep_stx_ctx} 0).
     */
    public SharedTxContext stxContext(final TxAttr attr)
    {
        ensureOpen();
        SharedContexts.checkOffered(info, false);
        final SharedTxContext stx = new SharedTxContext(this, null == attr ? info.txAttr() : attr);
        children.incrementAndGet();
        return stx;
    }

    /**
     * Reserve {@code count} consecutive endpoint indices (a scalable endpoint's contexts).
     *
     * @return the first index.
     * @throws FabricException ENOSPC when the domain has not that many left.
     */
    int reserveEndpoints(final int count)
    {
        while (true)
        {
            final int first = nextEndpoint.get();
            if (first + count > DomainAgent.MAX_ENDPOINTS)
            {
                throw new FabricException(Errno.ENOSPC, "domain " + name + " has " +
                    Math.max(0, DomainAgent.MAX_ENDPOINTS - first) + " endpoint indices left, " + count + " wanted");
            }
            if (nextEndpoint.compareAndSet(first, first + count))
            {
                return first;
            }
        }
    }

    /**
     * Open the endpoint of a scalable endpoint's context at a reserved index: the transport's endpoint hook runs
     * as for {@link #endpoint}.
     */
    Endpoint contextEndpoint(final Info epInfo, final int index, final long roleRefused,
        final ScalableEndpoint parent)
    {
        ensureOpen();
        transport.openEndpoint(index, epInfo);
        try
        {
            final Endpoint endpoint = new Endpoint(this, epInfo, index, roleRefused, parent);
            children.incrementAndGet();
            return endpoint;
        }
        catch (final RuntimeException ex)
        {
            transport.closeEndpoint(index);
            throw ex;
        }
    }

    /**
     * Open an address vector with attributes ({@code fi_av_open} with {@code struct fi_av_attr}): the type and count
     * as {@link #addressVector(AvType, int)}, and {@link AvAttr#EVENT} (inserts reported through a bound event
     * queue), a shared {@link AvAttr#name()} and {@link AvAttr#READ} (see {@link AvAttr}), and {@code rx_ctx_bits}
     * (handles that name a receive context of a peer's scalable endpoint, see {@link AddressVector#rxAddr}).
     *
     * @param attr the attributes.
     * @return the address vector.
     * @throws FabricException EINVAL for null attributes, a negative count, {@code rx_ctx_bits} outside
     *                         0..{@link AvAttr#MAX_RX_CTX_BITS}, {@link AvAttr#READ} without a name, a
     *                         name that is not 1 to 64 letters, digits, '.', '_' or '-', or a named vector that is
     *                         not {@link AvType#TABLE}; EBADFLAGS for other flags; EOPNOTSUPP for a name when the
     *                         domain's caps lack {@code FI_SHARED_AV}; EEXIST when creating a name in use, ENOENT
     *                         when reading one that does not exist; ENOSPC when too many are open.
     */
    public AddressVector addressVector(final AvAttr attr)
    {
        ensureOpen();
        AddressVector.checkOpen(attr, capabilities.addressVectors(), info);
        final String avName = attr.name();
        AvType t = null == attr.type() ? AvType.UNSPEC : attr.type();
        if (AvType.UNSPEC == t)
        {
            t = AvType.UNSPEC == info.domainAttr().avType() ? AvType.TABLE : info.domainAttr().avType();
        }
        if (null == avName)
        {
            if ((attr.flags() & AvAttr.READ) != 0)
            {
                throw new FabricException(Errno.EINVAL, "FI_READ opens a named address vector: no name given");
            }
        }
        else
        {
            SharedAddressVectors.checkName(avName, t, info.caps());
        }
        final int id = nextAv.getAndIncrement();
        if (id >= DomainAgent.MAX_AVS)
        {
            throw new FabricException(Errno.ENOSPC, "too many address vectors in domain " + name);
        }
        final boolean create = (attr.flags() & AvAttr.READ) == 0;
        final SharedAddressTable shared = null == avName ? null : SharedAddressVectors.open(
            transport, String.valueOf(info.fabricAttr().provName()), avName, create, attr.count());
        agent.addressVector(id);
        children.incrementAndGet();
        return new AddressVector(this, t, id, Math.max(1, attr.count()), attr.rxCtxBits(), attr.flags(), shared);
    }

    /**
     * {@code fi_mr_reg}: register memory for remote access. The registry belongs to the domain agent, so the
     * registration runs there (a control command) and this call waits for its answer, driving manual progress.
     *
     * @param buffer       a direct buffer.
     * @param offset       start of the region in the buffer.
     * @param length       bytes.
     * @param access       READ, WRITE, REMOTE_READ, REMOTE_WRITE, SEND, RECV.
     * @param requestedKey the key wanted (the inproc MR mode lets the application choose keys).
     * @return the region.
     * @throws FabricException EINVAL for a heap buffer, bad range or access flags; ENOKEY for a key in use.
     */
    public MemoryRegion registerMemory(
        final DirectBuffer buffer, final int offset, final int length, final long access, final long requestedKey)
    {
        ensureOpen();
        if (null == buffer || null != buffer.byteArray() || offset < 0 || length < 0 ||
            (long) offset + length > buffer.capacity())
        {
            throw new FabricException(Errno.EINVAL, "memory registration needs a direct buffer and a range inside it");
        }
        checkWritable(buffer, access, 0);
        final long address = buffer.addressOffset() + offset;
        ProviderRules.checkRegistration(capabilities, mrIovLimit, MemoryRegistrationPolicy.Form.REG,
            new long[]{ address }, new long[]{ length }, 1, access, requestedKey, null);
        final long key = mrCommand(CommandDescriptor.OP_MR_REG, address, length, access, requestedKey, null, 0);
        children.incrementAndGet();
        // The region keeps its buffer's memory reachable until it is closed (issue 10).
        return new MemoryRegion(this, key, address, length, access).pin(buffer.byteBuffer());
    }

    /**
     * fi_mr(3): {@code FI_RECV} (message target), {@code FI_READ} (RMA read and atomic result buffer) and
     * {@code FI_REMOTE_WRITE} (RMA write and atomic target) let the fabric write into the memory: a read-only
     * buffer cannot carry them ({@code FI_SEND}, {@code FI_WRITE} and {@code FI_REMOTE_READ} only read it).
     */
    private static void checkWritable(final DirectBuffer buffer, final long access, final int segment)
    {
        final ByteBuffer holder = buffer.byteBuffer();
        final long written = access & (Flags.RECV | Flags.READ | Flags.REMOTE_WRITE);
        if (null != holder && holder.isReadOnly() && 0 != written)
        {
            throw new FabricException(Errno.EINVAL, "segment " + segment + " is a read-only buffer: it cannot be " +
                "registered with " + Flags.print(written) + " (the fabric would write into it)");
        }
    }

    /**
     * {@code fi_mr_regv} / {@code fi_mr_regattr}: register whole direct buffers as one region; remote offsets run
     * across the segments laid end to end (an access must stay within one segment).
     *
     * @param iov          direct buffers.
     * @param count        how many, 1 to {@code mr_iov_limit}.
     * @param access       access flags.
     * @param requestedKey the key wanted.
     * @return the region (its address is the first segment's).
     * @throws FabricException EINVAL for heap buffers, a bad count or flags; ENOKEY for a key in use; the provider's
     *                         errno when its registration policy refuses.
     */
    public MemoryRegion registerMemory(
        final DirectBuffer[] iov, final int count, final long access, final long requestedKey)
    {
        return registerSegments(MemoryRegistrationPolicy.Form.REGV, iov, count, access, requestedKey, null);
    }

    private MemoryRegion registerSegments(
        final MemoryRegistrationPolicy.Form form,
        final DirectBuffer[] iov,
        final int count,
        final long access,
        final long requestedKey,
        final byte[] authKey)
    {
        ensureOpen();
        if (null == iov || count < 1 || count > iov.length || count > mrIovLimit)
        {
            throw new FabricException(Errno.EINVAL, "regv count " + count + " outside 1..mr_iov_limit");
        }
        long total = 0;
        for (int i = 0; i < count; i++)
        {
            if (null == iov[i] || null != iov[i].byteArray())
            {
                throw new FabricException(Errno.EINVAL, "regv segment " + i + " is not a direct buffer");
            }
            checkWritable(iov[i], access, i);
            total += iov[i].capacity();
        }
        final long[] addresses = new long[count];
        final long[] lengths = new long[count];
        for (int i = 0; i < count; i++)
        {
            addresses[i] = iov[i].addressOffset();
            lengths[i] = iov[i].capacity();
        }
        ProviderRules.checkRegistration(
            capabilities, mrIovLimit, form, addresses, lengths, count, access, requestedKey, authKey);
        final long key = mrCommand(CommandDescriptor.OP_MR_REG, 0, 0, access, requestedKey, iov, count);
        children.incrementAndGet();
        final ByteBuffer[] holders = new ByteBuffer[count];
        for (int i = 0; i < count; i++)
        {
            holders[i] = iov[i].byteBuffer();
        }
        // The region keeps its buffers' memory reachable until it is closed (issue 10).
        return new MemoryRegion(this, key, iov[0].addressOffset(), total, access).pin(holders);
    }

    /**
     * {@code fi_mr_regattr}: register the segments an {@link MrAttr} names, with its access flags, requested key and
     * context. The region's remote offsets run across the segments laid end to end, as with
     * {@link #registerMemory(DirectBuffer[], int, long, long)}.
     *
     * @param attr  the attributes.
     * @param flags registration flags: 0 (no flag of {@code fi_mr_regattr} is supported yet).
     * @return the region; {@link MemoryRegion#context()} is the attribute's context.
     * @throws FabricException EBADFLAGS for flags; EINVAL for a non-zero offset, heap buffers or a bad count;
     *                         EOPNOTSUPP for an authorization key when the provider takes none (EINVAL when longer
     *                         than it takes); ENOSYS for a memory interface other than host memory; ENOKEY for a key
     *                         in use; the provider's errno when its registration policy refuses.
     */
    public MemoryRegion registerMemory(final MrAttr attr, final long flags)
    {
        ensureOpen();
        if (null == attr)
        {
            throw new FabricException(Errno.EINVAL, "fi_mr_regattr needs attributes");
        }
        if (0 != flags)
        {
            throw new FabricException(Errno.EBADFLAGS, "fi_mr_regattr flags " + Flags.print(flags) +
                " are not supported (0 only)");
        }
        if (0 != attr.offset())
        {
            throw new FabricException(Errno.EINVAL, "fi_mr_attr offset " + attr.offset() + " must be 0 (reserved)");
        }
        ProviderRules.checkAuthKey(capabilities, attr.authKey(), "fi_mr_attr.auth_key");
        if (MrAttr.IFACE_SYSTEM != attr.iface())
        {
            throw new FabricException(Errno.ENOSYS, "fi_mr_attr iface " + attr.iface() +
                ": only host memory (FI_HMEM_SYSTEM) can be registered");
        }
        final MemoryRegion region = registerSegments(MemoryRegistrationPolicy.Form.REGATTR, attr.iov(), attr.count(),
            attr.access(), attr.requestedKey(), attr.authKey());
        region.context(attr.context());
        return region;
    }

    /**
     * Allocate {@code length} bytes from the domain's shared-memory pool. A rendezvous send (a message above the
     * eager threshold) from such a buffer moves with a single copy where the provider supports it: the receiving
     * domain copies straight from the pool into the posted receive buffer, with no data frames. Other buffers keep
     * working as before. Blocks are {@code 128}-byte aligned; the buffer stays valid until {@link #freeShared} or
     * {@link #close()} (the pool is unmapped with the domain). Control path, thread-safe.
     * <p>
     * Providers: {@code shm} (a file under the shm directory sized by {@code jfabric.shm.pool.size}, 64 MiB by
     * default). Providers without a pool ({@code inproc}) answer {@code EOPNOTSUPP}.
     *
     * @param length bytes, at least 1.
     * @return a buffer over the block.
     * @throws FabricException EINVAL for a length below 1; ENOMEM when the pool cannot hold it; ENOSPC when the
     *                         file system under the pool has no room for the block's pages (shm reserves them
     *                         here, so that no later touch faults); EOPNOTSUPP when the provider has no shared pool.
     */
    public AtomicBuffer allocateShared(final int length)
    {
        ensureOpen();
        if (length < 1)
        {
            throw new FabricException(Errno.EINVAL, "allocateShared length " + length + " must be at least 1");
        }
        final AtomicBuffer buffer = transport.allocateShared(length);
        if (null == buffer)
        {
            throw new FabricException(Errno.EOPNOTSUPP, "provider " + info.fabricAttr().provName() +
                " has no shared memory pool");
        }
        return buffer;
    }

    /**
     * Return a buffer from {@link #allocateShared} to the pool. No operation may still use it. Control path,
     * thread-safe.
     *
     * @param buffer the buffer as returned by {@link #allocateShared}.
     * @throws FabricException EINVAL when it is not a block of this domain's pool in use.
     */
    public void freeShared(final DirectBuffer buffer)
    {
        ensureOpen();
        if (null == buffer || !transport.freeShared(buffer))
        {
            throw new FabricException(Errno.EINVAL, "freeShared: " + buffer +
                " is not a block of this domain's shared pool in use");
        }
    }

    /**
     * {@code fi_open_ops} on the domain: a named provider extension.
     *
     * @param name the extension's name (the provider documents its names).
     * @return the extension.
     * @throws FabricException ENOSYS when the provider has no domain extension of that name; EINVAL for a null name
     *                         or a closed domain.
     */
    public OpenOps openOps(final String name)
    {
        ensureOpen();
        return OpenOps.of(null == name ? null : transport.openOps(name), name, "domain " + this.name);
    }

    /** {@code FI_QUEUE_WORK} ({@link #control(int, DeferredWork)}): queue a deferred work item. */
    public static final int QUEUE_WORK = 11;
    /** {@code FI_CANCEL_WORK}: cancel a queued deferred work item. */
    public static final int CANCEL_WORK = 12;
    /** {@code FI_FLUSH_WORK}: cancel every queued deferred work item of the domain. */
    public static final int FLUSH_WORK = 13;

    /**
     * Open a trigger context ({@code fi_triggered_context}, threshold kind) for triggered posts on this domain's
     * endpoints ({@link TriggeredContext}).
     *
     * @param counter   the triggering counter (of this domain).
     * @param threshold the threshold (at least 0).
     * @return the context; close it when done.
     * @throws FabricException EINVAL for a null counter, another domain's, or a negative threshold; ENOSPC when
     *                         {@code TriggerTable.CONTEXTS} contexts are open.
     */
    public TriggeredContext triggeredContext(final Counter counter, final long threshold)
    {
        ensureOpen();
        checkTrigger(counter, threshold);
        final int index = triggers().openContext(counter.cell(), threshold, 0, 0, null, 0, null);
        if (index < 0)
        {
            throw new FabricException(Errno.ENOSPC, "every trigger context of domain " + name + " is open");
        }
        children.incrementAndGet();
        return new TriggeredContext(this, triggers(), index, counter, threshold);
    }

    /**
     * {@code fi_control} of the deferred work queue (fi_trigger(3)): {@link #QUEUE_WORK}, {@link #CANCEL_WORK},
     * {@link #FLUSH_WORK} ({@link DeferredWork}; the work argument of a flush is ignored). Control path.
     *
     * @param command the command.
     * @param work    the work item.
     * @return 0 or a negative errno ({@code -ENOSYS} for other commands; see {@link DeferredWorkQueue}).
     */
    public int control(final int command, final DeferredWork work)
    {
        return DeferredWorkQueue.control(this, command, work);
    }

    void checkTrigger(final Counter counter, final long threshold)
    {
        if (null == counter || counter.domain() != this || threshold < 0)
        {
            throw new FabricException(Errno.EINVAL, null == counter ? "no triggering counter" :
                counter.domain() != this ? "triggering counter of another domain" : "negative threshold " + threshold);
        }
    }

    io.jfabric.agent.TriggerTable triggers()
    {
        return agent.triggers();
    }

    void triggerWork(final long handle)
    {
        proxy.triggerWork(handle);
    }

    void childOpened()
    {
        children.incrementAndGet();
    }

    /**
     * {@code fi_query_atomic}: whether this domain's provider supports an atomic operation on a datatype, from the
     * provider's atomic table. Allocates nothing; any thread.
     *
     * @param datatype the datatype.
     * @param op       the operation.
     * @param flags    0 for {@code fi_atomic}, {@link Flags#FETCH_ATOMIC} or {@link Flags#COMPARE_ATOMIC}.
     * @return the largest element count one operation may carry ({@code fi_atomic_attr.count}), {@code -EOPNOTSUPP}
     * when unsupported, {@code -EINVAL} for null arguments, {@code -EBADFLAGS} for other flags.
     */
    public long queryAtomic(final AtomicDatatype datatype, final AtomicOp op, final long flags)
    {
        if (null == datatype || null == op)
        {
            return Errno.EINVAL.negated();
        }
        final AtomicCapabilities.Kind kind;
        if (0 == flags)
        {
            kind = AtomicCapabilities.Kind.ATOMIC;
        }
        else if (Flags.FETCH_ATOMIC == flags)
        {
            kind = AtomicCapabilities.Kind.FETCH;
        }
        else if (Flags.COMPARE_ATOMIC == flags)
        {
            kind = AtomicCapabilities.Kind.COMPARE;
        }
        else
        {
            return Errno.EBADFLAGS.negated();
        }
        return capabilities.atomics().valid(kind, op, datatype);
    }

    /**
     * {@code fi_query_atomic} with its {@code fi_atomic_attr}: as {@link #queryAtomic(AtomicDatatype, AtomicOp, long)},
     * filling {@code attr}'s count and the datatype's size when supported (left alone otherwise).
     *
     * @param datatype the datatype.
     * @param op       the operation.
     * @param attr     filled when supported.
     * @param flags    0, {@link Flags#FETCH_ATOMIC} or {@link Flags#COMPARE_ATOMIC}.
     * @return 0, {@code -EOPNOTSUPP} when unsupported, {@code -EINVAL} for null arguments, {@code -EBADFLAGS}.
     */
    public int queryAtomic(final AtomicDatatype datatype, final AtomicOp op, final AtomicAttr attr, final long flags)
    {
        if (null == attr)
        {
            return Errno.EINVAL.negated();
        }
        final long count = queryAtomic(datatype, op, flags);
        if (count < 0)
        {
            return (int) count;
        }
        attr.count = count;
        attr.size = datatype.size();
        return 0;
    }

    /**
     * The provider's description for this domain.
     */
    ProviderCapabilities capabilities()
    {
        return capabilities;
    }

    /**
     * {@code fi_mr_bind} of a counter: staged in the agent, then the bind command (serialised with every MR command).
     */
    synchronized void mrBind(final long key, final io.jfabric.agent.CounterCell cell, final long flags)
    {
        if (agent.operationLevel())
        {
            // The operation-level SPI reports target accesses per endpoint (remoteWriteDone/remoteReadDone), not
            // per region: such a back-end could not be counted.
            throw new FabricException(Errno.ENOSYS, "region counters are not offered by an operation-level back-end");
        }
        agent.stageRegionCounter(cell);
        mrCommand(CommandDescriptor.OP_MR_BIND, 0, 0, flags, key, null, 0);
    }

    /**
     * {@code fi_mr_refresh} of one range of a region: the transport's (ENOSYS by default).
     */
    int mrRefresh(final long key, final long address, final long length)
    {
        return transport.refreshRegion(key, address, length);
    }

    synchronized long mrCommand(
        final int opcode,
        final long address,
        final long length,
        final long access,
        final long key,
        final DirectBuffer[] iov,
        final int count)
    {
        final long sequence = ++mrSequence;
        proxy.memoryRegion(opcode, address, length, access, key, iov, count, sequence);
        final AtomicLongArray replies = agent.replies();
        int idle = 0;
        // Volatile read of the sequence first, then status and key (the agent stores them before it).
        while (replies.get(DomainAgent.REPLY_SEQUENCE) != sequence)
        {
            if (0 == progress())
            {
                idle = CompletionQueue.pause(idle);
            }
        }
        final int status = (int) replies.get(DomainAgent.REPLY_STATUS);
        if (CommandDescriptor.OP_MR_CLOSE == opcode || (0 != status && CommandDescriptor.OP_MR_REG == opcode))
        {
            // The provider's count of accepted registrations (MemoryRegistrationPolicy.Releaser).
            capabilities.memoryRegistration().releaser().released(key);
        }
        if (0 != status)
        {
            final Errno errno = Errno.of(status);
            throw new FabricException(null == errno ? Errno.EINVAL : errno,
                (CommandDescriptor.OP_MR_REG == opcode ? "memory registration" : "memory region close") +
                " failed: " + Errno.strerror(status));
        }
        return replies.get(DomainAgent.REPLY_KEY);
    }

    /**
     * {@code fi_cancel} of a receive: a control command to the agent, which first posts every receive written to
     * the receive ring before it, then cancels; this waits for the answer (driving manual progress), so that the
     * agent's refusal ({@code -EAGAIN}) reaches the caller. Cancels of this domain are serialised (one reply
     * slot). Allocation-free.
     *
     * @return 0 or a negative errno.
     */
    int cancel(final int endpointIndex, final long context)
    {
        synchronized (cancelLock)
        {
            // The sequence is taken only once the command is in the ring (under cancelLock: no other writer).
            final long sequence = cancelSequence + 1;
            if (proxy.cancel(endpointIndex, context, sequence) < 0)
            {
                return Errno.EAGAIN.negated();
            }
            cancelSequence = sequence;
            if (!awaitControlReply(sequence))
            {
                return Errno.EOPBADSTATE.negated();
            }
            return (int) agent.replies().get(DomainAgent.REPLY_CANCEL_STATUS);
        }
    }

    /**
     * Withdraw an endpoint from the agent and wait until the agent has done so (control path, driving manual
     * progress like {@link #cancel}): after this the agent neither delivers into the endpoint's buffers nor reads
     * them for a stream (its rendezvous and streamed-write streams end with {@code ECONNREFUSED} at the peer), so the
     * caller may release them. Falls back to withdrawing the endpoint at once when the control ring is full or the
     * domain is closing. Then the transport's {@code closeEndpoint} hook runs.
     *
     * @param endpointIndex the endpoint's index.
     */
    void withdrawEndpoint(final int endpointIndex)
    {
        withdrawFromAgent(endpointIndex);
        // The agent no longer touches the endpoint: the transport may release what its endpoint hook made.
        transport.closeEndpoint(endpointIndex);
    }

    private void withdrawFromAgent(final int endpointIndex)
    {
        synchronized (cancelLock)
        {
            // The sequence is taken only once the command is in the ring (under cancelLock: no other writer).
            final long sequence = cancelSequence + 1;
            if (closed.get() || proxy.closeEndpoint(endpointIndex, sequence) < 0)
            {
                agent.endpoint(endpointIndex, null);
                return;
            }
            cancelSequence = sequence;
            if (!awaitControlReply(sequence))
            {
                agent.endpoint(endpointIndex, null);
            }
        }
    }

    /**
     * Wait for the agent's answer to the control command numbered {@code sequence} in the cancel reply slots,
     * driving manual progress. Caller holds {@code cancelLock}.
     *
     * @return true when answered; false when the domain closed first.
     */
    private boolean awaitControlReply(final long sequence)
    {
        final AtomicLongArray replies = agent.replies();
        int idle = 0;
        // Volatile read of the sequence first, then the status (the agent stores it before the sequence).
        while (replies.get(DomainAgent.REPLY_CANCEL_SEQUENCE) != sequence)
        {
            if (closed.get())
            {
                return false;
            }
            if (0 == progress())
            {
                idle = CompletionQueue.pause(idle);
            }
        }
        return true;
    }

    /**
     * {@code fi_domain_bind} to an event queue: the domain's default EQ for asynchronous events. For each error the
     * domain's transport reports (for example shm finding this domain's own ring file damaged, after which every
     * operation fails with {@code EIO}), the domain agent writes an error event there: event {@link EventQueue#NOTIFY},
     * fid this domain, context 0, {@code err} the errno, and the transport's one-line description as UTF-8 in
     * {@link EqEntry#param()} (read with {@link EventQueue#readErr}). An event that finds the EQ full is dropped (it is
     * still counted in the domain's counters); the operations concerned fail in their completion queues anyway.
     * Binding again replaces the EQ.
     *
     * @param eventQueue the EQ.
     * @param flags      0 (asynchronous memory registration, {@code FI_REG_MR}, is not offered: registration
     *                   completes at the call).
     * @return this.
     * @throws FabricException EINVAL for a null EQ, EBADFLAGS for non-zero flags.
     */
    public synchronized Domain bind(final EventQueue eventQueue, final long flags)
    {
        if (null == eventQueue)
        {
            throw new FabricException(Errno.EINVAL, "fi_domain_bind: null event queue");
        }
        if (0 != flags)
        {
            throw new FabricException(Errno.EBADFLAGS, "fi_domain_bind flags 0x" + Long.toHexString(flags) +
                " (only 0: FI_REG_MR's asynchronous registration is not offered)");
        }
        final Domain self = this;
        agent.transportErrorListener(new TransportEventHandler()
        {
            @Override
            public void onPeerDown(final long peerKey, final int errno)
            {
            }

            @Override
            public void onTransportError(final int errno, final String detail)
            {
                // Agent thread, error path: the EQ is synchronized; the text is allocated once per event.
                eventQueue.writeConnectionError(EventQueue.NOTIFY, self, errno,
                    null == detail ? null : detail.getBytes(StandardCharsets.UTF_8));
            }
        });
        return this;
    }

    /**
     * Close the domain: stops the agent (joining an AUTO progress thread) and releases the transport.
     *
     * @throws FabricException EBUSY when endpoints, queues, counters or address vectors are still open.
     */
    @Override
    public void close()
    {
        if (children.get() > 0)
        {
            throw new FabricException(Errno.EBUSY, "domain " + name + " has " + children.get() + " open objects");
        }
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        if (null != group && !manual)
        {
            group.remove(agent);
        }
        CloseHelper.close(runner);
        CloseHelper.close(invoker);
        transport.close();
        counters.close();
        fabric.childClosed();
    }

    void childClosed()
    {
        children.decrementAndGet();
    }

    void ensureOpen()
    {
        if (closed.get())
        {
            throw new FabricException(Errno.EINVAL, "domain " + name + " is closed");
        }
    }

    DomainAgent agent()
    {
        return agent;
    }

    CommandProxy proxy()
    {
        return proxy;
    }

    DomainTransport transport()
    {
        return transport;
    }

    /**
     * @return this domain's connection management through frames (made on first use).
     */
    synchronized ConnectionManager connections()
    {
        if (null == connections)
        {
            connections = new ConnectionManager(transport, agent.connections());
        }
        return connections;
    }

    /**
     * @return the domain's counters in the process's counters file ({@code io.jfabric.stat}).
     */
    public DomainCounters counters()
    {
        return counters;
    }

    /**
     * Copies an immediate tsearch hit into the caller's entry; used under the progress guard only.
     */
    private static final class SearchSink implements CompletionRing.CompletionSink
    {
        CompletionEntry entry;
        long[] source;

        @Override
        public void onCompletion(
            final int index,
            final long context,
            final long flags,
            final long len,
            final long buf,
            final long data,
            final long tag,
            final long src)
        {
            if (null != entry)
            {
                entry.context = context;
                entry.flags = flags;
                entry.len = len;
                entry.buf = buf;
                entry.data = data;
                entry.tag = tag;
            }
            if (null != source && source.length > 0)
            {
                source[0] = src;
            }
        }

        @Override
        public void onError(
            final long context,
            final long flags,
            final long len,
            final long buf,
            final long data,
            final long tag,
            final long olen,
            final int err,
            final int provErrno,
            final long src)
        {
        }
    }
}
