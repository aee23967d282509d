package io.jfabric.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code jfabric pingpong -p aeron --server} and {@code jfabric pingpong -p aeron HOST} across two hosts: two Linux
 * network namespaces joined by a veth pair ({@code 10.78.0.1} and {@code 10.78.0.2}), one child JVM in each, each
 * aeron domain listening on its host's address ({@code jfabric.aeron.host}). 2000 round trips of 64 B tagged
 * messages with data checks; both sides print the same figures. Skipped, naming why, where the kernel or user
 * cannot make namespaces.
 */
@Timeout(240) // two child JVMs on a loaded host: the waits below are the watchdogs
class PingpongAeronNamespaceTest
{
    private static final Pattern PORT = Pattern.compile("listening on control port (\\d+)");
    private static final String[] OPENS = {
        "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/java.util.zip=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens", "java.base/java.nio=ALL-UNNAMED"};

    @TempDir
    Path dir;

    private final String prefix = "jfc" + ProcessHandle.current().pid();
    private final List<String> namespaces = new ArrayList<>();
    private Process server;
    private Process client;

    @AfterEach
    void cleanUp() throws InterruptedException
    {
        for (final Process p : new Process[]{client, server})
        {
            if (null != p)
            {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
        for (final String ns : namespaces)
        {
            run("ip", "netns", "del", ns);
        }
    }

    @Test
    void shouldRunAeronPingpongBetweenTwoNamespacesWithChecksAndTheSameFiguresOnBothSides() throws Exception
    {
        final String a = prefix + "a";
        final String b = prefix + "b";
        final String refused = run("ip", "netns", "add", a);
        Assumptions.assumeTrue(null == refused, "the kernel or user refuses network namespaces: " + refused);
        namespaces.add(a);
        must("ip", "netns", "add", b);
        namespaces.add(b);
        must("ip", "link", "add", "eth0", "netns", a, "type", "veth", "peer", "name", "eth0", "netns", b);
        must("ip", "-n", a, "addr", "add", "10.78.0.1/24", "dev", "eth0");
        must("ip", "-n", b, "addr", "add", "10.78.0.2/24", "dev", "eth0");
        for (final String ns : namespaces)
        {
            must("ip", "-n", ns, "link", "set", "eth0", "up");
            must("ip", "-n", ns, "link", "set", "lo", "up");
        }

        server = new ProcessBuilder(jfabric(a, "10.78.0.1", "pingpong", "--server", "-B", "0", "-p", "aeron",
            "--idle", "yield", "--timeout", "60", "--json"))
            .redirectOutput(dir.resolve("server.out").toFile())
            .redirectError(dir.resolve("server.err").toFile())
            .start();
        final int port = awaitPort();
        client = new ProcessBuilder(jfabric(b, "10.78.0.2", "pingpong", "10.78.0.1", "-P", Integer.toString(port),
            "-p", "aeron", "--idle", "yield", "--timeout", "60", "-S", "64", "-I", "2000", "--warmup", "100", "-c",
            "--json"))
            .redirectOutput(dir.resolve("client.out").toFile())
            .redirectError(dir.resolve("client.err").toFile())
            .start();
        assertTrue(client.waitFor(120, TimeUnit.SECONDS), "the client did not finish: " + read("client.err"));
        assertTrue(server.waitFor(20, TimeUnit.SECONDS), "the server did not finish: " + read("server.err"));
        assertEquals(0, client.exitValue(), read("client.err"));
        assertEquals(0, server.exitValue(), read("server.err"));
        final Map<String, Object> c = Json.object(Json.parse(read("client.out")));
        final Map<String, Object> s = Json.object(Json.parse(read("server.out")));
        assertEquals("aeron", c.get("provider"));
        assertEquals(64.0, Json.number(c, "size"));
        assertEquals(2000.0, Json.number(c, "acked"));
        assertEquals(2000.0, Json.number(s, "iterations"));
        final Map<String, Object> clientRtt = Json.object(c.get("rtt_ns"));
        assertTrue(Json.number(clientRtt, "p50") > 0);
        assertTrue(Json.number(clientRtt, "p50") <= Json.number(clientRtt, "p99"));
        assertEquals(clientRtt, Json.object(s.get("rtt_ns")), "the server prints the client's percentiles");
        System.out.println("jfabric pingpong -p aeron across two namespaces (loaded machine, not a benchmark): " +
            "64 B p50 " + Json.number(clientRtt, "p50") + " ns, p99 " + Json.number(clientRtt, "p99") + " ns");
    }

    private List<String> jfabric(final String ns, final String host, final String... args)
    {
        final List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC"));
        command.addAll(List.of(OPENS));
        command.add("-Djfabric.aeron.host=" + host);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(JfabricCommand.class.getName());
        command.addAll(List.of(args));
        return command;
    }

    private int awaitPort() throws IOException, InterruptedException
    {
        // A start watchdog: the server is a child JVM (with its media driver or node) on a possibly loaded host, where
        // 40 s was seen too short.
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() - deadline < 0)
        {
            final Matcher m = PORT.matcher(read("server.err"));
            if (m.find())
            {
                return Integer.parseInt(m.group(1));
            }
            if (!server.isAlive())
            {
                fail("server exited " + server.exitValue() + ": " + read("server.err"));
            }
            Thread.sleep(20);
        }
        throw new AssertionError("server did not listen: " + read("server.err"));
    }

    private String read(final String file) throws IOException
    {
        final Path path = dir.resolve(file);
        return Files.exists(path) ? Files.readString(path, StandardCharsets.UTF_8) : "";
    }

    private static void must(final String... command)
    {
        final String failed = run(command);
        if (null != failed)
        {
            throw new IllegalStateException(String.join(" ", command) + ": " + failed);
        }
    }

    private static String run(final String... command)
    {
        try
        {
            final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            final byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(20, TimeUnit.SECONDS))
            {
                p.destroyForcibly();
                return "timed out";
            }
            return 0 == p.exitValue() ? null : "exit " + p.exitValue() + ": " + new String(out, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return ex.toString();
        }
    }
}
