package io.jfabric.cli;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The peers that are programs on this machine, run only when installed: libfabric's {@code fi_pingpong} (server
 * and client processes over its {@code shm} provider on loopback control ports) and UCX's {@code ucx_perftest}.
 * They report a mean, not a distribution: {@code fi_pingpong}'s {@code usec/xfer} is a one-way time, so its round
 * trip is twice that. A peer that is not on {@code PATH} is named as missing; nothing is ever estimated in its
 * place.
 * <p>
 * Control path; not thread-safe.
 */
final class BenchExternal
{
    /** {@code fi_pingpong}'s table row: bytes, #sent, #ack, total, time, MB/sec, usec/xfer, Mxfers/sec. */
    private static final Pattern ROW = Pattern.compile(
        "^\\s*(\\d+[kmg]?)\\s+\\S+\\s+\\S+\\s+\\S+\\s+\\S+s\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s*$");

    private BenchExternal()
    {
    }

    /**
     * Where {@code program} is on {@code PATH}.
     *
     * @param program the name.
     * @return the file, or null when not installed.
     */
    static File which(final String program)
    {
        final String path = System.getenv("PATH");
        if (null == path)
        {
            return null;
        }
        for (final String dir : path.split(File.pathSeparator))
        {
            final File f = new File(dir, program);
            if (f.isFile() && f.canExecute())
            {
                return f;
            }
        }
        return null;
    }

    /**
     * Run {@code fi_pingpong} server and client over libfabric's {@code shm} provider.
     *
     * @param program    the program.
     * @param tagged     tagged or untagged (fi_pingpong's {@code -m}).
     * @param size       message size.
     * @param iterations round trips.
     * @param timeoutMs  the longest the pair may take.
     * @param running    the processes started (so that a signal can stop them).
     * @return the mean round trip in ns.
     * @throws IOException when the processes fail or print no row.
     */
    static double fiPingpong(final File program, final boolean tagged, final int size, final int iterations,
        final long timeoutMs, final List<Process> running) throws IOException
    {
        final int port = freePort();
        final List<String> common = new ArrayList<>(List.of(program.getPath(), "-p", "shm", "-e", "rdm",
            "-m", tagged ? "tagged" : "msg", "-I", Integer.toString(iterations), "-S", Integer.toString(size)));
        final List<String> server = new ArrayList<>(common);
        server.addAll(List.of("-B", Integer.toString(port)));
        final List<String> client = new ArrayList<>(common);
        client.addAll(List.of("-P", Integer.toString(port), "127.0.0.1"));
        final Process s = new ProcessBuilder(server).redirectErrorStream(true).start();
        running.add(s);
        try
        {
            final String serverOut = awaitListening(s);
            Process c = null;
            String out = "";
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            // the server may not listen yet: retry the client while it is refused and the server lives
            while (System.nanoTime() - deadline < 0)
            {
                c = new ProcessBuilder(client).redirectErrorStream(true).start();
                running.add(c);
                out = readAll(c.getInputStream());
                if (c.waitFor(timeoutMs, TimeUnit.MILLISECONDS) && 0 == c.exitValue() || !s.isAlive())
                {
                    break;
                }
                Thread.sleep(50);
            }
            if (null == c || c.isAlive() || 0 != c.exitValue())
            {
                throw new IOException("fi_pingpong client failed: " + firstLine(out) + firstLine(serverOut));
            }
            final Matcher m = ROW.matcher("");
            for (final String line : out.split("\n"))
            {
                if (m.reset(line).matches())
                {
                    return 2_000.0 * Double.parseDouble(m.group(3));
                }
            }
            throw new IOException("fi_pingpong printed no result row: " + firstLine(out));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        finally
        {
            for (final Process p : running)
            {
                p.destroyForcibly();
            }
            running.clear();
        }
    }

    private static String awaitListening(final Process server) throws InterruptedException
    {
        // fi_pingpong prints nothing until the client came; give it a moment to bind its control port
        server.waitFor(200, TimeUnit.MILLISECONDS);
        return server.isAlive() ? "" : " (server: exit " + server.exitValue() + ")";
    }

    private static String readAll(final InputStream in) throws IOException
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        in.transferTo(bytes);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static String firstLine(final String text)
    {
        final String t = text.strip();
        final int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }
}
