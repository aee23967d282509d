package io.jfabric;

import io.jfabric.agent.CommandDescriptor;
import io.jfabric.spi.AddressVectorRules;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.SharedAddressTable;
import org.agrona.collections.LongHashSet;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An address vector ({@code fi_av}): maps peer addresses to {@code fi_addr_t} handles. With {@link AvType#TABLE}
 * handles are consecutive indexes from 0; with {@link AvType#MAP} a handle is the provider's peer key.
 * <p>
 * Every insert and remove is also sent to the domain agent (control ring), which keeps the reverse map used to
 * name the source of arrivals and re-homes unexpected messages that arrived from the address before it was known.
 * <p>
 * Threading: control methods are thread-safe (a monitor); {@link #peerKey(long)} is the lock-free data-path
 * lookup (a volatile read of the table array).
 */
public final class AddressVector implements AutoCloseable
{
    /** {@code FI_ADDR_NOTAVAIL}. */
    public static final long ADDR_NOTAVAIL = -1L;
    /** {@code FI_ADDR_UNSPEC}: any source in receives. */
    public static final long ADDR_UNSPEC = -1L;
    /** {@code FI_SYNC_ERR}: report per-entry errors of an insert (libfabric's value, {@code 1 << 58}). */
    public static final long SYNC_ERR = 1L << 58;

    private final Domain domain;
    private final AvType type;
    private final int id;
    private volatile long[] table;
    private int tableCount;
    private final LongHashSet mapped = new LongHashSet();
    /** MAP: a copy of {@link #mapped} republished after each insert or remove, read by the data path lock-free. */
    private volatile LongHashSet mappedView = new LongHashSet();
    private final AtomicInteger bindings = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** {@code rx_ctx_bits}: 0, or the high bits of a handle that name a peer's receive context. */
    private final int rxCtxBits;
    private final DomainTransport transport;
    /** {@link AvAttr#EVENT}, {@link AvAttr#READ}, {@link AvAttr#SYMMETRIC} given at open. */
    private final long openFlags;
    /** A named vector's storage, or null. */
    private final SharedAddressTable shared;
    private EventQueue eventQueue;

    AddressVector(final Domain domain, final AvType type, final int id, final int count)
    {
        this(domain, type, id, count, 0, 0, null);
    }

    AddressVector(
        final Domain domain,
        final AvType type,
        final int id,
        final int count,
        final int rxCtxBits,
        final long openFlags,
        final SharedAddressTable shared)
    {
        this.domain = domain;
        this.type = type;
        this.id = id;
        this.rxCtxBits = rxCtxBits;
        this.transport = domain.transport();
        this.openFlags = openFlags;
        this.shared = shared;
        final long[] initial = new long[Math.max(count, null == shared ? 1 : Math.max(1, shared.size()))];
        Arrays.fill(initial, -1L);
        this.table = initial;
        if (readOnly())
        {
            syncShared();
        }
    }

    /**
     * The checks of {@code fi_av_open}'s attributes before anything opens: sizes, flags, and what the provider does
     * not offer ({@link AddressVectorRules}).
     *
     * @param attr  the attributes.
     * @param rules the provider's address vector rules.
     * @param info  the domain's info.
     * @throws FabricException EINVAL for null attributes, a negative count or {@code rx_ctx_bits} outside the
     *                         provider's range; EBADFLAGS for unknown flags; the provider's errno for
     *                         {@link AvAttr#EVENT} or a name it does not offer.
     */
    static void checkOpen(final AvAttr attr, final AddressVectorRules rules, final Info info)
    {
        if (null == attr || attr.count() < 0 || attr.rxCtxBits() < 0 || attr.rxCtxBits() > rules.maxRxCtxBits())
        {
            throw new FabricException(Errno.EINVAL, "fi_av_open: bad attributes (count " +
                (null == attr ? "-" : attr.count()) + ", rx_ctx_bits " + (null == attr ? "-" : attr.rxCtxBits()) +
                ", at most " + rules.maxRxCtxBits() + ")");
        }
        if ((attr.flags() & ~AvAttr.FLAGS) != 0)
        {
            throw new FabricException(Errno.EBADFLAGS, "av flags 0x" + Long.toHexString(attr.flags()));
        }
        if ((attr.flags() & AvAttr.EVENT) != 0 && null != rules.eventRefusal())
        {
            throw new FabricException(rules.eventRefusal(), "fi_av_open: " + info.fabricAttr().provName() +
                " does not offer FI_EVENT address vectors");
        }
        if (null != attr.name() && null != rules.namedRefusal())
        {
            throw new FabricException(rules.namedRefusal(), "fi_av_open: " + info.fabricAttr().provName() +
                " does not offer named address vectors");
        }
    }

    /**
     * {@code fi_av_bind}: the event queue that reports the inserts of a vector opened with {@link AvAttr#EVENT}.
     *
     * @param eq    an event queue of this domain's fabric.
     * @param flags 0.
     * @return this.
     * @throws FabricException EBADFLAGS for flags; EINVAL for null, an EQ of another fabric, a vector opened
     *                         without {@link AvAttr#EVENT} or one bound already.
     */
    public synchronized AddressVector bind(final EventQueue eq, final long flags)
    {
        ensureOpen();
        final Errno refused = domain.capabilities().addressVectors().eventRefusal();
        if (null != refused)
        {
            throw new FabricException(refused, "fi_av_bind: the provider does not offer FI_EVENT address vectors");
        }
        if (0 != flags)
        {
            throw new FabricException(Errno.EBADFLAGS, "av bind flags 0x" + Long.toHexString(flags));
        }
        if (null == eq || eq.fabric() != domain.fabric())
        {
            throw new FabricException(Errno.EINVAL, null == eq ? "no event queue" : "an event queue of another fabric");
        }
        if ((openFlags & AvAttr.EVENT) == 0 || null != eventQueue)
        {
            throw new FabricException(Errno.EINVAL, null != eventQueue ? "an event queue is bound already" :
                "the address vector was opened without FI_EVENT");
        }
        eventQueue = eq;
        return this;
    }

    /**
     * {@code fi_av_insert} with a context: on a vector opened with {@link AvAttr#EVENT} the call returns 0 and the
     * insert completes through the bound event queue — one error event per address that could not be inserted
     * ({@code err} its errno, {@code data} its index in {@code addresses}) and then one {@link
     * EventQueue#AV_COMPLETE} event ({@code data} the number inserted, {@code context} this context, {@code fid}
     * this vector); fi_av(3). The runtime resolves addresses on the calling thread, so the events are written
     * before the call returns. On other vectors the context is not used and this is
     * {@link #insert(byte[][], long[], long, int[])} with no error array.
     *
     * @param addresses the addresses.
     * @param fiAddrs   receives one handle per address, as {@link #insert(byte[][], long[], long, int[])}.
     * @param flags     0 (an event vector does not take {@link #SYNC_ERR}).
     * @param context   the context of the {@code FI_AV_COMPLETE} event.
     * @return 0 on an event vector ({@code -EAGAIN}, nothing inserted, when the event queue lacks room for the
     * events), else the number inserted.
     * @throws FabricException ENOEQ on an event vector with no event queue bound; as the other insert otherwise.
     */
    public synchronized int insert(final byte[][] addresses, final long[] fiAddrs, final long flags, final long context)
    {
        if ((openFlags & AvAttr.EVENT) == 0)
        {
            return insert(addresses, fiAddrs, flags, null);
        }
        ensureOpen();
        final EventQueue eq = eventQueue;
        if (null == eq)
        {
            throw new FabricException(Errno.ENOEQ, "FI_EVENT address vector has no event queue bound");
        }
        if (0 != flags)
        {
            throw new FabricException(Errno.EBADFLAGS, "event av insert flags 0x" + Long.toHexString(flags));
        }
        checkInsert(addresses, fiAddrs);
        int bad = 0;
        for (final byte[] address : addresses)
        {
            if (null == address || transport.resolve(address) < 0)
            {
                bad++;
            }
        }
        synchronized (eq)
        {
            if (eq.room() < bad + 1)
            {
                return Errno.EAGAIN.negated();
            }
            final int[] errors = new int[addresses.length];
            final int inserted = insertChecked(addresses, fiAddrs, errors);
            for (int i = 0; i < errors.length; i++)
            {
                if (0 != errors[i])
                {
                    eq.writeError(EventQueue.AV_COMPLETE, this, context, errors[i], i);
                }
            }
            eq.write(EventQueue.AV_COMPLETE, this, context, inserted);
        }
        return 0;
    }

    /**
     * @return TABLE or MAP.
     */
    public AvType type()
    {
        return type;
    }

    /**
     * @return the domain.
     */
    public Domain domain()
    {
        return domain;
    }

    /**
     * {@code fi_av_insert} of one address.
     *
     * @param address the address bytes (as {@code Endpoint.name()} gives them).
     * @return the handle, or {@link #ADDR_NOTAVAIL} for a bad address.
     */
    public long insert(final byte[] address)
    {
        final long[] out = new long[1];
        if ((openFlags & AvAttr.EVENT) != 0)
        {
            insert(new byte[][]{address}, out, 0, 0L);
        }
        else
        {
            insert(new byte[][]{address}, out, 0, null);
        }
        return out[0];
    }

    /**
     * {@code fi_av_insert}.
     *
     * @param addresses the addresses.
     * @param fiAddrs   receives one handle per address ({@link #ADDR_NOTAVAIL} for a bad one); may be null with
     *                  {@link AvType#TABLE}.
     * @param flags     0 or {@link #SYNC_ERR}.
     * @param errors    with {@link #SYNC_ERR}: receives 0 or a positive errno per address.
     * @return the number of addresses inserted.
     * @throws FabricException EBADFLAGS for other flags; EINVAL when SYNC_ERR comes without an errors array, for a
     *                         null address array, or for a handle array shorter than the addresses (checked before
     *                         anything is inserted). A null address is a bad address.
     */
    public synchronized int insert(final byte[][] addresses, final long[] fiAddrs, final long flags, final int[] errors)
    {
        ensureOpen();
        if ((flags & ~SYNC_ERR) != 0)
        {
            throw new FabricException(Errno.EBADFLAGS, "av insert flags 0x" + Long.toHexString(flags));
        }
        checkInsert(addresses, fiAddrs);
        final boolean syncErr = (flags & SYNC_ERR) != 0;
        if (syncErr && (null == errors || errors.length < addresses.length))
        {
            throw new FabricException(Errno.EINVAL, "FI_SYNC_ERR needs an error array as long as the addresses");
        }
        if ((openFlags & AvAttr.EVENT) != 0)
        {
            throw new FabricException(Errno.EINVAL, "an FI_EVENT address vector inserts with a context");
        }
        return insertChecked(addresses, fiAddrs, syncErr ? errors : null);
    }

    private void checkInsert(final byte[][] addresses, final long[] fiAddrs)
    {
        if (readOnly())
        {
            throw new FabricException(Errno.EACCES, "the address vector was opened read-only (FI_READ)");
        }
        if (null == addresses)
        {
            throw new FabricException(Errno.EINVAL, "no address array");
        }
        if (null != fiAddrs && fiAddrs.length < addresses.length)
        {
            throw new FabricException(Errno.EINVAL, "fi_addr array holds " + fiAddrs.length + " handles for " +
                addresses.length + " addresses");
        }
    }

    private int insertChecked(final byte[][] addresses, final long[] fiAddrs, final int[] errors)
    {
        int inserted = 0;
        for (int i = 0; i < addresses.length; i++)
        {
            final long key = null == addresses[i] ? -1 : transport.resolve(addresses[i]);
            long fiAddr = ADDR_NOTAVAIL;
            int error = key >= 0 ? 0 : Errno.EINVAL.value();
            if (key >= 0 && null != shared && tableCount >= shared.capacity())
            {
                error = Errno.ENOSPC.value();
            }
            else if (key >= 0)
            {
                fiAddr = assign(key);
                if (null != shared)
                {
                    shared.put((int) fiAddr, addresses[i]);
                }
                announce(CommandDescriptor.OP_AV_INSERT, key, fiAddr);
                inserted++;
            }
            if (null != fiAddrs)
            {
                fiAddrs[i] = fiAddr;
            }
            if (null != errors)
            {
                errors[i] = error;
            }
        }
        publishMapped();
        return inserted;
    }

    /**
     * {@code fi_av_insertsvc}: the address of {@code node} and {@code service} as the provider forms it.
     *
     * @param node    the node.
     * @param service the service.
     * @return the handle, or {@link #ADDR_NOTAVAIL} when the provider cannot form such an address.
     * @throws FabricException the provider's errno when it does not offer the call (gni: ENOSYS).
     */
    public long insertService(final String node, final String service)
    {
        refuseServiceInsert("fi_av_insertsvc");
        return insert(serviceAddress(node, service));
    }

    /**
     * {@code fi_av_insertsym}: {@code nodeCount} consecutive numeric nodes from {@code node}, each with
     * {@code serviceCount} consecutive services from {@code service}.
     *
     * @param node         first node (numeric).
     * @param nodeCount    number of nodes.
     * @param service      first service (numeric).
     * @param serviceCount services per node.
     * @param fiAddrs      receives the handles, node-major.
     * @return the number inserted.
     * @throws FabricException the provider's errno when it does not offer the call (gni: ENOSYS); EINVAL when node
     *                         or service is not numeric, a count is negative, or fiAddrs is shorter
     *                         than {@code nodeCount * serviceCount}.
     */
    public int insertSymmetric(
        final String node, final int nodeCount, final String service, final int serviceCount, final long[] fiAddrs)
    {
        refuseServiceInsert("fi_av_insertsym");
        if (nodeCount < 0 || serviceCount < 0 || (long) nodeCount * serviceCount > Integer.MAX_VALUE)
        {
            throw new FabricException(Errno.EINVAL, "insertsym counts " + nodeCount + " x " + serviceCount);
        }
        final int firstNode;
        final int firstService;
        try
        {
            firstNode = Integer.parseInt(node);
            firstService = Integer.parseInt(service);
        }
        catch (final NumberFormatException ex)
        {
            throw new FabricException(Errno.EINVAL, "insertsym needs numeric node and service", ex);
        }
        final byte[][] addresses = new byte[nodeCount * serviceCount][];
        for (int n = 0; n < nodeCount; n++)
        {
            for (int s = 0; s < serviceCount; s++)
            {
                addresses[n * serviceCount + s] = serviceAddress(
                    Integer.toString(firstNode + n), Integer.toString(firstService + s));
            }
        }
        return (openFlags & AvAttr.EVENT) != 0 ? insert(addresses, fiAddrs, 0, 0L) :
            insert(addresses, fiAddrs, 0, null);
    }

    private void refuseServiceInsert(final String call)
    {
        final Errno refused = domain.capabilities().addressVectors().serviceRefusal();
        if (null != refused)
        {
            throw new FabricException(refused, call + ": the provider does not offer it");
        }
    }

    private byte[] serviceAddress(final String node, final String service)
    {
        final byte[] local = domain.transport().endpointAddress(0);
        final String text = new String(local, StandardCharsets.US_ASCII);
        final int scheme = text.indexOf("://");
        if (scheme < 0)
        {
            return null;
        }
        return (text.substring(0, scheme + 3) + node + ":" + service).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * {@code fi_av_remove}.
     *
     * @param fiAddr the handle.
     * @throws FabricException EINVAL for a handle that is not in the vector (for a {@link AvType#MAP} vector the
     *                         provider's errno, {@code AddressVectorRules.unknownMapAddress()}: gni's ENOENT).
     */
    public synchronized void remove(final long fiAddr)
    {
        ensureOpen();
        if (readOnly())
        {
            throw new FabricException(Errno.EACCES, "the address vector was opened read-only (FI_READ)");
        }
        final long key = peerKey(fiAddr);
        if (key < 0 || (AvType.MAP == type && !mapped.contains(fiAddr)))
        {
            throw new FabricException(AvType.MAP == type ? domain.capabilities().addressVectors().unknownMapAddress() :
                Errno.EINVAL, "fi_addr " + fiAddr + " is not in the address vector");
        }
        if (AvType.MAP == type)
        {
            mapped.remove(fiAddr);
            publishMapped();
        }
        else
        {
            table[(int) fiAddr] = -1L;
            if (null != shared)
            {
                shared.put((int) fiAddr, null);
            }
        }
        announce(CommandDescriptor.OP_AV_REMOVE, key, fiAddr);
        if (AvType.TABLE == type)
        {
            // The same address under another handle (inserted again, e.g. for a restarted peer): sources from it
            // are attributed to the latest such handle from now on, not lost.
            for (int i = tableCount - 1; i >= 0; i--)
            {
                if (table[i] == key)
                {
                    announce(CommandDescriptor.OP_AV_INSERT, key, i);
                    break;
                }
            }
        }
    }

    /**
     * {@code fi_av_lookup}.
     *
     * @param fiAddr the handle.
     * @return the address bytes.
     * @throws FabricException EINVAL for a handle that is not in the vector (for a {@link AvType#MAP} vector the
     *                         provider's errno, {@code AddressVectorRules.unknownMapAddress()}: gni's ENOENT).
     */
    public synchronized byte[] lookup(final long fiAddr)
    {
        if (readOnly() && fiAddr >= tableCount)
        {
            syncShared();
        }
        final long key = peerKey(fiAddr);
        if (key < 0 || (AvType.MAP == type && !mapped.contains(fiAddr)))
        {
            throw new FabricException(AvType.MAP == type ? domain.capabilities().addressVectors().unknownMapAddress() :
                Errno.EINVAL, "fi_addr " + fiAddr + " is not in the address vector");
        }
        return domain.transport().address(key);
    }

    /**
     * {@code fi_av_straddr}: the printable form of an address: the provider's ({@link DomainTransport#straddr}),
     * else the address bytes as text (the text names of inproc, shm and aeron).
     *
     * @param address the address bytes.
     * @return the text.
     */
    public String straddr(final byte[] address)
    {
        if (null == address)
        {
            throw new FabricException(Errno.EINVAL, "fi_av_straddr: no address");
        }
        final String text = transport.straddr(address);
        return null != text ? text : new String(address, StandardCharsets.US_ASCII);
    }

    /**
     * @return {@code rx_ctx_bits} of this vector (0: handles name endpoints, not receive contexts).
     */
    public int rxCtxBits()
    {
        return rxCtxBits;
    }

    /**
     * {@code fi_rx_addr}: the handle that names receive context {@code rxIndex} of the scalable endpoint behind
     * {@code fiAddr}, for an address vector opened with {@code rx_ctx_bits} = {@code rxCtxBits} (the index goes
     * into the top {@code rxCtxBits} bits). Pure arithmetic, as libfabric's macro.
     *
     * @param fiAddr    the handle of the peer's scalable endpoint (its {@code ScalableEndpoint.name()}).
     * @param rxIndex   the receive context, 0..2^rxCtxBits - 1.
     * @param rxCtxBits the vector's {@code rx_ctx_bits}, 0..{@link AvAttr#MAX_RX_CTX_BITS}.
     * @return the handle; {@code fiAddr} itself when {@code rxCtxBits} is 0.
     */
    public static long rxAddr(final long fiAddr, final int rxIndex, final int rxCtxBits)
    {
        return 0 == rxCtxBits ? fiAddr : ((long) rxIndex << (64 - rxCtxBits)) | fiAddr;
    }

    /**
     * The provider peer key of a handle, for the data path. Lock-free, allocation-free, any thread. With
     * {@code rx_ctx_bits} the top bits name a receive context of the peer: its key comes from the transport
     * ({@code DomainTransport.contextKey}).
     *
     * @param fiAddr the handle.
     * @return the key, or -1 when the handle names nothing.
     */
    long peerKey(final long fiAddr)
    {
        if (0 == rxCtxBits || ADDR_UNSPEC == fiAddr)
        {
            return entryKey(fiAddr);
        }
        final int rxIndex = (int) (fiAddr >>> (64 - rxCtxBits));
        final long key = entryKey(fiAddr & (-1L >>> rxCtxBits));
        return 0 == rxIndex || key < 0 ? key : transport.contextKey(key, rxIndex);
    }

    private long entryKey(final long fiAddr)
    {
        if (AvType.MAP == type)
        {
            // A removed (or never inserted) handle is refused as on TABLE.
            return mappedView.contains(fiAddr) ? fiAddr : -1L;
        }
        // Volatile read of the array reference: inserts publish a grown copy.
        final long[] t = table;
        return fiAddr < 0 || fiAddr >= t.length ? -1L : t[(int) fiAddr];
    }

    private long assign(final long key)
    {
        if (AvType.MAP == type)
        {
            mapped.add(key);
            return key;
        }
        long[] t = table;
        if (tableCount == t.length)
        {
            final long[] grown = Arrays.copyOf(t, t.length * 2);
            Arrays.fill(grown, t.length, grown.length, -1L);
            table = grown;
            t = grown;
        }
        t[tableCount] = key;
        return tableCount++;
    }

    private void publishMapped()
    {
        if (AvType.MAP == type)
        {
            final LongHashSet copy = new LongHashSet(Math.max(8, mapped.size() * 2));
            copy.addAll(mapped);
            mappedView = copy;
        }
    }

    private void announce(final int opcode, final long key, final long fiAddr)
    {
        domain.proxy().addressVectorChange(opcode, id, key, fiAddr);
    }

    /**
     * Close the vector.
     *
     * @throws FabricException EBUSY while an endpoint is bound to it.
     */
    @Override
    public void close()
    {
        if (bindings.get() > 0)
        {
            throw new FabricException(Errno.EBUSY, "address vector is bound to " + bindings.get() + " endpoint(s)");
        }
        if (closed.compareAndSet(false, true))
        {
            if (null != shared)
            {
                shared.close();
            }
            domain.childClosed();
        }
    }

    int id()
    {
        return id;
    }

    /**
     * @return true for a named vector opened with {@link AvAttr#READ}.
     */
    public boolean readOnly()
    {
        return (openFlags & AvAttr.READ) != 0;
    }

    /**
     * Read-only open: take the entries the creator published since the last sync, resolving each address with this
     * domain's transport, at the creator's indexes.
     */
    private void syncShared()
    {
        final int size = shared.size();
        for (int i = tableCount; i < size; i++)
        {
            final byte[] address = shared.get(i);
            final long key = null == address ? -1L : domain.transport().resolve(address);
            final long fiAddr = assignAt(i, key);
            if (key >= 0)
            {
                announce(CommandDescriptor.OP_AV_INSERT, key, fiAddr);
            }
        }
    }

    private long assignAt(final int index, final long key)
    {
        long[] t = table;
        if (index >= t.length)
        {
            final long[] grown = Arrays.copyOf(t, Math.max(index + 1, t.length * 2));
            Arrays.fill(grown, t.length, grown.length, -1L);
            t = grown;
        }
        t[index] = key < 0 ? -1L : key;
        table = t;
        tableCount = index + 1;
        return index;
    }

    void bound(final int delta)
    {
        bindings.addAndGet(delta);
    }

    private void ensureOpen()
    {
        if (closed.get())
        {
            throw new FabricException(Errno.EINVAL, "address vector is closed");
        }
    }
}
