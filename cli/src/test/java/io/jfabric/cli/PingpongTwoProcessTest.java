package io.jfabric.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code jfabric pingpong} across two processes over shm: the server is a child JVM ({@code JfabricCommand
 * pingpong --server}), the client runs in this JVM. A full run with data checks, and a server killed with
 * SIGKILL while the client runs.
 */
@Timeout(180)
class PingpongTwoProcessTest
{
    /**
     * pingpong's {@code --timeout} (seconds) on both sides: the longest a side waits for the other, which may be a
     * child JVM still starting on a loaded host (20 s was too short there).
     */
    private static final String TIMEOUT_S = "60";
    /** Watchdog of every wait of the test itself. */
    private static final long DEADLINE_S = 60;
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
        return startServerOn("shm", extra);
    }

    private static List<String> childJvm()
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.addAll(List.of(OPENS));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(JfabricCommand.class.getName());
        return command;
    }

    private int startServerOn(final String provider, final String... extra) throws IOException, InterruptedException
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
        command.add(provider);
        command.add("--idle");
        command.add("yield");
        command.add("--timeout");
        command.add(TIMEOUT_S);
        command.addAll(List.of(extra));
        server = new ProcessBuilder(command)
            .redirectOutput(dir.resolve("server.out").toFile())
            .redirectError(dir.resolve("server.err").toFile())
            .start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
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
            Integer.toString(port), "-p", "shm", "--idle", "yield", "--timeout", TIMEOUT_S, "-S", "10000", "-I", "2000",
            "--warmup", "100", "-c", "--json");

        assertTrue(server.waitFor(DEADLINE_S, TimeUnit.SECONDS), read("server.err"));
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
            "shm", "--idle", "yield", "--timeout", TIMEOUT_S, "-I", "2000000000", "--warmup", "0"), "test-client");
        run.setDaemon(true);
        run.start();
        // the server reports (-v) that it answered READY: the client's run of 2e9 round trips is under way
        awaitServerError("64 B run started");
        server.destroyForcibly();
        run.join(TimeUnit.SECONDS.toMillis(DEADLINE_S));
        assertFalse(run.isAlive(), "watchdog: the client still runs: " + client.err());

        assertEquals(1, client.code, client.err());
        assertEquals(1, client.err().lines().count(), client.err());
        assertTrue(client.err().contains("the peer at 127.0.0.1:" + port + " closed the control connection during"),
            client.err());
        assertEquals("", client.out());
    }

    private void awaitServerError(final String text) throws IOException, InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
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

    @Test
    void shouldRefuseInprocBetweenTwoProcessesSayingWhy() throws Exception
    {
        final int port = startServerOn("inproc");

        final PingpongCommandTest.Run client = new PingpongCommandTest.Run().exec("pingpong", "127.0.0.1", "-P",
            Integer.toString(port), "-p", "inproc", "--idle", "yield", "--timeout", TIMEOUT_S, "-I", "10");

        assertTrue(server.waitFor(DEADLINE_S, TimeUnit.SECONDS), read("server.err"));
        assertEquals(1, client.code, client.err());
        assertEquals(1, server.exitValue(), read("server.err"));
        assertTrue(client.err().contains("provider inproc reaches endpoints in its own JVM only, and the client (pid " +
            ProcessHandle.current().pid() + ") is another process than this server (pid " + server.pid() + ")"),
            client.err());
        assertTrue(read("server.err").contains("use -p shm between processes on one host"), read("server.err"));
    }

    @Test
    void shouldPrintThePartialResultsAndRemoveItsRingFilesOnSigterm() throws Exception
    {
        final PingpongCommandTest.Run serverRun = new PingpongCommandTest.Run();
        final Thread serverThread = new Thread(() -> serverRun.exec("pingpong", "--server", "-B", "0", "-p", "shm",
            "--idle", "yield", "--timeout", TIMEOUT_S, "-v"), "test-pingpong-server");
        serverThread.setDaemon(true);
        serverThread.start();
        int port = -1;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
        while (port < 0 && System.nanoTime() - deadline < 0)
        {
            final Matcher m = PORT.matcher(serverRun.err());
            if (m.find())
            {
                port = Integer.parseInt(m.group(1));
            }
            Thread.sleep(10);
        }
        assertTrue(port > 0, serverRun.err());
        final List<String> command = childJvm();
        command.addAll(List.of("pingpong", "127.0.0.1", "-P", Integer.toString(port), "-p", "shm", "--idle", "yield",
            "--timeout", TIMEOUT_S, "-I", "2000000000", "--warmup", "0"));
        final Process client = new ProcessBuilder(command)
            .redirectOutput(dir.resolve("client.out").toFile())
            .redirectError(dir.resolve("client.err").toFile())
            .start();
        server = client;
        while (!serverRun.err().contains("64 B run started"))
        {
            assertTrue(client.isAlive(), read("client.err"));
            assertTrue(System.nanoTime() - deadline < 0, "the run never started: " + serverRun.err());
            Thread.sleep(10);
        }
        assertTrue(ringFilesOf(client.pid()) > 0, "the client's ring file exists while it runs");

        client.destroy();
        assertTrue(client.waitFor(DEADLINE_S, TimeUnit.SECONDS), read("client.err"));
        serverThread.join(TimeUnit.SECONDS.toMillis(DEADLINE_S));
        assertFalse(serverThread.isAlive(), "watchdog: the server still runs: " + serverRun.err());

        assertEquals(143, client.exitValue(), read("client.err"));
        final String err = read("client.err");
        final Matcher count = Pattern.compile(
            "^jfabric pingpong: stopped by a signal during the 64 B run; (\\d+) of 2000000000 round trips completed$")
            .matcher(err.strip());
        assertTrue(count.matches(), err);
        final String[] out = read("client.out").split("\n");
        final String[] row = out[1].trim().split("\\s+");
        assertEquals("64", row[0], read("client.out"));
        assertEquals(PingpongResult.count(Long.parseLong(count.group(1))), row[1], read("client.out"));
        assertTrue(read("client.out").contains("round-trip time (ns), each round trip timed, HdrHistogram:"),
            read("client.out"));
        assertEquals(0, ringFilesOf(client.pid()), "the client removed its ring files before it exited");
        assertEquals(1, serverRun.code, serverRun.err());
        assertTrue(serverRun.err().contains("(stopped by a signal during the 64 B run; "), serverRun.err());
    }

    /** Files of the shm directories named after {@code pid} (a domain's default name is its process id). */
    private static long ringFilesOf(final long pid) throws IOException
    {
        final Pattern own = Pattern.compile(pid + "(\\D.*)?");
        long count = 0;
        final List<Path> shmDirs;
        try (java.util.stream.Stream<Path> dirs = Files.list(Paths.get("/dev/shm")))
        {
            shmDirs = dirs.filter(p -> p.getFileName().toString().startsWith("jfabric-")).collect(Collectors.toList());
        }
        {
            for (final Path d : shmDirs)
            {
                try (java.util.stream.Stream<Path> files = Files.list(d))
                {
                    count += files.filter(f -> own.matcher(f.getFileName().toString()).matches()).count();
                }
                catch (final NoSuchFileException ex)
                {
                    // another run's directory, deleted since the listing: it held none of the client's files
                }
            }
        }
        return count;
    }
}
