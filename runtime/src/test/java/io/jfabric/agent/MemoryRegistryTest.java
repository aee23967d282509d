package io.jfabric.agent;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.MrMode;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemoryRegistryTest
{
    private static final long EINVAL = -Errno.EINVAL.value();
    private static final long EACCES = -Errno.EACCES.value();
    private static final long[] ACCESS_BITS =
        { Flags.READ, Flags.WRITE, Flags.REMOTE_READ, Flags.REMOTE_WRITE, Flags.SEND, Flags.RECV };
    private static final long BASE = 0x7f00_0000_1000L;

    @Test
    void shouldGrantExactlyTheRegisteredRightsForEveryAccessCombinationAndSize()
    {
        final long[] sizes = { 1, 7, 64, 4096, 1L << 20, 1L << 33 };
        for (final long size : sizes)
        {
            for (int registered = 0; registered < 64; registered++)
            {
                final MemoryRegistry registry = new MemoryRegistry(MrMode.VIRT_ADDR, 1);
                final long access = flags(registered);
                final long key = registry.register(BASE, size, access, 5);
                assertEquals(access, registry.access(key));
                for (int wanted = 0; wanted < 64; wanted++)
                {
                    final long need = flags(wanted);
                    final long expected = (need & access) == need ? BASE : EACCES;
                    assertEquals(expected, registry.verify(key, BASE, size, need),
                        "size " + size + " registered " + registered + " wanted " + wanted);
                }
            }
        }
    }

    @Test
    void shouldAcceptAccessEndingExactlyAtTheEndAndRejectOnePast()
    {
        final MemoryRegistry registry = new MemoryRegistry(MrMode.VIRT_ADDR, 1);
        final long key = registry.register(BASE, 4096, Flags.REMOTE_WRITE, 9);
        assertEquals(BASE + 4088, registry.verify(key, BASE + 4088, 8, Flags.REMOTE_WRITE));
        assertEquals(EACCES, registry.verify(key, BASE + 4089, 8, Flags.REMOTE_WRITE));
        assertEquals(EACCES, registry.verify(key, BASE, 4097, Flags.REMOTE_WRITE));
        assertEquals(BASE + 4096, registry.verify(key, BASE + 4096, 0, Flags.REMOTE_WRITE));
        assertEquals(EACCES, registry.verify(key, BASE - 1, 1, Flags.REMOTE_WRITE));
        assertEquals(EACCES, registry.verify(key, BASE + 8, -1L, Flags.REMOTE_WRITE));
        assertEquals(EACCES, registry.verify(key, BASE + 8, Long.MAX_VALUE, Flags.REMOTE_WRITE));
    }

    @Test
    void shouldMapOffsetsFromTheRegionStartWithoutVirtAddr()
    {
        final MemoryRegistry registry = new MemoryRegistry(MrMode.SCALABLE, 1);
        assertFalse(registry.virtualAddressing());
        final long key = registry.register(BASE, 256, Flags.REMOTE_READ, 3);
        assertEquals(BASE, registry.verify(key, 0, 256, Flags.REMOTE_READ));
        assertEquals(BASE + 200, registry.verify(key, 200, 56, Flags.REMOTE_READ));
        assertEquals(EACCES, registry.verify(key, 200, 57, Flags.REMOTE_READ));
        assertEquals(EACCES, registry.verify(key, BASE, 1, Flags.REMOTE_READ)); // a virtual address is no offset
        assertEquals(EACCES, registry.verify(key, -1, 1, Flags.REMOTE_READ));
    }

    @Test
    void shouldAnswerEinvalForUnknownAndClosedKeys()
    {
        final MemoryRegistry registry = new MemoryRegistry(MrMode.VIRT_ADDR, 1);
        assertEquals(EINVAL, registry.verify(1, BASE, 1, Flags.REMOTE_READ));
        final long key = registry.register(BASE, 64, Flags.REMOTE_READ, 1);
        assertEquals(EINVAL, registry.verify(2, BASE, 1, Flags.REMOTE_READ));
        assertEquals(0, registry.close(key));
        assertEquals(EINVAL, registry.verify(key, BASE, 1, Flags.REMOTE_READ));
        assertEquals(-Errno.ENOKEY.value(), registry.close(key));
        assertEquals(-Errno.ENOKEY.value(), registry.access(key));
        assertEquals(-Errno.ENOKEY.value(), registry.length(key));
        assertEquals(0, registry.size());
    }

    @Test
    void shouldReRegisterTheSameMemoryAndKeyAfterClose()
    {
        final MemoryRegistry registry = new MemoryRegistry(MrMode.VIRT_ADDR, 1);
        final long key = registry.register(BASE, 64, Flags.REMOTE_READ, 77);
        assertEquals(0, registry.close(key));
        final long again = registry.register(BASE, 64, Flags.REMOTE_WRITE, 77);
        assertEquals(77, again);
        assertEquals(EACCES, registry.verify(again, BASE, 8, Flags.REMOTE_READ));
        assertEquals(BASE, registry.verify(again, BASE, 8, Flags.REMOTE_WRITE));
    }

    @Test
    void shouldRegisterTheSameMemoryTwiceUnderDifferentKeys()
    {
        final MemoryRegistry registry = new MemoryRegistry(MrMode.VIRT_ADDR, 1);
        final long a = registry.register(BASE, 64, Flags.REMOTE_READ, 1);
        final long b = registry.register(BASE, 64, Flags.REMOTE_WRITE, 2);
        assertEquals(BASE, registry.verify(a, BASE, 64, Flags.REMOTE_READ));
        assertEquals(EACCES, registry.verify(a, BASE, 64, Flags.REMOTE_WRITE));
        assertEquals(BASE, registry.verify(b, BASE, 64, Flags.REMOTE_WRITE));
        assertEquals(2, registry.size());
    }

    @Test
    void shouldFailARequestedKeyCollisionWithEnokeyAndKeepTheFirstRegion()
    {
        final MemoryRegistry registry = new MemoryRegistry(MrMode.VIRT_ADDR, 1);
        final long key = registry.register(BASE, 64, Flags.REMOTE_READ, 42);
        final FabricException e = assertThrows(
            FabricException.class, () -> registry.register(BASE + 4096, 64, Flags.REMOTE_WRITE, 42));
        assertEquals(Errno.ENOKEY, e.errno());
        assertTrue(e.getMessage().contains("42"));
        assertEquals(1, registry.size());
        assertEquals(Flags.REMOTE_READ, registry.access(key));
        assertEquals(BASE, registry.verify(key, BASE, 64, Flags.REMOTE_READ));
    }

    @Test
    void shouldChooseUniqueKeysWithProvKeyIgnoringTheRequestedKey()
    {
        final MemoryRegistry registry = new MemoryRegistry(MrMode.VIRT_ADDR | MrMode.PROV_KEY, 1);
        assertTrue(registry.providerKeys());
        final Set<Long> keys = new HashSet<>();
        for (int i = 0; i < 1000; i++)
        {
            assertTrue(keys.add(registry.register(BASE + i * 64L, 64, Flags.REMOTE_READ, 5)));
        }
        assertEquals(1000, registry.size());
        // Closing and registering again never hands out a key still in use.
        assertEquals(0, registry.close(1));
        final long next = registry.register(BASE, 64, Flags.REMOTE_READ, 0);
        assertFalse(keys.contains(next) && next != 1);
    }

    @Test
    void shouldTreatBasicModeAsVirtAddrWithProviderKeysAndScalableAsNeither()
    {
        final MemoryRegistry basic = new MemoryRegistry(MrMode.BASIC, 1);
        assertTrue(basic.virtualAddressing());
        assertTrue(basic.providerKeys());
        assertEquals(1, basic.register(BASE, 8, Flags.REMOTE_READ, 99));
        final MemoryRegistry scalable = new MemoryRegistry(MrMode.SCALABLE, 1);
        assertFalse(scalable.virtualAddressing());
        assertFalse(scalable.providerKeys());
        assertEquals(99, scalable.register(BASE, 8, Flags.REMOTE_READ, 99));
    }

    @Test
    void shouldMapIovSegmentsInOffsetModeEndToEnd()
    {
        final MemoryRegistry registry = new MemoryRegistry(MrMode.UNSPEC, 4);
        final long[] bases = { 0x10000, 0x50000, 0x90000 };
        final long[] lengths = { 100, 200, 300 };
        final long key = registry.register(bases, lengths, 3, Flags.REMOTE_WRITE, 8);
        assertEquals(600, registry.length(key));
        assertEquals(0x10000, registry.verify(key, 0, 100, Flags.REMOTE_WRITE));
        assertEquals(0x50000, registry.verify(key, 100, 200, Flags.REMOTE_WRITE));
        assertEquals(0x50000 + 50, registry.verify(key, 150, 10, Flags.REMOTE_WRITE));
        assertEquals(0x90000 + 299, registry.verify(key, 599, 1, Flags.REMOTE_WRITE));
        assertEquals(EACCES, registry.verify(key, 599, 2, Flags.REMOTE_WRITE));
        assertEquals(EACCES, registry.verify(key, 90, 20, Flags.REMOTE_WRITE)); // spans two segments
    }

    @Test
    void shouldMapIovSegmentsInVirtualMode()
    {
        final MemoryRegistry registry = new MemoryRegistry(MrMode.VIRT_ADDR, 2);
        final long key = registry.register(
            new long[]{ 0x10000, 0x20000 }, new long[]{ 64, 64 }, 2, Flags.REMOTE_READ, 1);
        assertEquals(0x10010, registry.verify(key, 0x10010, 16, Flags.REMOTE_READ));
        assertEquals(0x20000, registry.verify(key, 0x20000, 64, Flags.REMOTE_READ));
        assertEquals(EACCES, registry.verify(key, 0x10040, 1, Flags.REMOTE_READ)); // the gap
    }

    @Test
    void shouldRegisterUpToTheIovLimitAndRejectMore()
    {
        final int limit = 8;
        final MemoryRegistry registry = new MemoryRegistry(MrMode.VIRT_ADDR, limit);
        final long[] bases = new long[limit + 1];
        final long[] lengths = new long[limit + 1];
        for (int i = 0; i <= limit; i++)
        {
            bases[i] = BASE + i * 0x1000L;
            lengths[i] = 0x1000;
        }
        final long key = registry.register(bases, lengths, limit, Flags.REMOTE_READ, 1);
        assertEquals(limit * 0x1000L, registry.length(key));
        final FabricException e = assertThrows(
            FabricException.class, () -> registry.register(bases, lengths, limit + 1, Flags.REMOTE_READ, 2));
        assertEquals(Errno.EINVAL, e.errno());
        assertThrows(FabricException.class, () -> registry.register(bases, lengths, 0, Flags.REMOTE_READ, 2));
        assertEquals(1, registry.size());
    }

    @Test
    void shouldRejectBadRegistrationsWithEinvalAndRegisterNothing()
    {
        final MemoryRegistry registry = new MemoryRegistry(MrMode.VIRT_ADDR, 2);
        final long[] bad = { Flags.TAGGED, Flags.REMOTE_READ | Flags.MSG };
        for (final long access : bad)
        {
            final FabricException e = assertThrows(FabricException.class, () -> registry.register(BASE, 8, access, 1));
            assertEquals(Errno.EINVAL, e.errno());
        }
        assertThrows(FabricException.class, () -> registry.register(BASE, -1, Flags.READ, 1));
        assertThrows(FabricException.class, () -> registry.register(0, 8, Flags.READ, 1));
        assertThrows(FabricException.class, () -> registry.register(-16, 32, Flags.READ, 1));
        assertThrows(FabricException.class, () -> registry.register(null, new long[1], 1, Flags.READ, 1));
        assertThrows(FabricException.class, () -> new MemoryRegistry(MrMode.VIRT_ADDR, 0));
        assertEquals(0, registry.size());
        assertEquals(0, registry.register(0, 0, Flags.READ, 0)); // a zero-length region is legal
    }

    @Test
    void shouldVerifyLocalDescriptorsByVirtualAddressInEveryMode()
    {
        final MemoryRegistry registry = new MemoryRegistry(MrMode.SCALABLE, 1);
        final long key = registry.register(BASE, 128, Flags.SEND | Flags.RECV, 4);
        assertEquals(BASE + 64, registry.verifyLocal(key, BASE + 64, 64, Flags.SEND));
        assertEquals(EACCES, registry.verifyLocal(key, BASE + 64, 65, Flags.SEND));
        assertEquals(EACCES, registry.verifyLocal(key, BASE, 8, Flags.READ));
        assertEquals(EINVAL, registry.verifyLocal(5, BASE, 8, Flags.SEND));
    }

    @Test
    void shouldNotAllocateOnVerify()
    {
        final MemoryRegistry registry = new MemoryRegistry(MrMode.VIRT_ADDR, 2);
        for (int i = 0; i < 100; i++)
        {
            registry.register(BASE + i * 0x10000L, 0x10000, Flags.REMOTE_READ | Flags.REMOTE_WRITE, 1000 + i);
        }
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        // Warm up until the JIT has settled (a round that allocates nothing), at most 20 rounds.
        long sink = 0;
        long allocated = -1;
        int rounds = 0;
        while (allocated != 0 && rounds < 20)
        {
            final long before = threads.getThreadAllocatedBytes(thread);
            for (int i = 0; i < 100_000; i++)
            {
                final int k = i % 100;
                sink += registry.verify(1000 + k, BASE + k * 0x10000L + 8, 8, Flags.REMOTE_WRITE) > 0 ? 1 : 0;
                sink += registry.verify(5, BASE, 8, Flags.REMOTE_WRITE) == EINVAL ? 1 : 0;
            }
            allocated = threads.getThreadAllocatedBytes(thread) - before;
            rounds++;
        }
        assertEquals(0, allocated, "bytes allocated by 200k verify calls after warm-up");
        assertEquals(rounds * 200_000L, sink);
    }

    private static long flags(final int combination)
    {
        long access = 0;
        for (int b = 0; b < ACCESS_BITS.length; b++)
        {
            if ((combination & (1 << b)) != 0)
            {
                access |= ACCESS_BITS[b];
            }
        }
        return access;
    }
}
