package io.jfabric;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.jfabric.conformance.Pair.direct;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code fi_mr_refresh} ({@link MemoryRegion#refresh}) on a provider that keeps no registration to update: inproc
 * answers {@code -ENOSYS} for a valid call, after the runtime's own checks (no range, an empty one, one outside the
 * region: {@code -EINVAL}; flags: {@code -EBADFLAGS}; a closed region: {@code -EOPBADSTATE}).
 */
@Timeout(30)
class MemoryRegionRefreshTest
{
    @Test
    void shouldCheckTheRangesAndAnswerEnosysWhereTheProviderHasNoRefresh()
    {
        try (InprocPair p = new InprocPair(Progress.AUTO))
        {
            final UnsafeBuffer memory = direct(8192);
            final MemoryRegion mr = p.domainB.registerMemory(memory, 0, 8192, Flags.REMOTE_WRITE, 3);
            final DirectBuffer whole = new UnsafeBuffer(memory, 0, 8192);
            final DirectBuffer page = new UnsafeBuffer(memory, 4096, 4096);
            assertEquals(Errno.ENOSYS.negated(), mr.refresh(new DirectBuffer[]{whole}, 1, 0));
            assertEquals(Errno.ENOSYS.negated(), mr.refresh(new DirectBuffer[]{page, whole}, 2, 0));

            assertEquals(Errno.EINVAL.negated(), mr.refresh(null, 1, 0));
            assertEquals(Errno.EINVAL.negated(), mr.refresh(new DirectBuffer[]{whole}, 0, 0));
            assertEquals(Errno.EINVAL.negated(), mr.refresh(new DirectBuffer[]{whole}, 2, 0));
            assertEquals(Errno.EINVAL.negated(), mr.refresh(new DirectBuffer[]{new UnsafeBuffer(memory, 0, 0)}, 1,
                0), "an empty range");
            final UnsafeBuffer other = direct(64);
            assertEquals(Errno.EINVAL.negated(), mr.refresh(new DirectBuffer[]{page, other}, 2, 0),
                "a range outside the region");
            final UnsafeBuffer larger = direct(3 * 4096);
            try (MemoryRegion middle = p.domainB.registerMemory(larger, 4096, 4096, Flags.REMOTE_WRITE, 4))
            {
                assertEquals(Errno.EINVAL.negated(), middle.refresh(new DirectBuffer[]{new UnsafeBuffer(larger, 4095,
                    2)}, 1, 0), "one byte before the region");
                assertEquals(Errno.EINVAL.negated(), middle.refresh(new DirectBuffer[]{new UnsafeBuffer(larger, 8191,
                    2)}, 1, 0), "one byte past the region");
                assertEquals(Errno.ENOSYS.negated(), middle.refresh(new DirectBuffer[]{new UnsafeBuffer(larger, 4096,
                    4096)}, 1, 0), "exactly the region");
            }
            assertEquals(Errno.EBADFLAGS.negated(), mr.refresh(new DirectBuffer[]{whole}, 1, Flags.READ));
            mr.close();
            assertEquals(Errno.EOPBADSTATE.negated(), mr.refresh(new DirectBuffer[]{whole}, 1, 0));
        }
    }
}
