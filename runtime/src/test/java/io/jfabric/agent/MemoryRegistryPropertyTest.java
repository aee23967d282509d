package io.jfabric.agent;

import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.MrMode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link MemoryRegistry#verify} against a model in {@link BigInteger} arithmetic (no overflow possible), and
 * sequences of register/close against a map of open keys.
 */
class MemoryRegistryPropertyTest
{
    private static final long EINVAL = -Errno.EINVAL.value();
    private static final long EACCES = -Errno.EACCES.value();
    private static final long ALL = MemoryRegistry.ACCESS_MASK;

    @Property(tries = 2000)
    void shouldVerifyLikeTheBoundsAndRightsModel(
        @ForAll final boolean virtual,
        @ForAll @IntRange(min = 1, max = 4) final int segments,
        @ForAll @LongRange(min = 0, max = 1L << 40) final long baseSeed,
        @ForAll("segmentLengths") final long segmentLength,
        @ForAll @IntRange(min = 0, max = 63) final int grantedBits,
        @ForAll @IntRange(min = 0, max = 63) final int neededBits,
        @ForAll("addresses") final long addressDelta,
        @ForAll("lengths") final long length,
        @ForAll @IntRange(min = 0, max = 3) final int anchor)
    {
        final MemoryRegistry registry = new MemoryRegistry(virtual ? MrMode.VIRT_ADDR : MrMode.SCALABLE, 4);
        final long[] bases = new long[segments];
        final long[] lengths = new long[segments];
        for (int i = 0; i < segments; i++)
        {
            bases[i] = 0x1000 + baseSeed + i * (segmentLength + 4096); // disjoint, increasing
            lengths[i] = segmentLength;
        }
        final long granted = bits(grantedBits);
        final long needed = bits(neededBits);
        final long key = registry.register(bases, lengths, segments, granted, 11);

        // Probe around a segment chosen by the delta: at a random distance from its start, ending exactly at
        // its end, one byte past its end, or one byte before its start.
        final int s = (int) Math.floorMod(addressDelta, segments);
        final long start = virtual ? bases[s] : s * segmentLength;
        final long address;
        switch (anchor)
        {
            case 1:
                address = start + segmentLength - length;
                break;
            case 2:
                address = start + segmentLength - length + 1;
                break;
            case 3:
                address = start - 1;
                break;
            default:
                address = start + addressDelta;
                break;
        }
        final long expected = model(virtual, bases, lengths, granted, needed, address, length);
        assertEquals(expected, registry.verify(key, address, length, needed));
        assertEquals(EINVAL, registry.verify(key + 1, address, length, needed));
    }

    @Property(tries = 300)
    void shouldKeepKeysUniqueAcrossRandomRegisterAndClose(
        @ForAll("operations") final List<Integer> operations, @ForAll final boolean providerKeys)
    {
        final MemoryRegistry registry = new MemoryRegistry(providerKeys ? MrMode.BASIC : MrMode.VIRT_ADDR, 1);
        final Map<Long, Long> open = new HashMap<>();
        for (final int operation : operations)
        {
            final long requested = operation & 15;
            if (operation < 0 && !open.isEmpty())
            {
                final long victim = new ArrayList<>(open.keySet()).get(Math.floorMod(operation, open.size()));
                assertEquals(0, registry.close(victim));
                open.remove(victim);
                assertEquals(EINVAL, registry.verify(victim, 0x1000, 1, 0));
            }
            else if (!providerKeys && open.containsKey(requested))
            {
                final long sizeBefore = registry.size();
                try
                {
                    registry.register(0x9000, 64, Flags.REMOTE_READ, requested);
                    throw new AssertionError("duplicate key " + requested + " accepted");
                }
                catch (final io.jfabric.FabricException e)
                {
                    assertEquals(Errno.ENOKEY, e.errno());
                }
                assertEquals(sizeBefore, registry.size());
            }
            else
            {
                final long base = 0x1000 + (operation & 0xFF) * 0x100L;
                final long key = registry.register(base, 0x100, Flags.REMOTE_WRITE, requested);
                assertEquals(null, open.put(key, base), "key handed out twice: " + key);
            }
            assertEquals(open.size(), registry.size());
            for (final Map.Entry<Long, Long> e : open.entrySet())
            {
                assertEquals(e.getValue(), registry.verify(e.getKey(), e.getValue(), 0x100, Flags.REMOTE_WRITE));
            }
        }
    }

    @Provide
    Arbitrary<Long> lengths()
    {
        return Arbitraries.oneOf(
            Arbitraries.longs().between(0, 64),
            Arbitraries.longs().between(0, 1L << 20),
            Arbitraries.of(4096L, 4095L, 4097L, Long.MAX_VALUE, -1L));
    }

    @Provide
    Arbitrary<Long> segmentLengths()
    {
        return Arbitraries.oneOf(
            Arbitraries.longs().between(0, 64),
            Arbitraries.longs().between(0, 1L << 20),
            Arbitraries.of(4096L, 4095L, 4097L));
    }

    @Provide
    Arbitrary<Long> addresses()
    {
        return Arbitraries.oneOf(
            Arbitraries.longs().between(-64, 64),
            Arbitraries.longs().between(0, 1L << 22),
            Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, -1L));
    }

    @Provide
    Arbitrary<List<Integer>> operations()
    {
        return Arbitraries.integers().between(-1000, 1000).list().ofMaxSize(60);
    }

    private static long bits(final int combination)
    {
        final long[] flags = { Flags.READ, Flags.WRITE, Flags.REMOTE_READ, Flags.REMOTE_WRITE, Flags.SEND, Flags.RECV };
        long access = 0;
        for (int b = 0; b < flags.length; b++)
        {
            if ((combination & (1 << b)) != 0)
            {
                access |= flags[b];
            }
        }
        return access & ALL;
    }

    private static long model(
        final boolean virtual,
        final long[] bases,
        final long[] lengths,
        final long granted,
        final long needed,
        final long address,
        final long length)
    {
        if ((needed & granted) != needed)
        {
            return EACCES;
        }
        final BigInteger a = unsigned(address);
        final BigInteger end = a.add(unsigned(length));
        BigInteger logical = BigInteger.ZERO;
        for (int i = 0; i < bases.length; i++)
        {
            final BigInteger start = virtual ? unsigned(bases[i]) : logical;
            final BigInteger limit = start.add(BigInteger.valueOf(lengths[i]));
            if (a.compareTo(start) >= 0 && end.compareTo(limit) <= 0)
            {
                return virtual ? address : bases[i] + a.subtract(start).longValueExact();
            }
            logical = limit;
        }
        return EACCES;
    }

    private static BigInteger unsigned(final long value)
    {
        return BigInteger.valueOf(value).and(BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE));
    }
}
