package io.jfabric.provider.shm;

import io.jfabric.Domain;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.Info;
import io.jfabric.Progress;
import org.agrona.BitUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * shm on a full file system and with ring files cut under their mapping: an error naming the file and the space,
 * never a crash (SIGBUS) or an {@code InternalError} in application code. The small file system is a real tmpfs
 * where the test may mount one, else an emulation of its free space ({@link ShmSmallFileSystem}).
 */
@Timeout(120)
class ShmFullFileSystemTest
{
    private static final int MIB = 1 << 20;
    /** A lane file with the smallest rings (4 MiB each): about 8.4 MB. */
    private static final long SMALL_LANE = ShmLaneFile.fileLength(ShmConfiguration.MIN_RING_CAPACITY);
    /** What a domain open reserves with the smallest rings: its ring file and its lane to itself. */
    private static final long SMALL_RING_FILE = ShmRingDescriptor.fileLength(ShmConfiguration.SENDER_SLOTS) +
        SMALL_LANE;

    @AfterEach
    void defaults()
    {
        System.clearProperty(ShmConfiguration.RING_CAPACITY_PROP);
        System.clearProperty(ShmConfiguration.POOL_SIZE_PROP);
    }

    @Test
    void shouldAnswerEnospcNamingTheFileAndTheSizesWhenARingFileDoesNotFit() throws Exception
    {
        try (ShmSmallFileSystem fs = ShmSmallFileSystem.create("jfabric-shm-full-", 16 * MIB))
        {
            final long needed = ShmLaneFile.fileLength(ShmConfiguration.RING_CAPACITY);
            final Info big = ShmTests.info(Progress.MANUAL, "big");
            try (Fabric fabric = Fabric.open(big))
            {
                final FabricException ex = assertThrows(FabricException.class, () -> fabric.domain(big));
                assertEquals(Errno.ENOSPC, ex.errno(), ex.getMessage());
                // The domain's lane to itself is what does not fit (its ring file is a header and a slot table).
                assertTrue(ex.getMessage().contains("lane file " + fs.dir.resolve("big.")) &&
                    ex.getMessage().contains(ShmLaneFile.SUFFIX), ex.getMessage());
                assertTrue(ex.getMessage().contains(needed + " bytes needed, ") &&
                    ex.getMessage().contains(" bytes free"), ex.getMessage());
                assertEquals(List.of(), ShmTests.ringFiles(fs.dir), "no file left behind");

                // Rings that fit: the whole file is allocated at once (never sparse).
                System.setProperty(ShmConfiguration.RING_CAPACITY_PROP,
                    Integer.toString(ShmConfiguration.MIN_RING_CAPACITY));
                final long before = fs.free();
                final Domain small = fabric.domain(ShmTests.info(Progress.MANUAL, "small"));
                assertTrue(before - fs.free() >= SMALL_RING_FILE, "reserved " + (before - fs.free()) + " of " +
                    SMALL_RING_FILE);
                small.close();
            }
        }
    }

    @Test
    void shouldAnswerEnospcFromAllocateSharedWhenTheFileSystemCannotHoldTheBlock() throws Exception
    {
        try (ShmSmallFileSystem fs = ShmSmallFileSystem.create("jfabric-shm-fullpool-", 16 * MIB))
        {
            System.setProperty(ShmConfiguration.RING_CAPACITY_PROP,
                Integer.toString(ShmConfiguration.MIN_RING_CAPACITY));
            System.setProperty(ShmConfiguration.POOL_SIZE_PROP, Long.toString(32L * MIB));
            final Info info = ShmTests.info(Progress.MANUAL, "pooled");
            try (Fabric fabric = Fabric.open(info))
            {
                final Domain domain = fabric.domain(info);
                final AtomicBuffer first = domain.allocateShared(MIB);
                first.setMemory(0, MIB, (byte) 7);
                final long before = fs.free();
                final FabricException ex = assertThrows(FabricException.class,
                    () -> domain.allocateShared(30 * MIB));
                assertEquals(Errno.ENOSPC, ex.errno(), ex.getMessage());
                final Path pool = ShmTests.transport(domain).pool().path();
                assertTrue(ex.getMessage().contains(pool.toString()), ex.getMessage());
                assertTrue(ex.getMessage().contains("block of " + 30 * MIB + " bytes"), ex.getMessage());
                assertTrue(ex.getMessage().contains(30 * MIB + " bytes needed, " + before + " bytes free"),
                    ex.getMessage());
                // The pool still works for what fits in what it reserved.
                domain.freeShared(first);
                final AtomicBuffer again = domain.allocateShared(MIB);
                again.setMemory(0, MIB, (byte) 8);
                assertEquals(8, again.getByte(MIB - 1));
                domain.close();
            }
        }
    }

    @Test
    void shouldFailTheSecondProcessWithEnospcInsteadOfCrashingWhenTheFileSystemIsFull() throws Exception
    {
        final long size = BitUtil.align(SMALL_RING_FILE + SMALL_RING_FILE / 2, 4096);
        try (ShmSmallFileSystem fs = ShmSmallFileSystem.create("jfabric-shm-fullmp-", size))
        {
            final String rings = "-D" + ShmConfiguration.RING_CAPACITY_PROP + "=" +
                ShmConfiguration.MIN_RING_CAPACITY;
            final List<String> optionsA = new ArrayList<>(fs.childOptions(size));
            optionsA.add(rings);
            final List<String> optionsB = new ArrayList<>(fs.childOptions(size - SMALL_RING_FILE));
            optionsB.add(rings);
            try (ShmChildProcess a = ShmChildProcess.startOrFailure(fs.dir, "full-a", Progress.MANUAL, optionsA);
                ShmChildProcess b = ShmChildProcess.startOrFailure(fs.dir, "full-b", Progress.MANUAL, optionsB))
            {
                assertNull(a.failure, "the first ring file fits");
                if (null == b.failure)
                {
                    // Before reservation: both sparse ring files mapped; the traffic faults on the full tmpfs.
                    final String toB = a.call("insert " + b.address);
                    final String toA = b.call("insert " + a.address);
                    final String replies = exchangeBothWays(a, b, toB, toA, 1200, 4096) + ", " +
                        exchangeBothWays(a, b, toB, toA, 200, 65536);
                    fail("a second ring file was created on a full file system: " + replies);
                }
                assertTrue(b.failure.startsWith("FAILED ENOSPC"), b.failure);
                assertTrue(b.failure.contains("full-b.") && b.failure.contains(ShmLaneFile.SUFFIX) &&
                    b.failure.contains(SMALL_LANE + " bytes needed"), b.failure);
                assertEquals(ShmChild.FAILED_EXIT_CODE, b.awaitExit(), "an orderly exit, not a crash");
                assertFalse(b.crashed(), "no JVM crash log");

                // The first process keeps working (traffic both ways through its own ring, 4 KiB and 64 KiB) and
                // its pool answers ENOSPC now rather than faulting on first touch.
                final String self = a.call("insert " + a.address).substring("FIADDR ".length());
                assertEquals("EXCHANGED 50", a.call("exchange " + self + " 50 4096"));
                assertEquals("EXCHANGED 50", a.call("exchange " + self + " 50 65536"));
                final String refused = a.call("allocshared " + 16 * MIB);
                assertTrue(refused.startsWith("REFUSED ENOSPC") && refused.contains(".pool"), refused);
                a.close();
                assertEquals(0, a.process.exitValue(), "the first process exits normally");
                assertFalse(a.crashed(), "no JVM crash log");
            }
        }
    }

    private static String exchangeBothWays(
        final ShmChildProcess a, final ShmChildProcess b, final String toB, final String toA, final int count,
        final int size)
    {
        a.send("exchange " + toB.substring("FIADDR ".length()) + " " + count + " " + size);
        b.send("exchange " + toA.substring("FIADDR ".length()) + " " + count + " " + size);
        return a.await() + " " + b.await();
    }

    @Test
    void shouldKeepWorkingAndExitNormallyWhenItsOwnRingFileIsTruncatedUnderTheMapping() throws Exception
    {
        final Path dir = ShmTests.useNewDirectory("jfabric-shm-owncut-");
        try (ShmChildProcess child = ShmChildProcess.start(dir, "own-cut", Progress.MANUAL))
        {
            final String self = child.call("insert " + child.address).substring("FIADDR ".length());
            assertEquals("EXCHANGED 3", child.call("exchange " + self + " 3 65536"));
            // Cut while the child does not read its ring (a read racing the cut faults; see SHM.md, limits), its
            // heartbeat thread still stamping. Its liveness scan is due when it resumes (more than one scan
            // interval later): it must check the size before touching the mapping.
            assertEquals("PAUSED", child.call("pause"));
            try (FileChannel channel = FileChannel.open(dir.resolve("own-cut.ring"), StandardOpenOption.WRITE))
            {
                channel.truncate(0);
            }
            Thread.sleep(4 * ShmConfiguration.SCAN_INTERVAL_MS);
            assertEquals("RESUMED", child.call("resume"));
            final long deadline = System.nanoTime() + ShmTests.DEADLINE_NS;
            while (!"OWNBROKEN true".equals(child.call("ownbroken")))
            {
                assertTrue(System.nanoTime() < deadline, "the child never noticed its ring was cut");
            }
            final String sent = child.call("sendone " + self + " 64 1");
            assertTrue(sent.startsWith("ERRNO EIO"), "a send into the cut ring fails: " + sent);
            assertTrue(child.call("counters").startsWith("COUNTERS"), "the child still works");
            child.close();
            assertEquals(0, child.process.exitValue(), "the child exited normally");
            assertFalse(child.crashed(), "no JVM crash log");
        }
        finally
        {
            ShmTests.deleteTree(dir);
        }
    }
}
