package io.jfabric.stat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * System properties of the counters file and their defaults. Read when a file is created (the first domain of the
 * process opens), so a test may change them between files.
 * <p>
 * Threading: stateless, thread-safe.
 */
public final class CountersConfiguration
{
    /**
     * System property: the directory of the counters files. Default {@code /dev/shm/jfabric-<uid>} (the shm
     * provider's per-user directory) when {@code /dev/shm} is a writable directory, else
     * {@code ${java.io.tmpdir}/jfabric-<uid>}. Created 0700 when missing; refused (no file, counters kept in process
     * memory) when it is a symbolic link, not owned by this uid, or open to group or others.
     */
    public static final String DIR_PROP = "jfabric.counters.dir";
    /** System property: bytes of the counter values section, a multiple of 128 (one counter each); default 64 KiB. */
    public static final String VALUES_LENGTH_PROP = "jfabric.counters.values.length";
    /** System property: bytes of the error log section, a multiple of 8; default 64 KiB. */
    public static final String ERROR_LOG_LENGTH_PROP = "jfabric.counters.errors.length";
    /** Default of {@link #VALUES_LENGTH_PROP}: 512 counters, about 40 domains. */
    public static final int VALUES_LENGTH_DEFAULT = 64 * 1024;
    /** Default of {@link #ERROR_LOG_LENGTH_PROP}. */
    public static final int ERROR_LOG_LENGTH_DEFAULT = 64 * 1024;
    /**
     * Milliseconds a freed counter's slot stays unused, so that a reader never sees one domain's value under another
     * domain's label.
     */
    public static final long FREE_TO_REUSE_MS = 1000;

    private CountersConfiguration()
    {
    }

    /**
     * @return the configured directory, not checked.
     */
    public static Path directory()
    {
        final String configured = System.getProperty(DIR_PROP);
        if (null != configured && !configured.isEmpty())
        {
            return Paths.get(configured);
        }
        final Path shm = Paths.get("/dev/shm");
        final String name = "jfabric-" + (CountersFile.UID >= 0 ? Long.toString(CountersFile.UID) :
            System.getProperty("user.name", "unknown"));
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm.resolve(name) :
            Paths.get(System.getProperty("java.io.tmpdir"), name);
    }

    /**
     * @return bytes of the values section (rounded up to whole counters, at least 16 counters).
     */
    static int valuesLength()
    {
        final int length = Integer.getInteger(VALUES_LENGTH_PROP, VALUES_LENGTH_DEFAULT);
        final int unit = org.agrona.concurrent.status.CountersReader.COUNTER_LENGTH;
        return Math.max(16 * unit, (int) Math.min(1 << 24, ((long) length + unit - 1) / unit * unit));
    }

    /**
     * @return bytes of the error log section (rounded up to 8, at least 1 KiB).
     */
    static int errorLogLength()
    {
        final int length = Integer.getInteger(ERROR_LOG_LENGTH_PROP, ERROR_LOG_LENGTH_DEFAULT);
        return Math.max(1024, (int) Math.min(1 << 24, ((long) length + 7) / 8 * 8));
    }
}
