package io.jfabric.aries;

import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A NIC handle ({@code gni_nic_handle_t}): what an attached {@link Cdm} gets. Owns the CQs, endpoints and memory
 * registrations of its domain: the MDD table (at most the job's MDD limit, 4096, GNI.md §1.6), the vMDH table
 * ({@link #setMddResources}) and the completed-datagram queue that the probes read.
 * <p>
 * Threading: every call takes the node's lock; see {@link AriesNode}.
 */
public final class GniNic
{
    /** {@code GNI_MEM_READWRITE}. */
    public static final int MEM_READWRITE = 0;
    /** {@code GNI_MEM_READ_ONLY}: remote PUTs and AMOs are refused. */
    public static final int MEM_READ_ONLY = 1;
    /** {@code GNI_MEM_USE_VMDH}: use slot {@code vmdhIndex} of the vMDH table. */
    public static final int MEM_USE_VMDH = 2;
    /** {@code GNI_MEM_RESERVE_REGION}: reserve the pages; remote accesses fault until {@link #MEM_UPDATE_REGION}. */
    public static final int MEM_RESERVE_REGION = 0x200;
    /** {@code GNI_MEM_UPDATE_REGION}: make pages of a reserved registration live. */
    public static final int MEM_UPDATE_REGION = 0x400;
    /**
     * jfabric's emulation, no uGNI flag: remote GETs and fetching AMOs are refused as well. Aries registrations are
     * always readable; the flag lets a provider keep the runtime's access rule ({@code FI_REMOTE_READ}) at the NIC.
     */
    public static final int MEM_NO_REMOTE_READ = 0x800;

    final AriesNode node;
    final Cdm cdm;
    final int deviceAddress;
    final int instId;
    final int ptag;
    final int cookie;
    final int maxMdds;
    final int maxCqs;
    final Registration[] mdds;
    Registration[] vmdhs;
    int vmdhPtagSlot = -1;
    int cqCount;
    int mddCount;
    int maxRetrans = 10;
    boolean detached;
    final Long2ObjectHashMap<GniEp> smsgEps = new Long2ObjectHashMap<>();
    /** The last {@link #smsgEp} found (a ping-pong's frames all name one): its key, or -1. */
    private long lastSmsgKey = -1;
    private GniEp lastSmsgEp;
    final List<GniEp> datagramPosts = new ArrayList<>();
    final List<long[]> heldDatagrams = new ArrayList<>();
    final List<byte[]> heldPayloads = new ArrayList<>();
    final ArrayDeque<GniEp> completedDatagrams = new ArrayDeque<>();
    /** {@code completedDatagrams.size()}, volatile for the probe's lock-free empty check. */
    private volatile int completedCount;
    private long probedId;
    private int probedDevice;
    private int probedInst;

    GniNic(final AriesNode node, final Cdm cdm)
    {
        this.node = node;
        this.cdm = cdm;
        this.deviceAddress = node.deviceAddress;
        this.instId = cdm.instId();
        this.ptag = cdm.ptag();
        this.cookie = cdm.cookie();
        this.maxMdds = node.jobs.maxMdds(ptag);
        this.maxCqs = node.jobs.maxCqs(ptag);
        this.mdds = new Registration[maxMdds];
    }

    /**
     * @return the device address of the NIC ({@code GNI_CdmAttach}'s {@code local_addr}).
     */
    public int deviceAddress()
    {
        return deviceAddress;
    }

    /**
     * @return the inst id of its domain.
     */
    public int instId()
    {
        return instId;
    }

    /**
     * @return the ptag of its domain.
     */
    public int ptag()
    {
        return ptag;
    }

    /**
     * @return the cookie of its domain.
     */
    public int cookie()
    {
        return cookie;
    }

    /**
     * @return the node.
     */
    public AriesNode node()
    {
        return node;
    }

    /**
     * {@code GNI_CqCreate}.
     *
     * @param entries the fixed capacity, at least 1.
     * @return the CQ.
     * @throws GniException INVALID_PARAM for no entries; ERROR_RESOURCE past the ptag's CQ limit.
     */
    public GniCq cqCreate(final int entries)
    {
        node.lock();
        try
        {
            if (entries < 1)
            {
                throw new GniException(GniRc.INVALID_PARAM, "CQ entries " + entries);
            }
            if (cqCount >= maxCqs)
            {
                throw new GniException(GniRc.ERROR_RESOURCE, "CQ limit " + maxCqs + " of ptag " + ptag);
            }
            cqCount++;
            return new GniCq(node, this, entries);
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * {@code GNI_EpCreate}: an unbound logical endpoint whose local events go to {@code srcCq}.
     *
     * @param srcCq the source CQ (of this NIC).
     * @return the endpoint.
     * @throws GniException INVALID_PARAM when the CQ is null or another NIC's.
     */
    public GniEp epCreate(final GniCq srcCq)
    {
        node.lock();
        try
        {
            if (null == srcCq || srcCq.nic() != this)
            {
                throw new GniException(GniRc.INVALID_PARAM, "source CQ of another NIC");
            }
            return new GniEp(this, srcCq);
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * {@code GNI_SetMddResources}: size the vMDH table (once) and take one of the node's four vMDH ptag tables.
     *
     * @param entries vMDH slots, 1 to 4096.
     * @return {@link GniRc#SUCCESS}; {@link GniRc#INVALID_PARAM} for a bad size; {@link GniRc#INVALID_STATE} when
     * already set; {@link GniRc#ERROR_RESOURCE} when four other ptags hold the node's vMDH tables.
     */
    public int setMddResources(final int entries)
    {
        node.lock();
        try
        {
            if (entries < 1 || entries > NodeDirectory.VMDH_KEYS_PER_PTAG)
            {
                return GniRc.INVALID_PARAM;
            }
            if (null != vmdhs)
            {
                return GniRc.INVALID_STATE;
            }
            final int slot = node.directory.claimVmdhPtag(deviceAddress, ptag);
            if (slot < 0)
            {
                return GniRc.ERROR_RESOURCE;
            }
            vmdhPtagSlot = slot;
            vmdhs = new Registration[entries];
            return GniRc.SUCCESS;
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * {@code GNI_SmsgSetMaxRetrans}: how often uGNI retransmits a failed SMSG before reporting it (default 10).
     *
     * @param retransmits the budget, 0 or more.
     * @return {@link GniRc#SUCCESS} or {@link GniRc#INVALID_PARAM}.
     */
    public int smsgSetMaxRetrans(final int retransmits)
    {
        if (retransmits < 0)
        {
            return GniRc.INVALID_PARAM;
        }
        maxRetrans = retransmits;
        return GniRc.SUCCESS;
    }

    /**
     * {@code GNI_MemRegister} of a buffer. Only off-heap memory can be registered: a buffer over a heap array
     * moves with the garbage collector and is refused, never copied.
     *
     * @param buffer    a direct buffer.
     * @param offset    where the region starts in it.
     * @param length    bytes.
     * @param dstCq     CQ for remote events of the region (CQ writes), or null.
     * @param flags     {@code MEM_*} flags.
     * @param vmdhIndex the vMDH slot with {@link #MEM_USE_VMDH}, else ignored.
     * @param handle    receives the handle ({@link #MEM_UPDATE_REGION}: names the reserved registration).
     * @return as {@link #memRegister(long, long, GniCq, int, int, MemHandle)}; {@link GniRc#INVALID_PARAM} for a
     * heap buffer or a range outside the buffer.
     */
    public int memRegister(
        final DirectBuffer buffer, final int offset, final int length, final GniCq dstCq, final int flags,
        final int vmdhIndex, final MemHandle handle)
    {
        if (null == buffer || null != buffer.byteArray() || 0 == buffer.addressOffset() || offset < 0 ||
            length < 0 || (long) offset + length > buffer.capacity())
        {
            return GniRc.INVALID_PARAM;
        }
        return memRegister(buffer.addressOffset() + offset, length, dstCq, flags, vmdhIndex, handle);
    }

    /**
     * {@code GNI_MemRegister}: register {@code [address, address + length)}, rounded out to whole pages.
     * The address must be native memory that stays valid until {@link #memDeregister}.
     *
     * @param address   start.
     * @param length    bytes, at least 1.
     * @param dstCq     CQ for remote events of the region (CQ writes), or null.
     * @param flags     {@code MEM_*} flags.
     * @param vmdhIndex the vMDH slot with {@link #MEM_USE_VMDH}.
     * @param handle    receives the handle; with {@link #MEM_UPDATE_REGION} it names the reserved registration.
     * @return {@link GniRc#SUCCESS}; {@link GniRc#INVALID_PARAM} for a zero length, unknown flags, a vMDH index out
     * of the table, an update outside its reservation or of a handle that is not reserved;
     * {@link GniRc#INVALID_STATE} for {@link #MEM_USE_VMDH} before {@link #setMddResources};
     * {@link GniRc#ERROR_RESOURCE} when the MDDs are exhausted or the vMDH slot (on the node, for this ptag) is
     * in use.
     */
    public int memRegister(
        final long address, final long length, final GniCq dstCq, final int flags, final int vmdhIndex,
        final MemHandle handle)
    {
        node.lock();
        try
        {
            if (length <= 0 || 0 == address || null == handle ||
                0 != (flags & ~(MEM_READ_ONLY | MEM_USE_VMDH | MEM_RESERVE_REGION | MEM_UPDATE_REGION |
                MEM_NO_REMOTE_READ)) ||
                (null != dstCq && dstCq.nic() != this))
            {
                return GniRc.INVALID_PARAM;
            }
            if (0 != (flags & MEM_UPDATE_REGION))
            {
                return update(address, length, handle);
            }
            final long base = address & ~(MemHandle.PAGE_SIZE - 1L);
            final long pages = (address + length - base + MemHandle.PAGE_SIZE - 1) / MemHandle.PAGE_SIZE;
            final Registration registration;
            if (0 != (flags & MEM_USE_VMDH))
            {
                if (null == vmdhs)
                {
                    return GniRc.INVALID_STATE;
                }
                if (vmdhIndex < 0 || vmdhIndex >= vmdhs.length)
                {
                    return GniRc.INVALID_PARAM;
                }
                if ((null != vmdhs[vmdhIndex] && vmdhs[vmdhIndex].live) ||
                    !node.directory.claimVmdhKey(deviceAddress, ptag, vmdhIndex))
                {
                    return GniRc.ERROR_RESOURCE;
                }
                if (null == vmdhs[vmdhIndex])
                {
                    vmdhs[vmdhIndex] = new Registration(vmdhIndex, true);
                }
                registration = vmdhs[vmdhIndex];
            }
            else
            {
                int free = -1;
                for (int i = 0; i < mdds.length; i++)
                {
                    if (null == mdds[i] || !mdds[i].live)
                    {
                        free = i;
                        break;
                    }
                }
                if (free < 0)
                {
                    return GniRc.ERROR_RESOURCE;
                }
                if (null == mdds[free])
                {
                    mdds[free] = new Registration(free, false);
                }
                registration = mdds[free];
                mddCount++;
            }
            registration.generation = (registration.generation + 1) & 0xFFFF;
            registration.live = true;
            registration.base = base;
            registration.pages = pages;
            registration.readOnly = 0 != (flags & MEM_READ_ONLY);
            registration.noRead = 0 != (flags & MEM_NO_REMOTE_READ);
            registration.start = address;
            registration.length = length;
            registration.reserved = 0 != (flags & MEM_RESERVE_REGION);
            registration.dstCq = dstCq;
            registration.updated.clear();
            MemHandle.encode(handle, base, pages, registration.index, registration.generation,
                (registration.readOnly ? MemHandle.READ_ONLY : 0) | (registration.vmdh ? MemHandle.VMDH : 0) |
                (registration.reserved ? MemHandle.RESERVED : 0));
            return GniRc.SUCCESS;
        }
        finally
        {
            node.unlock();
        }
    }

    private int update(final long address, final long length, final MemHandle handle)
    {
        final Registration registration = registration(handle.qword1(), handle.qword2());
        if (null == registration || !registration.reserved || address < registration.base ||
            address + length > registration.end())
        {
            return GniRc.INVALID_PARAM;
        }
        final int first = (int) ((address - registration.base) / MemHandle.PAGE_SIZE);
        final int last = (int) ((address + length - 1 - registration.base) / MemHandle.PAGE_SIZE);
        registration.updated.set(first, last + 1);
        return GniRc.SUCCESS;
    }

    /**
     * {@code GNI_MemDeregister}: later remote accesses with the handle are refused.
     *
     * @param handle a handle from {@link #memRegister}.
     * @return {@link GniRc#SUCCESS} or {@link GniRc#INVALID_PARAM} when it names no live registration.
     */
    public int memDeregister(final MemHandle handle)
    {
        node.lock();
        try
        {
            final Registration registration = registration(handle.qword1(), handle.qword2());
            if (null == registration)
            {
                return GniRc.INVALID_PARAM;
            }
            registration.live = false;
            if (registration.vmdh)
            {
                node.directory.releaseVmdhKey(deviceAddress, ptag, registration.index);
            }
            else
            {
                mddCount--;
            }
            return GniRc.SUCCESS;
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * @return live MDD registrations (vMDH ones not counted).
     */
    public int mddsInUse()
    {
        return mddCount;
    }

    /**
     * {@code GNI_PostDataProbeById}: is a datagram of this NIC's endpoints complete?
     *
     * @return {@link GniRc#SUCCESS} (its id in {@link #probedId()}) or {@link GniRc#NO_MATCH}.
     */
    public int postDataProbeById()
    {
        if (0 == completedCount)
        {
            // Nothing completed: answered without the node's lock (the common case of every duty cycle).
            return GniRc.NO_MATCH;
        }
        node.lock();
        try
        {
            return probe();
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * @param key {@link GniEp#key} of a peer.
     * @return the endpoint whose mailbox takes that peer's SMSGs, or null (under the node's lock).
     */
    GniEp smsgEp(final long key)
    {
        if (key == lastSmsgKey)
        {
            return lastSmsgEp;
        }
        final GniEp ep = smsgEps.get(key);
        if (null != ep)
        {
            lastSmsgKey = key;
            lastSmsgEp = ep;
        }
        return ep;
    }

    void addSmsgEp(final long key, final GniEp ep)
    {
        smsgEps.put(key, ep);
        lastSmsgKey = -1;
        lastSmsgEp = null;
    }

    void removeSmsgEp(final long key)
    {
        smsgEps.remove(key);
        lastSmsgKey = -1;
        lastSmsgEp = null;
    }

    /**
     * {@code GNI_PostdataProbeWaitById}: wait up to {@code timeoutMs} for a completed datagram. Without an engine
     * thread (deterministic mode) the wait steps this node's engine itself.
     *
     * @param timeoutMs the limit in milliseconds; 0 probes once.
     * @return {@link GniRc#SUCCESS} (id in {@link #probedId()}) or {@link GniRc#TIMEOUT}.
     */
    public int postDataProbeWaitById(final long timeoutMs)
    {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        final IdleStrategy idle = new BackoffIdleStrategy(1, 10, 1_000, 1_000_000);
        while (true)
        {
            if (node.tryLock())
            {
                try
                {
                    node.engine.doWork();
                    if (GniRc.SUCCESS == probe())
                    {
                        return GniRc.SUCCESS;
                    }
                }
                finally
                {
                    node.unlock();
                }
            }
            if (System.nanoTime() - deadline >= 0)
            {
                return GniRc.TIMEOUT;
            }
            idle.idle();
        }
    }

    /**
     * @return the id of the datagram the last successful probe found.
     */
    public long probedId()
    {
        return probedId;
    }

    /**
     * @return the device address of the peer of the datagram the last successful probe found.
     */
    public int probedRemoteDeviceAddress()
    {
        return probedDevice;
    }

    /**
     * @return the inst id of the peer of the datagram the last successful probe found.
     */
    public int probedRemoteInstId()
    {
        return probedInst;
    }

    /**
     * A datagram of {@code ep} reached a final state (under the node's lock).
     */
    void datagramCompleted(final GniEp ep)
    {
        completedDatagrams.add(ep);
        completedCount = completedDatagrams.size();
    }

    /**
     * A final datagram state of {@code ep} was taken by a test or a cancel (under the node's lock).
     */
    void datagramTaken(final GniEp ep)
    {
        completedDatagrams.remove(ep);
        completedCount = completedDatagrams.size();
    }

    private int probe()
    {
        final GniEp ep = completedDatagrams.poll();
        if (null == ep)
        {
            return GniRc.NO_MATCH;
        }
        completedCount = completedDatagrams.size();
        probedId = ep.datagramId;
        probedDevice = ep.datagramRemoteDevice;
        probedInst = ep.datagramRemoteInst;
        return GniRc.SUCCESS;
    }

    /**
     * The registration a handle names, when it is live and the handle is current; checks index, generation and
     * that a vMDH handle names this NIC's table.
     */
    Registration registration(final long qword1, final long qword2)
    {
        final int index = MemHandle.index(qword2);
        final Registration registration;
        if (0 != (qword1 & MemHandle.VMDH))
        {
            if (null == vmdhs || index >= vmdhs.length)
            {
                return null;
            }
            registration = vmdhs[index];
        }
        else
        {
            if (index >= mdds.length)
            {
                return null;
            }
            registration = mdds[index];
        }
        // An index-only vMDH handle (what a peer builds from a scalable key, MemHandle.vmdh) names the slot, whatever
        // registration holds it now: upstream's vMDH handles carry only the index (GNI.md 1.6).
        final boolean indexOnly = MemHandle.indexOnly(qword1, qword2);
        if (null == registration || !registration.live ||
            (!indexOnly && registration.generation != MemHandle.generation(qword2)))
        {
            return null;
        }
        return registration;
    }

    /**
     * Is {@code [address, address + length)} inside a live local registration named by the handle?
     */
    boolean localRange(final MemHandle handle, final long address, final long length)
    {
        final Registration registration = registration(handle.qword1(), handle.qword2());
        return null != registration && address >= registration.base &&
            address + length <= registration.end();
    }
}
