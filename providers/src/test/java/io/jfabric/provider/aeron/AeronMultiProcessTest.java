package io.jfabric.provider.aeron;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.provider.ChildOutput;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * aeron between two processes over UDP loopback, each with its own embedded media driver: this JVM and a child JVM
 * ({@link AeronChild}) that echoes tagged messages. Data is verified byte for byte at sizes around the inject size,
 * the eager threshold and 1 MiB + 3; a child killed with {@code kill -9} fails the operations waiting on it with an
 * error within a bounded wait derived from the liveness timeout, and later posts to it fail too: nothing hangs.
 */
@Timeout(180) // a child JVM with its own media driver, started on a loaded host, and the waits below
class AeronMultiProcessTest
{
    private static final long LIVENESS_MS = 2000;
    /** Every wait gives up after this long (a watchdog, not a measurement). */
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(30);
    private static final int[] SIZES = {0, 1, 63, AeronProvider.INJECT_SIZE, 8191, 8192, 8193, 65536,
        AeronChild.MAX_MESSAGE};

    private Process child;
    private ChildOutput lines;

    @BeforeEach
    void setLiveness()
    {
        System.setProperty(AeronConfiguration.LIVENESS_TIMEOUT_PROP, Long.toString(LIVENESS_MS));
    }

    @AfterEach
    void stopChild() throws InterruptedException
    {
        System.clearProperty(AeronConfiguration.LIVENESS_TIMEOUT_PROP);
        if (null != child)
        {
            child.destroyForcibly();
            // Bounded by the watchdog: a child still alive here keeps its driver directory (not stale) and
            // would fail the assertion below for a slow kill on a loaded host, not for a leak.
            assertTrue(child.waitFor(DEADLINE_NS, TimeUnit.NANOSECONDS), "the child did not die");
            // kill -9 left the child's driver directory behind: reclaimed, so that test runs leak none.
            AeronDriverDirectories.reclaimStale();
            final long pid = child.pid();
            assertTrue(AeronDriverDirectories.list(AeronDriverDirectories.base()).stream()
                .noneMatch(p -> AeronDriverDirectories.ownerPid(p.getFileName().toString()) == pid),
                "the killed child's driver directory was not reclaimed");
        }
    }

    @Test
    void shouldEchoTaggedMessagesVerifiedAtEverySizeBetweenTwoProcesses() throws Exception
    {
        try (Side side = new Side())
        {
            final long peer = side.startEchoChild();
            final UnsafeBuffer in = direct(AeronChild.MAX_MESSAGE);
            for (int i = 0; i < SIZES.length; i++)
            {
                final int size = SIZES[i];
                in.setMemory(0, in.capacity(), (byte) 0);
                final UnsafeBuffer out = pattern(size, i + 1);
                assertEquals(0, side.ep.trecv(in, 0, in.capacity(), peer, 100 + i, 0, 1000 + i));
                assertEquals(0, side.ep.tsend(out, 0, size, peer, 100 + i, 2000 + i));
                boolean sent = false;
                boolean received = false;
                while (!sent || !received)
                {
                    final CompletionEntry entry = side.one();
                    if (2000 + i == entry.context())
                    {
                        sent = true;
                    }
                    else
                    {
                        assertEquals(1000 + i, entry.context());
                        assertEquals(size, entry.len(), "echoed length");
                        assertEquals(100 + i, entry.tag());
                        received = true;
                    }
                }
                assertPattern(in, size, i + 1);
            }
        }
    }

    @Test
    void shouldFailWhatWaitsOnAPeerKilledMidStreamWithinTheLivenessTimeoutAndNeverHang() throws Exception
    {
        try (Side side = new Side())
        {
            final long peer = side.startEchoChild();
            // Live first: an echo and a remote read of the child's region.
            final UnsafeBuffer in = direct(AeronChild.MAX_MESSAGE);
            assertEquals(0, side.ep.trecv(in, 0, in.capacity(), peer, 7, 0, 1));
            assertEquals(0, side.ep.tsend(pattern(1024, 3), 0, 1024, peer, 7, 2));
            side.one();
            side.one();
            assertPattern(in, 1024, 3);
            final UnsafeBuffer read = direct(4096);
            assertEquals(0, side.ep.read(read, 0, 4096, peer, 0, AeronChild.REGION_KEY, 3));
            assertEquals(3, side.one().context());
            for (int i = 0; i < 4096; i++)
            {
                assertEquals((byte) (AeronChild.REGION_SEED + i * 31), read.getByte(i), "read byte " + i);
            }

            // Mid-stream: echoes of 1 MiB + 3 under way in both directions, then kill -9.
            final UnsafeBuffer big = pattern(AeronChild.MAX_MESSAGE, 4);
            assertEquals(0, side.ep.tsend(big, 0, big.capacity(), peer, 8, 4));
            child.destroyForcibly();
            assertTrue(child.waitFor(DEADLINE_NS, TimeUnit.NANOSECONDS), "the child did not die");
            final long killedNs = System.nanoTime();
            // Operations that wait for the dead peer's answer: a remote read and a rendezvous send.
            final UnsafeBuffer lost = direct(65536);
            assertEquals(0, side.ep.read(lost, 0, 65536, peer, 0, AeronChild.REGION_KEY, 5));
            assertEquals(0, side.ep.tsend(big, 0, big.capacity(), peer, 9, 6));
            final List<Long> failed = new ArrayList<>();
            while (failed.size() < 2)
            {
                final CompletionErrorEntry error = side.error();
                if (4 == error.context())
                {
                    continue; // the send under way at the kill may complete either way
                }
                assertTrue(Errno.EIO == error.errno() || Errno.EHOSTUNREACH == error.errno(),
                    "errno " + error.errno());
                failed.add(error.context());
            }
            final long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedNs);
            assertTrue(failed.contains(5L) && failed.contains(6L), failed.toString());
            System.out.println("aeron: operations on a peer killed with kill -9 failed " + detectedMs +
                " ms after the kill (liveness timeout " + LIVENESS_MS + " ms)");

            // A new post to the dead peer fails too, with no wait for another timeout.
            final int rc = side.ep.tsend(pattern(64, 5), 0, 64, peer, 10, 7);
            if (0 == rc)
            {
                CompletionErrorEntry error = side.error();
                while (4 == error.context())
                {
                    error = side.error(); // the send under way at the kill, failed later than the others
                }
                assertEquals(7, error.context());
                assertTrue(Errno.EIO == error.errno() || Errno.EHOSTUNREACH == error.errno(),
                    "errno " + error.errno());
            }
            else
            {
                assertTrue(rc < 0, "rc " + rc);
            }
        }
    }

    private static UnsafeBuffer direct(final int length)
    {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(1, length)), 0, length);
    }

    private static UnsafeBuffer pattern(final int length, final int seed)
    {
        final UnsafeBuffer buffer = direct(length);
        for (int i = 0; i < length; i++)
        {
            buffer.putByte(i, (byte) (seed + i * 31 + (i >>> 8)));
        }
        return buffer;
    }

    private static void assertPattern(final UnsafeBuffer buffer, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            final byte expected = (byte) (seed + i * 31 + (i >>> 8));
            if (buffer.getByte(i) != expected)
            {
                fail("byte " + i + " of " + length + " differs: " + buffer.getByte(i) + " != " + expected);
            }
        }
    }

    /**
     * This process's side: a fabric with its own embedded driver, AUTO progress, one endpoint and a CQ.
     */
    private final class Side implements AutoCloseable
    {
        final Fabric fabric;
        final Domain domain;
        final AddressVector av;
        final CompletionQueue cq;
        final Endpoint ep;

        Side()
        {
            final Info hints = Info.builder().caps(Flags.MSG | Flags.TAGGED | Flags.RMA)
                .fabricAttr(FabricAttr.builder().provName(AeronProvider.NAME).build())
                .domainAttr(DomainAttr.builder().dataProgress(Progress.AUTO).build()).build();
            final Info info = Fabric.getInfo(hints).get(0);
            fabric = Fabric.open(info);
            domain = fabric.domain(info, "yield");
            av = domain.addressVector(AvType.TABLE, 4);
            cq = domain.completionQueue(1024, CqFormat.TAGGED);
            ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable();
        }

        long startEchoChild() throws IOException, InterruptedException
        {
            final List<String> command = new ArrayList<>();
            command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
                "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens", "java.base/java.nio=ALL-UNNAMED",
                "-D" + AeronConfiguration.LIVENESS_TIMEOUT_PROP + "=" + LIVENESS_MS,
                "-cp", System.getProperty("java.class.path"), AeronChild.class.getName()));
            final Path logs = Paths.get("target", "aeron-children");
            Files.createDirectories(logs);
            child = new ProcessBuilder(command)
                .redirectError(logs.resolve("child-" + System.nanoTime() + ".log").toFile()).start();
            lines = new ChildOutput(child, "aeron-child");
            final String ready = line();
            assertTrue(ready.startsWith("READY "), ready);
            final String childAddress = ready.substring("READY ".length());
            final long peer = av.insert(childAddress.getBytes(StandardCharsets.US_ASCII));
            assertEquals(0, peer);
            final OutputStream stdin = child.getOutputStream();
            stdin.write(("ECHO " + new String(ep.name(), StandardCharsets.US_ASCII) + "\n")
                .getBytes(StandardCharsets.US_ASCII));
            stdin.flush();
            final String echoing = line();
            assertTrue(echoing.startsWith("ECHOING "), echoing);
            return peer;
        }

        private String line() throws InterruptedException
        {
            final String line = lines.poll(60, TimeUnit.SECONDS);
            assertTrue(null != line, "the child said nothing within 60 s");
            return line;
        }

        CompletionEntry one()
        {
            final CompletionEntry entry = new CompletionEntry();
            final long deadline = System.nanoTime() + DEADLINE_NS;
            while (true)
            {
                final int n = cq.read(entry);
                if (1 == n)
                {
                    return entry;
                }
                if (Errno.EAVAIL.negated() == n)
                {
                    final CompletionErrorEntry error = new CompletionErrorEntry();
                    cq.readErr(error);
                    fail("error completion " + error.errno() + " for context " + error.context());
                }
                assertTrue(System.nanoTime() - deadline < 0, "no completion before the deadline");
                Thread.yield();
            }
        }

        CompletionErrorEntry error()
        {
            final CompletionEntry entry = new CompletionEntry();
            final CompletionErrorEntry error = new CompletionErrorEntry();
            final long deadline = System.nanoTime() + DEADLINE_NS;
            while (true)
            {
                final int n = cq.read(entry);
                if (Errno.EAVAIL.negated() == n)
                {
                    assertEquals(1, cq.readErr(error));
                    return error;
                }
                if (1 == n && 4 == entry.context())
                {
                    continue; // the send under way at the kill completed before the peer was found dead
                }
                assertTrue(n <= 0, "unexpected completion of context " + entry.context());
                assertTrue(System.nanoTime() - deadline < 0, "no error completion before the deadline");
                Thread.yield();
            }
        }

        @Override
        public void close()
        {
            ep.close();
            cq.close();
            av.close();
            domain.close();
            fabric.close();
        }
    }
}
