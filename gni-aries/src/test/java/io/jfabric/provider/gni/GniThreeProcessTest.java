package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.provider.shm.ShmConfiguration;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three processes on the shm wire, each one gni domain (its own emulated node): this JVM and two {@link GniChild}ren.
 * The parent sends an eager (64 B) and a rendezvous (100 000 B) tagged message to each child at once, each child echoes
 * them, and the four echoes come back with every byte of each child's distinct pattern; then one child is killed
 * ({@code kill -9}) and a send to it ends in an error completion while the other child's VC is unaffected.
 */
@Timeout(240) // two child JVMs on a loaded host: the 120 s waits below are the watchdogs, not the default 60 s
class GniThreeProcessTest
{
    private static final String[] OPENS = {
        "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/java.util.zip=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens", "java.base/java.nio=ALL-UNNAMED"};

    private Path root;
    private final List<Process> children = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException
    {
        root = Files.createTempDirectory("gni-shm3");
        System.setProperty(ShmConfiguration.DIR_PROP, root.resolve("shm").toString());
        System.setProperty(GniConfiguration.WIRE_PROP, "shm");
        System.setProperty(GniConfiguration.DIRECTORY_PROP, root.resolve("directory").toString());
    }

    @AfterEach
    void tearDown() throws Exception
    {
        for (final Process child : children)
        {
            child.destroyForcibly().waitFor();
        }
        System.clearProperty(ShmConfiguration.DIR_PROP);
        System.clearProperty(GniConfiguration.WIRE_PROP);
        System.clearProperty(GniConfiguration.DIRECTORY_PROP);
        try (Stream<Path> files = Files.walk(root))
        {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    @Test
    void shouldExchangeWithTwoChildrenAtOnceAndFailOnlyTheKilledOne() throws Exception
    {
        final Info info = GniShmMultiProcessTest.info();
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield");
            AddressVector av = domain.addressVector(AvType.TABLE, 4);
            CompletionQueue cq = domain.completionQueue(64, CqFormat.TAGGED);
            Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable())
        {
            final Child first = new Child();
            final Child second = new Child();
            final long[] peers = new long[2];
            int c = 0;
            for (final Child child : new Child[] {first, second})
            {
                final String name = child.await("NAME");
                peers[c++] = av.insert(HexFormat.of().parseHex(name.substring(5)));
                child.in.write(("PEER " + HexFormat.of().formatHex(ep.name()) + "\n")
                    .getBytes(StandardCharsets.US_ASCII));
                child.in.flush();
            }
            final UnsafeBuffer[] small = {direct(GniChild.SMALL), direct(GniChild.SMALL)};
            final UnsafeBuffer[] large = {direct(GniChild.LARGE), direct(GniChild.LARGE)};
            for (int i = 0; i < 2; i++)
            {
                assertEquals(0, ep.trecv(small[i], 0, GniChild.SMALL, AddressVector.ADDR_UNSPEC, 3, 0, 10 + i));
                assertEquals(0, ep.trecv(large[i], 0, GniChild.LARGE, AddressVector.ADDR_UNSPEC, 4, 0, 20 + i));
            }
            for (int i = 0; i < 2; i++)
            {
                assertEquals(0, ep.tsend(pattern(GniChild.SMALL, 5 + i), 0, GniChild.SMALL, peers[i], 1, 1 + i));
                assertEquals(0, ep.tsend(pattern(GniChild.LARGE, 7 + i), 0, GniChild.LARGE, peers[i], 2, 3 + i));
            }
            final Set<Long> seen = new HashSet<>();
            for (int i = 0; i < 8; i++)
            {
                seen.add(one(cq).context());
            }
            assertEquals(Set.of(1L, 2L, 3L, 4L, 10L, 11L, 20L, 21L), seen);
            // Each child's echo is its own pattern; the two buffers of a size hold one each, in either order.
            assertEquals(Set.of(5, 6), Set.of(seedOf(small[0], GniChild.SMALL, 5, 6),
                seedOf(small[1], GniChild.SMALL, 5, 6)));
            assertEquals(Set.of(7, 8), Set.of(seedOf(large[0], GniChild.LARGE, 7, 8),
                seedOf(large[1], GniChild.LARGE, 7, 8)));
            first.await("ECHOED");
            second.await("ECHOED");

            first.process.destroyForcibly();
            assertTrue(first.process.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, ep.tsend(pattern(GniChild.LARGE, 9), 0, GniChild.LARGE, peers[0], 2, 30));
            final CompletionErrorEntry failed = error(cq);
            assertEquals(30, failed.context());
            assertTrue(Errno.EIO.value() == failed.err() || Errno.ECANCELED.value() == failed.err(),
                "err " + failed.err());
            assertTrue(second.process.isAlive(), "the other child lives on");
        }
    }

    /** Which of two seeds' patterns the buffer holds (-1: neither). */
    private static int seedOf(final UnsafeBuffer buffer, final int length, final int a, final int b)
    {
        for (final int seed : new int[] {a, b})
        {
            final UnsafeBuffer expected = pattern(length, seed);
            boolean same = true;
            for (int i = 0; i < length && same; i++)
            {
                same = expected.getByte(i) == buffer.getByte(i);
            }
            if (same)
            {
                return seed;
            }
        }
        return -1;
    }

    /** One child JVM and the lines it prints. */
    private final class Child
    {
        final Process process;
        final OutputStream in;
        final ChildOutput lines;

        Child() throws IOException
        {
            final List<String> command = new ArrayList<>();
            command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx256m");
            command.add("-XX:+UseSerialGC");
            command.addAll(List.of(OPENS));
            command.add("-D" + ShmConfiguration.DIR_PROP + "=" + System.getProperty(ShmConfiguration.DIR_PROP));
            command.add("-D" + GniConfiguration.WIRE_PROP + "=shm");
            command.add("-D" + GniConfiguration.DIRECTORY_PROP + "=" +
                System.getProperty(GniConfiguration.DIRECTORY_PROP));
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(GniChild.class.getName());
            final Path logs = Paths.get("target", "gni-children");
            Files.createDirectories(logs);
            process = new ProcessBuilder(command).redirectError(logs.resolve("child3-" + System.nanoTime() + ".log")
                .toFile()).start();
            children.add(process);
            in = process.getOutputStream();
            lines = new ChildOutput(process, "gni-child3");
        }

        String await(final String prefix) throws InterruptedException
        {
            final String line = lines.poll(120, TimeUnit.SECONDS);
            assertNotNull(line, "watchdog: the child did not say " + prefix);
            assertTrue(line.startsWith(prefix), "child said: " + line);
            return line;
        }
    }
}
