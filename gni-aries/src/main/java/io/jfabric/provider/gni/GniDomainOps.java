package io.jfabric.provider.gni;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.MemoryRegion;
import io.jfabric.aries.AriesStats;
import io.jfabric.aries.TransactionKind;
import io.jfabric.spi.OpsExtension;
import io.jfabric.spi.OpsType;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@code FI_GNI_DOMAIN_OPS_1} of one domain (GNI.md §2.12): upstream's 23 tunables with their types, defaults and
 * ranges, {@code flush_cache} ({@link #flushCache()}, reached with {@code OpenOps.as(GniDomainOps.class)}) and
 * jfabric's read-only statistics ({@link GniOps#GNI_STATS_FIRST} on).
 * <p>
 * Where a value is read: the thresholds at every send and RMA, the retransmits at every failure, the error injection
 * at every post, the MR cache's type, lazy flag and limits when the cache is first used (the first NIC registration
 * it makes; {@code GNI_MR_CACHE} is {@code EINVAL} afterwards); the mailbox geometry, the RX CQ size, the datagram
 * timeout and eager auto progress when the NIC is allocated, which is, as upstream, when the domain's first endpoint
 * opens ({@link GniNicGeometry}). A value set after the object that reads it was built is kept, checked and read
 * back, and changes nothing (as upstream says). The TX CQ size, VC id table, mailbox slab and connection-table values
 * have nothing to size here and change nothing (GNI-PROVIDER.md). Ranges upstream checks only where the value is
 * read are checked here when it is set ({@code EINVAL}).
 * <p>
 * Threading: thread-safe; the agent reads the values it uses as volatile longs.
 */
public final class GniDomainOps implements OpsExtension
{
    private static final long[] DEFAULTS = {
        16384, 8192, 64, 16384, 2, 128, 2, 2048, 64, 16384, 16384, 2048, 5, 0, 1, 0, 2048, 4096, -1, 128, 0, 100, 0};
    private static final OpsType[] TYPES = {
        OpsType.UINT32, OpsType.UINT32, OpsType.UINT32, OpsType.UINT32, OpsType.UINT32, OpsType.UINT32,
        OpsType.UINT32, OpsType.UINT32, OpsType.UINT32, OpsType.UINT32, OpsType.UINT32, OpsType.UINT32,
        OpsType.UINT32, OpsType.INT32, OpsType.INT32, OpsType.STRING, OpsType.INT32, OpsType.INT32, OpsType.INT32,
        OpsType.INT32, OpsType.BOOLEAN, OpsType.UINT32, OpsType.UINT32};
    private static final int SMSG_MAX_SIZE = 65535;

    private final AtomicLongArray values = new AtomicLongArray(GniOps.GNI_NUM_DOM_OPS);
    private volatile GniRegionTable regions;
    private final AriesStats stats;
    private GniMrCache cache;

    GniDomainOps(final AriesStats stats)
    {
        for (int i = 0; i < GniOps.GNI_NUM_DOM_OPS; i++)
        {
            values.set(i, DEFAULTS[i]);
        }
        this.stats = stats;
    }

    GniDomainOps cache(final GniMrCache mrCache)
    {
        this.cache = mrCache;
        return this;
    }

    @Override
    public String name()
    {
        return GniOps.FI_GNI_DOMAIN_OPS_1;
    }

    @Override
    public OpsType type(final int option)
    {
        if (option >= 0 && option < GniOps.GNI_NUM_DOM_OPS)
        {
            return TYPES[option];
        }
        return option >= GniOps.GNI_STATS_FIRST && option < GniOps.GNI_STATS_END ? OpsType.INT64 : null;
    }

    @Override
    public long get(final int option)
    {
        switch (option)
        {
            case GniOps.GNI_STAT_FMA_POSTS:
                return stats.posts(TransactionKind.FMA_PUT) + stats.posts(TransactionKind.FMA_GET);
            case GniOps.GNI_STAT_FMA_CHAINS:
                return stats.chainedPosts();
            case GniOps.GNI_STAT_BTE_POSTS:
                return stats.posts(TransactionKind.RDMA_PUT) + stats.posts(TransactionKind.RDMA_GET);
            case GniOps.GNI_STAT_MR_CACHE_INUSE:
                return cache.inUse();
            case GniOps.GNI_STAT_MR_CACHE_STALE:
                return cache.stale();
            case GniOps.GNI_STAT_MR_CACHE_HITS:
                return cache.hits();
            case GniOps.GNI_STAT_MR_CACHE_MISSES:
                return cache.misses();
            case GniOps.GNI_STAT_MR_CACHE_DEREGISTRATIONS:
                return cache.deregistrations();
            case GniOps.GNI_STAT_MR_CACHE_FLUSHES:
                return cache.flushes();
            case GniOps.GNI_STAT_NIC_REGISTRATIONS:
                return cache.nicRegistrations();
            default:
                return values.get(option);
        }
    }

    @Override
    public void set(final int option, final long value)
    {
        if (option >= GniOps.GNI_STATS_FIRST)
        {
            throw new FabricException(Errno.EINVAL, "gni domain ops: option " + option + " is a read-only statistic");
        }
        final String problem = problem(option, value);
        if (null != problem)
        {
            throw new FabricException(Errno.EINVAL, "gni domain ops: " + problem);
        }
        // The MR cache's settings are read once, when it starts: set later they are kept and change nothing, as
        // upstream.
        values.set(option, value);
    }

    private static String problem(final int option, final long value)
    {
        switch (option)
        {
            case GniOps.GNI_CONN_TABLE_INITIAL_SIZE:
            case GniOps.GNI_CONN_TABLE_MAX_SIZE:
            case GniOps.GNI_MBOX_NUM_PER_SLAB:
            case GniOps.GNI_RX_CQ_SIZE:
            case GniOps.GNI_TX_CQ_SIZE:
            case GniOps.GNI_MBOX_PAGE_SIZE:
                return 0 == value ? "option " + option + " cannot be 0" : null;
            case GniOps.GNI_CONN_TABLE_STEP_SIZE:
                return value < 2 ? "GNI_CONN_TABLE_STEP_SIZE " + value + ": the table grows by a factor of 2 or " +
                    "more" : null;
            case GniOps.GNI_MBOX_MAX_CREDIT:
                return 0 == value || value > SMSG_MAX_SIZE ? "GNI_MBOX_MAX_CREDIT " + value +
                    " outside 1..65535" : null;
            case GniOps.GNI_MBOX_MSG_MAX_SIZE:
                // The provider's longest mailbox message must fit a slot: an 8-buffer rendezvous START.
                return value < GniRendezvousStart.MAX_LENGTH || value > SMSG_MAX_SIZE ?
                    "GNI_MBOX_MSG_MAX_SIZE " + value + " outside " + GniRendezvousStart.MAX_LENGTH +
                    "..65535 (the longest provider message, GNI_SMSG_MAX_SIZE)" : null;
            case GniOps.GNI_MR_UDREG_REG_LIMIT:
                return value < 0 ? "GNI_MR_UDREG_REG_LIMIT " + value + " is below 0" : null;
            default:
                return null;
        }
    }

    @Override
    public String getString(final int option)
    {
        return cache.typeName();
    }

    @Override
    public void setString(final int option, final String value)
    {
        final GniMrCache.Type type = GniMrCache.Type.parse(value);
        if (null == type)
        {
            throw new FabricException(Errno.EINVAL, "gni domain ops: GNI_MR_CACHE '" + value +
                "' is none of internal, udreg, none");
        }
        if (!cache.type(type))
        {
            throw new FabricException(Errno.EINVAL, "gni domain ops: GNI_MR_CACHE cannot change once the cache is " +
                "in use (it is " + cache.typeName() + ")");
        }
    }

    /**
     * {@code flush_cache}: deregister every stale entry of the domain's MR cache (with {@code none} or {@code udreg}
     * nothing to do). The domain's agent carries it out in its next duty cycle; this call returns at once.
     *
     * @return 0.
     */
    public int flushCache()
    {
        cache.requestFlush();
        return 0;
    }

    /**
     * {@code fi_mr_refresh} (fi_gni(7), scalable mode): make {@code length} bytes at {@code offset} of region
     * {@code mr} of this domain live again at the NIC (upstream registers scalable regions reserved and makes pages
     * live by refresh; here a region is live when registered, so a refresh re-updates pages that are live already).
     * In basic mode there is nothing reserved: 0. Reached with {@code OpenOps.as(GniDomainOps.class)}, the runtime's
     * {@code MemoryRegion} having no refresh call. Control path, any thread.
     *
     * @param mr     a region of this domain.
     * @param offset where the range starts in the region.
     * @param length bytes, at least 1.
     * @return 0; {@code -EINVAL} for a range outside the region, a region of another domain or one closed.
     */
    public int refresh(final MemoryRegion mr, final long offset, final long length)
    {
        if (null == mr || offset < 0 || length < 1 || offset > mr.length() - length)
        {
            return Errno.EINVAL.negated();
        }
        final GniRegionTable table = regions;
        if (null == table)
        {
            return 0;
        }
        return table.refresh(mr.key(), mr.address() + offset, length);
    }

    /**
     * Set once when the domain opens: the vMDH slots of a scalable domain (null in basic mode).
     */
    void regions(final GniRegionTable table)
    {
        regions = table;
    }

    long value(final int option)
    {
        return values.get(option);
    }

    int rendezvousThreshold()
    {
        return (int) Math.min(Integer.MAX_VALUE, values.get(GniOps.GNI_MSG_RENDEZVOUS_THRESHOLD));
    }

    long rdmaThreshold()
    {
        return values.get(GniOps.GNI_RMA_RDMA_THRESHOLD);
    }
}
