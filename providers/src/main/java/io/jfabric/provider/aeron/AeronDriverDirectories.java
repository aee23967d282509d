package io.jfabric.provider.aeron;

import io.aeron.CommonContext;
import org.agrona.IoUtil;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * The directories of embedded media drivers ({@code jfabric-aeron-<pid>-<n>-<hex>} under {@code /dev/shm}, else
 * {@code java.io.tmpdir}) and the reclaiming of stale ones. A fabric deletes its driver's directory when it closes;
 * a process killed with {@code kill -9} (or one that never closed its fabric) leaves it behind, tens of MiB of
 * shared memory each. {@link #reclaimStale} removes, at fabric open, every such directory whose owner process is
 * gone, or whose driver's heartbeat in its CnC file is older than the driver timeout (Aeron's
 * {@link CommonContext#isDriverActive(File, long, java.util.function.Consumer)}): a live driver is never touched.
 * <p>
 * Threading: stateless, thread-safe; control path only.
 */
final class AeronDriverDirectories
{
    /** Name prefix of an embedded driver's directory. */
    static final String PREFIX = "jfabric-aeron-";
    /** A driver whose heartbeat is older than this is dead (Aeron's default driver timeout). */
    static final long DRIVER_TIMEOUT_MS = 10_000;
    private static final String CNC_FILE = "cnc.dat";

    private AeronDriverDirectories()
    {
    }

    /**
     * @return the directory embedded drivers go in: {@code /dev/shm} when it is a writable directory (as Aeron's
     * default), else {@code java.io.tmpdir}.
     */
    static Path base()
    {
        final Path shm = Paths.get("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm :
            Paths.get(System.getProperty("java.io.tmpdir"));
    }

    /**
     * The process id in an embedded driver directory's name.
     *
     * @param name the file name.
     * @return the pid, or -1 when the name is not an embedded driver's.
     */
    static long ownerPid(final String name)
    {
        if (!name.startsWith(PREFIX))
        {
            return -1;
        }
        final int end = name.indexOf('-', PREFIX.length());
        if (end <= PREFIX.length())
        {
            return -1;
        }
        try
        {
            return Long.parseLong(name.substring(PREFIX.length(), end));
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    /**
     * @param base a directory.
     * @return the embedded driver directories in it (any owner).
     */
    static List<Path> list(final Path base)
    {
        final List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(base, PREFIX + "*"))
        {
            for (final Path entry : entries)
            {
                if (ownerPid(entry.getFileName().toString()) > 0 && Files.isDirectory(entry))
                {
                    found.add(entry);
                }
            }
        }
        catch (final IOException | SecurityException ex)
        {
            // an unreadable base holds nothing we may reclaim
        }
        return found;
    }

    /**
     * Whether an embedded driver directory is stale: its owner process is gone, or it holds a CnC file whose
     * driver has not beaten its heartbeat within {@link #DRIVER_TIMEOUT_MS}. A directory of a live process without
     * a CnC file (a driver starting) is not stale.
     *
     * @param directory the directory.
     * @return true when it may be deleted.
     */
    static boolean stale(final Path directory)
    {
        final long pid = ownerPid(directory.getFileName().toString());
        if (pid <= 0)
        {
            return false;
        }
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
        {
            return Files.exists(directory.resolve(CNC_FILE)) &&
                !CommonContext.isDriverActive(directory.toFile(), DRIVER_TIMEOUT_MS, AeronDriverDirectories::quiet);
        }
        return true;
    }

    /**
     * Delete the stale embedded driver directories under {@link #base()}.
     *
     * @return how many were deleted.
     */
    static int reclaimStale()
    {
        return reclaimStale(base());
    }

    /**
     * Delete the stale embedded driver directories under a base.
     *
     * @param base the directory to look in.
     * @return how many were deleted.
     */
    static int reclaimStale(final Path base)
    {
        int reclaimed = 0;
        for (final Path directory : list(base))
        {
            try
            {
                if (stale(directory))
                {
                    IoUtil.delete(directory.toFile(), true);
                    reclaimed += Files.exists(directory) ? 0 : 1;
                }
            }
            catch (final RuntimeException ex)
            {
                // a directory another process reclaims at the same time, or one we may not read: left alone
            }
        }
        return reclaimed;
    }

    private static void quiet(final String message)
    {
        // isDriverActive's progress messages are not errors
    }
}
