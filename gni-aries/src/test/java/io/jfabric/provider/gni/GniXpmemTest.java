package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Message;
import io.jfabric.OpenOps;
import io.jfabric.provider.shm.ShmConfiguration;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gni's XPMEM-like on-node rendezvous ({@code GNI_XPMEM_ENABLE}) in one JVM over the shm wire: two gni domains (two
 * emulated nodes, two shm wire domains), the sender's buffers from {@code Domain.allocateShared}. The counters
 * {@code gni rendezvous direct copies (XPMEM)} and {@code gni rendezvous pulls into the receive buffer} (the GET
 * path) say which path each message took.
 */
@Timeout(120)
class GniXpmemTest
{
    static final String COPIES = "gni rendezvous direct copies (XPMEM)";
    private static final String GETS = "gni rendezvous pulls into the receive buffer";

    private Path root;

    @BeforeEach
    void setUp() throws IOException
    {
        root = Files.createTempDirectory("gni-xpmem");
        System.setProperty(ShmConfiguration.DIR_PROP, root.resolve("shm").toString());
        System.setProperty(GniConfiguration.WIRE_PROP, "shm");
        System.setProperty(GniConfiguration.DIRECTORY_PROP, root.resolve("directory").toString());
    }

    @AfterEach
    void tearDown() throws IOException
    {
        System.clearProperty(ShmConfiguration.DIR_PROP);
        System.clearProperty(GniConfiguration.WIRE_PROP);
        System.clearProperty(GniConfiguration.DIRECTORY_PROP);
        try (Stream<Path> files = Files.walk(root))
        {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    @Test
    void shouldCopyStraightFromTheSendersPoolAroundTheThresholdAndAtOneMebibyte()
    {
        try (Two t = new Two())
        {
            final OpenOps ops = t.domainB.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
            assertTrue(ops.getBoolean(GniOps.GNI_XPMEM_ENABLE), "on by default on the shm wire");
            final long threshold = ops.get(GniOps.GNI_MSG_RENDEZVOUS_THRESHOLD);
            final long eager = Math.min(ops.get(GniOps.GNI_MBOX_MSG_MAX_SIZE) - GniBackend.EAGER_HEADER,
                threshold - 1);
            final int[] sizes = {(int) threshold - 1, (int) threshold, (int) threshold + 1, (1 << 20) + 3};
            for (int i = 0; i < sizes.length; i++)
            {
                final int size = sizes[i];
                final Map<String, Long> before = GniTransportCounters.of(t.domainB, COPIES);
                final AtomicBuffer out = t.domainA.allocateShared(size);
                out.putBytes(0, pattern(size, i + 1), 0, size);
                final UnsafeBuffer in = direct(size + 8);
                in.setMemory(0, in.capacity(), (byte) 0x5A);
                assertEquals(0, t.epB.trecv(in, 0, size, AddressVector.ADDR_UNSPEC, 10 + i, 0, 100 + i));
                assertEquals(0, t.epA.tsend(out, 0, size, t.bFromA, 10 + i, 200 + i));
                final CompletionEntry e = one(t.cqB);
                assertEquals(100 + i, e.context());
                assertEquals(size, e.len());
                assertEquals(200 + i, one(t.cqA).context());
                assertPattern(in, 0, size, i + 1);
                for (int b = size; b < in.capacity(); b++)
                {
                    assertEquals((byte) 0x5A, in.getByte(b), "byte " + b + " past the message");
                }
                final Map<String, Long> after = GniTransportCounters.of(t.domainB, COPIES);
                final long expected = size > eager ? 1 : 0;
                assertEquals(expected, after.get(COPIES) - before.get(COPIES), size + " bytes: " + after);
                assertEquals(0, after.get(GETS) - before.get(GETS), size + " bytes, no GET: " + after);
                t.domainA.freeShared(out);
            }
        }
    }

    @Test
    void shouldCopyIntoIovAndTruncatingReceivesAndFromAnIovOfPoolBuffers()
    {
        try (Two t = new Two())
        {
            final Map<String, Long> before = GniTransportCounters.of(t.domainB, COPIES);
            final int size = 40_003;
            final AtomicBuffer out = t.domainA.allocateShared(size);
            out.putBytes(0, pattern(size, 4), 0, size);

            // Truncating: FI_ETRUNC, the first bytes in place, nothing past the receive.
            final UnsafeBuffer small = direct(30_004);
            small.setMemory(0, 30_004, (byte) 0x5A);
            assertEquals(0, t.epB.trecv(small, 0, 30_001, AddressVector.ADDR_UNSPEC, 3, 0, 30));
            assertEquals(0, t.epA.tsend(out, 0, size, t.bFromA, 3, 31));
            final CompletionErrorEntry truncated = error(t.cqB);
            assertEquals(30, truncated.context());
            assertEquals(Errno.ETRUNC, truncated.errno());
            assertEquals(30_001, truncated.len());
            assertEquals(size - 30_001, truncated.olen());
            assertPattern(small, 0, 30_001, 4);
            for (int i = 30_001; i < 30_004; i++)
            {
                assertEquals((byte) 0x5A, small.getByte(i), "byte " + i + " past the receive");
            }
            assertEquals(31, one(t.cqA).context());

            // A receive of three buffers.
            final UnsafeBuffer[] iov = {direct(10_000), direct(7_001), direct(30_000)};
            assertEquals(0, t.epB.trecvv(new DirectBuffer[] {iov[0], iov[1], iov[2]}, 3,
                AddressVector.ADDR_UNSPEC, 5, 0, 40));
            assertEquals(0, t.epA.tsend(out, 0, size, t.bFromA, 5, 41));
            final CompletionEntry scattered = one(t.cqB);
            assertEquals(40, scattered.context());
            assertEquals(size, scattered.len());
            final UnsafeBuffer whole = direct(47_001);
            whole.putBytes(0, iov[0], 0, 10_000);
            whole.putBytes(10_000, iov[1], 0, 7_001);
            whole.putBytes(17_001, iov[2], 0, 30_000);
            assertPattern(whole, 0, size, 4);
            assertEquals(41, one(t.cqA).context());

            // A send of two pool buffers (two pieces) into one receive.
            final AtomicBuffer second = t.domainA.allocateShared(25_000);
            second.putBytes(0, pattern(size + 25_000, 6), size, 25_000);
            out.putBytes(0, pattern(size + 25_000, 6), 0, size);
            final UnsafeBuffer in = direct(size + 25_000);
            assertEquals(0, t.epB.trecv(in, 0, size + 25_000, AddressVector.ADDR_UNSPEC, 6, 0, 50));
            assertEquals(0, t.epA.tsendv(new DirectBuffer[] {out, second}, 2, t.bFromA, 6, 51));
            assertEquals(size + 25_000, one(t.cqB).len());
            assertPattern(in, 0, size + 25_000, 6);
            assertEquals(51, one(t.cqA).context());

            final Map<String, Long> after = GniTransportCounters.of(t.domainB, COPIES);
            assertEquals(3, after.get(COPIES) - before.get(COPIES), "all direct: " + after);
            assertEquals(0, after.get(GETS) - before.get(GETS), "no GET: " + after);
        }
    }

    @Test
    void shouldGoByGetWhenTheOptionIsOffOrTheSourceIsOutsideThePool()
    {
        try (Two t = new Two())
        {
            final int size = 100_001;
            final AtomicBuffer pooled = t.domainA.allocateShared(size);
            pooled.putBytes(0, pattern(size, 8), 0, size);
            final Map<String, Long> before = GniTransportCounters.of(t.domainB, COPIES);

            // A source outside the pool: the GET path.
            final UnsafeBuffer in = direct(size);
            assertEquals(0, t.epB.trecv(in, 0, size, AddressVector.ADDR_UNSPEC, 1, 0, 60));
            assertEquals(0, t.epA.tsend(pattern(size, 9), 0, size, t.bFromA, 1, 61));
            assertEquals(size, one(t.cqB).len());
            assertPattern(in, 0, size, 9);
            assertEquals(61, one(t.cqA).context());

            // The option off at the receiver: a pool source goes by GET too.
            final OpenOps ops = t.domainB.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
            ops.set(GniOps.GNI_XPMEM_ENABLE, false);
            assertFalse(ops.getBoolean(GniOps.GNI_XPMEM_ENABLE));
            assertEquals(0, t.epB.trecv(in, 0, size, AddressVector.ADDR_UNSPEC, 2, 0, 62));
            assertEquals(0, t.epA.tsend(pooled, 0, size, t.bFromA, 2, 63));
            assertEquals(size, one(t.cqB).len());
            assertPattern(in, 0, size, 8);
            assertEquals(63, one(t.cqA).context());
            Map<String, Long> after = GniTransportCounters.of(t.domainB, COPIES);
            assertEquals(0, after.get(COPIES) - before.get(COPIES), "no direct copy: " + after);
            assertEquals(2, after.get(GETS) - before.get(GETS), "both by GET: " + after);

            // On again: the same pool source is copied directly.
            ops.set(GniOps.GNI_XPMEM_ENABLE, true);
            in.setMemory(0, size, (byte) 0);
            assertEquals(0, t.epB.trecv(in, 0, size, AddressVector.ADDR_UNSPEC, 3, 0, 64));
            assertEquals(0, t.epA.tsend(pooled, 0, size, t.bFromA, 3, 65));
            assertEquals(size, one(t.cqB).len());
            assertPattern(in, 0, size, 8);
            assertEquals(65, one(t.cqA).context());
            after = GniTransportCounters.of(t.domainB, COPIES);
            assertEquals(1, after.get(COPIES) - before.get(COPIES), "direct: " + after);
            assertEquals(2, after.get(GETS) - before.get(GETS), "no more GET: " + after);
        }
    }

    @Test
    void shouldFailOrCompleteButNeverCrashWhenTheSenderIsGoneBeforeTheReceiveMatches()
    {
        try (Two t = new Two())
        {
            final int size = 200_001;
            final AtomicBuffer out = t.domainA.allocateShared(size);
            out.putBytes(0, pattern(size, 11), 0, size);
            assertEquals(0, t.epA.tsend(out, 0, size, t.bFromA, 9, 70));
            final Map<String, Long> before = GniTransportCounters.of(t.domainB, COPIES);
            peek(t, 9);
            // The sender goes with its START stored at the receiver: its pool is unmapped there and its file removed.
            t.closeA();
            final UnsafeBuffer in = direct(size);
            assertEquals(0, t.epB.trecv(in, 0, size, AddressVector.ADDR_UNSPEC, 9, 0, 71));
            final CompletionEntry e = new CompletionEntry();
            final long deadline = System.nanoTime() + 60_000_000_000L;
            int n;
            while (Errno.EAGAIN.negated() == (n = t.cqB.read(e)))
            {
                assertTrue(System.nanoTime() - deadline < 0, "watchdog: the receive did not end");
                Thread.yield();
            }
            final Map<String, Long> after = GniTransportCounters.of(t.domainB, COPIES);
            if (1 == n)
            {
                // Read before the sender's liveness changed: the receiver's own mapping of the pool is still valid.
                assertEquals(71, e.context());
                assertPattern(in, 0, size, 11);
                assertEquals(1, after.get(COPIES) - before.get(COPIES), "direct: " + after);
            }
            else
            {
                assertEquals(Errno.EAVAIL.negated(), n);
                final CompletionErrorEntry err = new CompletionErrorEntry();
                assertEquals(1, t.cqB.readErr(err));
                assertEquals(71, err.context());
                assertTrue(Errno.EIO == err.errno() || Errno.ECANCELED == err.errno() ||
                    Errno.ECONNREFUSED == err.errno(), "errno " + err.errno());
                assertEquals(0, after.get(COPIES) - before.get(COPIES), "not direct: " + after);
            }
        }
    }

    private static void peek(final Two t, final long tag)
    {
        final long deadline = System.nanoTime() + 60_000_000_000L;
        while (true)
        {
            assertEquals(0, t.epB.trecvmsg(new Message().addr(AddressVector.ADDR_UNSPEC).tag(tag).context(99),
                Flags.PEEK));
            final CompletionEntry e = new CompletionEntry();
            int n;
            while (Errno.EAGAIN.negated() == (n = t.cqB.read(e)))
            {
                assertTrue(System.nanoTime() - deadline < 0, "watchdog: no answer to the peek");
                Thread.yield();
            }
            if (1 == n)
            {
                return;
            }
            final CompletionErrorEntry err = new CompletionErrorEntry();
            assertEquals(1, t.cqB.readErr(err));
            assertEquals(Errno.ENOMSG, err.errno());
            assertTrue(System.nanoTime() - deadline < 0, "watchdog: the START did not arrive");
            Thread.yield();
        }
    }

    @Test
    void shouldHaveNoPoolOnTheInJvmWire()
    {
        System.clearProperty(GniConfiguration.WIRE_PROP);
        final Info info = GniShmMultiProcessTest.info();
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield"))
        {
            assertEquals(Errno.EOPNOTSUPP, assertThrows(FabricException.class, () -> domain.allocateShared(4096))
                .errno());
            assertFalse(domain.openOps(GniOps.FI_GNI_DOMAIN_OPS_1).getBoolean(GniOps.GNI_XPMEM_ENABLE));
        }
    }

    /**
     * Two gni domains of one fabric, each its own node on the shm wire, with an endpoint each.
     */
    private static final class Two implements AutoCloseable
    {
        final Fabric fabric;
        final Domain domainA;
        final Domain domainB;
        final AddressVector avA;
        final AddressVector avB;
        final CompletionQueue cqA;
        final CompletionQueue cqB;
        final Endpoint epA;
        final Endpoint epB;
        final long bFromA;

        Two()
        {
            final Info info = GniShmMultiProcessTest.info();
            fabric = Fabric.open(info);
            domainA = fabric.domain(info, "yield");
            domainB = fabric.domain(info, "yield");
            avA = domainA.addressVector(AvType.TABLE, 4);
            avB = domainB.addressVector(AvType.TABLE, 4);
            cqA = domainA.completionQueue(64, CqFormat.TAGGED);
            cqB = domainB.completionQueue(64, CqFormat.TAGGED);
            epA = domainA.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable();
            epB = domainB.endpoint(info).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV).enable();
            bFromA = avA.insert(epB.name());
            avB.insert(epA.name());
        }

        private boolean closedA;

        void closeA()
        {
            if (!closedA)
            {
                closedA = true;
                epA.close();
                cqA.close();
                avA.close();
                domainA.close();
            }
        }

        @Override
        public void close()
        {
            closeA();
            epB.close();
            cqB.close();
            avB.close();
            domainB.close();
            fabric.close();
        }
    }
}
