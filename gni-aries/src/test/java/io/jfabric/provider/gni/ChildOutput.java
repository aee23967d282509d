package io.jfabric.provider.gni;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The stdout of a child process, line by line: a daemon thread drains it into a queue from the start (a child never
 * blocks on a full pipe) and queues {@link #EOF} once the stream ended. A child that has exited may still have lines
 * in the pipe that the thread has not read yet: read them with {@link #untilEof}, never with a non-blocking poll.
 * <p>
 * Threading: one reader thread per child; {@link #poll} and {@link #untilEof} from the test thread. (The gni tests
 * do not see the providers module's test classes: this is its copy for them.)
 */
public final class ChildOutput
{
    /** The line queued after the child's last line, once its output ended. */
    public static final String EOF = "EOF";

    private final String name;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();

    /**
     * Start draining the child's stdout.
     *
     * @param process the child.
     * @param name    for the reader thread's name and messages.
     */
    public ChildOutput(final Process process, final String name)
    {
        this.name = name;
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII)))
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
            lines.add(EOF);
        }, "child-out-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * The next line.
     *
     * @param timeout the longest wait.
     * @param unit    its unit.
     * @return the line, {@link #EOF} once the output ended, or null when none came in time.
     * @throws InterruptedException when interrupted.
     */
    public String poll(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        return lines.poll(timeout, unit);
    }

    /**
     * Every line up to the end of the output (the child has exited, or is about to), waiting for the reader to
     * reach it; fails the test when the output has not ended within {@code timeoutNs}.
     *
     * @param timeoutNs the watchdog.
     * @return the lines, {@link #EOF} excluded.
     * @throws InterruptedException when interrupted.
     */
    public List<String> untilEof(final long timeoutNs) throws InterruptedException
    {
        final List<String> rest = new ArrayList<>();
        final long deadline = System.nanoTime() + timeoutNs;
        while (true)
        {
            final String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (null == line)
            {
                fail("the output of " + name + " did not end within " + timeoutNs / 1_000_000 + " ms: " + rest);
            }
            if (EOF.equals(line))
            {
                return rest;
            }
            rest.add(line);
        }
    }
}
