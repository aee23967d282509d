package io.jfabric.provider.shm;

/**
 * Layout of a domain's shared-memory pool file, {@code <dir>/<name>.<ring incarnation in hex>.pool}, created
 * owner-only (0600) on the domain's first {@code Domain.allocateShared}, removed on close. Little-endian.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 magic "JFSHMPOL" (64)                         |   0
 *  +-------------------------------+-------------------------------+
 *  |           version             |   header length (data offset) |   8
 *  +-------------------------------+-------------------------------+
 *  |                    data length (64)                           |  16
 *  |                    file length (64)                           |  24
 *  |                  owner pid (64, ProcessHandle)                |  32
 *  |          owner process start, epoch ms (64, 0 if unknown)     |  40
 *  |        incarnation of the owner's ring file (64)              |  48
 *  |  base (64): address of the data's first byte in the owner     |  56
 *  |  reserved (64): data bytes whose space is allocated, from the  |  64
 *  |  start of the data (release store by the owner, grows only)   |
 *  +---------------------------------------------------------------+
 *  |   zero up to the header length (4096)                         |  72
 *  +---------------------------------------------------------------+
 *  |   data: the blocks Domain.allocateShared hands out            | 4096
 *  +---------------------------------------------------------------+
 * </pre>
 * A peer maps the file read-only and translates an address {@code a} the owner named in a rendezvous request into
 * {@code localData + (a - base)} after checking {@code [a, a + length)} lies inside the data's reserved part (a page
 * past it may be a hole, and touching a hole of a full tmpfs faults). The owner announces
 * the pool (its data length) in its ring file's header ({@link ShmRingDescriptor#POOL_LENGTH_OFFSET}) once the
 * file is in place, so that peers look for a pool only where one exists. The ring incarnation in the name and
 * the header ties a pool to one incarnation of a name: a restarted owner's pool is never taken for its
 * predecessor's.
 */
final class ShmPoolDescriptor
{
    /** "JFSHMPOL" read as a little-endian long. */
    static final long MAGIC = 0x4C4F504D4853464AL;
    /** Layout version. */
    static final int VERSION = 1;
    /** Bytes before the data (one page, so the data is page-aligned in every mapping). */
    static final int HEADER_LENGTH = 4096;
    /** File name suffix. */
    static final String SUFFIX = ".pool";

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 8;
    static final int HEADER_LENGTH_OFFSET = 12;
    static final int DATA_LENGTH_OFFSET = 16;
    static final int FILE_LENGTH_OFFSET = 24;
    static final int PID_OFFSET = 32;
    static final int START_TIME_OFFSET = 40;
    static final int RING_INCARNATION_OFFSET = 48;
    static final int BASE_OFFSET = 56;
    static final int RESERVED_OFFSET = 64;
    /** Bytes of the header a reader validates. */
    static final int FIXED_HEADER_LENGTH = 64;

    private ShmPoolDescriptor()
    {
    }

    /**
     * @param name            the owner's domain name.
     * @param ringIncarnation the owner's ring file incarnation.
     * @return the pool file's name.
     */
    static String fileName(final String name, final long ringIncarnation)
    {
        return name + "." + Long.toHexString(ringIncarnation) + SUFFIX;
    }
}
