package io.jfabric.aries;

import io.jfabric.stat.CountersConfiguration;
import io.jfabric.stat.CountersFile;
import io.jfabric.stat.StatReader;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.jfabric.aries.AriesFixture.put;
import static io.jfabric.aries.AriesFixture.register;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link AriesStats} published as counters in the process's counters file ({@link AriesCounters}): equal to the
 * statistics after a known sequence of posts, read in this JVM and from a child JVM, and freed on detach.
 */
@Timeout(300) // a child JVM on a loaded host: its 120 s watchdog is the limit, not the default 60 s
class AriesCountersTest
{
    private static final int COUNTERS_PER_NODE = TransactionKind.values().length +
        AriesCounters.TYPE_BACK_PRESSURED - AriesCounters.TYPE_CREDIT_STALLS + 1;
    private static final long CHILD_WATCHDOG_S = 120;
    private static final String PID = " pid=" + ProcessHandle.current().pid() + " ";

    private static String previousDir;

    @BeforeAll
    static void useOwnDirectory() throws IOException
    {
        previousDir = System.getProperty(CountersConfiguration.DIR_PROP);
        // createTempDirectory makes it 0700, as the counters file requires.
        System.setProperty(CountersConfiguration.DIR_PROP, Files.createTempDirectory("aries-counters").toString());
    }

    @AfterAll
    static void restoreDirectory()
    {
        if (null == previousDir)
        {
            System.clearProperty(CountersConfiguration.DIR_PROP);
        }
        else
        {
            System.setProperty(CountersConfiguration.DIR_PROP, previousDir);
        }
    }

    @Test
    void shouldPublishTheStatisticsAsCountersReadableInThisAndAnotherProcess() throws Exception
    {
        try (AriesPair p = new AriesPair())
        {
            final UnsafeBuffer local = AriesFixture.memory(4096);
            final UnsafeBuffer remote = AriesFixture.memory(4096);
            final UnsafeBuffer readOnly = AriesFixture.memory(4096);
            final MemHandle lh = register(p.nicA, local, 0);
            final MemHandle rh = register(p.nicB, remote, 0);
            final MemHandle roh = register(p.nicB, readOnly, GniNic.MEM_READ_ONLY);
            for (int i = 0; i < 3; i++)
            {
                assertEquals(GniRc.SUCCESS,
                    p.epA.postFma(put(TransactionKind.FMA_PUT, local, lh, 0, remote, rh, 0, 64)));
                assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
            }
            for (int i = 0; i < 2; i++)
            {
                assertEquals(GniRc.SUCCESS,
                    p.epA.postRdma(put(TransactionKind.RDMA_PUT, local, lh, 0, remote, rh, 0, 4096)));
                assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
            }
            assertEquals(GniRc.SUCCESS, p.epA.postFma(put(TransactionKind.FMA_GET, local, lh, 0, remote, rh, 0, 8)));
            assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
            // A PUT to a READ_ONLY registration: NACKed by B's protection checks, an error event at A.
            assertEquals(GniRc.SUCCESS,
                p.epA.postFma(put(TransactionKind.FMA_PUT, local, lh, 0, readOnly, roh, 0, 8)));
            assertEquals(GniRc.TRANSACTION_ERROR, p.fixture.nextEvent(p.cqA));
            p.fixture.quiesce();

            final AriesStats a = p.nodeA.stats();
            final AriesStats b = p.nodeB.stats();
            assertEquals(4, a.posts(TransactionKind.FMA_PUT));
            assertEquals(2, a.posts(TransactionKind.RDMA_PUT));
            assertEquals(1, a.posts(TransactionKind.FMA_GET));
            assertEquals(1, a.transactionErrors());
            assertEquals(1, b.protectionNacks());

            final CountersFile file = CountersFile.acquire();
            try
            {
                final Path path = file.path();
                assertNotNull(path, "the counters file (its directory was refused?)");
                final Map<String, Int2IntHashMap> inJvm = new HashMap<>();
                try (StatReader reader = StatReader.open(path))
                {
                    reader.forEachCounter((id, type, value, label) -> collect(inJvm, type, value, label));
                }
                assertCounters(a, inJvm.get("dev=0x1"));
                assertCounters(b, inJvm.get("dev=0x2"));

                final Map<String, Int2IntHashMap> fromChild = readInChild(path);
                assertCounters(a, fromChild.get("dev=0x1"));
                assertCounters(b, fromChild.get("dev=0x2"));
            }
            finally
            {
                file.release();
            }
        }
    }

    @Test
    void shouldFreeTheCountersWhenTheLastNicDetachesOrTheNodeCloses()
    {
        try (AriesFixture fixture = new AriesFixture())
        {
            final AriesNode node = fixture.node(5);
            assertEquals(0, countersOf("dev=0x5"));
            final Cdm first = node.cdmCreate(1, AriesFixture.PTAG, AriesFixture.COOKIE, Cdm.MODE_ERR_NO_KILL);
            final Cdm second = node.cdmCreate(2, AriesFixture.PTAG, AriesFixture.COOKIE, Cdm.MODE_ERR_NO_KILL);
            first.attach(0);
            assertEquals(COUNTERS_PER_NODE, countersOf("dev=0x5"));
            second.attach(0);
            assertEquals(COUNTERS_PER_NODE, countersOf("dev=0x5"), "one set per node, not per NIC");
            assertEquals(GniRc.SUCCESS, first.destroy());
            assertEquals(COUNTERS_PER_NODE, countersOf("dev=0x5"));
            assertEquals(GniRc.SUCCESS, second.destroy());
            assertEquals(0, countersOf("dev=0x5"));

            AriesFixture.nic(node, 3);
            assertEquals(COUNTERS_PER_NODE, countersOf("dev=0x5"));
            node.close();
            assertEquals(0, countersOf("dev=0x5"));
        }
    }

    private static int countersOf(final String device)
    {
        final int[] count = new int[1];
        final CountersFile file = CountersFile.acquire();
        try
        {
            file.countersManager().forEach((counterId, typeId, keyBuffer, label) ->
            {
                if (typeId >= AriesCounters.TYPE_FIRST && typeId <= AriesCounters.TYPE_LAST &&
                    label.contains(": " + device + PID))
                {
                    count[0]++;
                }
            });
        }
        finally
        {
            file.release();
        }
        return count[0];
    }

    private static void collect(final Map<String, Int2IntHashMap> byDevice, final int type, final long value,
        final String label)
    {
        if (type < AriesCounters.TYPE_FIRST || type > AriesCounters.TYPE_LAST || !label.contains(PID))
        {
            return;
        }
        final String device = label.substring(label.indexOf(": ") + 2, label.indexOf(PID));
        final Int2IntHashMap values = byDevice.computeIfAbsent(device, (d) -> new Int2IntHashMap(-1));
        assertEquals(-1, values.put(type, (int) value), "one counter of type " + type + " for " + device);
    }

    private static void assertCounters(final AriesStats stats, final Int2IntHashMap counters)
    {
        assertNotNull(counters, "no counters for the node");
        assertEquals(COUNTERS_PER_NODE, counters.size());
        for (final TransactionKind kind : TransactionKind.values())
        {
            assertEquals(stats.posts(kind), counters.get(AriesCounters.TYPE_POSTS + kind.ordinal()), kind.name());
        }
        assertEquals(stats.creditStalls(), counters.get(AriesCounters.TYPE_CREDIT_STALLS));
        assertEquals(stats.cqOverruns(), counters.get(AriesCounters.TYPE_CQ_OVERRUNS));
        assertEquals(stats.retransmits(), counters.get(AriesCounters.TYPE_RETRANSMITS));
        assertEquals(stats.datagramsPosted(), counters.get(AriesCounters.TYPE_DATAGRAMS_POSTED));
        assertEquals(stats.datagramsMatched(), counters.get(AriesCounters.TYPE_DATAGRAMS_MATCHED));
        assertEquals(stats.protectionNacks(), counters.get(AriesCounters.TYPE_PROTECTION_NACKS));
        assertEquals(stats.crossJobDrops(), counters.get(AriesCounters.TYPE_CROSS_JOB_DROPS));
        assertEquals(stats.transactionErrors(), counters.get(AriesCounters.TYPE_TRANSACTION_ERRORS));
        assertEquals(stats.framesSent(), counters.get(AriesCounters.TYPE_FRAMES_SENT));
        assertEquals(stats.framesReceived(), counters.get(AriesCounters.TYPE_FRAMES_RECEIVED));
        assertEquals(stats.backPressured(), counters.get(AriesCounters.TYPE_BACK_PRESSURED));
        assertTrue(stats.framesSent() > 0);
    }

    private static Map<String, Int2IntHashMap> readInChild(final Path path) throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx64m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("--add-opens");
        command.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        command.add("--add-opens");
        command.add("java.base/sun.nio.ch=ALL-UNNAMED");
        command.add("--add-opens");
        command.add("java.base/java.nio=ALL-UNNAMED");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(AriesStatChild.class.getName());
        command.add(path.toString());
        final Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        final List<String> lines = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(
            new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII)))
        {
            // The watchdog: a child that hangs is killed, which ends this read.
            final Thread watchdog = new Thread(() ->
            {
                try
                {
                    if (!child.waitFor(CHILD_WATCHDOG_S, TimeUnit.SECONDS))
                    {
                        child.destroyForcibly();
                    }
                }
                catch (final InterruptedException ignore)
                {
                    child.destroyForcibly();
                }
            }, "aries-stat-child-watchdog");
            watchdog.setDaemon(true);
            watchdog.start();
            String line;
            while (null != (line = out.readLine()))
            {
                lines.add(line);
            }
        }
        assertTrue(child.waitFor(CHILD_WATCHDOG_S, TimeUnit.SECONDS), "watchdog: child did not exit");
        assertEquals(0, child.exitValue(), String.join("\n", lines));
        assertEquals("END", lines.get(lines.size() - 1), String.join("\n", lines));
        final Map<String, Int2IntHashMap> byDevice = new HashMap<>();
        for (final String line : lines.subList(0, lines.size() - 1))
        {
            final String[] parts = line.split(" ", 3);
            collect(byDevice, Integer.parseInt(parts[0]), Long.parseLong(parts[1]), parts[2]);
        }
        return byDevice;
    }
}
