package io.jfabric.provider.aeron;

import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Info;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Embedded media driver directories are never leaked: a fabric deletes its own on close, a live driver's is never
 * reclaimed, and the directory that a process killed with {@code kill -9} left behind is deleted by the next fabric
 * open on the host ({@link AeronDriverDirectories#reclaimStale}).
 */
class AeronDriverDirectoriesTest
{
    @Test
    void shouldParseTheOwnerOfAnEmbeddedDriverDirectory()
    {
        assertEquals(1234, AeronDriverDirectories.ownerPid("jfabric-aeron-1234-1-17bee7230e64"));
        assertEquals(-1, AeronDriverDirectories.ownerPid("jfabric-aeron-x-1-17bee7230e64"));
        assertEquals(-1, AeronDriverDirectories.ownerPid("jfabric-shm-flow-1"));
        assertEquals(-1, AeronDriverDirectories.ownerPid("jfabric-aeron--1"));
    }

    @Test
    void shouldReclaimTheDirectoryOfAProcessThatIsGone(@TempDir final Path base) throws Exception
    {
        final Process gone = new ProcessBuilder("true").start();
        assertTrue(gone.waitFor(30, TimeUnit.SECONDS));
        // A base of its own: under the host's base, any other JVM's fabric open (a test run beside this one) could
        // reclaim the directory first, and this call would then count none.
        final Path directory = base.resolve(AeronDriverDirectories.PREFIX + gone.pid() + "-1-test");
        Files.createDirectories(directory);
        Files.write(directory.resolve("cnc.dat"), new byte[4096]);
        assertTrue(AeronDriverDirectories.stale(directory));
        assertEquals(1, AeronDriverDirectories.reclaimStale(base));
        assertFalse(Files.exists(directory), "the dead process's directory is still there");
    }

    @Test
    void shouldNeverReclaimALiveDriverAndDeleteItsDirectoryOnClose()
    {
        final List<Path> before = ours();
        final Info info = Fabric.getInfo(Info.builder()
            .fabricAttr(FabricAttr.builder().provName(AeronProvider.NAME).build()).build()).get(0);
        final Path directory;
        try (Fabric fabric = Fabric.open(info))
        {
            final List<Path> during = ours();
            during.removeAll(before);
            assertEquals(1, during.size(), "the fabric's driver directory: " + during);
            directory = during.get(0);
            assertFalse(AeronDriverDirectories.stale(directory));
            AeronDriverDirectories.reclaimStale();
            assertTrue(Files.isDirectory(directory), "a live driver's directory was reclaimed");
            assertTrue(fabric.toString().length() > 0);
        }
        assertFalse(Files.exists(directory), "the fabric left its driver directory behind: " + directory);
        assertEquals(before, ours(), "the run leaked a driver directory");
    }

    @Test
    @Timeout(150) // a child JVM and its media driver start on a loaded host (READY within 60 s), then two fabrics
    void shouldReclaimTheDirectoryAChildKilledWithKill9LeftBehindAtTheNextFabricOpen() throws Exception
    {
        final Path directory;
        try (NodeProcess child = NodeProcess.start("leak-child",
            NodeProcess.javaCommand(AeronNode.class, List.of("node.host=127.0.0.1", "node.port=0"))))
        {
            child.expect("READY ", 60);
            final List<Path> its = AeronDriverDirectories.list(AeronDriverDirectories.base()).stream()
                .filter(p -> AeronDriverDirectories.ownerPid(p.getFileName().toString()) == child.pid()).toList();
            assertEquals(1, its.size(), "the child's driver directory");
            directory = its.get(0);
            child.kill();
        }
        assertTrue(Files.isDirectory(directory), "kill -9 left nothing behind? " + directory);
        final Info info = Fabric.getInfo(Info.builder()
            .fabricAttr(FabricAttr.builder().provName(AeronProvider.NAME).build()).build()).get(0);
        try (Fabric fabric = Fabric.open(info))
        {
            assertFalse(Files.exists(directory), "the killed child's driver directory survived a fabric open");
            assertTrue(fabric.toString().length() > 0);
        }
    }

    private static List<Path> ours()
    {
        final long pid = ProcessHandle.current().pid();
        return new ArrayList<>(AeronDriverDirectories.list(AeronDriverDirectories.base()).stream()
            .filter(p -> AeronDriverDirectories.ownerPid(p.getFileName().toString()) == pid).toList());
    }
}
