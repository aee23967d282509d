package io.jfabric.provider.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A shm directory on a small file system, made this JVM's shm directory: a real tmpfs of the given size mounted
 * by the test where it may mount one (root with mount rights, as on the development machine), else a plain new
 * directory whose free space is emulated by {@link ShmFiles#TEST_FREE_BYTES} (a CI container without mount
 * rights), so that the tests run and assert everywhere. Children get the same emulation through
 * {@link #childOptions}.
 */
final class ShmSmallFileSystem implements AutoCloseable
{
    /** Test property: emulate even where a tmpfs could be mounted (to run the CI variant locally). */
    static final String EMULATE_PROP = "jfabric.test.shm.emulate";

    final Path dir;
    final boolean mounted;
    private final long size;

    private ShmSmallFileSystem(final Path dir, final boolean mounted, final long size)
    {
        this.dir = dir;
        this.mounted = mounted;
        this.size = size;
    }

    /**
     * Mount (or emulate) a file system of {@code size} bytes and make it this JVM's shm directory.
     */
    static ShmSmallFileSystem create(final String prefix, final long size) throws IOException, InterruptedException
    {
        final Path dir = ShmTests.useNewDirectory(prefix);
        boolean mounted = false;
        try
        {
            if (Boolean.getBoolean(EMULATE_PROP))
            {
                throw new IOException("emulation asked for");
            }
            final Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=0700",
                "jfabric-test", dir.toString()).redirectErrorStream(true).start();
            mounted = mount.waitFor(30, TimeUnit.SECONDS) && 0 == mount.exitValue() &&
                "tmpfs".equals(Files.getFileStore(dir).type()) && Files.getFileStore(dir).getTotalSpace() == size;
        }
        catch (final IOException ex)
        {
            // no mount command (or emulation asked for): emulate
        }
        if (!mounted)
        {
            ShmFiles.TEST_FREE_BYTES.set(size);
        }
        return new ShmSmallFileSystem(dir, mounted, size);
    }

    /**
     * @return bytes still free: the file system's usable space, or what the emulation has left.
     */
    long free() throws IOException
    {
        return mounted ? Files.getFileStore(dir).getUsableSpace() : ShmFiles.TEST_FREE_BYTES.get();
    }

    /**
     * JVM options of a child that must see this file system with {@code freeBytes} free (the emulation cannot
     * share one budget between processes; a mounted file system needs nothing).
     */
    List<String> childOptions(final long freeBytes)
    {
        return mounted ? List.of() : List.of("-D" + ShmChild.FREE_BYTES_PROP + "=" + freeBytes);
    }

    /**
     * @return the size.
     */
    long size()
    {
        return size;
    }

    @Override
    public void close() throws IOException, InterruptedException
    {
        ShmFiles.TEST_FREE_BYTES.set(-1);
        if (mounted)
        {
            final Process umount = new ProcessBuilder("umount", dir.toString()).redirectErrorStream(true).start();
            if (!umount.waitFor(30, TimeUnit.SECONDS) || 0 != umount.exitValue())
            {
                new ProcessBuilder("umount", "-l", dir.toString()).start().waitFor(30, TimeUnit.SECONDS);
            }
        }
        // A child that has not quite exited can keep the mount busy; the lazy unmount then detaches it a moment
        // later, so the (empty) mount point is removed in a bounded retry instead of being left in /dev/shm.
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        ShmTests.deleteTree(dir);
        while (Files.exists(dir) && System.nanoTime() < deadline)
        {
            if (mounted)
            {
                new ProcessBuilder("umount", "-l", dir.toString()).start().waitFor(5, TimeUnit.SECONDS);
            }
            Thread.sleep(50);
            ShmTests.deleteTree(dir);
        }
    }
}
