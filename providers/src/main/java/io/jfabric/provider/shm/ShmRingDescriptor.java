package io.jfabric.provider.shm;

import org.agrona.BitUtil;

/**
 * Layout of a shm ring file: one per domain, {@code <dir>/<name>.ring}, created owner-only (0600), all fields
 * little-endian (the native order of the hosts jfabric runs on; the file never leaves the host).
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 magic "JFSHMRNG" (64)                         |   0
 *  +-------------------------------+-------------------------------+
 *  |           version             |  header length (ring offset)  |   8
 *  +-------------------------------+-------------------------------+
 *  |  lane ring capacity (owner's) |      sender slot count        |  16
 *  +-------------------------------+-------------------------------+
 *  |                      file length (64)                         |  24
 *  |                  owner pid (64, ProcessHandle)                |  32
 *  |          owner process start, epoch ms (64, 0 if unknown)     |  40
 *  |     incarnation (64): creation ms << 16 | 16 random bits      |  48
 *  +-------------------------------+-------------------------------+
 *  |   state (1 active, 2 closed)  |         name length           |  56
 *  +-------------------------------+-------------------------------+
 *  |                  name, ASCII, 64 bytes                        |  64
 *  +---------------------------------------------------------------+
 *  |     heartbeat, epoch ms (64), on its own 128-byte line        | 128
 *  +---------------------------------------------------------------+
 *  |     shared pool data length (64), 0 = no pool (yet)           | 192
 *  |     sender table generation (64), +1 per claim and release    | 200
 *  +---------------------------------------------------------------+
 *  |   sender table: slot count x 128 bytes (see below)            | 256
 *  +---------------------------------------------------------------+ header length = file length (4 KiB aligned)
 *
 *  sender slot (128 bytes), one per writer domain incarnation that has a lane file into this domain
 *  ({@link ShmLaneFile}), claimed and released under an fcntl lock of the table (plain and release stores):
 *  +---------------------------------------------------------------+
 *  |   writer incarnation (64), 0 = free; stored last (release)    |  +0
 *  |   writer pid (64)                                             |  +8
 *  |   writer process start, epoch ms (64)                         | +16
 *  +-------------------------------+-------------------------------+
 *  |   name length                 |           reserved            | +24
 *  +-------------------------------+-------------------------------+
 *  |   writer name, ASCII, 64 bytes                                | +32
 *  |   reserved (32)                                               | +96
 *  +---------------------------------------------------------------+
 * </pre>
 * Each lane file has two rings, because the domain agent leaves a frame it cannot take yet (a full CQ) at the head
 * of its ring: requests (MSG, TAGGED, RTS, WRITE, READ_REQ, ATOMIC) go to the request ring, and everything that
 * answers a request of the reader (ACK, FIN, CTS, RDATA, RMA_ACK, READ_RESP, ATOMIC_RESP) to the answer ring, so
 * that rendezvous data and acknowledgements never wait behind messages that themselves wait for receives that
 * need that data (a deadlock with one ring).
 * <p>
 * The file appears under its name only once fully initialised (it is written under a temporary name and then
 * hard-linked), so a reader never sees a half-written header.
 */
final class ShmRingDescriptor
{
    /** "JFSHMRNG" read as a little-endian long. */
    static final long MAGIC = 0x474E524D4853464AL;
    /**
     * Layout version. 3: the same bytes as 2, but liveness is the owner's lock file ({@link ShmLiveness}); a
     * version 2 process takes no lock, so the two must not share a directory. 4: no rings in this file (each writer
     * has its own lane file, {@link ShmLaneFile}); the sender table is claimed under a file lock and announces them.
     */
    static final int VERSION = 4;
    /** Largest name length in bytes. */
    static final int MAX_NAME_LENGTH = 64;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 8;
    static final int HEADER_LENGTH_OFFSET = 12;
    static final int CAPACITY_OFFSET = 16;
    static final int SLOT_COUNT_OFFSET = 20;
    static final int FILE_LENGTH_OFFSET = 24;
    static final int PID_OFFSET = 32;
    static final int START_TIME_OFFSET = 40;
    static final int INCARNATION_OFFSET = 48;
    static final int STATE_OFFSET = 56;
    static final int NAME_LENGTH_OFFSET = 60;
    static final int NAME_OFFSET = 64;
    static final int HEARTBEAT_OFFSET = 128;
    /** The owner's shared pool ({@link ShmPoolDescriptor}): its data length once the pool file exists, else 0. */
    static final int POOL_LENGTH_OFFSET = 192;
    /** The sender table's generation: incremented (under the table lock) by every slot claim and release. */
    static final int SLOT_GENERATION_OFFSET = 200;
    static final int SLOTS_OFFSET = 256;

    /** Bytes of the fixed header before the sender table; what a reader needs to validate the rest. */
    static final int FIXED_HEADER_LENGTH = SLOTS_OFFSET;

    static final int SLOT_LENGTH = 128;
    static final int SLOT_INCARNATION_OFFSET = 0;
    static final int SLOT_PID_OFFSET = 8;
    static final int SLOT_START_TIME_OFFSET = 16;
    static final int SLOT_NAME_LENGTH_OFFSET = 24;
    static final int SLOT_NAME_OFFSET = 32;

    static final int STATE_ACTIVE = 1;
    static final int STATE_CLOSED = 2;

    private static final int PAGE = 4096;

    private ShmRingDescriptor()
    {
    }

    /**
     * @param slotCount sender slots.
     * @return the header length: the fixed header and the sender table, page aligned (the file's whole length).
     */
    static int ringOffset(final int slotCount)
    {
        return BitUtil.align(SLOTS_OFFSET + slotCount * SLOT_LENGTH, PAGE);
    }

    /**
     * @param slotCount sender slots.
     * @return the whole file's length (the lanes live in their own files, {@link ShmLaneFile}).
     */
    static long fileLength(final int slotCount)
    {
        return ringOffset(slotCount);
    }

    /**
     * @param slot a sender slot.
     * @return offset of that slot in the file.
     */
    static int slotOffset(final int slot)
    {
        return SLOTS_OFFSET + slot * SLOT_LENGTH;
    }

    /**
     * A name is 1 to 64 characters of {@code [A-Za-z0-9._-]}, not starting with a dot (it becomes a file name).
     *
     * @param name the name.
     * @return true when valid.
     */
    static boolean validName(final String name)
    {
        if (null == name || name.isEmpty() || name.length() > MAX_NAME_LENGTH || name.charAt(0) == '.')
        {
            return false;
        }
        for (int i = 0; i < name.length(); i++)
        {
            final char c = name.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                c == '_' || c == '-'))
            {
                return false;
            }
        }
        return true;
    }
}
