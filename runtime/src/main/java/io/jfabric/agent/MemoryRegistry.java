package io.jfabric.agent;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.MrMode;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The memory regions of one domain, keyed by their remote key, and the check every remote access makes
 * before it touches target memory ({@code ofi_mr_map_insert}, {@code ofi_mr_map_verify} and
 * {@code ofi_mr_map_remove} of libfabric's util layer).
 * <p>
 * Keys: with {@link MrMode#PROV_KEY} the registry chooses them (1, 2, 3, ... skipping keys in use) and ignores
 * the requested key; otherwise the requested key is used, and one already in use fails with
 * {@link Errno#ENOKEY}. Keys are unique within the registry (one registry per domain).
 * <p>
 * Addressing: with {@link MrMode#VIRT_ADDR} a remote address is the virtual address of the target byte;
 * without it, it is the offset from the start of the region, the iov segments laid end to end. The mode
 * {@link MrMode#BASIC} means {@code VIRT_ADDR | ALLOCATED | PROV_KEY}, {@link MrMode#SCALABLE} and
 * {@link MrMode#UNSPEC} mean neither, as in libfabric's util map.
 * <p>
 * {@link #verify} answers as {@code ofi_mr_map_verify}: an unknown (or closed) key gives {@code -EINVAL},
 * missing access rights or a range outside the region give {@code -EACCES}. A range must lie within one iov
 * segment, since the caller copies to one raw address.
 * <p>
 * Not thread-safe: owned by the domain agent; registration and close run on the agent's control-command
 * handling. {@link #verify} allocates nothing.
 */
public final class MemoryRegistry
{
    /** The access flags a region may carry: READ, WRITE, REMOTE_READ, REMOTE_WRITE, SEND, RECV. */
    public static final long ACCESS_MASK =
        Flags.READ | Flags.WRITE | Flags.REMOTE_READ | Flags.REMOTE_WRITE | Flags.SEND | Flags.RECV;

    private static final long EINVAL = -Errno.EINVAL.value();
    private static final long EACCES = -Errno.EACCES.value();

    private final Long2ObjectHashMap<MemoryRegionEntry> regions = new Long2ObjectHashMap<>();
    private final boolean virtualAddressing;
    private final boolean providerKeys;
    private final int iovLimit;
    private long nextKey = 1;

    /**
     * A registry for a domain's MR mode.
     *
     * @param mrMode   the domain's {@link MrMode} bits ({@code BASIC}, {@code SCALABLE} or the 1.5 bits;
     *                 only {@code VIRT_ADDR} and {@code PROV_KEY} change the registry's behaviour).
     * @param iovLimit the domain's {@code mr_iov_limit}, at least 1.
     * @throws FabricException EINVAL when {@code iovLimit} is below 1.
     */
    public MemoryRegistry(final long mrMode, final int iovLimit)
    {
        if (iovLimit < 1)
        {
            throw new FabricException(Errno.EINVAL, "mr_iov_limit " + iovLimit + " is below 1");
        }
        final long mode = mrMode == MrMode.BASIC ? MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY :
            (mrMode == MrMode.SCALABLE ? 0 : mrMode);
        this.virtualAddressing = (mode & MrMode.VIRT_ADDR) != 0;
        this.providerKeys = (mode & MrMode.PROV_KEY) != 0;
        this.iovLimit = iovLimit;
    }

    /**
     * Whether remote addresses are virtual addresses ({@code FI_MR_VIRT_ADDR}) rather than offsets.
     *
     * @return true for virtual addressing.
     */
    public boolean virtualAddressing()
    {
        return virtualAddressing;
    }

    /**
     * Whether the registry chooses the keys ({@code FI_MR_PROV_KEY}).
     *
     * @return true when keys are provider-chosen.
     */
    public boolean providerKeys()
    {
        return providerKeys;
    }

    /**
     * The most iov segments one region may have.
     *
     * @return {@code mr_iov_limit}.
     */
    public int iovLimit()
    {
        return iovLimit;
    }

    /**
     * The number of open regions.
     *
     * @return the count.
     */
    public int size()
    {
        return regions.size();
    }

    /**
     * {@code fi_mr_reg}: registers one contiguous buffer.
     *
     * @param address      raw address of the buffer (may be 0 only when {@code length} is 0).
     * @param length       its length in bytes, 0 or more.
     * @param access       access flags, a subset of {@link #ACCESS_MASK}.
     * @param requestedKey the key wanted (ignored with {@code PROV_KEY}).
     * @return the region's key.
     * @throws FabricException EINVAL for a bad address, length or access flag; ENOKEY when the requested key is
     *                         in use.
     */
    public long register(final long address, final long length, final long access, final long requestedKey)
    {
        return register(new long[]{ address }, new long[]{ length }, 1, access, requestedKey);
    }

    /**
     * {@code fi_mr_regv} / {@code fi_mr_regattr}: registers up to {@link #iovLimit()} segments as one region.
     * The arrays are copied.
     *
     * @param addresses    raw address of each segment.
     * @param lengths      length of each segment in bytes.
     * @param iovCount     how many entries of the arrays to use, 1 to {@link #iovLimit()}.
     * @param access       access flags, a subset of {@link #ACCESS_MASK}.
     * @param requestedKey the key wanted (ignored with {@code PROV_KEY}).
     * @return the region's key.
     * @throws FabricException EINVAL for a bad count, address, length or access flag; ENOKEY when the
     *                         requested key is in use.
     */
    public long register(
        final long[] addresses,
        final long[] lengths,
        final int iovCount,
        final long access,
        final long requestedKey)
    {
        if (addresses == null || lengths == null)
        {
            throw new FabricException(Errno.EINVAL, "memory registration with null iov arrays");
        }
        if (iovCount < 1 || iovCount > iovLimit || iovCount > addresses.length || iovCount > lengths.length)
        {
            throw new FabricException(Errno.EINVAL, "memory registration iov count " + iovCount +
                " outside 1.." + iovLimit + " (mr_iov_limit) or beyond the arrays given");
        }
        if ((access & ~ACCESS_MASK) != 0)
        {
            throw new FabricException(Errno.EINVAL, "memory registration access flags 0x" +
                Long.toHexString(access & ~ACCESS_MASK) + " are not READ/WRITE/REMOTE_READ/REMOTE_WRITE/SEND/RECV");
        }
        long total = 0;
        for (int i = 0; i < iovCount; i++)
        {
            final long address = addresses[i];
            final long length = lengths[i];
            final boolean wraps = length != 0 && Long.compareUnsigned(address + length - 1, address) < 0;
            if (length < 0 || (address == 0 && length != 0) || wraps)
            {
                throw new FabricException(Errno.EINVAL, "memory registration segment " + i + " address 0x" +
                    Long.toHexString(address) + " length " + length + " is not a valid buffer");
            }
            total += length;
            if (total < 0)
            {
                throw new FabricException(Errno.EINVAL, "memory registration total length overflows");
            }
        }

        final long key;
        if (providerKeys)
        {
            long candidate = nextKey;
            while (regions.containsKey(candidate))
            {
                candidate++;
            }
            key = candidate;
            nextKey = candidate + 1;
        }
        else
        {
            if (regions.containsKey(requestedKey))
            {
                // As ofi_mr_map_insert: a duplicate key is ENOKEY.
                throw new FabricException(Errno.ENOKEY, "memory region key " + Long.toUnsignedString(requestedKey) +
                    " is already in use in this domain");
            }
            key = requestedKey;
        }

        final long[] bases = new long[iovCount];
        final long[] sizes = new long[iovCount];
        System.arraycopy(addresses, 0, bases, 0, iovCount);
        System.arraycopy(lengths, 0, sizes, 0, iovCount);
        regions.put(key, new MemoryRegionEntry(key, access, bases, sizes));
        return key;
    }

    /**
     * {@code fi_close} on a region: removes it; later accesses with its key fail with {@code -EINVAL} and the
     * key may be registered again.
     *
     * @param key the region's key.
     * @return 0, or {@code -ENOKEY} when no region has the key (as {@code ofi_mr_map_remove}).
     */
    public int close(final long key)
    {
        return regions.remove(key) != null ? 0 : -Errno.ENOKEY.value();
    }

    /**
     * Whether a key names an open region.
     *
     * @param key the key.
     * @return true when registered.
     */
    public boolean contains(final long key)
    {
        return regions.containsKey(key);
    }

    /**
     * The access flags of a region.
     *
     * @param key the key.
     * @return the flags, or {@code -ENOKEY} when no region has the key.
     */
    public long access(final long key)
    {
        final MemoryRegionEntry entry = regions.get(key);
        return entry != null ? entry.access : -Errno.ENOKEY.value();
    }

    /**
     * The total length of a region (all segments).
     *
     * @param key the key.
     * @return the length, or {@code -ENOKEY} when no region has the key.
     */
    public long length(final long key)
    {
        final MemoryRegionEntry entry = regions.get(key);
        return entry != null ? entry.totalLength : -Errno.ENOKEY.value();
    }

    /**
     * Checks a remote access and maps it to a raw address ({@code ofi_mr_map_verify}). Target memory must not
     * be touched unless this returns a non-negative value. Allocates nothing.
     *
     * @param key     the remote key carried by the operation.
     * @param address the remote address: a virtual address with {@code VIRT_ADDR}, else an offset into the
     *                region.
     * @param length  the number of bytes accessed (unsigned).
     * @param access  the rights needed, e.g. {@code Flags.REMOTE_WRITE} for a write or an atomic,
     *                {@code Flags.REMOTE_READ} for a read, both for a fetching atomic.
     * @return the raw address of the first byte (non-negative), {@code -EINVAL} for an unknown or closed key,
     * {@code -EACCES} for missing rights or a range outside the region (or across two segments).
     */
    public long verify(final long key, final long address, final long length, final long access)
    {
        final MemoryRegionEntry entry = regions.get(key);
        if (entry == null)
        {
            return EINVAL;
        }
        if ((access & entry.access) != access)
        {
            return EACCES;
        }
        return virtualAddressing ? mapVirtual(entry, address, length) : mapOffset(entry, address, length);
    }

    /**
     * Checks a local access through a descriptor, where the address is always a virtual address (local
     * buffers under {@code FI_MR_LOCAL}). Allocates nothing.
     *
     * @param key     the region's key.
     * @param address the virtual address of the first byte.
     * @param length  the number of bytes accessed (unsigned).
     * @param access  the rights needed ({@code SEND}, {@code RECV}, {@code READ}, {@code WRITE}).
     * @return the address, {@code -EINVAL} for an unknown key, {@code -EACCES} for missing rights or a range
     * outside the region.
     */
    public long verifyLocal(final long key, final long address, final long length, final long access)
    {
        final MemoryRegionEntry entry = regions.get(key);
        if (entry == null)
        {
            return EINVAL;
        }
        if ((access & entry.access) != access)
        {
            return EACCES;
        }
        return mapVirtual(entry, address, length);
    }

    private static long mapVirtual(final MemoryRegionEntry entry, final long address, final long length)
    {
        final long[] bases = entry.bases;
        final long[] lengths = entry.lengths;
        for (int i = 0; i < bases.length; i++)
        {
            final long offset = address - bases[i];
            // Unsigned comparisons: an address below the base wraps to a huge offset and fails.
            if (Long.compareUnsigned(offset, lengths[i]) <= 0 &&
                Long.compareUnsigned(length, lengths[i] - offset) <= 0)
            {
                return address;
            }
        }
        return EACCES;
    }

    private static long mapOffset(final MemoryRegionEntry entry, final long offset, final long length)
    {
        final long[] bases = entry.bases;
        final long[] lengths = entry.lengths;
        final long[] starts = entry.logicalStarts;
        for (int i = 0; i < bases.length; i++)
        {
            final long within = offset - starts[i];
            if (Long.compareUnsigned(within, lengths[i]) <= 0 &&
                Long.compareUnsigned(length, lengths[i] - within) <= 0)
            {
                return bases[i] + within;
            }
        }
        return EACCES;
    }
}
