package io.jfabric.stat;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.status.CountersReader;

/**
 * Layout of a counters file: a header, then the counters' metadata and values (an Agrona {@code CountersManager}),
 * then an Agrona {@code DistinctErrorLog}. Little-endian; every section starts on a 128-byte boundary:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 magic "JFCNTRS1" (64)                         |  0
 *  |                 layout version (32, written last)             |  8
 *  |                 header length (32)                            | 12
 *  |                 owner pid (64)                                | 16
 *  |                 owner process start, epoch ms (64)            | 24
 *  |                 file creation, epoch ms (64)                  | 32
 *  |                 metadata offset (32) | metadata length (32)   | 40
 *  |                 values offset (32)   | values length (32)     | 48
 *  |                 error log offset (32)| error log length (32)  | 56
 *  |                 file length (64)                              | 64
 *  |                 reserved to 128                               | 72
 *  +---------------------------------------------------------------+
 *  |   metadata: 512 bytes per counter (state, type id, key, label) | 128
 *  +---------------------------------------------------------------+
 *  |   values: 128 bytes per counter (the value, then padding)      |
 *  +---------------------------------------------------------------+
 *  |   distinct error log                                           |
 *  +---------------------------------------------------------------+
 * </pre>
 * The owner writes everything, then the version with a release store: a reader that sees {@link #LAYOUT_VERSION}
 * with an acquire load sees the whole header. Metadata is four times the values, as a {@code CountersManager} wants
 * (at least twice).
 * <p>
 * Threading: constants and pure functions, thread-safe.
 */
public final class CountersFileDescriptor
{
    /** The magic number, "JFCNTRS1" in ASCII read as a little-endian long. */
    public static final long MAGIC = 0x315352544E43464AL;
    /** The layout this class describes. */
    public static final int LAYOUT_VERSION = 1;
    /** Bytes of the header. */
    public static final int HEADER_LENGTH = 128;
    /** Offset of the magic number. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the layout version (0 until the file is ready). */
    public static final int VERSION_OFFSET = 8;
    /** Offset of the header length. */
    public static final int HEADER_LENGTH_OFFSET = 12;
    /** Offset of the owner's pid. */
    public static final int PID_OFFSET = 16;
    /** Offset of the owner's process start time (epoch ms, 0 when the platform does not say). */
    public static final int PROCESS_START_OFFSET = 24;
    /** Offset of the file's creation time (epoch ms). */
    public static final int CREATION_TIME_OFFSET = 32;
    /** Offset of the metadata section's offset. */
    public static final int METADATA_OFFSET_OFFSET = 40;
    /** Offset of the metadata section's length. */
    public static final int METADATA_LENGTH_OFFSET = 44;
    /** Offset of the values section's offset. */
    public static final int VALUES_OFFSET_OFFSET = 48;
    /** Offset of the values section's length. */
    public static final int VALUES_LENGTH_OFFSET = 52;
    /** Offset of the error log section's offset. */
    public static final int ERROR_LOG_OFFSET_OFFSET = 56;
    /** Offset of the error log section's length. */
    public static final int ERROR_LOG_LENGTH_OFFSET = 60;
    /** Offset of the file length. */
    public static final int FILE_LENGTH_OFFSET = 64;
    /** Prefix of counters file names: {@code counters-<pid>-<incarnation in hex>.cnc}. */
    public static final String PREFIX = "counters-";
    /** Suffix of counters file names. */
    public static final String SUFFIX = ".cnc";

    private CountersFileDescriptor()
    {
    }

    /**
     * @param valuesLength bytes of values (a multiple of 128).
     * @return bytes of metadata for that many counters.
     */
    public static int metadataLength(final int valuesLength)
    {
        return valuesLength / CountersReader.COUNTER_LENGTH * CountersReader.METADATA_LENGTH;
    }

    /**
     * @param valuesLength   bytes of values.
     * @param errorLogLength bytes of error log.
     * @return the length of the whole file.
     */
    public static long fileLength(final int valuesLength, final int errorLogLength)
    {
        return (long) HEADER_LENGTH + metadataLength(valuesLength) + valuesLength + errorLogLength;
    }

    /**
     * Fill in a new file's header, all but the version ({@link #signalReady}).
     *
     * @param buffer         over the whole file.
     * @param pid            the owner's pid.
     * @param processStartMs the owner's start time.
     * @param creationMs     now.
     * @param valuesLength   bytes of values.
     * @param errorLogLength bytes of error log.
     */
    static void writeHeader(
        final AtomicBuffer buffer,
        final long pid,
        final long processStartMs,
        final long creationMs,
        final int valuesLength,
        final int errorLogLength)
    {
        final int metadataLength = metadataLength(valuesLength);
        buffer.putLong(MAGIC_OFFSET, MAGIC);
        buffer.putInt(HEADER_LENGTH_OFFSET, HEADER_LENGTH);
        buffer.putLong(PID_OFFSET, pid);
        buffer.putLong(PROCESS_START_OFFSET, processStartMs);
        buffer.putLong(CREATION_TIME_OFFSET, creationMs);
        buffer.putInt(METADATA_OFFSET_OFFSET, HEADER_LENGTH);
        buffer.putInt(METADATA_LENGTH_OFFSET, metadataLength);
        buffer.putInt(VALUES_OFFSET_OFFSET, HEADER_LENGTH + metadataLength);
        buffer.putInt(VALUES_LENGTH_OFFSET, valuesLength);
        buffer.putInt(ERROR_LOG_OFFSET_OFFSET, HEADER_LENGTH + metadataLength + valuesLength);
        buffer.putInt(ERROR_LOG_LENGTH_OFFSET, errorLogLength);
        buffer.putLong(FILE_LENGTH_OFFSET, fileLength(valuesLength, errorLogLength));
    }

    /**
     * Publish the header: a release store of the version after every other field.
     *
     * @param buffer over the whole file.
     */
    static void signalReady(final AtomicBuffer buffer)
    {
        buffer.putIntRelease(VERSION_OFFSET, LAYOUT_VERSION);
    }

    /**
     * Check a header a reader mapped: magic, version (acquire load), and sections inside {@code length}.
     *
     * @param buffer over the file.
     * @param length bytes mapped.
     * @return null when valid, else what is wrong.
     */
    public static String defect(final AtomicBuffer buffer, final long length)
    {
        if (length < HEADER_LENGTH)
        {
            return "shorter than a header (" + length + " bytes)";
        }
        if (MAGIC != buffer.getLong(MAGIC_OFFSET))
        {
            return "not a counters file (magic " + Long.toHexString(buffer.getLong(MAGIC_OFFSET)) + ")";
        }
        final int version = buffer.getIntAcquire(VERSION_OFFSET);
        if (LAYOUT_VERSION != version)
        {
            return 0 == version ? "not ready (version 0)" : "layout version " + version + " (this reader knows " +
                LAYOUT_VERSION + ")";
        }
        if (buffer.getLong(FILE_LENGTH_OFFSET) > length ||
            !inside(buffer, METADATA_OFFSET_OFFSET, METADATA_LENGTH_OFFSET, length) ||
            !inside(buffer, VALUES_OFFSET_OFFSET, VALUES_LENGTH_OFFSET, length) ||
            !inside(buffer, ERROR_LOG_OFFSET_OFFSET, ERROR_LOG_LENGTH_OFFSET, length))
        {
            return "sections outside the file's " + length + " bytes";
        }
        return null;
    }

    private static boolean inside(final DirectBuffer buffer, final int offsetField, final int lengthField,
        final long length)
    {
        final int offset = buffer.getInt(offsetField);
        final int sectionLength = buffer.getInt(lengthField);
        return offset >= HEADER_LENGTH && sectionLength >= 0 && (long) offset + sectionLength <= length &&
            0 == (offset & 7);
    }
}
