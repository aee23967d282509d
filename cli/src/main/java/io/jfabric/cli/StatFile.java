package io.jfabric.cli;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.stat.CountersFileDescriptor;
import io.jfabric.stat.StatReader;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One counters file as {@code jfabric stat} lists it: the owner's pid, start time and liveness from the file's
 * header and lock ({@link StatReader}), or what is wrong with a file that cannot be read.
 * <p>
 * Immutable; thread-safe.
 *
 * @param path           the file.
 * @param pid            the owner's pid (from the header; from the file name for a file that cannot be read; -1
 *                       when neither says).
 * @param processStartMs the owner's start time, epoch ms (0 unknown).
 * @param creationMs     when the file was created, epoch ms (0 when it cannot be read).
 * @param state          {@code alive} (the owner holds the file's lock), {@code stale} (the lock is free: the owner is
 *                       gone) or {@code unknown} (the lock could not be tried).
 * @param defect         why the file cannot be read as a counters file, or null when it can.
 */
record StatFile(Path path, long pid, long processStartMs, long creationMs, String state, String defect)
{
    /** State of a file whose owner holds its lock. */
    static final String ALIVE = "alive";
    /** State of a file whose lock is free: its owner is gone. */
    static final String STALE = "stale";

    /**
     * Read the header and the lock of one file.
     *
     * @param path a counters file.
     * @return the entry, or null when the file vanished meanwhile (its owner closed it).
     */
    static StatFile of(final Path path)
    {
        final String state = state(StatReader.liveness(path));
        try (StatReader reader = StatReader.open(path))
        {
            return new StatFile(path, reader.pid(), reader.processStartMs(), reader.creationTimeMs(), state, null);
        }
        catch (final FabricException ex)
        {
            if (Errno.ENOENT == ex.errno())
            {
                return null;
            }
            final String message = ex.getMessage();
            final String prefix = "counters file " + path + ": ";
            // the reason alone, without the errno and the path the message starts with
            final int at = message.indexOf(prefix);
            return new StatFile(path, pidFromName(path), 0, 0, state,
                at >= 0 ? message.substring(at + prefix.length()) : message);
        }
    }

    /**
     * Every counters file of a directory, in name order.
     *
     * @param dir the directory.
     * @return the entries; empty when there are none or the directory does not exist.
     */
    static List<StatFile> list(final Path dir)
    {
        final List<StatFile> files = new ArrayList<>();
        for (final Path path : StatReader.list(dir))
        {
            final StatFile file = of(path);
            if (null != file)
            {
                files.add(file);
            }
        }
        return files;
    }

    /**
     * @return true when the owner holds the lock.
     */
    boolean alive()
    {
        return ALIVE.equals(state);
    }

    /**
     * @return true when the file's header is valid.
     */
    boolean readable()
    {
        return null == defect;
    }

    private static String state(final StatReader.Liveness liveness)
    {
        switch (liveness)
        {
            case ALIVE:
                return ALIVE;
            case DEAD:
                return STALE;
            default:
                return liveness.name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * The pid in a name {@code counters-<pid>-<incarnation>.cnc}, or -1.
     */
    static long pidFromName(final Path path)
    {
        final String name = path.getFileName().toString();
        final int start = CountersFileDescriptor.PREFIX.length();
        final int end = name.indexOf('-', start);
        if (!name.startsWith(CountersFileDescriptor.PREFIX) || end < 0)
        {
            return -1;
        }
        try
        {
            return Long.parseLong(name.substring(start, end));
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }
}
