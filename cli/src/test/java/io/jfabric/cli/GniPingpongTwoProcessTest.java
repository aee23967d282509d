package io.jfabric.cli;

import org.junit.jupiter.api.AfterEach;
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
 * {@code jfabric pingpong -p gni} across two processes: server and client are child JVMs, each with
 * {@code -Djfabric.gni.wire=shm} and the same node directory and shm folder (one emulated Cray system on this host),
 * each domain its own emulated Aries node. A tagged run with data checks over RDM, and over MSG endpoints connected
 * through the CM NICs' datagrams; both sides print the client's figures.
 */
@Timeout(240) // two child JVMs on a loaded host: the waits below are the watchdogs
class GniPingpongTwoProcessTest
{
    private static final Pattern PORT = Pattern.compile("listening on control port (\\d+)");
    private static final String[] OPENS = {
        "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/java.util.zip=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens", "java.base/java.nio=ALL-UNNAMED"};

    @TempDir
    Path dir;

    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void kill()
    {
        for (final Process p : children)
        {
            p.destroyForcibly();
        }
    }

    private Process child(final String name, final String... args) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.addAll(List.of(OPENS));
        command.add("-Djfabric.gni.wire=shm");
        command.add("-Djfabric.gni.directory=" + dir.resolve("gni-directory"));
        command.add("-Djfabric.shm.dir=" + dir.resolve("shm"));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(JfabricCommand.class.getName());
        command.addAll(List.of(args));
        final Process p = new ProcessBuilder(command)
            .redirectOutput(dir.resolve(name + ".out").toFile())
            .redirectError(dir.resolve(name + ".err").toFile())
            .start();
        children.add(p);
        return p;
    }

    private String read(final String file) throws IOException
    {
        final Path path = dir.resolve(file);
        return Files.exists(path) ? Files.readString(path, StandardCharsets.UTF_8) : "";
    }

    @Test
    void shouldRunTaggedPingpongOverGniBetweenTwoProcessesWithChecks() throws Exception
    {
        run("rdm");
    }

    /** FI_EP_MSG: the connection request and accept cross the processes as datagrams of the CM NICs. */
    @Test
    void shouldConnectMsgEndpointsOverGniBetweenTwoProcessesAndRunWithChecks() throws Exception
    {
        run("msg");
    }

    private void run(final String epType) throws Exception
    {
        final Process server = child("server", "pingpong", "--server", "-B", "0", "-p", "gni", "-e", epType,
            "--idle", "yield", "--timeout", "60", "--json");
        int port = -1;
        // A start watchdog: the server is a child JVM (with its media driver or node) on a possibly loaded host, where
        // 40 s was seen too short.
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (port < 0)
        {
            final Matcher m = PORT.matcher(read("server.err"));
            if (m.find())
            {
                port = Integer.parseInt(m.group(1));
            }
            else if (!server.isAlive())
            {
                fail("server exited " + server.exitValue() + ": " + read("server.err"));
            }
            else if (System.nanoTime() - deadline > 0)
            {
                fail("server did not listen: " + read("server.err"));
            }
            else
            {
                Thread.sleep(20);
            }
        }
        final Process client = child("client", "pingpong", "127.0.0.1", "-P", Integer.toString(port), "-p", "gni",
            "-e", epType, "--idle", "yield", "--timeout", "60", "-S", "64", "-I", "2000", "--warmup", "100", "-c",
            "--json");
        assertTrue(client.waitFor(120, TimeUnit.SECONDS), read("client.err"));
        assertTrue(server.waitFor(30, TimeUnit.SECONDS), read("server.err"));
        assertEquals(0, client.exitValue(), read("client.err"));
        assertEquals(0, server.exitValue(), read("server.err"));
        final Map<String, Object> c = Json.object(Json.parse(read("client.out")));
        final Map<String, Object> s = Json.object(Json.parse(read("server.out")));
        assertEquals("gni", c.get("provider"));
        assertEquals(64.0, Json.number(c, "size"));
        assertEquals(2000.0, Json.number(c, "acked"));
        assertEquals(2000.0, Json.number(s, "iterations"));
        final Map<String, Object> clientRtt = Json.object(c.get("rtt_ns"));
        assertTrue(Json.number(clientRtt, "p50") > 0);
        assertTrue(Json.number(clientRtt, "p50") <= Json.number(clientRtt, "p99"));
        assertEquals(clientRtt, Json.object(s.get("rtt_ns")), "the server prints the client's percentiles");
    }
}
