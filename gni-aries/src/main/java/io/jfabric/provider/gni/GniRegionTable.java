package io.jfabric.provider.gni;

import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.aries.GniNic;
import io.jfabric.aries.GniRc;
import io.jfabric.aries.MemHandle;
import io.jfabric.aries.NodeDirectory;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The memory regions of a scalable-mode domain in its NIC's vMDH table (GNI.md §1.6, §2.8): each region the
 * application registers is registered with the NIC in vMDH slot {@code key} (upstream: {@code key + key_offset};
 * the key offset is 0 here, one process per emulated node), so that a peer reaches it with nothing but the key and
 * the address ({@link MemHandle#vmdh}, upstream's {@code _GNIX_CONVERT_MR_KEY}): no MR query, no progress of the
 * target. Closing the region deregisters the slot, so the next access fails at the target NIC (a protection NACK,
 * an error completion at the initiator) with the target's memory untouched.
 * <p>
 * The NIC registration keeps the runtime's access rule: without {@code FI_REMOTE_WRITE} it is read-only, without
 * {@code FI_REMOTE_READ} {@link GniNic#MEM_NO_REMOTE_READ}; the emulated NIC checks an index-only handle against the
 * exact range registered (upstream's NIC checks pages).
 * <p>
 * Each region is registered {@code GNI_MEM_USE_VMDH | GNI_MEM_RESERVE_REGION} and its whole range made live at once
 * ({@code GNI_MEM_UPDATE_REGION}: the runtime's region is usable when the registration returns; upstream's tests do
 * the same with {@code fi_mr_refresh}, GNI.md §1.6); {@link #refresh} updates a range again ({@code fi_mr_refresh}).
 * <p>
 * Threading: {@link #register} and {@link #close} on the domain agent's thread (the back-end's region callbacks);
 * {@link #refresh} on any thread (the table is concurrent, the NIC takes its node's lock).
 */
final class GniRegionTable
{
    /** vMDH slots a NIC's table holds ({@code GNI_SetMddResources} maximum, GNI.md §1.6). */
    static final int SLOTS = NodeDirectory.VMDH_KEYS_PER_PTAG;

    private final GniNic nic;
    private final ConcurrentHashMap<Long, MemHandle> handles = new ConcurrentHashMap<>();
    private boolean tableSet;

    GniRegionTable(final GniNic nic)
    {
        this.nic = nic;
    }

    /**
     * Register a region in vMDH slot {@code key}.
     *
     * @param key     the region's key (the requested key of scalable mode).
     * @param address raw address of its first byte.
     * @param length  bytes.
     * @param access  its access flags.
     * @return 0, {@code -EKEYREJECTED} for a key outside the table, {@code -ENOSPC} when the node's vMDH tables or
     * the slot are taken.
     */
    int register(final long key, final long address, final long length, final long access)
    {
        if (key < 0 || key >= SLOTS)
        {
            return Errno.EKEYREJECTED.negated();
        }
        if (!tableSet)
        {
            final int rc = nic.setMddResources(SLOTS);
            if (GniRc.SUCCESS != rc && GniRc.INVALID_STATE != rc)
            {
                return Errno.ENOSPC.negated();
            }
            tableSet = true;
        }
        if (length <= 0)
        {
            // Nothing to register: a zero-length region takes no slot (an access to it finds none, EINVAL).
            return 0;
        }
        int flags = GniNic.MEM_USE_VMDH | GniNic.MEM_RESERVE_REGION;
        flags |= 0 == (access & Flags.REMOTE_WRITE) ? GniNic.MEM_READ_ONLY : 0;
        flags |= 0 == (access & Flags.REMOTE_READ) ? GniNic.MEM_NO_REMOTE_READ : 0;
        final MemHandle handle = new MemHandle();
        final int rc = nic.memRegister(address, length, null, flags, (int) key, handle);
        if (GniRc.SUCCESS != rc)
        {
            return GniRc.ERROR_RESOURCE == rc ? Errno.ENOSPC.negated() : Errno.EINVAL.negated();
        }
        if (GniRc.SUCCESS != nic.memRegister(address, length, null, GniNic.MEM_UPDATE_REGION, 0, handle))
        {
            nic.memDeregister(handle);
            return Errno.EINVAL.negated();
        }
        handles.put(key, handle);
        return 0;
    }

    /**
     * {@code fi_mr_refresh} of a region of this domain: make {@code [address, address + length)} of its reserved
     * registration live again ({@code GNI_MEM_UPDATE_REGION}).
     *
     * @param key     the region's key.
     * @param address raw address of the range's first byte.
     * @param length  bytes, at least 1.
     * @return 0, or {@code -EINVAL} for a key with no live registration here or a range outside it.
     */
    int refresh(final long key, final long address, final long length)
    {
        final MemHandle handle = handles.get(key);
        if (null == handle || length <= 0)
        {
            return Errno.EINVAL.negated();
        }
        return GniRc.SUCCESS == nic.memRegister(address, length, null, GniNic.MEM_UPDATE_REGION, 0, handle) ?
            0 : Errno.EINVAL.negated();
    }

    /**
     * A region closed: its slot is deregistered (later accesses are refused by the NIC).
     *
     * @param key the region's key.
     */
    void close(final long key)
    {
        final MemHandle handle = handles.remove(key);
        if (null != handle)
        {
            nic.memDeregister(handle);
        }
    }

    /**
     * The handle an initiator builds from a peer's key.
     *
     * @param out receives it.
     * @param key the peer's key.
     * @return false for a key no vMDH slot can hold (the operation fails with {@code EINVAL}, as an unknown key).
     */
    static boolean peerHandle(final MemHandle out, final long key)
    {
        if (key < 0 || key >= SLOTS)
        {
            return false;
        }
        MemHandle.vmdh(out, (int) key);
        return true;
    }

    /**
     * @return regions registered now.
     */
    int size()
    {
        return handles.size();
    }
}
