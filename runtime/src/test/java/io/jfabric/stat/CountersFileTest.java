package io.jfabric.stat;

import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The counters file's lifecycle: created with the first domain, shared by the process's domains, removed with the
 * last; a stale file (its owner died without removing it) reclaimed; a live owner's file left alone.
 */
@Timeout(120)
class CountersFileTest
{
    @TempDir
    Path temp;
    private Path dir;
    private String previousDir;

    @BeforeEach
    void before()
    {
        // Every domain of this JVM must be closed, or the process's file (in the previous directory) stays open.
        assertEquals(0, CountersFile.users(), "a domain of an earlier test is still open");
        dir = temp.resolve("counters");
        previousDir = System.setProperty(CountersConfiguration.DIR_PROP, dir.toString());
    }

    @AfterEach
    void after()
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

    static Info inprocInfo()
    {
        return Fabric.getInfo(Info.builder().caps(Flags.MSG)
            .fabricAttr(FabricAttr.builder().provName("inproc").build())
            .domainAttr(DomainAttr.builder().build()).build()).get(0);
    }

    @Test
    void shouldCreateOneFileWithTheFirstDomainAndRemoveItWithTheLast() throws Exception
    {
        final Info info = inprocInfo();
        try (Fabric fabric = Fabric.open(info))
        {
            assertTrue(StatReader.list(dir).isEmpty());
            final Domain first = fabric.domain(info);
            final Path file = first.counters().file().path();
            assertNotNull(file);
            assertEquals(List.of(file), StatReader.list(dir));
            final String name = file.getFileName().toString();
            assertTrue(name.startsWith("counters-" + ProcessHandle.current().pid() + "-") && name.endsWith(".cnc"),
                name);
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
            final Domain second = fabric.domain(info);
            assertEquals(file, second.counters().file().path());
            assertEquals(List.of(file), StatReader.list(dir));
            first.close();
            assertTrue(Files.exists(file), "the second domain still uses the file");
            try (StatReader reader = StatReader.open(file))
            {
                assertEquals(ProcessHandle.current().pid(), reader.pid());
                assertEquals(StatReader.Liveness.ALIVE, reader.liveness());
                final List<String> labels = new ArrayList<>();
                reader.forEachCounter((id, type, value, label) -> labels.add(type + " " + label));
                // The process's error counter and the second domain's 12 counters; the first's were freed.
                assertEquals(13, labels.size(), labels.toString());
                assertEquals(CountersFile.TYPE_PROCESS_ERRORS + " errors: pid=" + ProcessHandle.current().pid(),
                    labels.get(0));
                assertTrue(labels.contains(DomainCounters.TYPE_FRAMES_IN + " frames in: inproc domain=" +
                    second.name() + " pid=" + ProcessHandle.current().pid() + " id=" +
                    second.counters().domainId()), labels.toString());
            }
            second.close();
            assertFalse(Files.exists(file), "removed with the last domain");
            assertTrue(StatReader.list(dir).isEmpty());
            assertEquals(0, CountersFile.users());
        }
    }

    @Test
    void shouldReclaimTheFileOfADeadProcessAndLeaveALiveOnesFile() throws Exception
    {
        final Path stale = halted();
        // The halted child left its file (no shutdown hook ran); the kernel released its lock.
        assertEquals(StatReader.Liveness.DEAD, StatReader.liveness(stale));
        try (StatReader reader = StatReader.open(stale))
        {
            assertEquals(pidOf(stale), reader.pid());
            assertEquals(StatReader.Liveness.DEAD, reader.liveness());
        }
        try (ChildJvm live = ChildJvm.start("hold"))
        {
            final String line = live.line();
            assertTrue(line.startsWith("FILE "), line + live.diagnostics());
            final Path alive = Path.of(line.substring("FILE ".length()));
            assertFalse(Files.exists(stale), "another process reclaimed the dead one's file when it created its own");
            assertEquals(StatReader.Liveness.ALIVE, StatReader.liveness(alive));
            final Path staleAgain = halted();
            final Info info = inprocInfo();
            try (Fabric fabric = Fabric.open(info); Domain domain = fabric.domain(info))
            {
                final Path own = domain.counters().file().path();
                assertFalse(Files.exists(staleAgain), "this process reclaimed the dead one's file");
                assertTrue(Files.exists(alive), "a live process's file is left alone");
                assertEquals(List.of(alive, own).stream().sorted().toList(), StatReader.list(dir));
            }
            live.send("close");
            assertEquals("CLOSED", live.line(), live.diagnostics());
            assertEquals(0, live.exitStatus());
            assertFalse(Files.exists(alive), "a process removes its file when its last domain closes");
        }
        assertTrue(StatReader.list(dir).isEmpty());
    }

    @Test
    void shouldRemoveTheFileAtJvmExitWhenADomainWasLeftOpen() throws Exception
    {
        try (ChildJvm child = ChildJvm.start("exit"))
        {
            final String line = child.line();
            assertTrue(line.startsWith("FILE "), line + child.diagnostics());
            assertEquals(0, child.exitStatus());
            assertFalse(Files.exists(Path.of(line.substring("FILE ".length()))), "the shutdown hook removed it");
        }
        assertTrue(StatReader.list(dir).isEmpty());
    }

    /**
     * A child that opened a domain and halted without shutdown hooks, as a killed process.
     */
    private static Path halted() throws Exception
    {
        try (ChildJvm dead = ChildJvm.start("halt"))
        {
            final String line = dead.line();
            assertTrue(line.startsWith("FILE "), line + dead.diagnostics());
            assertEquals(0, dead.exitStatus());
            final Path file = Path.of(line.substring("FILE ".length()));
            assertTrue(Files.exists(file));
            return file;
        }
    }

    @Test
    void shouldKeepCountersInProcessMemoryWhenTheDirectoryIsRefused() throws Exception
    {
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        final Info info = inprocInfo();
        try (Fabric fabric = Fabric.open(info); Domain domain = fabric.domain(info))
        {
            assertNull(domain.counters().file().path());
            assertEquals(0, domain.counters().value(DomainCounters.TYPE_ERRORS));
            assertTrue(StatReader.list(dir).isEmpty(), "nothing written into a directory others can write");
        }
    }

    private static long pidOf(final Path file)
    {
        final String name = file.getFileName().toString();
        return Long.parseLong(name.substring("counters-".length(), name.lastIndexOf('-')));
    }
}
