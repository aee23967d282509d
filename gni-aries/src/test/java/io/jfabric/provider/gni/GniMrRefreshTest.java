package io.jfabric.provider.gni;

import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import io.jfabric.Progress;
import io.jfabric.conformance.Pair;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code fi_mr_refresh} as the runtime's call ({@link MemoryRegion#refresh}, fi_mr(3)) over gni (fi_gni(7), GNI.md
 * §1.6): in scalable mode each range's pages are updated in the region's vMDH slot ({@code GNI_MEM_UPDATE_REGION}),
 * as the domain extension's {@code refresh} does, and the region takes writes; the runtime's checks come first
 * (no range or one outside the region {@code -EINVAL}, closed {@code -EOPBADSTATE}); in basic mode nothing is
 * reserved and a refresh answers 0.
 */
@Timeout(60)
class GniMrRefreshTest
{
    @Test
    void shouldUpdateTheRangesOfAScalableRegionInItsVmdhSlot()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.AUTO))
        {
            final UnsafeBuffer target = direct(3 * 4096);
            final MemoryRegion mr = p.domainB.registerMemory(target, 0, 3 * 4096, Flags.REMOTE_WRITE, 12);
            assertEquals(0, mr.refresh(new DirectBuffer[]{target}, 1, 0), "the whole registration");
            assertEquals(0, mr.refresh(new DirectBuffer[]{new UnsafeBuffer(target, 4096, 100),
                new UnsafeBuffer(target, 2 * 4096 + 7, 50)}, 2, 0), "some pages of it, at any offset");
            assertEquals(Errno.EINVAL.negated(), mr.refresh(new DirectBuffer[]{new UnsafeBuffer(target, 2 * 4096,
                4096), direct(4096)}, 2, 0), "a range outside the region");
            assertEquals(Errno.EINVAL.negated(), mr.refresh(new DirectBuffer[0], 0, 0));
            assertEquals(0, p.a.write(pattern(64, 2), 0, 64, p.addrBFromA, 4096, mr.key(), 1));
            assertEquals(1, one(p.cqA).context());
            assertPattern(target, 4096, 64, 2);
            mr.close();
            assertEquals(Errno.EOPBADSTATE.negated(), mr.refresh(new DirectBuffer[]{target}, 1, 0), "closed");
        }
    }

    @Test
    void shouldAnswerZeroInBasicModeWhereNothingIsReserved()
    {
        try (Pair basic = GniOpsTest.pair(MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY, Progress.AUTO))
        {
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion mr = basic.domainB.registerMemory(target, 0, 4096, Flags.REMOTE_WRITE, 0))
            {
                assertEquals(0, mr.refresh(new DirectBuffer[]{target}, 1, 0));
                assertEquals(Errno.EINVAL.negated(), mr.refresh(new DirectBuffer[]{direct(16)}, 1, 0));
            }
        }
    }
}
