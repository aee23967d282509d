package io.jfabric;

import io.jfabric.spi.FabricBackend;
import io.jfabric.spi.Provider;
import io.jfabric.spi.TransportProvider;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Entry point of the fabric interface: discovery with {@link #getInfo} ({@code fi_getinfo}), and an open fabric
 * ({@code fi_fabric}) created with {@link #open(Info)} that opens domains and event queues.
 * <p>
 * Providers are found once, lazily, with {@link java.util.ServiceLoader}. Every method is thread-safe and
 * belongs to the control path.
 */
public final class Fabric implements AutoCloseable
{
    /**
     * The JVM flag jfabric needs on the class path: Agrona reaches memory through {@code jdk.internal.misc.Unsafe}.
     */
    public static final String JVM_FLAG = "--add-exports java.base/jdk.internal.misc=ALL-UNNAMED";

    static
    {
        // JFABRIC_* variables become their jfabric.* properties before anything reads one
        Configuration.applyEnvironment();
    }

    private final Info info;
    private final TransportProvider provider;
    private final FabricBackend backend;
    private final AtomicInteger children = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();

    private Fabric(final Info info, final TransportProvider provider, final FabricBackend backend)
    {
        this.info = info;
        this.provider = provider;
        this.backend = backend;
    }

    /**
     * {@code fi_fabric}: open the fabric an info (from {@link #getInfo}) describes.
     *
     * @param info an info returned by getInfo; its {@code fabric_attr.prov_name} names the provider.
     * @return the open fabric; the provider's per-fabric object ({@code TransportProvider.openFabric}) is open.
     * @throws FabricException ENODATA when no registered provider of that name can open domains, EINVAL for a
     *                         null info, or the provider's errno when its fabric cannot open.
     */
    public static Fabric open(final Info info)
    {
        if (null == info)
        {
            throw new FabricException(Errno.EINVAL, "info is null");
        }
        final String name = info.fabricAttr().provName();
        for (final Provider p : providers())
        {
            if (p.name().equals(name) && p instanceof TransportProvider)
            {
                final TransportProvider provider = (TransportProvider) p;
                final FabricBackend backend = provider.openFabric(info);
                return new Fabric(info, provider, null == backend ? FabricBackend.NONE : backend);
            }
        }
        throw new FabricException(Errno.ENODATA, "no provider '" + name + "' that can open a fabric");
    }

    /**
     * @return the info this fabric was opened with.
     */
    public Info info()
    {
        return info;
    }

    /**
     * {@code fi_domain}: open a domain with the backoff idle strategy for automatic progress.
     *
     * @param domainInfo the info (usually the fabric's); null means the fabric's.
     * @return the domain.
     * @throws FabricException when the provider cannot open it.
     */
    public Domain domain(final Info domainInfo)
    {
        return domain(domainInfo, (String) null);
    }

    /**
     * {@code fi_domain} with the idle strategy of the automatic-progress thread named.
     *
     * @param domainInfo   the info; null means the fabric's.
     * @param idleStrategy {@code backoff} (null), {@code spin}, {@code yield} or {@code sleep}.
     * @return the domain.
     * @throws FabricException EINVAL for an unknown idle strategy or a closed fabric.
     */
    public Domain domain(final Info domainInfo, final String idleStrategy)
    {
        ensureOpen();
        Domain.idleStrategy(idleStrategy);
        children.incrementAndGet();
        try
        {
            return new Domain(this, null == domainInfo ? info : domainInfo, provider, idleStrategy, null);
        }
        catch (final RuntimeException | Error ex)
        {
            children.decrementAndGet();
            throw openFailure(ex);
        }
    }

    /**
     * {@code fi_domain} with automatic progress on a thread shared with other domains.
     *
     * @param domainInfo the info; null means the fabric's. Its data progress must not be MANUAL.
     * @param group      the shared progress thread.
     * @return the domain.
     * @throws FabricException EINVAL for a MANUAL-progress info.
     */
    public Domain domain(final Info domainInfo, final ProgressGroup group)
    {
        ensureOpen();
        final Info i = null == domainInfo ? info : domainInfo;
        if (Progress.MANUAL == i.domainAttr().dataProgress())
        {
            throw new FabricException(Errno.EINVAL, "a progress group drives FI_PROGRESS_AUTO domains only");
        }
        children.incrementAndGet();
        try
        {
            return new Domain(this, i, provider, null, group);
        }
        catch (final RuntimeException | Error ex)
        {
            children.decrementAndGet();
            throw openFailure(ex);
        }
    }

    /**
     * One automatic-progress thread that several domains can share ({@code CompositeAgent}).
     *
     * @param name         the thread is named {@code jfabric-<name>}.
     * @param idleStrategy {@code backoff} (null), {@code spin}, {@code yield} or {@code sleep}.
     * @return the group, with its thread started.
     */
    public ProgressGroup progressGroup(final String name, final String idleStrategy)
    {
        ensureOpen();
        return new ProgressGroup(name, Domain.idleStrategy(idleStrategy));
    }

    /**
     * {@code fi_eq_open}: an event queue.
     *
     * @param size entries, at least 1.
     * @return the event queue.
     * @throws FabricException EINVAL for a bad size.
     */
    public EventQueue eventQueue(final int size)
    {
        ensureOpen();
        if (size < 1)
        {
            throw new FabricException(Errno.EINVAL, "eq size " + size + " must be positive");
        }
        children.incrementAndGet();
        return new EventQueue(this, size);
    }

    /**
     * {@code fi_passive_ep}: a passive endpoint that listens for {@code FI_EP_MSG} connection requests.
     *
     * @param pepInfo the info (an MSG info of this fabric's provider); null means the fabric's.
     * @return the passive endpoint.
     */
    public PassiveEndpoint passiveEndpoint(final Info pepInfo)
    {
        ensureOpen();
        return new PassiveEndpoint(this, null == pepInfo ? info : pepInfo);
    }

    /**
     * @return true when the provider's domains all live in this JVM (connection management without frames).
     */
    boolean inProcessOnly()
    {
        return provider.inProcessOnly();
    }

    /**
     * {@code fi_wait_open}: a wait set over CQs, counters and EQs of this fabric.
     *
     * @return the wait set.
     */
    public WaitSet waitSet()
    {
        ensureOpen();
        return new WaitSet();
    }

    /**
     * {@code fi_trywait}: whether the caller may block on the wait objects ({@link WaitChannel}s) of these
     * completion queues, counters, event queues and wait sets. Drains and arms each object's open wait channel, then
     * checks each object (driving manual progress); see {@link WaitChannel}.
     *
     * @param objects objects of this fabric.
     * @return 0 when nothing is ready (block on the channels now: an event from here on signals them),
     * {@code -EAGAIN} when something is ready (read it instead).
     * @throws FabricException EINVAL for a null array, a null or unsupported object or one of another fabric.
     */
    public int trywait(final Object... objects)
    {
        return TryWait.trywait(this, objects);
    }

    /**
     * {@code fi_open_ops} on the fabric: a named provider extension.
     *
     * @param name the extension's name (the provider documents its names).
     * @return the extension.
     * @throws FabricException ENOSYS when the provider has no fabric extension of that name; EINVAL for a null name
     *                         or a closed fabric.
     */
    public OpenOps openOps(final String name)
    {
        ensureOpen();
        return OpenOps.of(null == name ? null : backend.openOps(name), name, "fabric " + provider.name());
    }

    /**
     * Close the fabric and the provider's per-fabric object (once; a second close does nothing).
     *
     * @throws FabricException EBUSY while domains or event queues are open.
     */
    @Override
    public void close()
    {
        if (children.get() > 0)
        {
            throw new FabricException(Errno.EBUSY, "fabric has " + children.get() + " open objects");
        }
        if (closed.compareAndSet(false, true))
        {
            backend.close();
        }
    }

    /**
     * The provider's per-fabric object, for the domains of this fabric.
     */
    FabricBackend backend()
    {
        return backend;
    }

    void childClosed()
    {
        children.decrementAndGet();
    }

    /**
     * What a failed domain open throws: a JVM started without the flag Agrona needs fails with a linkage error
     * (IllegalAccessError on the first use of Agrona's Unsafe access, NoClassDefFoundError after), which becomes an
     * EACCES naming the flag; anything else unchanged.
     */
    private static RuntimeException openFailure(final Throwable ex)
    {
        if (ex instanceof LinkageError)
        {
            return new FabricException(Errno.EACCES, "cannot use jdk.internal.misc (" + ex + "); start the JVM with " +
                JVM_FLAG, ex);
        }
        if (ex instanceof Error)
        {
            throw (Error) ex;
        }
        return (RuntimeException) ex;
    }

    private void ensureOpen()
    {
        if (closed.get())
        {
            throw new FabricException(Errno.EINVAL, "fabric is closed");
        }
    }

    /**
     * {@code fi_getinfo(version, node, service, flags, hints)}: the fabric interfaces that can reach the
     * node and service and satisfy the hints, best-performing first.
     * <ul>
     *     <li>A non-zero hint must be met or the provider's info drops out; a zero hint is a wildcard, except
     *     {@code mode}: zero means the application supports no mode, so providers that need one drop out.
     *     Output modes hold only the bits the provider needs.</li>
     *     <li>Primary capabilities are enabled only when requested; primary modifiers restrict them (none
     *     means all); the provider's secondary capabilities are reported.</li>
     *     <li>Maxima (sizes, limits, counts) are met when the hint is at most the provider's value; output
     *     attributes are the provider's values, so at least the requested ones.</li>
     *     <li>{@code node}/{@code service} name the destination, or with {@code FI_SOURCE} the source; with
     *     {@code FI_NUMERICHOST} the node must be a numeric address and no lookup is made. A node in
     *     {@code FI_ADDR_STR} form ({@code fi_sockaddr_in://127.0.0.1:7471}, {@code gni;...}) takes no
     *     service. Without node and service the default source address is filled.</li>
     *     <li>{@code FI_PROV_ATTR_ONLY}: exactly one zeroed info per provider, with only
     *     {@code fabric_attr.prov_name}, {@code prov_version} and {@code api_version} set.</li>
     * </ul>
     *
     * @param version the API version the application was written for; at most {@link Version#CURRENT}.
     * @param node    the node to reach (host, numeric address or {@code FI_ADDR_STR}), or null.
     * @param service the service (port), or null.
     * @param flags   {@link Flags#NUMERICHOST}, {@link Flags#SOURCE}, {@link Flags#PROV_ATTR_ONLY} or 0.
     * @param hints   the criteria, or null for none ({@link Info#alloc()} is a good start).
     * @return the matching infos, never empty.
     * @throws FabricException ENODATA when nothing matches; ENOSYS when the version is newer than the
     *                         library's; EBADFLAGS for unknown flags; EINVAL for malformed input.
     */
    public static List<Info> getInfo(
        final Version version, final String node, final String service, final long flags, final Info hints)
    {
        return Registry.DISCOVERY.getInfo(version, node, service, flags, hints);
    }

    /**
     * {@code fi_getinfo} for the library's current version, without node, service or flags.
     *
     * @param hints the criteria, or null.
     * @return the matching infos, never empty.
     * @throws FabricException ENODATA when nothing matches.
     */
    public static List<Info> getInfo(final Info hints)
    {
        return getInfo(Version.CURRENT, null, null, 0, hints);
    }

    /**
     * The registered providers (as {@code fi_info -l} lists them), in result order.
     *
     * @return the providers; empty when none is registered.
     */
    public static List<Provider> providers()
    {
        return Registry.DISCOVERY.providers();
    }

    /**
     * Lazily loaded, once, on first use (class initialisation is thread-safe).
     */
    private static final class Registry
    {
        static final Discovery DISCOVERY = Discovery.loadDefault();
    }
}
