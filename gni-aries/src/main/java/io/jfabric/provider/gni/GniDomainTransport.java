package io.jfabric.provider.gni;

import io.jfabric.AddressFormat;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.aries.AriesNode;
import io.jfabric.aries.Cdm;
import io.jfabric.aries.GniException;
import io.jfabric.aries.GniNic;
import io.jfabric.aries.JobRegistry;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.FrameHandler;
import io.jfabric.spi.OperationBackend;
import io.jfabric.spi.OpsExtension;
import io.jfabric.spi.TransportCounters;
import io.jfabric.spi.TransportEventHandler;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A gni domain: its own emulated Aries node (device address), one CDM of the domain's job (the authorization key's
 * cookie, or the default key) and its NIC, and the {@link GniBackend} that runs the protocol. As a
 * {@link DomainTransport} it only names endpoints ({@link GniName}); it carries no runtime frames.
 * <p>
 * Threading: naming methods from any thread; the back-end on the domain agent's thread.
 */
final class GniDomainTransport implements DomainTransport
{
    private static final int INST_ID = GniCmChannel.DATA_INST;

    private final AddressFormat format;
    private final AriesNode node;
    private final Cdm cdm;
    private final GniNic nic;
    private final int device;
    private final int cookie;
    private final GniDomainOps ops;
    private final GniMrCache mrCache;
    private final AtomicIntegerArray hashTagImpl = new AtomicIntegerArray(GniName.MAX_ENDPOINTS);
    private final GniNativeAmos nativeAmos = new GniNativeAmos();
    private final GniBackend backend;
    private final GniDirectCopy directCopy;
    private final GniCmChannel cm;
    private final boolean scalable;
    private final boolean autoProgress;

    private GniDomainTransport(
        final AddressFormat format, final AriesNode node, final Cdm cdm, final GniNic nic, final int cookie,
        final boolean scalable, final boolean autoProgress, final GniCmChannel cm)
    {
        this.cm = cm;
        this.autoProgress = autoProgress;
        this.scalable = scalable;
        this.format = format;
        this.node = node;
        this.cdm = cdm;
        this.nic = nic;
        this.device = node.deviceAddress();
        this.cookie = cookie;
        this.ops = new GniDomainOps(node.stats());
        // Scalable (vMDH) domains start with no cache, as upstream forces.
        this.mrCache = new GniMrCache(nic, ops, scalable ? GniMrCache.Type.NONE : GniMrCache.Type.INTERNAL);
        ops.cache(mrCache);
        this.backend = new GniBackend(this, nic);
        this.directCopy = new GniDirectCopy(node, ops);
        backend.rendezvousReceive().directCopy(directCopy);
        if (GniConfiguration.shmWire())
        {
            // On the shm wire a peer's shared pool can be mapped: the XPMEM-like path is on unless turned off.
            ops.set(GniOps.GNI_XPMEM_ENABLE, 1);
        }
        if (scalable)
        {
            ops.regions(backend.regions());
        }
        GniConfiguration.startEngine(node);
    }

    static GniDomainTransport open(final Info info)
    {
        final int cookie = cookie(info.domainAttr().authKey());
        final boolean scalable = GniRegistrations.scalable(info.domainAttr().mrMode());
        GniAuthKeys.openDomain(cookie, scalable);
        try
        {
            return open(info, cookie, scalable);
        }
        catch (final RuntimeException ex)
        {
            GniAuthKeys.closeDomain(cookie);
            throw ex;
        }
    }

    private static GniDomainTransport open(final Info info, final int cookie, final boolean scalable)
    {
        final JobRegistry jobs = GniConfiguration.jobs();
        int ptag = jobs.ptag(cookie);
        if (-1 == ptag)
        {
            // A user key: the "kernel" hands out the ptag that belongs to the cookie (GNI_GetPtag).
            ptag = JobRegistry.PTAG_USER_START + 1 + Math.floorMod(cookie, JobRegistry.PTAG_USER_END - 4);
            jobs.register(cookie, ptag);
        }
        AriesNode node = null;
        Cdm cdm = null;
        // A device address left claimed by a process that died (shm wire) is skipped.
        for (int attempt = 0; attempt < 256 && null == cdm; attempt++)
        {
            final int device = GniConfiguration.nextDevice();
            node = AriesNode.open(new AriesNode.Context().deviceAddress(device)
                .directory(GniConfiguration.directory()).jobs(jobs).wire(GniConfiguration.wire(device))
                .faults(GniFaults.plan()));
            try
            {
                cdm = node.cdmCreate(INST_ID, ptag, cookie, Cdm.MODE_ERR_NO_KILL);
            }
            catch (final GniException ex)
            {
                node.close();
            }
        }
        if (null == cdm)
        {
            throw new FabricException(Errno.ENOSPC, "gni: no free device address");
        }
        try
        {
            final GniNic nic = cdm.attach(0);
            GniFaults.opened(node);
            final AddressFormat format = AddressFormat.STR == info.addrFormat() ? AddressFormat.STR : AddressFormat.GNI;
            return new GniDomainTransport(format, node, cdm, nic, cookie, scalable,
                Progress.MANUAL != info.domainAttr().dataProgress(), GniCmChannel.open(node, ptag, cookie));
        }
        catch (final GniException | FabricException ex)
        {
            node.close();
            throw ex instanceof FabricException ? (FabricException) ex :
                new FabricException(Errno.EIO, "gni: cannot open the NIC: " + ex.getMessage());
        }
    }

    /**
     * The cookie of an authorization key ({@code struct fi_gni_auth_key}: type 0 = raw, then the cookie).
     *
     * @param key the key bytes, or null for the default key.
     * @return the cookie.
     */
    static int cookie(final byte[] key)
    {
        if (null == key || 0 == key.length)
        {
            return GniConfiguration.DEFAULT_COOKIE;
        }
        if (GniProvider.AUTH_KEY_SIZE != key.length)
        {
            throw new FabricException(Errno.EINVAL, "gni: an auth key is 8 bytes (type, cookie), not " + key.length);
        }
        final ByteBuffer b = ByteBuffer.wrap(key).order(ByteOrder.LITTLE_ENDIAN);
        if (0 != b.getInt(0))
        {
            throw new FabricException(Errno.EINVAL, "gni: auth key type " + b.getInt(0) + " (only GNIX_AKT_RAW, 0)");
        }
        return b.getInt(4);
    }

    AriesNode node()
    {
        return node;
    }

    /**
     * @return whether the domain's data progress is {@code FI_PROGRESS_AUTO}.
     */
    boolean autoProgress()
    {
        return autoProgress;
    }

    int cookie()
    {
        return cookie;
    }

    GniNic nic()
    {
        return nic;
    }

    /**
     * @return whether the domain registers in scalable mode (requested keys, vMDH slots: RMA without MR query).
     */
    boolean scalable()
    {
        return scalable;
    }

    GniDomainOps ops()
    {
        return ops;
    }

    GniNativeAmos nativeAmos()
    {
        return nativeAmos;
    }

    GniMrCache mrCache()
    {
        return mrCache;
    }

    /**
     * {@code FI_GNI_DOMAIN_OPS_1} ({@link GniDomainOps}).
     *
     * @param name the extension's name.
     * @return the extension, or null for another name.
     */
    @Override
    public OpsExtension openOps(final String name)
    {
        return GniOps.FI_GNI_DOMAIN_OPS_1.equals(name) ? ops : null;
    }

    /**
     * {@code FI_GNI_EP_OPS_1} ({@link GniEpOps}).
     *
     * @param endpointIndex the endpoint.
     * @param name          the extension's name.
     * @return the extension, or null for another name.
     */
    @Override
    public OpsExtension openOps(final int endpointIndex, final String name)
    {
        return GniOps.FI_GNI_EP_OPS_1.equals(name) ?
            new GniEpOps(hashTagImpl, endpointIndex, backend::endpointEnabled, nativeAmos) : null;
    }

    @Override
    public OperationBackend operationBackend()
    {
        return backend;
    }

    @Override
    public int maxFrameLength()
    {
        return 64 * 1024;
    }

    @Override
    public int eagerThreshold()
    {
        return backend.eagerLimit();
    }

    @Override
    public byte[] endpointAddress(final int endpointIndex)
    {
        return address(localKey(endpointIndex));
    }

    @Override
    public long localKey(final int endpointIndex)
    {
        if (endpointIndex < 0 || endpointIndex >= GniName.MAX_ENDPOINTS)
        {
            throw new FabricException(Errno.ENOSPC, "gni: at most " + GniName.MAX_ENDPOINTS + " endpoints a domain");
        }
        return GniName.key(device, INST_ID, endpointIndex);
    }

    /**
     * A new endpoint: the first allocates the NIC (mailbox geometry, CQ sizes, connect timeout, eager auto progress
     * from the domain's options then); its tag storage setting back to the default, and its type recorded for the
     * back-end's retransmission rule (never for DGRAM).
     */
    @Override
    public void openEndpoint(final int endpointIndex, final Info info)
    {
        // The first endpoint allocates the NIC from the domain's options as they are now (GniNicGeometry).
        backend.allocateNic(GniNicGeometry.read(ops));
        hashTagImpl.set(endpointIndex, 0);
        backend.endpointType(endpointIndex, EndpointType.DGRAM == info.epAttr().type());
        backend.endpointStates().opened(endpointIndex);
        // Peers gate RMA and count remote events by what the endpoint opened with (GniPeerCaps).
        backend.peerCaps().opened(endpointIndex, info.caps());
    }

    /**
     * {@inheritDoc} gni counts its rendezvous pulls: straight into the receive buffer, and through staging, and the
     * direct copies from a sender's shared pool; and the posts that waited for a TX descriptor.
     */
    @Override
    public void registerCounters(final TransportCounters counters)
    {
        backend.rendezvousReceive().registerCounters(counters);
        directCopy.registerCounters(counters);
        backend.txDescriptors().registerCounters(counters);
    }

    /**
     * @return rendezvous receives served by the XPMEM-like direct copy ({@link GniDirectCopy}).
     */
    long directCopies()
    {
        return directCopy.copies();
    }

    /**
     * {@inheritDoc} gni: a block of the shm wire's pool (the shm provider's, {@code jfabric.shm.pool.size}), which a
     * receiving gni domain on the same host copies from directly ({@code GNI_XPMEM_ENABLE}); the in-JVM wire has
     * none: null, so {@code Domain.allocateShared} answers {@code EOPNOTSUPP}.
     */
    @Override
    public AtomicBuffer allocateShared(final int length)
    {
        return node.allocateShared(length);
    }

    @Override
    public boolean freeShared(final DirectBuffer buffer)
    {
        return node.freeShared(buffer);
    }

    /**
     * {@inheritDoc} gni: a scalable region's pages in its vMDH slot are updated ({@code GNI_MEM_UPDATE_REGION}, as
     * the domain extension's {@code refresh}); in basic mode nothing is reserved: 0.
     */
    @Override
    public int refreshRegion(final long key, final long address, final long length)
    {
        return scalable() ? backend.regions().refresh(key, address, length) : 0;
    }

    @Override
    public void closeEndpoint(final int endpointIndex)
    {
        // Peers learn it (GniEndpointStates): their one-sided RMA to it is refused at the initiator.
        backend.endpointStates().closed(endpointIndex);
    }

    @Override
    public long resolve(final byte[] address)
    {
        return GniName.parse(address);
    }

    @Override
    public String straddr(final byte[] address)
    {
        return GniName.straddr(address);
    }

    @Override
    public byte[] address(final long peerKey)
    {
        return AddressFormat.STR == format ?
            GniName.text(peerKey, cookie).getBytes(StandardCharsets.US_ASCII) : GniName.binary(peerKey, cookie);
    }

    @Override
    public int endpointIndex(final long peerKey)
    {
        return GniName.endpoint(peerKey);
    }

    @Override
    public long peerDomain(final long peerKey)
    {
        return peerKey & ((1L << (32 + GniName.INST_BITS)) - 1);
    }

    /**
     * Receive context {@code offset} of a peer's scalable endpoint: the endpoint index {@code offset} places after the
     * one the key names, on the same NIC (GNI.md §2.14: upstream's context cdm ids are {@code base + index}).
     *
     * @param peerKey a key from {@link #resolve}.
     * @param offset  the receive context's index.
     * @return the key, or -1 past the domain's endpoints.
     */
    @Override
    public long contextKey(final long peerKey, final int offset)
    {
        if (peerKey < 0 || offset < 0 || GniName.endpoint(peerKey) + offset >= GniName.MAX_ENDPOINTS)
        {
            return -1;
        }
        return peerKey + ((long) offset << (32 + GniName.INST_BITS));
    }

    @Override
    public int offer(
        final long peerKey, final int lane, final DirectBuffer header, final int headerOffset, final int headerLength,
        final DirectBuffer payload, final int payloadOffset, final int payloadLength)
    {
        // The only frames of this transport are the runtime's connection management (FI_EP_MSG): datagrams.
        return cm.offer(peerKey, header, headerOffset, headerLength, payload, payloadOffset, payloadLength);
    }

    @Override
    public int poll(final FrameHandler handler, final int limit)
    {
        return cm.poll(handler, limit);
    }

    @Override
    public int pollEvents(final TransportEventHandler handler, final int limit)
    {
        return cm.pollEvents(handler, limit);
    }

    @Override
    public void close()
    {
        GniConfiguration.stopEngine(node);
        cm.close();
        backend.close();
        try
        {
            cdm.destroy();
        }
        finally
        {
            node.close();
            GniAuthKeys.closeDomain(cookie);
        }
    }
}
