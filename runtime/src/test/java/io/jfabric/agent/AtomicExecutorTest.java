package io.jfabric.agent;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.spi.AtomicCapabilities;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Explicit edge cases of the executor: wrap-around, unsigned comparisons, comparison direction, NaN, vectors,
 * bad arguments, and no allocation on the hot path.
 */
class AtomicExecutorTest
{
    private static final int EINVAL = -Errno.EINVAL.value();
    private static final int EOPNOTSUPP = -Errno.EOPNOTSUPP.value();

    private final AtomicExecutor executor = new AtomicExecutor(AtomicCapabilities.full(64));
    private final ByteBuffer target = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
    private final ByteBuffer operand = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
    private final ByteBuffer compare = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
    private final ByteBuffer result = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
    private final long t = BufferUtil.address(target);
    private final long o = BufferUtil.address(operand);
    private final long c = BufferUtil.address(compare);
    private final long r = BufferUtil.address(result);

    @Test
    void shouldWrapSignedAndUnsignedSumsAsCDoes()
    {
        target.put(0, (byte) 127);
        operand.put(0, (byte) 1);
        assertEquals(0, executor.atomic(AtomicOp.SUM, AtomicDatatype.INT8, t, o, 1));
        assertEquals(-128, target.get(0));

        target.put(0, (byte) 0xFF);
        assertEquals(0, executor.fetchAtomic(AtomicOp.SUM, AtomicDatatype.UINT8, t, o, r, 1));
        assertEquals(0, target.get(0));
        assertEquals((byte) 0xFF, result.get(0));

        target.putLong(0, Long.MAX_VALUE);
        operand.putLong(0, 2);
        assertEquals(0, executor.atomic(AtomicOp.PROD, AtomicDatatype.INT64, t, o, 1));
        assertEquals(-2L, target.getLong(0));
    }

    @Test
    void shouldWriteOnlyTheElementWidth()
    {
        target.putLong(0, 0x1111_1111_1111_1111L);
        operand.putShort(0, (short) 0xFFFF);
        assertEquals(0, executor.atomic(AtomicOp.SUM, AtomicDatatype.UINT16, t, o, 1));
        assertEquals(0x1111_1111_1111_1110L, target.getLong(0));
    }

    @Test
    void shouldCompareUnsignedTypesAsUnsigned()
    {
        target.putLong(0, 1);
        operand.putLong(0, -1L); // 2^64 - 1 unsigned
        assertEquals(0, executor.atomic(AtomicOp.MIN, AtomicDatatype.UINT64, t, o, 1));
        assertEquals(1L, target.getLong(0));
        assertEquals(0, executor.atomic(AtomicOp.MAX, AtomicDatatype.UINT64, t, o, 1));
        assertEquals(-1L, target.getLong(0));

        target.putInt(0, 5);
        operand.putInt(0, 0x8000_0000);
        assertEquals(0, executor.atomic(AtomicOp.MAX, AtomicDatatype.UINT32, t, o, 1));
        assertEquals(0x8000_0000, target.getInt(0));
        target.putInt(0, 5);
        assertEquals(0, executor.atomic(AtomicOp.MAX, AtomicDatatype.INT32, t, o, 1));
        assertEquals(5, target.getInt(0));
    }

    @Test
    void shouldSwapWhenCompareIsLessOrEqualToTargetForCswapLe()
    {
        target.putInt(0, 10);
        operand.putInt(0, 99);
        compare.putInt(0, 11);
        assertEquals(0, executor.compareAtomic(AtomicOp.CSWAP_LE, AtomicDatatype.INT32, t, o, c, r, 1));
        assertEquals(10, target.getInt(0)); // 11 <= 10 is false
        assertEquals(10, result.getInt(0));

        compare.putInt(0, 10);
        assertEquals(0, executor.compareAtomic(AtomicOp.CSWAP_LE, AtomicDatatype.INT32, t, o, c, r, 1));
        assertEquals(99, target.getInt(0));

        target.putInt(0, 10);
        compare.putInt(0, 9);
        assertEquals(0, executor.compareAtomic(AtomicOp.CSWAP_GT, AtomicDatatype.INT32, t, o, c, r, 1));
        assertEquals(10, target.getInt(0)); // 9 > 10 is false
        assertEquals(0, executor.compareAtomic(AtomicOp.CSWAP_LT, AtomicDatatype.INT32, t, o, c, r, 1));
        assertEquals(99, target.getInt(0)); // 9 < 10
    }

    @Test
    void shouldApplyMaskedSwap()
    {
        target.putShort(0, (short) 0x1234);
        operand.putShort(0, (short) 0xABCD);
        compare.putShort(0, (short) 0xFF00);
        assertEquals(0, executor.compareAtomic(AtomicOp.MSWAP, AtomicDatatype.UINT16, t, o, c, r, 1));
        assertEquals((short) 0xAB34, target.getShort(0));
        assertEquals((short) 0x1234, result.getShort(0));
    }

    @Test
    void shouldNeverStoreOrReplaceNanWithMinMaxAndNeverMatchNanWithCswap()
    {
        target.putDouble(0, 1.0);
        operand.putDouble(0, Double.NaN);
        assertEquals(0, executor.atomic(AtomicOp.MIN, AtomicDatatype.DOUBLE, t, o, 1));
        assertEquals(1.0, target.getDouble(0));

        target.putFloat(0, Float.NaN);
        operand.putFloat(0, 2.0f);
        assertEquals(0, executor.atomic(AtomicOp.MAX, AtomicDatatype.FLOAT, t, o, 1));
        assertTrue(Float.isNaN(target.getFloat(0)));

        compare.putFloat(0, Float.NaN);
        assertEquals(0, executor.compareAtomic(AtomicOp.CSWAP, AtomicDatatype.FLOAT, t, o, c, r, 1));
        assertTrue(Float.isNaN(target.getFloat(0)));
        assertEquals(0, executor.compareAtomic(AtomicOp.CSWAP_NE, AtomicDatatype.FLOAT, t, o, c, r, 1));
        assertEquals(2.0f, target.getFloat(0));
    }

    @Test
    void shouldTreatNegativeZeroAsEqualToZero()
    {
        target.putDouble(0, 0.0);
        operand.putDouble(0, 5.0);
        compare.putDouble(0, -0.0);
        assertEquals(0, executor.compareAtomic(AtomicOp.CSWAP, AtomicDatatype.DOUBLE, t, o, c, r, 1));
        assertEquals(5.0, target.getDouble(0));
    }

    @Test
    void shouldYieldOneOrZeroForLogicalOps()
    {
        target.putInt(0, 42);
        operand.putInt(0, 7);
        assertEquals(0, executor.atomic(AtomicOp.LAND, AtomicDatatype.INT32, t, o, 1));
        assertEquals(1, target.getInt(0));
        assertEquals(0, executor.atomic(AtomicOp.LXOR, AtomicDatatype.INT32, t, o, 1));
        assertEquals(0, target.getInt(0));

        target.putFloat(0, 0.0f);
        target.putFloat(4, 3.0f);
        operand.putFloat(0, 0.0f);
        operand.putFloat(4, 0.0f);
        assertEquals(0, executor.atomic(AtomicOp.LOR, AtomicDatatype.FLOAT_COMPLEX, t, o, 1));
        assertEquals(1.0f, target.getFloat(0));
        assertEquals(0.0f, target.getFloat(4));
    }

    @Test
    void shouldMultiplyComplexNumbers()
    {
        target.putDouble(0, 1.0);
        target.putDouble(8, 2.0);
        operand.putDouble(0, 3.0);
        operand.putDouble(8, 4.0);
        assertEquals(0, executor.fetchAtomic(AtomicOp.PROD, AtomicDatatype.DOUBLE_COMPLEX, t, o, r, 1));
        assertEquals(-5.0, target.getDouble(0)); // (1+2i)(3+4i) = -5+10i
        assertEquals(10.0, target.getDouble(8));
        assertEquals(1.0, result.getDouble(0));
        assertEquals(2.0, result.getDouble(8));
    }

    @Test
    void shouldApplyEveryElementOfAVector()
    {
        for (int i = 0; i < 8; i++)
        {
            target.putShort(i * 2, (short) (i * 100));
            operand.putShort(i * 2, (short) i);
        }
        assertEquals(0, executor.fetchAtomic(AtomicOp.SUM, AtomicDatatype.INT16, t, o, r, 8));
        for (int i = 0; i < 8; i++)
        {
            assertEquals((short) (i * 101), target.getShort(i * 2));
            assertEquals((short) (i * 100), result.getShort(i * 2));
        }
    }

    @Test
    void shouldReadWithoutOperandAndLeaveTargetUnchanged()
    {
        target.putLong(0, 0xCAFE_BABEL);
        assertEquals(0, executor.fetchAtomic(AtomicOp.ATOMIC_READ, AtomicDatatype.UINT64, t, 0, r, 1));
        assertEquals(0xCAFE_BABEL, result.getLong(0));
        assertEquals(0xCAFE_BABEL, target.getLong(0));
    }

    @Test
    void shouldRejectBadCountsWithEinvalOrEmsgsizeAndBadAddressesWithEinvalLeavingMemoryUntouched()
    {
        target.putLong(0, 77);
        operand.putLong(0, 1);
        assertEquals(EINVAL, executor.atomic(AtomicOp.SUM, AtomicDatatype.INT64, t, o, 0));
        assertEquals(EINVAL, executor.atomic(AtomicOp.SUM, AtomicDatatype.INT64, t, o, -1));
        assertEquals(-Errno.EMSGSIZE.value(), executor.atomic(AtomicOp.SUM, AtomicDatatype.INT64, t, o, 9)); // 8 max
        assertEquals(EINVAL, executor.atomic(AtomicOp.SUM, AtomicDatatype.INT64, 0, o, 1));
        assertEquals(EINVAL, executor.atomic(AtomicOp.SUM, AtomicDatatype.INT64, t, 0, 1));
        assertEquals(EINVAL, executor.fetchAtomic(AtomicOp.SUM, AtomicDatatype.INT64, t, o, 0, 1));
        assertEquals(EINVAL, executor.compareAtomic(AtomicOp.CSWAP, AtomicDatatype.INT64, t, o, 0, r, 1));
        assertEquals(EINVAL, executor.atomic(null, AtomicDatatype.INT64, t, o, 1));
        assertEquals(EINVAL, executor.atomic(AtomicOp.SUM, null, t, o, 1));
        assertEquals(77, target.getLong(0));
    }

    @Test
    void shouldAnswerEopnotsuppForLongDoubleAndWrongFamily()
    {
        target.putLong(0, 3);
        assertEquals(EOPNOTSUPP, executor.atomic(AtomicOp.SUM, AtomicDatatype.LONG_DOUBLE, t, o, 1));
        assertEquals(EOPNOTSUPP, executor.atomic(AtomicOp.CSWAP, AtomicDatatype.INT64, t, o, 1));
        assertEquals(EOPNOTSUPP, executor.fetchAtomic(AtomicOp.BOR, AtomicDatatype.DOUBLE, t, o, r, 1));
        assertEquals(
            EOPNOTSUPP, executor.compareAtomic(AtomicOp.CSWAP_GT, AtomicDatatype.FLOAT_COMPLEX, t, o, c, r, 1));
        assertEquals(3, target.getLong(0));
    }

    @Test
    void shouldHonourANarrowedCapabilityTable()
    {
        final AtomicExecutor narrow = new AtomicExecutor(
            AtomicCapabilities.full(64).without(AtomicCapabilities.Kind.ATOMIC, AtomicOp.MIN, AtomicDatatype.UINT32));
        target.putInt(0, 9);
        operand.putInt(0, 1);
        assertEquals(EOPNOTSUPP, narrow.atomic(AtomicOp.MIN, AtomicDatatype.UINT32, t, o, 1));
        assertEquals(9, target.getInt(0));
        assertEquals(0, narrow.fetchAtomic(AtomicOp.MIN, AtomicDatatype.UINT32, t, o, r, 1));
        assertEquals(1, target.getInt(0));
    }

    @Test
    void shouldNameTheRemoteRightsEachFamilyNeeds()
    {
        assertEquals(Flags.REMOTE_WRITE, AtomicExecutor.remoteAccess(AtomicCapabilities.Kind.ATOMIC, AtomicOp.SUM));
        assertEquals(
            Flags.REMOTE_READ | Flags.REMOTE_WRITE,
            AtomicExecutor.remoteAccess(AtomicCapabilities.Kind.FETCH, AtomicOp.SUM));
        assertEquals(
            Flags.REMOTE_READ, AtomicExecutor.remoteAccess(AtomicCapabilities.Kind.FETCH, AtomicOp.ATOMIC_READ));
        assertEquals(
            Flags.REMOTE_READ | Flags.REMOTE_WRITE,
            AtomicExecutor.remoteAccess(AtomicCapabilities.Kind.COMPARE, AtomicOp.CSWAP));
    }

    @Test
    void shouldNotAllocateOnTheHotPath()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        operand.putLong(0, 1);
        compare.putLong(0, 0);
        // Warm up until the JIT has settled (a round that allocates nothing), at most 20 rounds.
        long sink = 0;
        long allocated = -1;
        int rounds = 0;
        while (allocated != 0 && rounds < 20)
        {
            final long before = threads.getThreadAllocatedBytes(thread);
            for (int i = 0; i < 20_000; i++)
            {
                sink += executor.atomic(AtomicOp.SUM, AtomicDatatype.UINT64, t, o, 1);
                sink += executor.fetchAtomic(AtomicOp.MAX, AtomicDatatype.DOUBLE, t, o, r, 2);
                sink += executor.compareAtomic(AtomicOp.CSWAP, AtomicDatatype.INT32, t, o, c, r, 4);
                sink += executor.compareAtomic(AtomicOp.CSWAP_NE, AtomicDatatype.FLOAT_COMPLEX, t, o, c, r, 1);
                sink += executor.atomicValid(AtomicOp.BXOR, AtomicDatatype.INT8);
            }
            allocated = threads.getThreadAllocatedBytes(thread) - before;
            rounds++;
        }
        assertEquals(0, allocated, "bytes allocated by 100k executor calls after warm-up");
        assertEquals(rounds * 20_000L * 64, sink);
    }
}
