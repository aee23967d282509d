package io.jfabric.provider.shm;

import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.MemoryRegion;
import io.jfabric.Progress;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static io.jfabric.provider.shm.ShmTests.SIZES;
import static io.jfabric.provider.shm.ShmTests.assertPattern;
import static io.jfabric.provider.shm.ShmTests.direct;
import static io.jfabric.provider.shm.ShmTests.error;
import static io.jfabric.provider.shm.ShmTests.one;
import static io.jfabric.provider.shm.ShmTests.pattern;
import static io.jfabric.provider.shm.ShmTests.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two shm domains in one JVM: every op family at every protocol size, in both progress modes.
 */
@Timeout(60)
class ShmSameProcessTest
{
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException
    {
        dir = ShmTests.useNewDirectory("jfabric-shm-same-");
    }

    @AfterAll
    static void cleanup() throws IOException
    {
        final var left = ShmTests.ringFiles(dir);
        ShmTests.deleteTree(dir);
        assertEquals(java.util.List.of(), left, "every ring file is removed on close");
    }

    private static String suffix()
    {
        return "-same-" + NAMES.incrementAndGet();
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldDeliverTaggedAndUntaggedMessagesIntactAtEveryProtocolSize(final Progress progress)
    {
        try (ShmPair p = new ShmPair(progress, suffix()))
        {
            int context = 1;
            for (final int size : SIZES)
            {
                for (final boolean tagged : new boolean[]{true, false})
                {
                    final UnsafeBuffer in = direct(size + 16);
                    final UnsafeBuffer out = pattern(size, size + (tagged ? 1 : 2));
                    final int recvContext = context++;
                    final int sendContext = context++;
                    if (tagged)
                    {
                        post(() -> p.b.trecv(in, 0, size + 16, p.addrAFromB, 77, 0, recvContext), p.domains());
                        post(() -> p.a.tsend(out, 0, size, p.addrBFromA, 77, sendContext), p.domains());
                    }
                    else
                    {
                        post(() -> p.b.recv(in, 0, size + 16, p.addrAFromB, recvContext), p.domains());
                        post(() -> p.a.send(out, 0, size, p.addrBFromA, sendContext), p.domains());
                    }
                    final CompletionEntry sent = one(p.cqA, p.domains());
                    assertEquals(sendContext, sent.context(), "send completion, size " + size);
                    final CompletionEntry received = one(p.cqB, p.domains());
                    assertEquals(recvContext, received.context());
                    assertEquals(size, received.len(), "received length");
                    assertEquals(Flags.RECV | (tagged ? Flags.TAGGED : Flags.MSG), received.flags());
                    if (tagged)
                    {
                        assertEquals(77, received.tag());
                    }
                    assertPattern(in, 0, size, size + (tagged ? 1 : 2));
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldWriteAndReadBackRemoteMemoryAtEverySizeUpToTheFrameLimit(final Progress progress)
    {
        try (ShmPair p = new ShmPair(progress, suffix()))
        {
            final int region = 2 << 20;
            final UnsafeBuffer target = direct(region);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, region,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 11))
            {
                int context = 1;
                for (final int size : SIZES)
                {
                    final UnsafeBuffer out = pattern(size, size * 7);
                    final int writeContext = context++;
                    post(() -> p.a.write(out, 0, size, p.addrBFromA, 5, mr.key(), writeContext), p.domains());
                    assertEquals(writeContext, one(p.cqA, p.domains()).context());
                    assertPattern(target, 5, size, size * 7);
                    final UnsafeBuffer back = direct(size);
                    final int readContext = context++;
                    post(() -> p.a.read(back, 0, size, p.addrBFromA, 5, mr.key(), readContext), p.domains());
                    final CompletionEntry read = one(p.cqA, p.domains());
                    assertEquals(readContext, read.context());
                    assertEquals(Flags.RMA | Flags.READ, read.flags());
                    assertPattern(back, 0, size, size * 7);
                }
                assertTrue(p.remoteWriteCntrB.read() >= SIZES.length, "remote write counter (FI_RMA_EVENT)");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldStreamRmaAboveTheFrameLimitInBothDirections(final Progress progress)
    {
        try (ShmPair p = new ShmPair(progress, suffix()))
        {
            final int size = (4 << 20) + 3;
            final UnsafeBuffer target = direct(size + 8);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, size + 8,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 12))
            {
                final UnsafeBuffer out = pattern(size, 13);
                post(() -> p.a.write(out, 0, size, p.addrBFromA, 5, mr.key(), 1), p.domains());
                assertEquals(1, one(p.cqA, p.domains()).context());
                assertPattern(target, 5, size, 13);
                final UnsafeBuffer back = direct(size);
                post(() -> p.a.read(back, 0, size, p.addrBFromA, 5, mr.key(), 2), p.domains());
                final CompletionEntry read = one(p.cqA, p.domains());
                assertEquals(2, read.context());
                assertPattern(back, 0, size, 13);
                // Out of bounds by one byte: refused whole, target untouched beyond what was written before.
                target.setMemory(0, size + 8, (byte) 0);
                post(() -> p.a.write(out, 0, size, p.addrBFromA, 9, mr.key(), 3), p.domains());
                final CompletionErrorEntry e = error(p.cqA, p.domains());
                assertEquals(3, e.context());
                assertEquals(Errno.EACCES, e.errno());
                for (int i = 0; i < size + 8; i++)
                {
                    if (0 != target.getByte(i))
                    {
                        throw new AssertionError("target written at " + i);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldMatchUnexpectedEagerAndRendezvousMessagesPostedLater(final Progress progress)
    {
        try (ShmPair p = new ShmPair(progress, suffix()))
        {
            final int count = 64;
            final UnsafeBuffer[] out = new UnsafeBuffer[count];
            for (int t = 0; t < count; t++)
            {
                final int size = SIZES[t % 8];
                out[t] = pattern(size, t);
                final int tag = t;
                post(() -> p.a.tsend(out[tag], 0, size, p.addrBFromA, tag, 1000 + tag), p.domains());
            }
            for (int i = 0; i < 200; i++)
            {
                ShmTests.progress(p.domains());
            }
            final UnsafeBuffer[] in = new UnsafeBuffer[count];
            for (int t = count - 1; t >= 0; t--)
            {
                in[t] = direct(ShmProvider.EAGER_THRESHOLD + 1);
                final UnsafeBuffer into = in[t];
                final int tag = t;
                post(() -> p.b.trecv(into, 0, ShmProvider.EAGER_THRESHOLD + 1, p.addrAFromB, tag, 0, tag),
                    p.domains());
            }
            for (int k = 0; k < count; k++)
            {
                final CompletionEntry e = one(p.cqB, p.domains());
                final int t = (int) e.context();
                assertEquals(t, e.tag());
                assertEquals(SIZES[t % 8], e.len());
                assertPattern(in[t], 0, SIZES[t % 8], t);
            }
            for (int k = 0; k < count; k++)
            {
                assertTrue(one(p.cqA, p.domains()).context() >= 1000);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldReachItsOwnDomainAndAnotherEndpointOfIt(final Progress progress)
    {
        try (ShmPair p = new ShmPair(progress, suffix()))
        {
            final io.jfabric.Endpoint second = p.domainA.endpoint(p.a.info()).bind(p.avA, 0)
                .bind(p.cqA, Flags.TRANSMIT | Flags.RECV).enable();
            assertEquals(new String(p.a.name(), java.nio.charset.StandardCharsets.US_ASCII) + ":1",
                new String(second.name(), java.nio.charset.StandardCharsets.US_ASCII));
            final long self = p.avA.insert(p.a.name());
            final long sibling = p.avA.insert(second.name());
            for (final int size : new int[]{64, ShmProvider.EAGER_THRESHOLD + 1})
            {
                final UnsafeBuffer toSelf = direct(size);
                final UnsafeBuffer toSibling = direct(size);
                post(() -> p.a.trecv(toSelf, 0, size, self, 1, 0, 1), p.domains());
                post(() -> second.trecv(toSibling, 0, size, self, 2, 0, 2), p.domains());
                post(() -> p.a.tsend(pattern(size, 1), 0, size, self, 1, 3), p.domains());
                post(() -> p.a.tsend(pattern(size, 2), 0, size, sibling, 2, 4), p.domains());
                final java.util.Set<Long> contexts = new java.util.HashSet<>();
                for (int i = 0; i < 4; i++)
                {
                    contexts.add(one(p.cqA, p.domains()).context());
                }
                assertEquals(java.util.Set.of(1L, 2L, 3L, 4L), contexts);
                assertPattern(toSelf, 0, size, 1);
                assertPattern(toSibling, 0, size, 2);
            }
            second.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldFillAMultiRecvBufferAtIncreasingOffsets(final Progress progress)
    {
        try (ShmPair p = new ShmPair(progress, suffix()))
        {
            p.b.setOption(io.jfabric.Endpoint.OPT_MIN_MULTI_RECV, 100);
            final UnsafeBuffer big = direct(1000);
            post(() -> p.b.recvmsg(new io.jfabric.Message().buffer(big, 0, 1000)
                .addr(io.jfabric.AddressVector.ADDR_UNSPEC).context(50), Flags.MULTI_RECV | Flags.COMPLETION),
                p.domains());
            for (int i = 0; i < 5; i++)
            {
                final int seed = i;
                post(() -> p.a.send(pattern(200, seed), 0, 200, p.addrBFromA, seed), p.domains());
                final CompletionEntry e = one(p.cqB, p.domains());
                assertEquals(50, e.context());
                assertEquals(200, e.len());
                assertEquals(big.addressOffset() + 200L * i, e.buf());
                assertPattern(big, 200 * i, 200, i);
                assertEquals(4 == i ? Flags.MULTI_RECV : 0, e.flags() & Flags.MULTI_RECV);
                assertEquals(i, one(p.cqA, p.domains()).context());
            }
        }
    }
}
