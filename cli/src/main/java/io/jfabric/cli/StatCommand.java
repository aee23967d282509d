package io.jfabric.cli;

import io.jfabric.Configuration;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.stat.StatReader;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * {@code jfabric stat}: what the jfabric processes of this host are doing, from their counters files
 * ({@code io.jfabric.stat}, runtime/RUNTIME.md "Counters and error log"), as AeronStat reads Aeron's CnC file.
 * <ul>
 *     <li>no option: list the counters files of the directory (pid, start, alive or stale, file age, path);</li>
 *     <li>{@code --pid N}, {@code --file PATH} or {@code --counters} (the only live process): print that process's
 *     counters per domain once, or every {@code --interval} with {@code --watch} ({@code --count} samples);</li>
 *     <li>{@code --errors}: its distinct error log, with counts and first/last times;</li>
 *     <li>{@code --reclaim}: remove the files of dead processes (the counters code's own rule, a free lock), then
 *     list.</li>
 * </ul>
 * It maps files read-only and never opens a domain, so it reads a process that is stuck, spinning or stopped, and
 * the file of a dead one. Exit codes: 0 success, 1 nothing to read (no files, a gone or corrupt file), 2 bad input
 * (an unknown pid, several live processes and no {@code --pid}). Every error is one line
 * {@code jfabric stat: ...}.
 * <p>
 * Not thread-safe: one instance per invocation.
 */
@Command(
    name = "stat",
    sortOptions = false,
    description = {
        "Counters and errors of running jfabric processes, read from their counters files (as AeronStat).",
        "Without options lists the processes; --pid/--counters/--watch print counters; --errors the error log." })
public final class StatCommand implements Callable<Integer>
{
    /** Milliseconds between samples of {@code --watch} without {@code --interval}. */
    public static final long DEFAULT_INTERVAL_MS = 1000;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR",
        description = "counters directory (default: -Djfabric.counters.dir, JFABRIC_COUNTERS_DIR, " +
        "else /dev/shm/jfabric-<uid>)")
    private Path dir;

    @Option(names = "--pid", paramLabel = "N", description = "the process to read (its live file first)")
    private Long pid;

    @Option(names = "--file", paramLabel = "PATH", description = "the counters file to read")
    private Path file;

    @Option(names = { "-c", "--counters" },
        description = "print the counters of --pid, --file, or else of the only live process")
    private boolean counters;

    @Option(names = { "-w", "--watch" }, description = "print the counters every --interval, with rates per second")
    private boolean watch;

    @Option(names = "--count", paramLabel = "N", description = "--watch: stop after N samples (default: Ctrl-C)")
    private Integer count;

    @Option(names = "--interval", paramLabel = "MS", description = "--watch: milliseconds between samples " +
        "(default: " + DEFAULT_INTERVAL_MS + ")")
    private long intervalMs = DEFAULT_INTERVAL_MS;

    @Option(names = { "-e", "--errors" }, description = "print the distinct error log (counts, first and last time)")
    private boolean errors;

    @Option(names = "--reclaim", description = "remove the files of dead processes, then list")
    private boolean reclaim;

    @Option(names = "--json", description = "print JSON (--watch: one object per line)")
    private boolean json;

    @Option(names = { "-h", "--help" }, usageHelp = true, description = "show this help")
    private boolean help;

    /**
     * A reason to stop with a one-line message and an exit code.
     */
    private static final class Refusal extends RuntimeException
    {
        private static final long serialVersionUID = 1L;
        private final int exitCode;

        Refusal(final int exitCode, final String message)
        {
            super(message, null, false, false);
            this.exitCode = exitCode;
        }
    }

    /**
     * Runs the chosen mode.
     *
     * @return the exit code.
     */
    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        try
        {
            checkOptions();
            // JFABRIC_COUNTERS_DIR, as a process that opens a domain would read it
            Configuration.applyEnvironment();
            final Path directory = null != dir ? dir : StatReader.defaultDirectory();
            if (errors)
            {
                return printErrors(out, select(directory));
            }
            if (watch || counters || null != pid || null != file)
            {
                return printCounters(out, err, select(directory));
            }
            return list(out, directory);
        }
        catch (final Refusal ex)
        {
            out.flush();
            err.println("jfabric stat: " + ex.getMessage());
            err.flush();
            return ex.exitCode;
        }
        catch (final FabricException ex)
        {
            out.flush();
            err.println("jfabric stat: " + ex.getMessage());
            err.flush();
            return JfabricCommand.EXIT_NO_MATCH;
        }
        catch (final LinkageError ex)
        {
            // Agrona's buffers need the flag ./jfabric and jfabric.jar's manifest pass (as Fabric says for a domain)
            out.flush();
            err.println("jfabric stat: cannot use jdk.internal.misc (" + ex + "); start the JVM with " +
                Fabric.JVM_FLAG);
            err.flush();
            return JfabricCommand.EXIT_NO_MATCH;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            out.flush();
            return JfabricCommand.EXIT_OK;
        }
    }

    private void checkOptions()
    {
        if (null != pid && null != file)
        {
            throw new Refusal(JfabricCommand.EXIT_BAD_INPUT, "--pid and --file both name the process; give one");
        }
        if (reclaim && (errors || watch || counters || null != pid || null != file))
        {
            throw new Refusal(JfabricCommand.EXIT_BAD_INPUT, "--reclaim lists; it takes no --pid, --file, " +
                "--counters, --watch or --errors");
        }
        if (errors && watch)
        {
            throw new Refusal(JfabricCommand.EXIT_BAD_INPUT, "--errors prints once; it takes no --watch");
        }
        if (null != count && (!watch || count < 1))
        {
            throw new Refusal(JfabricCommand.EXIT_BAD_INPUT, "--count N (N >= 1) goes with --watch");
        }
        if (intervalMs < 1)
        {
            throw new Refusal(JfabricCommand.EXIT_BAD_INPUT, "--interval must be at least 1 ms");
        }
    }

    private int list(final PrintWriter out, final Path directory)
    {
        List<StatFile> reclaimed = null;
        if (reclaim)
        {
            final List<StatFile> before = StatFile.list(directory);
            StatReader.reclaimStale(directory);
            final Set<Path> remaining = new HashSet<>(StatReader.list(directory));
            reclaimed = before.stream().filter((f) -> !f.alive() && !remaining.contains(f.path()))
                .collect(Collectors.toList());
        }
        final List<StatFile> files = StatFile.list(directory);
        if (files.isEmpty() && !reclaim)
        {
            throw new Refusal(JfabricCommand.EXIT_NO_MATCH, "no counters files in " + directory +
                " (no jfabric process has a domain open; another directory: --dir or -Djfabric.counters.dir)");
        }
        final long now = System.currentTimeMillis();
        out.print(json ? StatOutput.listJson(directory.toString(), files, reclaimed, now) :
            StatOutput.listText(directory.toString(), files, reclaimed, now));
        out.flush();
        return JfabricCommand.EXIT_OK;
    }

    /**
     * The file to read: {@code --file}; the file of {@code --pid} (a live one first, then the newest); or the only
     * live process's.
     */
    private StatFile select(final Path directory)
    {
        final StatFile chosen;
        if (null != file)
        {
            if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS))
            {
                throw new Refusal(JfabricCommand.EXIT_NO_MATCH, "no counters file " + file);
            }
            chosen = StatFile.of(file);
            if (null == chosen)
            {
                throw new Refusal(JfabricCommand.EXIT_NO_MATCH, "no counters file " + file);
            }
        }
        else
        {
            final List<StatFile> files = StatFile.list(directory);
            if (files.isEmpty())
            {
                throw new Refusal(JfabricCommand.EXIT_NO_MATCH, "no counters files in " + directory +
                    " (no jfabric process has a domain open; another directory: --dir or -Djfabric.counters.dir)");
            }
            chosen = null != pid ? ofPid(directory, files, pid) : onlyLive(directory, files);
        }
        if (!chosen.readable())
        {
            throw new Refusal(JfabricCommand.EXIT_NO_MATCH, "counters file " + chosen.path() + ": " +
                chosen.defect());
        }
        return chosen;
    }

    private static StatFile ofPid(final Path directory, final List<StatFile> files, final long pid)
    {
        StatFile best = null;
        for (final StatFile f : files)
        {
            if (f.pid() == pid && (null == best || rank(f) > rank(best) ||
                rank(f) == rank(best) && f.creationMs() > best.creationMs()))
            {
                best = f;
            }
        }
        if (null == best)
        {
            throw new Refusal(JfabricCommand.EXIT_BAD_INPUT, "no counters file of pid " + pid + " in " + directory +
                " (pids there: " + files.stream().map((f) -> Long.toString(f.pid())).distinct()
                .collect(Collectors.joining(", ")) + ")");
        }
        return best;
    }

    /** A readable live file first, then a readable file, then the rest. */
    private static int rank(final StatFile f)
    {
        return (f.readable() ? 2 : 0) + (f.alive() ? 1 : 0);
    }

    private static StatFile onlyLive(final Path directory, final List<StatFile> files)
    {
        final List<StatFile> live = files.stream().filter((f) -> f.alive() && f.readable())
            .collect(Collectors.toList());
        if (live.size() == 1)
        {
            return live.get(0);
        }
        if (live.isEmpty())
        {
            throw new Refusal(JfabricCommand.EXIT_NO_MATCH, "no live jfabric process in " + directory + " (" +
                files.size() + " stale or unreadable file" + (files.size() == 1 ? "" : "s") +
                ": --pid reads one, --reclaim removes the stale)");
        }
        throw new Refusal(JfabricCommand.EXIT_BAD_INPUT, live.size() + " live jfabric processes in " + directory +
            " (pids " + live.stream().map((f) -> Long.toString(f.pid())).collect(Collectors.joining(", ")) +
            "): choose one with --pid");
    }

    private int printCounters(final PrintWriter out, final PrintWriter err, final StatFile chosen)
        throws InterruptedException
    {
        try (StatReader reader = StatReader.open(chosen.path()))
        {
            StatFile current = chosen;
            StatSample previous = null;
            int samples = 0;
            while (true)
            {
                final StatSample sample = StatSample.read(reader);
                out.print(json ? StatOutput.sampleJson(current, sample, !watch) :
                    (samples > 0 ? "\n" : "") + StatOutput.sampleText(current, sample, previous));
                out.flush();
                samples++;
                if (!watch || (null != count && samples >= count))
                {
                    return JfabricCommand.EXIT_OK;
                }
                if (!current.alive())
                {
                    err.println("jfabric stat: pid " + current.pid() + " is " + current.state() +
                        " (its counters no longer change); stopped watching");
                    err.flush();
                    return JfabricCommand.EXIT_OK;
                }
                TimeUnit.MILLISECONDS.sleep(intervalMs);
                if (!Files.exists(current.path(), LinkOption.NOFOLLOW_LINKS))
                {
                    err.println("jfabric stat: pid " + current.pid() + " closed its counters file " +
                        current.path() + "; stopped watching");
                    err.flush();
                    return JfabricCommand.EXIT_OK;
                }
                current = withState(current, StatReader.liveness(current.path()));
                previous = sample;
            }
        }
    }

    private static StatFile withState(final StatFile f, final StatReader.Liveness liveness)
    {
        final String state = StatReader.Liveness.ALIVE == liveness ? StatFile.ALIVE :
            StatReader.Liveness.DEAD == liveness ? StatFile.STALE : "unknown";
        return new StatFile(f.path(), f.pid(), f.processStartMs(), f.creationMs(), state, f.defect());
    }

    private int printErrors(final PrintWriter out, final StatFile chosen)
    {
        final List<StatOutput.Error> log = new ArrayList<>();
        try (StatReader reader = StatReader.open(chosen.path()))
        {
            reader.readErrors((observations, firstMs, lastMs, text) ->
                log.add(new StatOutput.Error(observations, firstMs, lastMs, text)));
        }
        out.print(json ? StatOutput.errorsJson(chosen, log, System.currentTimeMillis()) :
            StatOutput.errorsText(chosen, log));
        out.flush();
        return JfabricCommand.EXIT_OK;
    }
}
