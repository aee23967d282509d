package io.jfabric.provider.gni;

import io.jfabric.CompletionErrorEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import io.jfabric.OpenOps;
import io.jfabric.Progress;
import io.jfabric.conformance.Pair;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static io.jfabric.provider.gni.GniOpsTest.errno;
import static io.jfabric.provider.gni.GniOpsTest.info;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * gni's MR cache (GNI.md §2.7) under the target's NIC registrations, observed through {@code FI_GNI_DOMAIN_OPS_1}'s
 * statistics: reuse, lazy deregistration into stale entries, {@code flush_cache}, the stale, soft and hard limits,
 * {@code udreg} and {@code none}, and settings read once when the cache starts.
 */
class GniMrCacheTest
{
    private static final long BASIC = MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY;
    private static final long CAPS = Flags.MSG | Flags.RMA;
    private static final long ACCESS = Flags.REMOTE_WRITE | Flags.REMOTE_READ;

    private static Pair pair()
    {
        final Info info = info(BASIC, Progress.AUTO, null, CAPS);
        return new Pair(info, info, 0, CqFormat.TAGGED, 256);
    }

    private static void write(final Pair p, final MemoryRegion mr, final UnsafeBuffer target, final int offset,
        final long context)
    {
        final UnsafeBuffer local = pattern(100, (int) context);
        assertEquals(0, p.a.write(local, 0, 100, p.addrBFromA, target.addressOffset() + offset, mr.key(), context));
        assertEquals(context, one(p.cqA).context());
        assertPattern(target, offset, 100, (int) context);
    }

    private static void awaitStat(final OpenOps ops, final int option, final long expected)
    {
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        while (ops.get(option) != expected)
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("statistic " + option + " is " + ops.get(option) + ", not " + expected);
            }
            Thread.onSpinWait();
            Pair.progressAll();
        }
    }

    @Test
    void shouldReuseRegistrationsKeepThemStaleAndFlushThem()
    {
        try (Pair p = pair())
        {
            final OpenOps ops = p.domainB.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
            assertEquals("internal", ops.getString(GniOps.GNI_MR_CACHE));
            final UnsafeBuffer target = direct(8192);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 8192, ACCESS, 0))
            {
                write(p, mr, target, 0, 1);
                write(p, mr, target, 100, 2);
                write(p, mr, target, 200, 3);
                assertEquals(1, ops.get(GniOps.GNI_STAT_MR_CACHE_MISSES));
                assertEquals(2, ops.get(GniOps.GNI_STAT_MR_CACHE_HITS));
                assertEquals(0, ops.get(GniOps.GNI_STAT_MR_CACHE_INUSE));
                assertEquals(1, ops.get(GniOps.GNI_STAT_MR_CACHE_STALE));
                assertEquals(1, ops.get(GniOps.GNI_STAT_NIC_REGISTRATIONS));
                assertEquals(0, ops.get(GniOps.GNI_STAT_MR_CACHE_DEREGISTRATIONS));
                // The cache is in use: its type cannot change; its settings are kept and change nothing now.
                assertEquals(Errno.EINVAL.value(), errno(() -> ops.set(GniOps.GNI_MR_CACHE, "none")));
                assertEquals("internal", ops.getString(GniOps.GNI_MR_CACHE));
                ops.set(GniOps.GNI_MR_CACHE_LAZY_DEREG, 0);

                assertEquals(0, ops.as(GniDomainOps.class).flushCache());
                awaitStat(ops, GniOps.GNI_STAT_MR_CACHE_FLUSHES, 1);
                assertEquals(0, ops.get(GniOps.GNI_STAT_MR_CACHE_STALE));
                assertEquals(0, ops.get(GniOps.GNI_STAT_NIC_REGISTRATIONS));
                assertEquals(1, ops.get(GniOps.GNI_STAT_MR_CACHE_DEREGISTRATIONS));

                write(p, mr, target, 300, 4);
                assertEquals(2, ops.get(GniOps.GNI_STAT_MR_CACHE_MISSES));
                // Lazy deregistration was read when the cache started: the entry is stale again.
                assertEquals(1, ops.get(GniOps.GNI_STAT_MR_CACHE_STALE));
            }
        }
    }

    @Test
    void shouldRegisterEveryAccessWithoutACacheOrWithoutLazyDeregistration()
    {
        for (final String type : new String[] {"none", "internal"})
        {
            try (Pair p = pair())
            {
                final OpenOps ops = p.domainB.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
                ops.set(GniOps.GNI_MR_CACHE, type);
                ops.set(GniOps.GNI_MR_CACHE_LAZY_DEREG, 0);
                final UnsafeBuffer target = direct(4096);
                try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096, ACCESS, 0))
                {
                    write(p, mr, target, 0, 1);
                    write(p, mr, target, 100, 2);
                    write(p, mr, target, 200, 3);
                }
                assertEquals(3, ops.get(GniOps.GNI_STAT_MR_CACHE_MISSES), type);
                assertEquals(0, ops.get(GniOps.GNI_STAT_MR_CACHE_HITS), type);
                assertEquals(3, ops.get(GniOps.GNI_STAT_MR_CACHE_DEREGISTRATIONS), type);
                assertEquals(0, ops.get(GniOps.GNI_STAT_MR_CACHE_STALE), type);
                assertEquals(0, ops.get(GniOps.GNI_STAT_NIC_REGISTRATIONS), type);
            }
        }
    }

    @Test
    void shouldEvictStaleEntriesAtTheStaleHardAndUdregLimits()
    {
        final int[][] settings = {
            {GniOps.GNI_MR_HARD_STALE_REG_LIMIT, 1}, {GniOps.GNI_MR_SOFT_REG_LIMIT, 1},
            {GniOps.GNI_MR_UDREG_REG_LIMIT, 1}, {GniOps.GNI_MR_HARD_REG_LIMIT, 1}};
        for (final int[] setting : settings)
        {
            try (Pair p = pair())
            {
                final OpenOps ops = p.domainB.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
                if (GniOps.GNI_MR_UDREG_REG_LIMIT == setting[0])
                {
                    ops.set(GniOps.GNI_MR_CACHE, "udreg");
                }
                if (GniOps.GNI_MR_HARD_REG_LIMIT == setting[0])
                {
                    // Hard 1 with soft 1 (hard below soft is refused): a new registration evicts the stale one.
                    ops.set(GniOps.GNI_MR_SOFT_REG_LIMIT, 1);
                }
                ops.set(setting[0], setting[1]);
                final UnsafeBuffer first = direct(4096);
                final UnsafeBuffer second = direct(4096);
                try (MemoryRegion one = p.domainB.registerMemory(first, 0, 4096, ACCESS, 0);
                    MemoryRegion two = p.domainB.registerMemory(second, 0, 4096, ACCESS, 0))
                {
                    write(p, one, first, 0, 1);
                    assertEquals(1, ops.get(GniOps.GNI_STAT_MR_CACHE_STALE));
                    write(p, two, second, 0, 2);
                    assertEquals(1, ops.get(GniOps.GNI_STAT_MR_CACHE_STALE), "option " + setting[0]);
                    assertEquals(1, ops.get(GniOps.GNI_STAT_MR_CACHE_DEREGISTRATIONS), "option " + setting[0]);
                    assertEquals(2, ops.get(GniOps.GNI_STAT_MR_CACHE_MISSES));
                    if (GniOps.GNI_MR_UDREG_REG_LIMIT == setting[0])
                    {
                        // udreg has no flush: the call succeeds and the stale entry stays.
                        assertEquals(0, ops.as(GniDomainOps.class).flushCache());
                        awaitStat(ops, GniOps.GNI_STAT_MR_CACHE_FLUSHES, 1);
                        assertEquals(1, ops.get(GniOps.GNI_STAT_MR_CACHE_STALE));
                    }
                }
            }
        }
    }

    @Test
    void shouldFailTheFirstAccessWhenTheHardLimitIsBelowTheSoftLimit()
    {
        try (Pair p = pair())
        {
            final OpenOps ops = p.domainB.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
            ops.set(GniOps.GNI_MR_HARD_REG_LIMIT, 2);
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096, ACCESS, 0))
            {
                assertEquals(0, p.a.write(pattern(100, 1), 0, 100, p.addrBFromA, target.addressOffset(), mr.key(),
                    9));
                final CompletionErrorEntry entry = error(p.cqA);
                assertEquals(9, entry.context());
                assertEquals(Errno.EINVAL.value(), entry.err());
                assertEquals(0, target.getLong(0));
                assertEquals(0, ops.get(GniOps.GNI_STAT_NIC_REGISTRATIONS));
            }
        }
    }
}
