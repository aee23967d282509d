package io.jfabric.provider.aeron;

import io.jfabric.provider.ChildOutput;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A child JVM running {@link AeronNode} (or another main class of the tests), possibly inside a network namespace:
 * commands go to its stdin, answers are read from its stdout line by line with a bounded wait; its stderr goes to
 * {@code target/aeron-children/}. {@link #close} ends it with {@code EXIT} (so its fabric deletes its driver's
 * directory), forcibly when it does not go within 30 s.
 * <p>
 * Threading: one test thread (a daemon thread reads the output).
 */
final class NodeProcess implements AutoCloseable
{
    /**
     * Seconds a child has to exit (after {@code EXIT}, or after {@code kill -9}): a watchdog, longer than a loaded
     * host needs; 10 s turned a slow clean exit into a kill that leaves the child's driver directory behind.
     */
    private static final long EXIT_WATCHDOG_S = 30;

    private final Process process;
    private final OutputStream stdin;
    private final ChildOutput lines;
    private final String name;

    private NodeProcess(final String name, final Process process)
    {
        this.name = name;
        this.process = process;
        this.stdin = process.getOutputStream();
        this.lines = new ChildOutput(process, "node-" + name);
    }

    /**
     * The java command of a child JVM of the tests with the test class path.
     *
     * @param mainClass  the class to run.
     * @param properties {@code -D} settings.
     * @return the command.
     */
    static List<String> javaCommand(final Class<?> mainClass, final List<String> properties)
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-Xmx384m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
            "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens", "java.base/java.nio=ALL-UNNAMED"));
        for (final String property : properties)
        {
            command.add("-D" + property);
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
        return command;
    }

    /**
     * Start a child.
     *
     * @param name    for the log file and messages.
     * @param command the whole command.
     * @return the child.
     * @throws IOException when it cannot start.
     */
    static NodeProcess start(final String name, final List<String> command) throws IOException
    {
        final Path logs = Paths.get("target", "aeron-children");
        Files.createDirectories(logs);
        final Process process = new ProcessBuilder(command)
            .redirectError(logs.resolve(name + "-" + System.nanoTime() + ".log").toFile()).start();
        return new NodeProcess(name, process);
    }

    /**
     * @return the child's process id.
     */
    long pid()
    {
        return process.pid();
    }

    /**
     * @return the process.
     */
    Process process()
    {
        return process;
    }

    /**
     * Send a command line.
     *
     * @param line the command.
     */
    void send(final String line)
    {
        try
        {
            stdin.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
            stdin.flush();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(name + ": cannot send '" + line + "': " + ex);
        }
    }

    /**
     * Wait for the next line, which must start with a prefix.
     *
     * @param prefix  the expected start ("READY ").
     * @param seconds the longest wait.
     * @return the rest of the line after the prefix.
     * @throws InterruptedException when interrupted.
     */
    String expect(final String prefix, final long seconds) throws InterruptedException
    {
        final String line = lines.poll(seconds, TimeUnit.SECONDS);
        assertTrue(null != line, name + " said nothing within " + seconds + " s (waiting for " + prefix + ")");
        assertTrue(line.startsWith(prefix), name + ": '" + line + "' instead of " + prefix);
        return line.substring(prefix.length()).trim();
    }

    /**
     * Send a command and wait for its answer.
     *
     * @param line    the command.
     * @param prefix  the expected answer's start.
     * @param seconds the longest wait.
     * @return the rest of the answer.
     * @throws InterruptedException when interrupted.
     */
    String call(final String line, final String prefix, final long seconds) throws InterruptedException
    {
        send(line);
        return expect(prefix, seconds);
    }

    /**
     * Ask for {@code ECHO peer} until the node answers {@code ECHO OK} (a peer reachable again after a fall), a
     * retry every 200 ms; fails the test when it never does within {@code seconds}.
     *
     * @param peer    the peer's index in the node's address vector.
     * @param seconds how long the peer has to answer again.
     * @throws InterruptedException when interrupted.
     */
    void echoUntilOk(final int peer, final long seconds) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        String answer;
        while (!(answer = call("ECHO " + peer, "", 60)).startsWith("ECHO OK"))
        {
            assertTrue(System.nanoTime() - deadline < 0, "peer " + peer + " never answered again: " + answer);
            Thread.sleep(200);
        }
    }

    /**
     * {@code kill -9} the child and wait for it to be gone.
     *
     * @throws InterruptedException when interrupted.
     */
    void kill() throws InterruptedException
    {
        process.destroyForcibly();
        assertTrue(process.waitFor(EXIT_WATCHDOG_S, TimeUnit.SECONDS), name + " did not die");
    }

    /**
     * End the child: {@code EXIT} and a closed stdin, then a kill after 30 s.
     */
    @Override
    public void close()
    {
        try
        {
            if (process.isAlive())
            {
                try
                {
                    send("EXIT");
                    stdin.close();
                }
                catch (final IOException | IllegalStateException ex)
                {
                    // it is going anyway
                }
                if (!process.waitFor(EXIT_WATCHDOG_S, TimeUnit.SECONDS))
                {
                    process.destroyForcibly();
                    process.waitFor(EXIT_WATCHDOG_S, TimeUnit.SECONDS);
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
