package io.jfabric.provider.shm;

import io.jfabric.Domain;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.Progress;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static io.jfabric.provider.shm.ShmTests.assertPattern;
import static io.jfabric.provider.shm.ShmTests.direct;
import static io.jfabric.provider.shm.ShmTests.one;
import static io.jfabric.provider.shm.ShmTests.pattern;
import static io.jfabric.provider.shm.ShmTests.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The domain shared-memory pool and single-copy rendezvous, two shm domains in one JVM.
 */
@Timeout(60)
class ShmPoolTest
{
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException
    {
        dir = ShmTests.useNewDirectory("jfabric-shm-pool-");
    }

    @AfterAll
    static void cleanup() throws IOException
    {
        final var left = ShmTests.ringFiles(dir);
        ShmTests.deleteTree(dir);
        assertEquals(List.of(), left, "every ring and pool file is removed on close");
    }

    @AfterEach
    void defaultPoolSize()
    {
        System.clearProperty(ShmConfiguration.POOL_SIZE_PROP);
    }

    private static String suffix()
    {
        return "-pool-" + NAMES.incrementAndGet();
    }

    private static UnsafeBuffer view(final AtomicBuffer block)
    {
        return new UnsafeBuffer(block.addressOffset(), block.capacity());
    }

    /**
     * Send {@code length} bytes (pattern {@code seed}) from {@code out} at {@code offset}, tagged, from a to b;
     * check completions and data; return how many direct reads and data frames b's transport saw for it.
     */
    private static long[] sendAndCheck(
        final ShmPair p, final DirectBuffer out, final int offset, final int length, final int seed,
        final boolean receiveFirst)
    {
        final ShmDomainTransport tb = ShmTests.transport(p.domainB);
        final long reads = tb.directReads();
        final long frames = ShmTests.agent(p.domainB).dataFrames();
        final UnsafeBuffer in = direct(length + 16);
        if (receiveFirst)
        {
            post(() -> p.b.trecv(in, 0, length + 16, p.addrAFromB, 9, 0, 1), p.domains());
        }
        post(() -> p.a.tsend(out, offset, length, p.addrBFromA, 9, 2), p.domains());
        if (!receiveFirst)
        {
            // Unexpected: the RTS waits in b until the receive is posted.
            for (int i = 0; i < 50; i++)
            {
                ShmTests.progress(p.domains());
            }
            post(() -> p.b.trecv(in, 0, length + 16, p.addrAFromB, 9, 0, 1), p.domains());
        }
        assertEquals(2, one(p.cqA, p.domains()).context(), "send completion");
        final var received = one(p.cqB, p.domains());
        assertEquals(1, received.context());
        assertEquals(length, received.len());
        assertPattern(in, 0, length, seed);
        return new long[]{tb.directReads() - reads, ShmTests.agent(p.domainB).dataFrames() - frames};
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldCopyStraightFromThePoolWithoutDataFramesAt1MiBPlus3And8MiB(final Progress progress)
    {
        try (ShmPair p = new ShmPair(progress, suffix()))
        {
            for (final int size : new int[]{(1 << 20) + 3, 8 << 20})
            {
                final AtomicBuffer block = p.domainA.allocateShared(size);
                assertEquals(size, block.capacity());
                ShmTests.fill(view(block), 0, size, size);
                final long[] seen = sendAndCheck(p, block, 0, size, size, true);
                assertEquals(1, seen[0], "one direct read from a's pool, size " + size);
                assertEquals(0, seen[1], "no RDATA chunk, size " + size);
                p.domainA.freeShared(block);
            }
        }
    }

    @Test
    void shouldMixPoolAndPlainSendsAndKeepTheChunkedPathForPlainBuffers()
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, suffix()))
        {
            final int big = (1 << 20) + 3;
            final AtomicBuffer block = p.domainA.allocateShared(2 * big);
            int seed = 1;
            for (final int size : new int[]{300_000, ShmProvider.EAGER_THRESHOLD + 1, 100, big})
            {
                for (final boolean fromPool : new boolean[]{true, false})
                {
                    for (final boolean receiveFirst : new boolean[]{true, false})
                    {
                        seed++;
                        final long[] seen;
                        if (fromPool)
                        {
                            // At an offset inside the block: the range, not the block, is what counts.
                            ShmTests.fill(view(block), 77, size, seed);
                            seen = sendAndCheck(p, block, 77, size, seed, receiveFirst);
                        }
                        else
                        {
                            seen = sendAndCheck(p, pattern(size, seed), 0, size, seed, receiveFirst);
                        }
                        final boolean rendezvous = size > ShmProvider.EAGER_THRESHOLD;
                        final String what = (fromPool ? "pool" : "plain") + " send of " + size +
                            (receiveFirst ? " (posted)" : " (unexpected)");
                        assertEquals(fromPool && rendezvous ? 1 : 0, seen[0], what + ": direct reads");
                        if (rendezvous && !fromPool)
                        {
                            assertTrue(seen[1] >= 1, what + ": data moves in RDATA chunks");
                        }
                        else
                        {
                            assertEquals(0, seen[1], what + ": no RDATA chunks");
                        }
                    }
                }
            }
            p.domainA.freeShared(block);
        }
    }

    @Test
    void shouldCopyAnIovOnlyWhenEverySegmentLiesInThePoolAndTruncateLikeTheChunkedPath()
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, suffix()))
        {
            final ShmDomainTransport tb = ShmTests.transport(p.domainB);
            final int half = 200_000;
            final AtomicBuffer first = p.domainA.allocateShared(half);
            final AtomicBuffer second = p.domainA.allocateShared(half);
            final UnsafeBuffer plain = direct(half);
            for (final boolean allPool : new boolean[]{true, false})
            {
                final UnsafeBuffer[] iov = {view(first), allPool ? view(second) : plain};
                // One pattern across both segments: segment 2 continues where segment 1 ends.
                final UnsafeBuffer whole = pattern(2 * half, 40);
                whole.getBytes(0, iov[0], 0, half);
                whole.getBytes(half, iov[1], 0, half);
                final long reads = tb.directReads();
                final long frames = ShmTests.agent(p.domainB).dataFrames();
                final UnsafeBuffer in = direct(2 * half);
                post(() -> p.b.trecv(in, 0, 2 * half, p.addrAFromB, 4, 0, 1), p.domains());
                post(() -> p.a.tsendv(iov, 2, p.addrBFromA, 4, 2), p.domains());
                assertEquals(2, one(p.cqA, p.domains()).context());
                assertEquals(2 * half, one(p.cqB, p.domains()).len());
                assertPattern(in, 0, 2 * half, 40);
                if (allPool)
                {
                    assertEquals(2, tb.directReads() - reads, "both segments read directly");
                    assertEquals(frames, ShmTests.agent(p.domainB).dataFrames(), "no RDATA chunk");
                }
                else
                {
                    // The pool segment was found readable, the plain one not: the whole message is pulled.
                    assertTrue(ShmTests.agent(p.domainB).dataFrames() > frames, "a mixed iov moves in RDATA chunks");
                }
            }

            // A receive shorter than the message: the fitting bytes, then ETRUNC with the overflow, as chunked.
            ShmTests.fill(view(first), 0, half, 8);
            final UnsafeBuffer in = direct(half);
            final int room = 150_000;
            post(() -> p.b.trecv(in, 0, room, p.addrAFromB, 6, 0, 3), p.domains());
            post(() -> p.a.tsend(first, 0, half, p.addrBFromA, 6, 4), p.domains());
            assertEquals(4, one(p.cqA, p.domains()).context());
            final var truncated = ShmTests.error(p.cqB, p.domains());
            assertEquals(Errno.ETRUNC, truncated.errno());
            assertEquals(half - room, truncated.olen());
            assertPattern(in, 0, room, 8);
            assertEquals(0, in.getByte(room), "nothing written past the receive buffer");
            p.domainA.freeShared(first);
            p.domainA.freeShared(second);
        }
    }

    @Test
    void shouldWriteRemoteMemoryStraightFromThePoolAboveTheFrameLimitWithTheMrChecksKept()
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, suffix()))
        {
            final ShmDomainTransport tb = ShmTests.transport(p.domainB);
            final int size = 3 << 20;
            assertTrue(size > tb.maxFrameLength(), "a streamed write");
            final int region = 4 << 20;
            final UnsafeBuffer target = direct(region);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, region,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 12))
            {
                final AtomicBuffer block = p.domainA.allocateShared(size);
                ShmTests.fill(view(block), 0, size, 21);
                long reads = tb.directReads();
                long frames = ShmTests.agent(p.domainB).dataFrames();
                post(() -> p.a.write(block, 0, size, p.addrBFromA, 5, mr.key(), 1), p.domains());
                assertEquals(1, one(p.cqA, p.domains()).context());
                assertPattern(target, 5, size, 21);
                assertEquals(reads + 1, tb.directReads(), "read from a's pool");
                assertEquals(frames, ShmTests.agent(p.domainB).dataFrames(), "no RDATA chunk");
                assertEquals(1, p.remoteWriteCntrB.read(), "remote write counted at the target");

                // A plain buffer: chunked as before.
                final UnsafeBuffer plain = pattern(size, 22);
                reads = tb.directReads();
                post(() -> p.a.write(plain, 0, size, p.addrBFromA, 7, mr.key(), 2), p.domains());
                assertEquals(2, one(p.cqA, p.domains()).context());
                assertPattern(target, 7, size, 22);
                assertEquals(reads, tb.directReads());
                assertTrue(ShmTests.agent(p.domainB).dataFrames() > frames, "a plain write moves in RDATA chunks");

                // Out of the region's bounds from the pool: an error at the initiator, target untouched.
                target.setMemory(0, region, (byte) 0);
                reads = tb.directReads();
                final int at = region - size + 1;
                post(() -> p.a.write(block, 0, size, p.addrBFromA, at, mr.key(), 3), p.domains());
                final var failed = ShmTests.error(p.cqA, p.domains());
                assertEquals(3, failed.context());
                assertNotEquals(null, failed.errno());
                assertEquals(reads, tb.directReads(), "nothing read for a refused write");
                for (int i = 0; i < region; i += 4096)
                {
                    assertEquals(0, target.getByte(i), "target byte " + i + " untouched");
                }
                assertEquals(0, target.getByte(region - 1));
                p.domainA.freeShared(block);
            }
        }
    }

    @Test
    void shouldAnswerEnomemWhenThePoolIsExhaustedAndReuseFreedBlocks()
    {
        System.setProperty(ShmConfiguration.POOL_SIZE_PROP, Integer.toString(1 << 20));
        try (ShmPair p = new ShmPair(Progress.MANUAL, suffix()))
        {
            final Domain d = p.domainA;
            final AtomicBuffer first = d.allocateShared(512 << 10);
            final AtomicBuffer second = d.allocateShared(512 << 10);
            assertEquals(first.addressOffset() + (512 << 10), second.addressOffset(), "bump allocation");
            final FabricException full = assertThrows(FabricException.class, () -> d.allocateShared(1));
            assertEquals(Errno.ENOMEM, full.errno());
            assertTrue(full.getMessage().contains("exhausted") &&
                full.getMessage().contains(ShmConfiguration.POOL_SIZE_PROP), full.getMessage());

            d.freeShared(first);
            final AtomicBuffer reused = d.allocateShared(1000);
            assertEquals(first.addressOffset(), reused.addressOffset(), "first fit reuses the freed block");
            final AtomicBuffer rest = d.allocateShared((512 << 10) - 1024);
            assertEquals(first.addressOffset() + 1024, rest.addressOffset(), "1000 bytes take 1024 (alignment)");
            assertEquals(Errno.ENOMEM, assertThrows(FabricException.class, () -> d.allocateShared(1)).errno());

            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> d.freeShared(direct(64))).errno(),
                "a buffer not from the pool");
            d.freeShared(reused);
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> d.freeShared(reused)).errno(),
                "a block freed twice");
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> d.allocateShared(0)).errno());
            d.freeShared(rest);
            d.freeShared(second);
            final AtomicBuffer whole = d.allocateShared(1 << 20);
            assertEquals(first.addressOffset(), whole.addressOffset(), "freed neighbours merge back into one block");
            d.freeShared(whole);
        }
    }

    @Test
    void shouldAnswerEopnotsuppWhenThePoolIsDisabledOrTheProviderHasNone()
    {
        System.setProperty(ShmConfiguration.POOL_SIZE_PROP, "0");
        try (ShmPair p = new ShmPair(Progress.MANUAL, suffix()))
        {
            final FabricException ex = assertThrows(FabricException.class, () -> p.domainA.allocateShared(64));
            assertEquals(Errno.EOPNOTSUPP, ex.errno());
            assertTrue(ex.getMessage().contains(ShmConfiguration.POOL_SIZE_PROP), ex.getMessage());
        }
        final Info hints = Info.builder().caps(Flags.MSG | Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName("inproc").build()).build();
        final Info info = Fabric.getInfo(hints).get(0);
        try (Fabric fabric = Fabric.open(info); Domain domain = fabric.domain(info))
        {
            assertEquals(Errno.EOPNOTSUPP, assertThrows(FabricException.class, () -> domain.allocateShared(64))
                .errno());
        }
    }

    @Test
    void shouldCreateAnOwnerOnlyPoolFileOnFirstUseAndRemoveItOnClose() throws IOException
    {
        final String suffix = suffix();
        final Path pool;
        try (ShmPair p = new ShmPair(Progress.MANUAL, suffix))
        {
            final ShmDomainTransport ta = ShmTests.transport(p.domainA);
            assertEquals(null, ta.pool(), "no pool before the first allocation");
            assertEquals(0, ta.ownFile().poolLength());
            final AtomicBuffer block = p.domainA.allocateShared(4096);
            pool = dir.resolve(ShmPoolDescriptor.fileName("a" + suffix, ta.ownFile().incarnation()));
            assertEquals(pool, ta.pool().path());
            assertTrue(Files.exists(pool), pool + " exists");
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(pool)));
            assertEquals(ShmPoolDescriptor.HEADER_LENGTH + ShmConfiguration.POOL_SIZE, Files.size(pool));
            assertEquals(ShmConfiguration.POOL_SIZE, ta.ownFile().poolLength(), "announced in the ring header");
            p.domainA.freeShared(block);
        }
        assertTrue(Files.notExists(pool), pool + " removed on close");
    }

    @Test
    void shouldNeverReadOutsideThePoolNorFromAPeerWhoseRingIsClosed()
    {
        final String suffix = suffix();
        try (ShmPair p = new ShmPair(Progress.MANUAL, suffix))
        {
            final int size = 64 << 10;
            final AtomicBuffer block = p.domainA.allocateShared(size);
            ShmTests.fill(view(block), 0, size, 5);
            assertEquals(1, sendAndCheck(p, block, 0, size, 5, true)[0]);

            final ShmDomainTransport tb = ShmTests.transport(p.domainB);
            final long keyOfA = tb.resolve(p.a.name());
            final long start = block.addressOffset();
            final long poolEnd = start + ShmConfiguration.POOL_SIZE;
            final long local = tb.directAddress(keyOfA, start, size);
            assertNotEquals(0, local);
            assertEquals(5, new UnsafeBuffer(local, 1).getByte(0) & 0xFF, "the mapping shows a's bytes");
            assertEquals(0, tb.directAddress(keyOfA, start - 1, 16), "starts before the pool");
            assertEquals(0, tb.directAddress(keyOfA, poolEnd - 8, 16), "runs past the pool's end");
            assertEquals(0, tb.directAddress(keyOfA, start, ShmConfiguration.POOL_SIZE + 1), "longer than the pool");
            assertEquals(0, tb.directAddress(keyOfA, start, 0), "empty");
            assertNotEquals(0, tb.directAddress(keyOfA, start + size - 16, 16), "the block's last bytes");
            // Past the highest block handed out the pool is not reserved (a page there may be a hole that faults
            // when touched on a full file system): never readable.
            assertEquals(0, tb.directAddress(keyOfA, start + size, 16), "past the reserved part");
            assertEquals(0, tb.directAddress(keyOfA, poolEnd - 16, 16), "the pool's last bytes, never handed out");

            // Plain memory of a is never readable, even at the same address range size.
            final UnsafeBuffer plain = pattern(size, 3);
            assertEquals(0, tb.directAddress(keyOfA, plain.addressOffset(), size));

            try (ShmRingFile ringOfA = ShmRingFile.openPeer(dir, "a" + suffix))
            {
                ringOfA.markClosed();
            }
            assertEquals(0, tb.directAddress(keyOfA, start, size), "a's ring is closed: its pool is not read");
            p.domainA.freeShared(block);
        }
    }
}
