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
 * {@code jfabric pingpong} across two processes over shm: the server is a child JVM ({@code JfabricCommand
 * pingpong --server}), the client runs in this JVM. A full run with data checks, and a server killed with
 * SIGKILL while the client runs.
 */
@Timeout(60)
class PingpongTwoProcessTest
{
    private static final Pattern PORT = Pattern.compile("listening on control port (\\d+)");
    private static final String[] OPENS = {
        "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/java.util.zip=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens", "java.base/java.nio=ALL-UNNAMED"};

    @TempDir
    Path dir;

    private Process server;

    @AfterEach
    void killServer()
    {
        if (null != server)
        {
            server.destroyForcibly();
        }
    }

    private int startServer(final String... extra) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.addAll(List.of(OPENS));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(JfabricCommand.class.getName());
        command.add("pingpong");
        command.add("--server");
        command.add("-B");
        command.add("0");
        command.add("-p");
        command.add("shm");
        command.add("--idle");
        command.add("yield");
        command.add("--timeout");
        command.add("20");
        command.addAll(List.of(extra));
        server = new ProcessBuilder(command)
            .redirectOutput(dir.resolve("server.out").toFile())
            .redirectError(dir.resolve("server.err").toFile())
            .start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline)
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

    @Test
    void shouldRunAcrossProcessesOverShmWithChecksAndPrintTheSameFiguresOnBothSides() throws Exception
    {
        final int port = startServer("--json");

        final PingpongCommandTest.Run client = new PingpongCommandTest.Run().exec("pingpong", "127.0.0.1", "-P",
            Integer.toString(port), "-p", "shm", "--idle", "yield", "--timeout", "20", "-S", "10000", "-I", "2000",
            "--warmup", "100", "-c", "--json");

        assertTrue(server.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, client.code, client.err());
        assertEquals(0, server.exitValue(), read("server.err"));
        final Map<String, Object> c = Json.object(Json.parse(client.out()));
        final Map<String, Object> s = Json.object(Json.parse(read("server.out")));
        assertEquals("shm", c.get("provider"));
        assertEquals("MANUAL", c.get("progress"), "shm's default");
        assertEquals(10000.0, Json.number(c, "size"));
        assertEquals(2000.0, Json.number(c, "acked"));
        assertEquals(2000.0, Json.number(s, "iterations"));
        assertEquals(2000.0, Json.number(s, "acked"), "the server reports the client's count");
        final Map<String, Object> clientRtt = Json.object(c.get("rtt_ns"));
        final Map<String, Object> serverRtt = Json.object(s.get("rtt_ns"));
        assertTrue(Json.number(clientRtt, "p50") > 0);
        assertTrue(Json.number(clientRtt, "p50") <= Json.number(clientRtt, "p99"));
        assertTrue(Json.number(clientRtt, "p99") <= Json.number(clientRtt, "max"));
        assertEquals(clientRtt, serverRtt, "the server prints the client's percentiles");
    }

    @Test
    void shouldExitOneNamingThePeerWhenTheServerIsKilledMidRun() throws Exception
    {
        final int port = startServer("-v");
        final PingpongCommandTest.Run client = new PingpongCommandTest.Run();
        final Thread run = new Thread(() -> client.exec("pingpong", "127.0.0.1", "-P", Integer.toString(port), "-p",
            "shm", "--idle", "yield", "--timeout", "20", "-I", "2000000000", "--warmup", "0"), "test-client");
        run.setDaemon(true);
        run.start();
        // the server reports (-v) that it answered READY: the client's run of 2e9 round trips is under way
        awaitServerError("64 B run started");
        server.destroyForcibly();
        run.join(30_000);

        assertEquals(1, client.code, client.err());
        assertEquals(1, client.err().lines().count(), client.err());
        assertTrue(client.err().contains("the peer at 127.0.0.1:" + port + " closed the control connection during"),
            client.err());
        assertEquals("", client.out());
    }

    private void awaitServerError(final String text) throws IOException, InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!read("server.err").contains(text))
        {
            if (!server.isAlive())
            {
                fail("server exited " + server.exitValue() + ": " + read("server.err"));
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("server never reported '" + text + "': " + read("server.err"));
            }
            Thread.sleep(10);
        }
    }
}
