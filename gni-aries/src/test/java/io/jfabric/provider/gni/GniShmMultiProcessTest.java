package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MrMode;
import io.jfabric.Progress;
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
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two processes, each with one gni domain (its own emulated node) on the shm wire ({@code jfabric.gni.wire=shm}):
 * an eager and a rendezvous tagged message each way with every byte checked (the child's rendezvous from its shared
 * pool, copied directly by this process: {@code GNI_XPMEM_ENABLE}), then the child is killed and an
 * operation to it ends in an error completion, not a hang.
 */
@Timeout(240) // a child JVM on a loaded host: the 120 s waits below are the watchdogs, not the default 60 s
class GniShmMultiProcessTest
{
    private static final String[] OPENS = {
        "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/java.util.zip=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens", "java.base/java.nio=ALL-UNNAMED"};

    private Path root;
    private Process child;
    private ChildOutput lines;

    static Info info()
    {
        return Fabric.getInfo(Info.builder().caps(Flags.MSG | Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName(GniProvider.NAME).build())
            .epAttr(EpAttr.builder().type(EndpointType.RDM).build())
            .domainAttr(DomainAttr.builder().mrMode(MrMode.MMU_NOTIFY).dataProgress(Progress.AUTO).build())
            .build()).get(0);
    }

    @BeforeEach
    void setUp() throws IOException
    {
        root = Files.createTempDirectory("gni-shm");
        System.setProperty(ShmConfiguration.DIR_PROP, root.resolve("shm").toString());
        System.setProperty(GniConfiguration.WIRE_PROP, "shm");
        System.setProperty(GniConfiguration.DIRECTORY_PROP, root.resolve("directory").toString());
    }

    @AfterEach
    void tearDown() throws Exception
    {
        if (null != child)
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
    void shouldExchangeEagerAndRendezvousMessagesWithAChildAndFailOperationsAfterItIsKilled() throws Exception
    {
        final Info info = info();
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield");
            AddressVector av = domain.addressVector(AvType.TABLE, 4);
            CompletionQueue cq = domain.completionQueue(64, CqFormat.TAGGED);
            Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable())
        {
            final OutputStream childIn = startChild();
            final String name = await("NAME");
            final long peer = av.insert(HexFormat.of().parseHex(name.substring(5)));
            childIn.write(("PEER " + HexFormat.of().formatHex(ep.name()) + "\n").getBytes(StandardCharsets.US_ASCII));
            childIn.flush();

            final Map<String, Long> before = GniTransportCounters.of(domain, GniXpmemTest.COPIES);
            final UnsafeBuffer smallBack = direct(GniChild.SMALL);
            final UnsafeBuffer largeBack = direct(GniChild.LARGE);
            assertEquals(0, ep.trecv(smallBack, 0, GniChild.SMALL, AddressVector.ADDR_UNSPEC, 3, 0, 13));
            assertEquals(0, ep.trecv(largeBack, 0, GniChild.LARGE, AddressVector.ADDR_UNSPEC, 4, 0, 14));
            assertEquals(0, ep.tsend(pattern(GniChild.SMALL, 5), 0, GniChild.SMALL, peer, 1, 1));
            assertEquals(0, ep.tsend(pattern(GniChild.LARGE, 6), 0, GniChild.LARGE, peer, 2, 2));
            final long[] seen = new long[4];
            for (int i = 0; i < 4; i++)
            {
                seen[i] = one(cq).context();
            }
            java.util.Arrays.sort(seen);
            assertEquals(List.of(1L, 2L, 13L, 14L), List.of(seen[0], seen[1], seen[2], seen[3]));
            assertPattern(smallBack, 0, GniChild.SMALL, 5);
            assertPattern(largeBack, 0, GniChild.LARGE, 6);
            assertNotNull(await("ECHOED"));
            // The large echo came from the child's shared pool: copied directly from the parent's mapping of it.
            final Map<String, Long> after = GniTransportCounters.of(domain, GniXpmemTest.COPIES);
            assertEquals(1, after.get(GniXpmemTest.COPIES) - before.get(GniXpmemTest.COPIES), "direct: " + after);

            // kill -9: the shm wire reports the peer down and waiting operations fail.
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, ep.tsend(pattern(GniChild.LARGE, 7), 0, GniChild.LARGE, peer, 2, 3));
            final CompletionErrorEntry failed = error(cq);
            assertEquals(3, failed.context());
            assertTrue(Errno.EIO.value() == failed.err() || Errno.ECANCELED.value() == failed.err(),
                "err " + failed.err());
        }
    }

    private OutputStream startChild() throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.addAll(List.of(OPENS));
        command.add("-D" + ShmConfiguration.DIR_PROP + "=" + System.getProperty(ShmConfiguration.DIR_PROP));
        command.add("-D" + GniConfiguration.WIRE_PROP + "=shm");
        command.add("-D" + GniConfiguration.DIRECTORY_PROP + "=" + System.getProperty(GniConfiguration.DIRECTORY_PROP));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(GniChild.class.getName());
        final Path logs = Paths.get("target", "gni-children");
        Files.createDirectories(logs);
        child = new ProcessBuilder(command).redirectError(logs.resolve("child-" + System.nanoTime() + ".log")
            .toFile()).start();
        lines = new ChildOutput(child, "gni-child");
        return child.getOutputStream();
    }

    private String await(final String prefix) throws InterruptedException
    {
        final String line = lines.poll(120, TimeUnit.SECONDS);
        assertNotNull(line, "watchdog: the child did not say " + prefix);
        assertTrue(line.startsWith(prefix), "child said: " + line);
        return line;
    }
}
