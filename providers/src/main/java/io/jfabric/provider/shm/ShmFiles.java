package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The file-system rules of the shm provider: who may own the shm directory and the files in it, and reserving the
 * space of a file before it is mapped.
 * <ul>
 *   <li>Security: the directory must be a real directory (not a symbolic link) owned by this process's uid with no
 *   group or other access (0700); each of its ancestors must be owned by root or this uid and, when others may
 *   write it, carry the sticky bit (so nobody else can rename or replace the directory). Files are created 0600,
 *   opened with {@code O_NOFOLLOW} (a symbolic link is refused) and a peer's file is mapped only when it is a
 *   regular file owned by this uid with no group or other access. Violations answer {@code EACCES} naming the path,
 *   what was found and what is required.</li>
 *   <li>Space: no page of a file is touched through a mapping before its space is reserved (ring files are
 *   reserved whole at creation, pool files block by block). On tmpfs, a page of a sparse file is allocated when first
 *   touched through a mapping, and a full file system answers that touch with SIGBUS, which the JVM turns into an
 *   asynchronous {@code InternalError} at best and a crash (a fault in an interpreted {@code Unsafe} atomic update,
 *   or in {@code Unsafe.setMemory}, which {@link ShmMappedBuffer} no longer uses) at worst. Java has no
 *   {@code fallocate}, so {@link #reserve} writes zeros through the file channel: tmpfs allocates the pages then,
 *   and a full file system answers {@code ENOSPC} as an {@code IOException} on the control path.</li>
 * </ul>
 * <p>
 * Threading: stateless apart from constants and the test hook; thread-safe.
 */
final class ShmFiles
{
    /** Permissions of every file: owner read and write (0600). */
    static final Set<PosixFilePermission> OWNER_ONLY =
        EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    /** Permissions of the directory: owner only (0700). */
    static final Set<PosixFilePermission> OWNER_ONLY_DIR =
        EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);
    /** The effective uid of this process (the owner of the files it creates), -1 when it cannot be told. */
    static final long UID = currentUid();
    /** Bytes written per call when reserving. */
    private static final int RESERVE_CHUNK = 256 * 1024;
    private static final int GROUP_OTHER_BITS = 0077;
    private static final int GROUP_OTHER_WRITE_BITS = 0022;
    private static final int STICKY_BIT = 01000;
    private static final int MODE_BITS = 07777;
    private static final OpenOption[] READ_NOFOLLOW = {StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS};
    private static final OpenOption[] WRITE_NOFOLLOW =
        {StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS};
    private static ByteBuffer zeros;

    /**
     * Test hook: when not negative, the bytes the file system still has room for; {@link #reserve} takes from it
     * and fails with "No space left on device" beyond it, as a full tmpfs would (tests that cannot mount a small
     * tmpfs). Never set by production code.
     */
    static final AtomicLong TEST_FREE_BYTES = new AtomicLong(-1);

    private ShmFiles()
    {
    }

    /**
     * The default directory name: one per user, so that users never share a directory.
     *
     * @return {@code jfabric-<uid>}.
     */
    static String defaultDirectoryName()
    {
        return "jfabric-" + (UID >= 0 ? Long.toString(UID) : System.getProperty("user.name", "unknown"));
    }

    /**
     * Create the directory when missing (0700), then check it (see the class comment).
     *
     * @param dir the directory.
     * @return the directory as an absolute path.
     * @throws FabricException EACCES when it is not safe or cannot be used; EOPNOTSUPP without POSIX permissions.
     */
    static Path ensureDirectory(final Path dir)
    {
        final Path absolute = dir.toAbsolutePath().normalize();
        try
        {
            if (!Files.exists(absolute, LinkOption.NOFOLLOW_LINKS))
            {
                try
                {
                    Files.createDirectories(absolute, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
                }
                catch (final UnsupportedOperationException ex)
                {
                    throw notPosix(absolute);
                }
            }
        }
        catch (final FileAlreadyExistsException ex)
        {
            // created concurrently by another process: checked below like any existing directory
        }
        catch (final IOException ex)
        {
            throw new FabricException(Errno.EACCES, "shm: cannot create the shm directory " + absolute + ": " + ex +
                hint(), ex);
        }
        checkDirectory(absolute);
        return absolute;
    }

    /**
     * Check the directory and its ancestors (see the class comment).
     *
     * @param dir an absolute, normalised path.
     * @throws FabricException EACCES naming what is wrong.
     */
    static void checkDirectory(final Path dir)
    {
        final PosixFileAttributes attributes = posix(dir, LinkOption.NOFOLLOW_LINKS);
        if (attributes.isSymbolicLink())
        {
            throw refused(dir, "is a symbolic link (the shm directory is never followed through a link)");
        }
        if (!attributes.isDirectory())
        {
            throw refused(dir, "is not a directory");
        }
        final long owner = unixInt(dir, "uid", LinkOption.NOFOLLOW_LINKS);
        final int mode = (int) unixInt(dir, "mode", LinkOption.NOFOLLOW_LINKS) & MODE_BITS;
        if (owner != UID || (mode & GROUP_OTHER_BITS) != 0 || (mode & 0700) != 0700)
        {
            throw refused(dir, "has owner uid " + owner + " and mode " + octal(mode) + "; required: owner uid " + UID +
                " (this process) and mode 0700 (no group or other access)");
        }
        for (Path ancestor = dir.getParent(); null != ancestor; ancestor = ancestor.getParent())
        {
            // Followed: a link among the ancestors is judged by what it leads to (/dev/shm -> /run/shm).
            final long ancestorOwner = unixInt(ancestor, "uid");
            final int ancestorMode = (int) unixInt(ancestor, "mode") & MODE_BITS;
            if ((ancestorOwner != 0 && ancestorOwner != UID) ||
                ((ancestorMode & GROUP_OTHER_WRITE_BITS) != 0 && (ancestorMode & STICKY_BIT) == 0))
            {
                throw new FabricException(Errno.EACCES, "shm: the shm directory " + dir + " is refused: its " +
                    "ancestor " + ancestor + " has owner uid " + ancestorOwner + " and mode " + octal(ancestorMode) +
                    ", so another user could replace the directory; required of every ancestor: owner root or uid " +
                    UID + ", and no group or other write access unless the sticky bit is set" + hint());
            }
        }
    }

    /**
     * Create an empty file readable and writable by its owner only (0600); never through a link (the name must
     * not exist at all).
     *
     * @param file the file, which must not exist.
     * @throws IOException as {@link Files#createFile}.
     * @throws FabricException EOPNOTSUPP on a file system without POSIX permissions: ring and pool files are never
     *                         created with weaker permissions.
     */
    static void createOwnerOnly(final Path file) throws IOException
    {
        try
        {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        }
        catch (final UnsupportedOperationException ex)
        {
            throw notPosix(file);
        }
    }

    /**
     * Open a file without following a link.
     *
     * @param file  the file.
     * @param write true to open it read-write, false read-only.
     * @return the channel.
     * @throws IOException as {@link FileChannel#open} ({@link NoSuchFileException} when missing).
     * @throws FabricException EACCES when the name is a symbolic link.
     */
    static FileChannel openNoFollow(final Path file, final boolean write) throws IOException
    {
        try
        {
            return FileChannel.open(file, write ? WRITE_NOFOLLOW : READ_NOFOLLOW);
        }
        catch (final NoSuchFileException ex)
        {
            throw ex;
        }
        catch (final IOException ex)
        {
            // O_NOFOLLOW answers ELOOP for a link.
            if (Files.isSymbolicLink(file))
            {
                throw new FabricException(Errno.EACCES, "shm: " + file + " is refused: it is a symbolic link " +
                    "(shm files are never opened through a link)", ex);
            }
            throw ex;
        }
    }

    /**
     * Open a file another domain of this user created (a peer's ring or pool) and check it: a regular file, owned
     * by this uid, no group or other access.
     *
     * @param file  the file.
     * @param write true to open it read-write, false read-only.
     * @return the channel.
     * @throws IOException as {@link FileChannel#open} ({@link NoSuchFileException} when missing).
     * @throws FabricException EACCES naming what is wrong.
     */
    static FileChannel openChecked(final Path file, final boolean write) throws IOException
    {
        final FileChannel channel = openNoFollow(file, write);
        try
        {
            checkFile(file);
            return channel;
        }
        catch (final IOException | RuntimeException ex)
        {
            channel.close();
            throw ex;
        }
    }

    /**
     * Check a file in the shm directory: a regular file owned by this uid with no group or other access.
     *
     * @param file the file.
     * @throws IOException when its attributes cannot be read.
     * @throws FabricException EACCES naming what is wrong.
     */
    static void checkFile(final Path file) throws IOException
    {
        final PosixFileAttributes attributes;
        try
        {
            attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        }
        catch (final UnsupportedOperationException ex)
        {
            throw notPosix(file);
        }
        if (!attributes.isRegularFile())
        {
            throw new FabricException(Errno.EACCES, "shm: " + file + " is refused: it is not a regular file");
        }
        final long owner = ((Number) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
        final int mode = ((Number) Files.getAttribute(file, "unix:mode", LinkOption.NOFOLLOW_LINKS)).intValue() &
            MODE_BITS;
        if (owner != UID || (mode & GROUP_OTHER_BITS) != 0)
        {
            throw new FabricException(Errno.EACCES, "shm: " + file + " is refused: owner uid " + owner + ", mode " +
                octal(mode) + "; required: owner uid " + UID + " (this process) and mode 0600 (no group or other " +
                "access)");
        }
    }

    /**
     * Reserve {@code [from, to)} of a file: write zeros there through the channel, so that the file system
     * allocates every page now (a full file system answers here, not with a fault later). Only for a range nobody
     * uses yet: its contents become zeros.
     *
     * @param channel the file, open for writing.
     * @param file    its path (for messages).
     * @param from    first byte.
     * @param to      end (exclusive).
     * @param what    what the space is for (for messages), e.g. "ring file".
     * @throws FabricException ENOSPC when the file system is full, naming the file, the bytes needed and the bytes
     *                         free; EIO on another write error.
     */
    static void reserve(final FileChannel channel, final Path file, final long from, final long to, final String what)
    {
        if (to <= from)
        {
            return;
        }
        final long free = usableSpace(file);
        final ByteBuffer source = zeros().duplicate();
        long position = from;
        try
        {
            takeTestSpace(to - from);
            while (position < to)
            {
                source.clear().limit((int) Math.min(source.capacity(), to - position));
                while (source.hasRemaining())
                {
                    position += channel.write(source, position);
                }
            }
        }
        catch (final IOException ex)
        {
            final String reason = String.valueOf(ex.getMessage());
            final boolean full = reason.contains("No space left") || reason.contains("quota") ||
                (free >= 0 && free < to - from);
            final long shown = TEST_FREE_BYTES.get() >= 0 ? TEST_FREE_BYTES.get() : free;
            throw new FabricException(full ? Errno.ENOSPC : Errno.EIO, "shm: cannot reserve the space of " + what +
                " " + file + ": " + (to - from) + " bytes needed, " + (shown >= 0 ? shown + " bytes" : "unknown") +
                " free on its file system (" + reason + ")" + (full ? spaceHint() : ""), ex);
        }
    }

    private static void takeTestSpace(final long bytes) throws IOException
    {
        while (true)
        {
            final long left = TEST_FREE_BYTES.get();
            if (left < 0)
            {
                return;
            }
            if (left < bytes)
            {
                throw new IOException("No space left on device (test limit of the free space)");
            }
            if (TEST_FREE_BYTES.compareAndSet(left, left - bytes))
            {
                return;
            }
        }
    }

    private static long usableSpace(final Path file)
    {
        try
        {
            return Files.getFileStore(file.getParent()).getUsableSpace();
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
    }

    private static synchronized ByteBuffer zeros()
    {
        if (null == zeros)
        {
            zeros = ByteBuffer.allocateDirect(RESERVE_CHUNK);
        }
        return zeros;
    }

    private static String spaceHint()
    {
        return "; to fix: free space there, make the rings smaller (-D" + ShmConfiguration.RING_CAPACITY_PROP + ", -D" +
            ShmConfiguration.POOL_SIZE_PROP + "), use another directory (-D" + ShmConfiguration.DIR_PROP +
            ") or give a container a larger /dev/shm (docker run --shm-size)";
    }

    private static FabricException refused(final Path dir, final String why)
    {
        return new FabricException(Errno.EACCES, "shm: the shm directory " + dir + " is refused: it " + why + hint());
    }

    private static String hint()
    {
        return "; remove it or set -D" + ShmConfiguration.DIR_PROP + " to a directory of your own";
    }

    static FabricException notPosix(final Path path)
    {
        return new FabricException(Errno.EOPNOTSUPP, "shm: " + path + " is not on a POSIX file system, so it cannot " +
            "be made owner-only (0600); set -D" + ShmConfiguration.DIR_PROP + " to a directory on one");
    }

    private static PosixFileAttributes posix(final Path path, final LinkOption... options)
    {
        try
        {
            return Files.readAttributes(path, PosixFileAttributes.class, options);
        }
        catch (final UnsupportedOperationException ex)
        {
            throw notPosix(path);
        }
        catch (final IOException ex)
        {
            throw new FabricException(Errno.EACCES, "shm: cannot read the attributes of " + path + ": " + ex, ex);
        }
    }

    private static long unixInt(final Path path, final String attribute, final LinkOption... options)
    {
        try
        {
            return ((Number) Files.getAttribute(path, "unix:" + attribute, options)).longValue();
        }
        catch (final UnsupportedOperationException | IllegalArgumentException ex)
        {
            throw notPosix(path);
        }
        catch (final IOException ex)
        {
            throw new FabricException(Errno.EACCES, "shm: cannot read the attributes of " + path + ": " + ex, ex);
        }
    }

    private static String octal(final int mode)
    {
        return "0" + Integer.toOctalString(mode);
    }

    private static long currentUid()
    {
        try
        {
            // /proc/self leads to /proc/<pid>, owned by the process's effective uid (Linux).
            return ((Number) Files.getAttribute(Paths.get("/proc/self"), "unix:uid")).longValue();
        }
        catch (final IOException | RuntimeException ex)
        {
            // elsewhere: the owner of a file this process creates
        }
        Path probe = null;
        try
        {
            probe = Files.createTempFile("jfabric-uid", ".probe");
            return ((Number) Files.getAttribute(probe, "unix:uid")).longValue();
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
        finally
        {
            if (null != probe)
            {
                try
                {
                    Files.deleteIfExists(probe);
                }
                catch (final IOException ignore)
                {
                    // a temporary file
                }
            }
        }
    }

    /**
     * Unmap a mapping and close its channel, either of which may be null, ignoring what fails (a clean-up path).
     *
     * @param mapped  the mapping, or null.
     * @param channel the channel, or null.
     */
    static void unmapQuietly(final MappedByteBuffer mapped, final FileChannel channel)
    {
        if (null != mapped)
        {
            IoUtil.unmap(mapped);
        }
        CloseHelper.quietClose(channel);
    }
}
