package io.jfabric.stat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * A real child JVM running {@link CountersChild} with this JVM's class path: commands on its stdin, answers line by
 * line from its stdout, each wait bounded by a watchdog deadline (never a timed assertion), stderr in
 * {@code target/counters-children}.
 */
public final class ChildJvm implements AutoCloseable
{
    /** Watchdog of every wait. */
    static final long DEADLINE_MS = 60_000;

    private final Process process;
    private final OutputStream stdin;
    private final Path log;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private ChildJvm(final Process process, final Path log)
    {
        this.process = process;
        this.log = log;
        this.stdin = process.getOutputStream();
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
            {
                String line;
                while (null != (line = out.readLine()))
                {
                    lines.add(line);
                }
            }
            catch (final IOException ignore)
            {
                // the child went away
            }
            lines.add("EOF");
        }, "counters-child-out");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Start {@link CountersChild} with the given arguments; this JVM's {@code jfabric.counters.dir} goes along.
     *
     * @param args the child's arguments.
     * @return the running child.
     * @throws IOException when it cannot start.
     */
    public static ChildJvm start(final String... args) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx64m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("--add-opens");
        command.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        command.add("--add-opens");
        command.add("java.base/java.nio=ALL-UNNAMED");
        command.add("--add-opens");
        command.add("java.base/sun.nio.ch=ALL-UNNAMED");
        final String dir = System.getProperty(CountersConfiguration.DIR_PROP);
        if (null != dir)
        {
            command.add("-D" + CountersConfiguration.DIR_PROP + "=" + dir);
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(CountersChild.class.getName());
        command.addAll(List.of(args));
        final Path logs = Paths.get("target", "counters-children");
        Files.createDirectories(logs);
        final Path log = logs.resolve(args[0] + "-" + System.nanoTime() + ".log");
        return new ChildJvm(new ProcessBuilder(command).redirectError(log.toFile()).start(), log);
    }

    /**
     * @return the child's pid.
     */
    public long pid()
    {
        return process.pid();
    }

    /**
     * The next line the child printed ({@code EOF} once its output ended), within the watchdog.
     *
     * @return the line.
     */
    public String line()
    {
        try
        {
            final String line = lines.poll(DEADLINE_MS, TimeUnit.MILLISECONDS);
            if (null == line)
            {
                fail("the child printed nothing within the watchdog" + diagnostics());
            }
            return line;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Every line up to the end of the child's output.
     *
     * @return the lines, {@code EOF} excluded.
     */
    public List<String> allLines()
    {
        final List<String> all = new ArrayList<>();
        for (String line = line(); !"EOF".equals(line); line = line())
        {
            all.add(line);
        }
        return all;
    }

    /**
     * Send a line to the child's stdin.
     *
     * @param command the line.
     * @throws IOException when the child is gone.
     */
    public void send(final String command) throws IOException
    {
        stdin.write((command + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
    }

    /**
     * Wait for the child's exit within the watchdog.
     *
     * @return its exit status.
     */
    public int exitStatus()
    {
        try
        {
            if (!process.waitFor(DEADLINE_MS, TimeUnit.MILLISECONDS))
            {
                fail("the child did not exit within the watchdog" + diagnostics());
            }
            return process.exitValue();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /**
     * @return the child's stderr so far, for failure messages.
     */
    public String diagnostics()
    {
        try
        {
            return "\nchild stderr (" + log + "):\n" + Files.readString(log);
        }
        catch (final IOException ex)
        {
            return "\n(no child stderr: " + ex + ")";
        }
    }

    @Override
    public void close()
    {
        process.destroyForcibly();
        try
        {
            process.waitFor(DEADLINE_MS, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
