package io.jfabric.provider.shm;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Fabric;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.Progress;
import io.jfabric.agent.FlowControl;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static io.jfabric.provider.shm.ShmTests.direct;
import static io.jfabric.provider.shm.ShmTests.one;
import static io.jfabric.provider.shm.ShmTests.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lanes across processes: three child processes flood this process's domain at once, each through its own
 * lane, while a fourth child's messages, RMA write, read and atomic complete (the reader polls every lane
 * round-robin with a bounded batch: no lane starves another); then every flooded message is received, intact.
 * Each writer's lane file exists while it writes, and a writer that exits has its lane drained, removed and its
 * sender slot released by the reader.
 */
@Timeout(240)
class ShmLanesMultiProcessTest
{
    private static final int FLOODERS = 3;
    private static final int MESSAGES = 300;
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException
    {
        dir = ShmTests.useNewDirectory("jfabric-shm-lanes-");
    }

    @AfterAll
    static void cleanup() throws IOException
    {
        System.clearProperty(FlowControl.CREDITS_PROP);
        ShmTests.deleteTree(dir);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldCompleteAFourthPeersRmaWhileThreeProcessesFloodOneReader(final Progress progress) throws Exception
    {
        // Credit for every flooded message: all of them travel through the lanes before any receive is posted.
        System.setProperty(FlowControl.CREDITS_PROP, Integer.toString(FLOODERS * MESSAGES));
        final int n = NAMES.incrementAndGet();
        final String reader = "lanes-r" + n;
        final Info info = ShmTests.info(progress, reader);
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield");
            AddressVector av = domain.addressVector(AvType.TABLE, 8);
            CompletionQueue cq = domain.completionQueue(4096, CqFormat.TAGGED);
            Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable())
        {
            final UnsafeBuffer region = direct(4096);
            final String me = new String(ep.name(), StandardCharsets.US_ASCII);
            final List<ShmChildProcess> flooders = new ArrayList<>();
            final long[] floodAddr = new long[FLOODERS];
            try (MemoryRegion mr = domain.registerMemory(region, 0, 4096, Flags.REMOTE_READ | Flags.REMOTE_WRITE, 41);
                ShmChildProcess bystander = ShmChildProcess.start(dir, "lanes-b" + n, progress, domain))
            {
                try
                {
                    for (int k = 0; k < FLOODERS; k++)
                    {
                        final ShmChildProcess flooder = ShmChildProcess.start(dir, "lanes-f" + n + "-" + k, progress,
                            domain);
                        flooders.add(flooder);
                        floodAddr[k] = av.insert(flooder.address.getBytes(StandardCharsets.US_ASCII));
                        assertEquals("FIADDR 0", flooder.call("insert " + me, domain));
                    }
                    final long bystanderAddr = av.insert(bystander.address.getBytes(StandardCharsets.US_ASCII));
                    assertEquals("FIADDR 0", bystander.call("insert " + me, domain));
                    // One lane file per writer into this reader (and this reader's own).
                    assertEquals(FLOODERS + 2, laneFilesInto(reader), "a lane per writer");

                    for (int k = 0; k < FLOODERS; k++)
                    {
                        flooders.get(k).send("flood 0 " + MESSAGES + " " + tagBase(k));
                    }
                    // While the three flood: the fourth peer's messages and RMA go through.
                    final UnsafeBuffer in = direct(64);
                    for (int i = 0; i < 10; i++)
                    {
                        final long tag = 9000 + i;
                        post(() -> ep.trecv(in, 0, 64, bystanderAddr, tag, 0, tag), domain);
                        assertTrue(bystander.call("sendone 0 64 " + tag, domain).startsWith("DONE "));
                        assertEquals(tag, one(cq, domain).context());
                    }
                    region.putLong(136, 40);
                    assertEquals("RMA 7001 40", bystander.call("rma 0 " + mr.key() + " 128 7001", domain));
                    assertEquals(7001, region.getLong(128));
                    assertEquals(41, region.getLong(136));

                    for (int k = 0; k < FLOODERS; k++)
                    {
                        assertEquals("FLOODED " + MESSAGES, flooders.get(k).await(domain));
                    }
                    // Every flooded message arrived intact, from the writer that sent it.
                    final UnsafeBuffer got = direct(16 * FLOODERS * MESSAGES);
                    for (int k = 0; k < FLOODERS; k++)
                    {
                        for (int i = 0; i < MESSAGES; i++)
                        {
                            final long tag = tagBase(k) + i;
                            final int at = 16 * (k * MESSAGES + i);
                            post(() -> ep.trecv(got, at, 16, AddressVector.ADDR_UNSPEC, tag, 0, tag), domain);
                        }
                    }
                    for (int m = 0; m < FLOODERS * MESSAGES; m++)
                    {
                        final CompletionEntry entry = one(cq, domain);
                        final long tag = entry.tag();
                        final int k = (int) (tag / 1_000_000) - 1;
                        final int i = (int) (tag % 1_000_000);
                        assertEquals(tag, entry.context());
                        assertEquals(tag, got.getLong(16 * (k * MESSAGES + i)));
                        assertEquals(~tag, got.getLong(16 * (k * MESSAGES + i) + 8));
                    }
                    assertTrue(floodAddr[0] != floodAddr[1] && floodAddr[1] != floodAddr[2]);

                    // A writer that exits: its lane is read to its end, then removed by the reader.
                    flooders.get(0).kill();
                    final long deadline = System.nanoTime() + ShmTests.DEADLINE_NS;
                    while (laneFilesInto(reader) != FLOODERS + 1)
                    {
                        assertTrue(System.nanoTime() - deadline < 0, "the dead writer's lane was never removed");
                        domain.progress();
                        Thread.yield();
                    }
                }
                finally
                {
                    for (final ShmChildProcess flooder : flooders)
                    {
                        flooder.close();
                    }
                }
            }
        }
    }

    private static long tagBase(final int flooder)
    {
        return (flooder + 1) * 1_000_000L;
    }

    private static int laneFilesInto(final String reader) throws IOException
    {
        int count = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, reader + ".*" + ShmLaneFile.SUFFIX))
        {
            for (final Path ignored : files)
            {
                count++;
            }
        }
        return count;
    }
}
