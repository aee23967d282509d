package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.FabricException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Property names and defaults of the shm provider. Properties are read when a domain opens, so a test or an
 * application can set them before {@code Fabric.domain}.
 * <p>
 * Threading: stateless, thread-safe.
 */
public final class ShmConfiguration
{
    /**
     * System property: the directory of the ring files. Default {@code /dev/shm/jfabric-<uid>} (one per user) when
     * {@code /dev/shm} is a writable directory, else {@code ${java.io.tmpdir}/jfabric-<uid>}. Every process that
     * talks over shm must use the same directory. It is created 0700 when missing, and refused ({@code EACCES}) when
     * it is a symbolic link, is not owned by this process's uid, gives group or others any access, or has an
     * ancestor another user could change (see {@code ShmFiles}); an explicit value is checked the same way.
     */
    public static final String DIR_PROP = "jfabric.shm.dir";
    /**
     * System property: bytes of each of a domain's two inbound rings (requests, answers), a power of two (default
     * {@link #RING_CAPACITY}).
     */
    public static final String RING_CAPACITY_PROP = "jfabric.shm.ring.capacity";
    /**
     * Default capacity of each lane ring: 16 MiB, so a frame (an RMA transfer travels in one) may reach 2 MiB. A
     * lane file holds two rings: 32 MiB of {@code /dev/shm} per writer and reader pair (a domain's lane to itself
     * included), reserved (allocated) when the lane is created: at domain open for its own, at the first contact
     * (AV insert, or a writer's first frame) for a peer.
     */
    public static final int RING_CAPACITY = 16 * 1024 * 1024;
    /**
     * Smallest ring capacity accepted: 4 MiB, so that every ring takes a rendezvous data chunk (256 KiB and a
     * header) from any peer.
     */
    public static final int MIN_RING_CAPACITY = 4 * 1024 * 1024;
    /** Largest ring capacity accepted. */
    public static final int MAX_RING_CAPACITY = 1 << 29;
    /** Number of sender slots in a ring file: writer incarnations that may have a lane into one domain at a time. */
    public static final int SENDER_SLOTS = 512;
    /** Heartbeat period of the process-wide heartbeat thread, milliseconds. */
    public static final long HEARTBEAT_INTERVAL_MS = 50;
    /** A peer whose heartbeat is older than this is checked for life (its lock file, ShmLiveness), milliseconds. */
    public static final long STALE_AFTER_MS = 250;
    /** Period of the agent's liveness scan over the mapped peers, milliseconds. */
    public static final long SCAN_INTERVAL_MS = 50;
    /** Least interval between two process checks of one stale but living peer, milliseconds. */
    public static final long PROCESS_CHECK_INTERVAL_MS = 500;
    /** Least interval between two attempts to reach a dead peer's name again, milliseconds. */
    public static final long REATTACH_INTERVAL_MS = 100;
    /**
     * Period of the sweep that releases the sender slots whose lane could not be mapped once their writer is dead
     * (milliseconds).
     */
    public static final long SLOT_SWEEP_INTERVAL_MS = 1000;

    /** File name suffix of ring files. */
    static final String RING_SUFFIX = ".ring";

    /** Property: data bytes of a domain's shared pool ({@code Domain.allocateShared}); 0 disables the pool. */
    public static final String POOL_SIZE_PROP = "jfabric.shm.pool.size";
    /**
     * Default pool size: 64 MiB. The file is sparse; the space of the blocks handed out is reserved (pages
     * allocated) when they are, up to the highest block so far.
     */
    public static final long POOL_SIZE = 64L * 1024 * 1024;
    /** Largest pool size: 1 GiB (one mapping, addressed by int-sized buffers). */
    public static final long MAX_POOL_SIZE = 1L << 30;

    private ShmConfiguration()
    {
    }

    /**
     * The ring directory as configured (created when missing, owner-only), checked on every call.
     *
     * @return the directory.
     * @throws FabricException EACCES when it cannot be created or is not safe to use (the reason named).
     */
    static Path directory()
    {
        final String configured = System.getProperty(DIR_PROP);
        final Path dir;
        if (null != configured && !configured.isBlank())
        {
            dir = Paths.get(configured);
        }
        else
        {
            final Path shm = Paths.get("/dev/shm");
            dir = Files.isDirectory(shm) && Files.isWritable(shm) ? shm.resolve(ShmFiles.defaultDirectoryName()) :
                Paths.get(System.getProperty("java.io.tmpdir"), ShmFiles.defaultDirectoryName());
        }
        return ShmFiles.ensureDirectory(dir);
    }

    /**
     * The configured ring capacity.
     *
     * @return bytes, a power of two.
     * @throws FabricException EINVAL for a value that is not a power of two in range.
     */
    static int ringCapacity()
    {
        final String configured = System.getProperty(RING_CAPACITY_PROP);
        if (null == configured || configured.isBlank())
        {
            return RING_CAPACITY;
        }
        final int capacity;
        try
        {
            capacity = Integer.parseInt(configured.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new FabricException(Errno.EINVAL, RING_CAPACITY_PROP + "='" + configured + "' is not a number");
        }
        if (Integer.bitCount(capacity) != 1 || capacity < MIN_RING_CAPACITY || capacity > MAX_RING_CAPACITY)
        {
            throw new FabricException(Errno.EINVAL, RING_CAPACITY_PROP + "=" + capacity +
                " must be a power of two from " + MIN_RING_CAPACITY + " to " + MAX_RING_CAPACITY);
        }
        return capacity;
    }

    /**
     * The configured shared pool size, rounded up to a multiple of 4096.
     *
     * @return bytes; 0 when the pool is disabled.
     * @throws FabricException EINVAL for a value that is not a number from 0 to {@link #MAX_POOL_SIZE}.
     */
    static long poolSize()
    {
        final String configured = System.getProperty(POOL_SIZE_PROP);
        if (null == configured || configured.isBlank())
        {
            return POOL_SIZE;
        }
        final long size;
        try
        {
            size = Long.parseLong(configured.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new FabricException(Errno.EINVAL, POOL_SIZE_PROP + "='" + configured + "' is not a number");
        }
        if (size < 0 || size > MAX_POOL_SIZE)
        {
            throw new FabricException(Errno.EINVAL, POOL_SIZE_PROP + "=" + size + " must be from 0 to " +
                MAX_POOL_SIZE);
        }
        return (size + 4095) & ~4095L;
    }
}
