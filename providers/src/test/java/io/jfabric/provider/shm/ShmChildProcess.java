package io.jfabric.provider.shm;

import io.jfabric.Domain;
import io.jfabric.Progress;
import io.jfabric.provider.ChildOutput;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * A real child JVM running {@link ShmChild}: same class path and module opens as this JVM, a small heap, C1 only.
 * Commands go to its stdin, answers come back line by line; every wait has a deadline and drives the given
 * domains meanwhile (a MANUAL-progress parent must keep its own agent running while the child works).
 */
final class ShmChildProcess implements AutoCloseable
{
    private static final String[] OPENS = {
        "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/java.util.zip=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens", "java.base/java.nio=ALL-UNNAMED"};

    final String name;
    final Process process;
    final String address;
    /** The first line of a child started with {@link #startOrFailure} that did not get ready, else null. */
    final String failure;
    private final ChildOutput lines;
    private final OutputStream stdin;
    private final Path log;

    private ShmChildProcess(
        final String name, final Process process, final Path log, final boolean mayFail, final Domain... progress)
    {
        this.name = name;
        this.process = process;
        this.log = log;
        this.stdin = process.getOutputStream();
        this.lines = new ChildOutput(process, name);
        final String ready = mayFail ? next(ShmTests.START_DEADLINE_NS, progress) :
            await(ShmTests.START_DEADLINE_NS, progress);
        if (!ready.startsWith("READY "))
        {
            if (!mayFail)
            {
                fail("child " + name + " did not start: " + ready + diagnostics());
            }
            this.failure = ready;
            this.address = null;
            return;
        }
        this.failure = null;
        this.address = ready.substring("READY ".length());
    }

    /**
     * Start a child owning the domain {@code name} in the given ring directory.
     */
    static ShmChildProcess start(final Path dir, final String name, final Progress progress, final Domain... drive)
        throws IOException
    {
        return launch(dir, name, progress, List.of(), false, drive);
    }

    /**
     * Start a child with extra JVM options ({@code -Dkey=value}) that may fail to open its domain: its first line
     * is then in {@link #failure} (for example {@code FAILED ENOSPC ...}) and {@link #address} is null.
     */
    static ShmChildProcess startOrFailure(
        final Path dir, final String name, final Progress progress, final List<String> options) throws IOException
    {
        return launch(dir, name, progress, options, true);
    }

    private static ShmChildProcess launch(
        final Path dir,
        final String name,
        final Progress progress,
        final List<String> options,
        final boolean mayFail,
        final Domain... drive) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx128m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-Xshare:auto");
        command.addAll(List.of(OPENS));
        command.add("-D" + ShmConfiguration.DIR_PROP + "=" + dir);
        command.addAll(options);
        for (final String flow : new String[]{io.jfabric.agent.FlowControl.CREDITS_PROP,
            io.jfabric.agent.FlowControl.CREDIT_BYTES_PROP})
        {
            // The parent's flow-control settings apply to its children too.
            if (null != System.getProperty(flow))
            {
                command.add("-D" + flow + "=" + System.getProperty(flow));
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ShmChild.class.getName());
        command.add(name);
        command.add(progress.name());
        final Path logs = Paths.get("target", "shm-children");
        Files.createDirectories(logs);
        final Path log = logs.resolve(name + "-" + System.nanoTime() + ".log");
        final Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
        return new ShmChildProcess(name, process, log, mayFail, drive);
    }

    /**
     * @return the child's pid.
     */
    long pid()
    {
        return process.pid();
    }

    /**
     * Send a command without waiting for its answer.
     */
    void send(final String command)
    {
        try
        {
            stdin.write((command + "\n").getBytes(StandardCharsets.US_ASCII));
            stdin.flush();
        }
        catch (final IOException ex)
        {
            fail("child " + name + " does not take commands: " + ex + diagnostics());
        }
    }

    /**
     * The next answer line, driving {@code progress} while waiting.
     */
    String await(final Domain... progress)
    {
        return await(ShmTests.DEADLINE_NS, progress);
    }

    private String await(final long timeoutNs, final Domain... progress)
    {
        final String line = next(timeoutNs, progress);
        if (line.startsWith("ERROR") || "EOF".equals(line))
        {
            fail("child " + name + ": " + line + diagnostics());
        }
        return line;
    }

    /**
     * The next line, whatever it says ({@code EOF} when the child's output ended).
     */
    private String next(final long timeoutNs, final Domain... progress)
    {
        final long deadline = System.nanoTime() + timeoutNs;
        try
        {
            while (true)
            {
                final String line = lines.poll(progress.length > 0 ? 0 : 10, TimeUnit.MILLISECONDS);
                if (null != line)
                {
                    return line;
                }
                if (System.nanoTime() - deadline > 0)
                {
                    fail("child " + name + " did not answer in time" + diagnostics());
                }
                ShmTests.progress(progress);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Wait for the child to end.
     *
     * @return its exit code.
     */
    int awaitExit() throws InterruptedException
    {
        if (!process.waitFor(ShmTests.DEADLINE_NS, TimeUnit.NANOSECONDS))
        {
            fail("child " + name + " did not exit" + diagnostics());
        }
        return process.exitValue();
    }

    /**
     * @return true when the JVM of this child wrote a crash log ({@code hs_err_pid<pid>.log} in the working
     * directory, the child's too).
     */
    boolean crashed()
    {
        return Files.exists(Paths.get("hs_err_pid" + pid() + ".log"));
    }

    /**
     * Send a command and wait for its answer.
     */
    String call(final String command, final Domain... progress)
    {
        send(command);
        return await(progress);
    }

    /**
     * {@code kill -9}.
     */
    void kill() throws InterruptedException
    {
        process.destroyForcibly();
        if (!process.waitFor(ShmTests.DEADLINE_NS, TimeUnit.NANOSECONDS))
        {
            fail("child " + name + " survived SIGKILL");
        }
    }

    private String diagnostics()
    {
        try
        {
            final File file = log.toFile();
            return file.exists() ? "\n--- child stderr ---\n" + Files.readString(log) : "";
        }
        catch (final IOException ex)
        {
            return "";
        }
    }

    /**
     * Ask the child to exit cleanly (it closes its domain); kill it if it does not.
     */
    @Override
    public void close() throws InterruptedException
    {
        if (process.isAlive())
        {
            try
            {
                stdin.write("exit\n".getBytes(StandardCharsets.US_ASCII));
                stdin.flush();
            }
            catch (final IOException ignore)
            {
                // already gone
            }
            // The watchdog, not a shorter wait: a child closing its domain under load can take longer than 20 s,
            // and a kill then turns its clean exit into 137 for the tests that assert exit code 0 after close.
            if (!process.waitFor(ShmTests.DEADLINE_NS, TimeUnit.NANOSECONDS))
            {
                process.destroyForcibly();
                process.waitFor(ShmTests.DEADLINE_NS, TimeUnit.NANOSECONDS);
            }
        }
    }
}
