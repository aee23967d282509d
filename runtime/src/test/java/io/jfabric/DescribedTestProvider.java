package io.jfabric;

import io.jfabric.spi.AtomicCapabilities;
import io.jfabric.provider.inproc.InprocProvider;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.FabricBackend;
import io.jfabric.spi.MemoryRegistrationPolicy;
import io.jfabric.spi.Operation;
import io.jfabric.spi.OpsExtension;
import io.jfabric.spi.OpsType;
import io.jfabric.spi.ProviderCapabilities;
import io.jfabric.spi.TransportProvider;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A test-only provider, registered through {@code META-INF/services} of the test class path only, that describes
 * itself with everything the runtime must enforce for it (and never names it):
 * <ul>
 *     <li>a narrowed atomic table ({@link #ATOMICS}): no 8- and 16-bit types, no {@code FI_SUM} on doubles, no
 *     {@code FI_PROD}, 64-byte vectors;</li>
 *     <li>an MR policy: {@code fi_mr_regv}/{@code fi_mr_regattr} segments page-aligned ({@link #MR_ALIGNMENT}),
 *     plain {@code fi_mr_reg} not; application keys always; a validator refusing requested keys from
 *     {@link #USER_KEY_LIMIT} on with {@code EKEYREJECTED} (fi_gni(7)'s user key limit);</li>
 *     <li>authorization keys up to {@link #AUTH_KEY_SIZE} bytes;</li>
 *     <li>{@code fi_tinjectdata} refused with {@code ENOSYS}, {@code fi_inject_writedata} with {@code EOPNOTSUPP};</li>
 *     <li>multi-recv releases reported as a separate entry;</li>
 *     <li>open_ops extensions {@link #FABRIC_OPS}, {@link #DOMAIN_OPS} and {@link #EP_OPS}.</li>
 * </ul>
 * Frames move through an {@code inproc} transport it wraps (same addresses). It records its lifecycle hooks per
 * domain name ({@link #events(String)}), so that a test opening a fabric with its own domain name sees the order.
 * It needs {@code FI_CONTEXT2} and ranks last, so tests that do not ask for it never see it.
 * <p>
 * Threading: thread-safe.
 */
public final class DescribedTestProvider implements TransportProvider
{
    /** The provider name. */
    public static final String NAME = "jfabric-test-described";
    /** Segment alignment of regv/regattr registrations. */
    static final long MR_ALIGNMENT = 4096;
    /** Requested MR keys must be below this. */
    static final long USER_KEY_LIMIT = 192;
    /** Longest authorization key taken. */
    static final int AUTH_KEY_SIZE = 8;
    /** Fabric extension: 0 = WAIT_SLEEP_US (UINT32, default 20), 1 = KEY_LIMIT (INT32, 192, at most 4096). */
    static final String FABRIC_OPS = "test fab ops 1";
    /**
     * Domain extension: 0 = REFUSE_ENDPOINTS (BOOLEAN: the transport's endpoint hook refuses with EBUSY),
     * 1 = MR_CACHE (STRING, "internal" or "none"), 2 = RETRANSMITS (UINT32, 5, at most 64).
     */
    static final String DOMAIN_OPS = "test domain ops 1";
    /** Endpoint extension: 0 = HASH_TAG_IMPL (BOOLEAN). */
    static final String EP_OPS = "test ep ops 1";
    /** The atomic table: the executor's less 8/16-bit types, SUM on DOUBLE and PROD; 64-byte vectors. */
    static final AtomicCapabilities ATOMICS = narrowAtomics();

    private static final Map<String, List<String>> EVENTS = new ConcurrentHashMap<>();

    private final InprocProvider inproc = new InprocProvider();
    private final List<Info> infos;
    private final ProviderCapabilities capabilities = ProviderCapabilities.builder()
        .atomics(ATOMICS)
        .memoryRegistration(MemoryRegistrationPolicy.builder()
            .alignment(MR_ALIGNMENT, EnumSet.of(MemoryRegistrationPolicy.Form.REGV,
                MemoryRegistrationPolicy.Form.REGATTR))
            .keyMode(MemoryRegistrationPolicy.KeyMode.REQUESTED)
            .validator((form, addresses, lengths, count, access, requestedKey, authKey) ->
                Long.compareUnsigned(requestedKey, USER_KEY_LIMIT) >= 0 ? Errno.EKEYREJECTED.negated() : 0)
            .build())
        .authKeySize(AUTH_KEY_SIZE)
        .refuse(Operation.TINJECTDATA, Errno.ENOSYS)
        .refuse(Operation.INJECT_WRITEDATA, Errno.EOPNOTSUPP)
        .multiRecvCompletion(ProviderCapabilities.MultiRecvCompletion.SEPARATE_ENTRY)
        .build();

    /**
     * Built by the ServiceLoader.
     */
    public DescribedTestProvider()
    {
        final Info rdm = inproc.infos().get(0);
        infos = List.of(rdm.toBuilder()
            .caps(rdm.caps() | Flags.SOURCE_ERR)
            .mode(Mode.CONTEXT2)
            .rxAttr(rdm.rxAttr().toBuilder().caps(rdm.rxAttr().caps() | Flags.SOURCE_ERR).build())
            .domainAttr(rdm.domainAttr().toBuilder().name("described").maxErrData(64).maxEpAuthKey(1).build())
            .fabricAttr(FabricAttr.builder().name("described").build())
            .build());
    }

    /**
     * The lifecycle hooks this provider saw for fabrics and domains opened with an info of that domain name, in order.
     *
     * @param domainName {@code domain_attr.name} of the info.
     * @return a copy of the events.
     */
    static List<String> events(final String domainName)
    {
        final List<String> list = EVENTS.get(domainName);
        if (null == list)
        {
            return List.of();
        }
        synchronized (list)
        {
            return List.copyOf(list);
        }
    }

    private static void record(final String domainName, final String event)
    {
        final List<String> list = EVENTS.computeIfAbsent(domainName, (k) -> new ArrayList<>());
        synchronized (list)
        {
            list.add(event);
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String name()
    {
        return NAME;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public Version version()
    {
        return Version.of(0, 1);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public List<Info> infos()
    {
        return infos;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public int rank()
    {
        return Integer.MAX_VALUE - 1;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public ProviderCapabilities capabilities(final Info info)
    {
        return capabilities;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public byte[] resolveAddress(final AddressFormat format, final String node, final String service, final long flags)
    {
        return inproc.resolveAddress(format, node, service, flags);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public FabricBackend openFabric(final Info info)
    {
        final String key = info.domainAttr().name();
        if ("refuse-fabric".equals(key))
        {
            record(key, "openFabric refused");
            throw new FabricException(Errno.EACCES, "this fabric is refused");
        }
        record(key, "openFabric");
        return new Backend(key);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public DomainTransport openDomain(final Info info)
    {
        throw new FabricException(Errno.EINVAL, "the runtime opens domains through openDomain(FabricBackend, Info)");
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public DomainTransport openDomain(final FabricBackend fabric, final Info info)
    {
        final Backend backend = (Backend) fabric;
        record(backend.key, "openDomain " + info.domainAttr().name() +
            (null == info.domainAttr().authKey() ? "" : " key " + info.domainAttr().authKey().length));
        return new Transport(backend.key, inproc.openDomain(info));
    }

    /**
     * A typed option table: the runtime checked names, types and ranges; this checks the provider's own limits.
     */
    private static final class Extension implements OpsExtension
    {
        private final String name;
        private final OpsType[] types;
        private final long[] values;
        private final long[] limits;
        private volatile String mrCache = "internal";

        Extension(final String name, final OpsType[] types, final long[] values, final long[] limits)
        {
            this.name = name;
            this.types = types;
            this.values = values;
            this.limits = limits;
        }

        @Override
        public String name()
        {
            return name;
        }

        @Override
        public OpsType type(final int option)
        {
            return option >= 0 && option < types.length ? types[option] : null;
        }

        @Override
        public synchronized long get(final int option)
        {
            return values[option];
        }

        @Override
        public synchronized void set(final int option, final long value)
        {
            if (value > limits[option])
            {
                throw new FabricException(Errno.EINVAL, name + " option " + option + ": " + value + " above " +
                    limits[option]);
            }
            values[option] = value;
        }

        @Override
        public String getString(final int option)
        {
            return mrCache;
        }

        @Override
        public void setString(final int option, final String value)
        {
            if (!"internal".equals(value) && !"none".equals(value))
            {
                throw new FabricException(Errno.EINVAL, name + " MR_CACHE '" + value + "': internal or none");
            }
            mrCache = value;
        }
    }

    private static final class Backend implements FabricBackend
    {
        private final String key;
        private final Extension ops = new Extension(FABRIC_OPS, new OpsType[]{ OpsType.UINT32, OpsType.INT32 },
            new long[]{ 20, 192 }, new long[]{ Long.MAX_VALUE, 4096 });

        Backend(final String key)
        {
            this.key = key;
        }

        @Override
        public OpsExtension openOps(final String name)
        {
            return FABRIC_OPS.equals(name) ? ops : null;
        }

        @Override
        public void close()
        {
            record(key, "closeFabric");
        }
    }

    /**
     * The inproc transport with hooks: per-endpoint extensions, an endpoint refusal switch, recorded events.
     */
    private static final class Transport extends ForwardingDomainTransport
    {
        private final String key;
        private final Extension domainOps = new Extension(DOMAIN_OPS,
            new OpsType[]{ OpsType.BOOLEAN, OpsType.STRING, OpsType.UINT32 }, new long[]{ 0, 0, 5 },
            new long[]{ 1, 0, 64 });
        private final Map<Integer, Extension> endpointOps = new ConcurrentHashMap<>();

        Transport(final String key, final DomainTransport inner)
        {
            super(inner);
            this.key = key;
        }

        @Override
        public void openEndpoint(final int endpointIndex, final Info info)
        {
            if (0 != domainOps.get(0))
            {
                record(key, "openEndpoint " + endpointIndex + " refused");
                throw new FabricException(Errno.EBUSY, "REFUSE_ENDPOINTS is set");
            }
            record(key, "openEndpoint " + endpointIndex +
                (null == info.epAttr().authKey() ? "" : " key " + info.epAttr().authKey().length));
            endpointOps.put(endpointIndex, new Extension(EP_OPS, new OpsType[]{ OpsType.BOOLEAN }, new long[]{ 0 },
                new long[]{ 1 }));
        }

        @Override
        public void closeEndpoint(final int endpointIndex)
        {
            record(key, "closeEndpoint " + endpointIndex);
            endpointOps.remove(endpointIndex);
        }

        @Override
        public OpsExtension openOps(final String name)
        {
            return DOMAIN_OPS.equals(name) ? domainOps : null;
        }

        @Override
        public OpsExtension openOps(final int endpointIndex, final String name)
        {
            return EP_OPS.equals(name) ? endpointOps.get(endpointIndex) : null;
        }

        @Override
        public void close()
        {
            record(key, "closeDomain");
            inner.close();
        }
    }

    private static AtomicCapabilities narrowAtomics()
    {
        AtomicCapabilities table = AtomicCapabilities.full(64)
            .without(AtomicDatatype.INT8).without(AtomicDatatype.UINT8)
            .without(AtomicDatatype.INT16).without(AtomicDatatype.UINT16)
            .without(AtomicCapabilities.Kind.ATOMIC, AtomicOp.SUM, AtomicDatatype.DOUBLE)
            .without(AtomicCapabilities.Kind.FETCH, AtomicOp.SUM, AtomicDatatype.DOUBLE);
        for (final AtomicDatatype datatype : AtomicDatatype.values())
        {
            table = table.without(AtomicCapabilities.Kind.ATOMIC, AtomicOp.PROD, datatype)
                .without(AtomicCapabilities.Kind.FETCH, AtomicOp.PROD, datatype);
        }
        return table;
    }
}
