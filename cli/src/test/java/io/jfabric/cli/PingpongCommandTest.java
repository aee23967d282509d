package io.jfabric.cli;

import io.jfabric.loadtest.PingpongEndpoint;
import io.jfabric.loadtest.PingpongLoop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code jfabric pingpong} run in-process over the inproc provider: the in-process mode, server and client in one
 * JVM over loopback TCP, the sweep, data checks, the hgrm file, JSON, and the exit codes of bad input and failures.
 * Every wait uses the yield idle strategy and a {@code --timeout}, under the JUnit watchdog.
 */
@Timeout(60)
class PingpongCommandTest
{
    private static final String[] COMMON = { "-p", "inproc", "--idle", "yield", "--timeout", "20" };
    private static final Pattern PORT = Pattern.compile("listening on control port (\\d+)");

    /** Output of one command run. */
    static final class Run
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        volatile int code = -1;

        Run exec(final String... args)
        {
            code = JfabricCommand.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
            return this;
        }

        String out()
        {
            return out.toString();
        }

        String err()
        {
            return err.toString();
        }
    }

    private static String[] args(final String... extra)
    {
        final List<String> all = new ArrayList<>(Arrays.asList("pingpong"));
        all.addAll(Arrays.asList(COMMON));
        all.addAll(Arrays.asList(extra));
        return all.toArray(new String[0]);
    }

    private static Run run(final String... extra)
    {
        return new Run().exec(args(extra));
    }

    private static void assertSaneRtt(final Map<String, Object> o)
    {
        final Map<String, Object> rtt = Json.object(o.get("rtt_ns"));
        final double p50 = Json.number(rtt, "p50");
        final double p90 = Json.number(rtt, "p90");
        final double p99 = Json.number(rtt, "p99");
        final double p999 = Json.number(rtt, "p999");
        final double max = Json.number(rtt, "max");
        assertTrue(p50 > 0, rtt.toString());
        assertTrue(p50 <= p90 && p90 <= p99 && p99 <= p999 && p999 <= max, rtt.toString());
        final double usec = Json.number(o, "usec_per_xfer");
        final double mxfers = Json.number(o, "mxfers_per_sec");
        assertTrue(usec > 0, o.toString());
        assertEquals(1.0 / usec, mxfers, 0.01 / usec + 1e-4, o.toString());
        // a one-way transfer is half a round trip on average: the mean RTT lies within [min, max]
        final double meanRtt = Json.number(rtt, "mean");
        assertTrue(Json.number(rtt, "min") <= meanRtt && meanRtt <= max, rtt.toString());
    }

    private static long[] percentileRow(final String out, final String size)
    {
        final String[] lines = out.split("\n");
        for (int i = 0; i < lines.length; i++)
        {
            if (lines[i].startsWith("bytes") && lines[i].contains("p99.99"))
            {
                for (int j = i + 1; j < lines.length; j++)
                {
                    final String[] t = lines[j].trim().split("\\s+");
                    if (t[0].equals(size))
                    {
                        final long[] values = new long[t.length - 1];
                        for (int k = 1; k < t.length; k++)
                        {
                            values[k - 1] = Long.parseLong(t[k]);
                        }
                        return values;
                    }
                }
            }
        }
        throw new AssertionError("no percentile row for " + size + " in\n" + out);
    }

    @Test
    void shouldRunBothSidesInProcessAndPrintTableAndPercentiles()
    {
        final Run r = run("--progress", "manual", "-I", "3000", "--warmup", "200");

        assertEquals(0, r.code, r.err());
        assertEquals("", r.err());
        final String[] lines = r.out().split("\n");
        assertEquals(PingpongResult.tableHeader().trim(), lines[0].trim());
        assertTrue(lines[0].matches("bytes\\s+#sent\\s+#ack\\s+total\\s+time\\s+MB/sec\\s+usec/xfer\\s+Mxfers/sec"),
            lines[0]);
        final String[] row = lines[1].trim().split("\\s+");
        assertEquals("64", row[0]);
        assertEquals("3k", row[1]);
        assertEquals("=3k", row[2]);
        assertEquals("375k", row[3], "2 x 3000 x 64 B = 384000 B = 375k");
        assertTrue(row[4].endsWith("s"));
        final double seconds = Double.parseDouble(row[4].substring(0, row[4].length() - 1));
        final double usecPerXfer = Double.parseDouble(row[6]);
        assertTrue(usecPerXfer > 0);
        assertEquals(seconds * 1e6 / 3000 / 2, usecPerXfer, Math.max(0.02, usecPerXfer * 0.05) + 5e-3 * 1e6 / 6000);
        final long[] p = percentileRow(r.out(), "64");
        assertEquals(6, p.length);
        assertTrue(p[0] > 0);
        for (int i = 1; i < p.length; i++)
        {
            assertTrue(p[i - 1] <= p[i], Arrays.toString(p));
        }
    }

    @Test
    void shouldPrintExactlyOneJsonObjectWithSaneFigures()
    {
        final Run r = run("--progress", "manual", "-I", "2000", "--warmup", "100", "-S", "100", "--json");

        assertEquals(0, r.code, r.err());
        final Map<String, Object> o = Json.object(Json.parse(r.out()));
        assertEquals("inproc", o.get("provider"));
        assertEquals("FI_EP_RDM", o.get("ep_type"));
        assertEquals("tagged", o.get("op"));
        assertEquals("MANUAL", o.get("progress"));
        assertEquals(100.0, Json.number(o, "size"));
        assertEquals(2000.0, Json.number(o, "iterations"));
        assertEquals(2000.0, Json.number(o, "acked"));
        assertEquals(100.0, Json.number(o, "warmup"));
        assertSaneRtt(o);
        final double mbPerSec = Json.number(o, "mb_per_sec");
        assertEquals(2.0 * 2000 * 100 / (Json.number(o, "time_s") * 1e6), mbPerSec, mbPerSec * 0.01 + 1e-3);
    }

    @Test
    void shouldUseTheDefaultProviderAndPreferManualProgressWithoutPAndProgress()
    {
        final Run r = new Run().exec("pingpong", "--idle", "yield", "--timeout", "20", "-I", "200", "--warmup", "0",
            "--json");

        assertEquals(0, r.code, r.err());
        final String expected = null != PingpongCommand.DEFAULT_PROVIDER ? PingpongCommand.DEFAULT_PROVIDER : "inproc";
        final Map<String, Object> o = Json.object(Json.parse(r.out()));
        assertEquals(expected, o.get("provider"));
        assertEquals("MANUAL", o.get("progress"), "inproc defaults to AUTO but offers MANUAL");
    }

    @Test
    void shouldSweepFiPingpongSizesWithChecksAndWriteOneHgrmPerSize(@TempDir final Path dir) throws IOException
    {
        final Path hgrm = dir.resolve("rtt.hgrm");
        final Run r = run("--progress", "manual", "-S", "all", "-I", "3", "--warmup", "1", "-c", "--json",
            "--hgrm", hgrm.toString());

        assertEquals(0, r.code, r.err());
        final int[] expected = PingpongCommand.sweepSizes(PingpongCommand.SWEEP_LIMIT);
        assertEquals(0, expected[0]);
        assertEquals(PingpongCommand.SWEEP_LIMIT, expected[expected.length - 1]);
        final List<?> array = (List<?>) Json.parse(r.out());
        assertEquals(expected.length, array.size());
        for (int i = 0; i < expected.length; i++)
        {
            final Map<String, Object> o = Json.object(array.get(i));
            assertEquals(expected[i], (int) Json.number(o, "size"));
            assertEquals(3.0, Json.number(o, "iterations"));
            assertEquals(3.0, Json.number(o, "acked"));
            assertSaneRtt(o);
            assertTrue(Files.exists(dir.resolve("rtt-" + expected[i] + ".hgrm")), "hgrm of " + expected[i]);
        }
        assertFalse(Files.exists(hgrm));
    }

    @Test
    void shouldPrintOneTableRowPerSweepSize()
    {
        final Run r = run("--progress", "manual", "-S", "all", "-I", "2", "--warmup", "0", "-m", "msg");

        assertEquals(0, r.code, r.err());
        final String[] lines = r.out().split("\n");
        final int[] sizes = PingpongCommand.sweepSizes(PingpongCommand.SWEEP_LIMIT);
        for (int i = 0; i < sizes.length; i++)
        {
            final String[] row = lines[1 + i].trim().split("\\s+");
            assertEquals(PingpongResult.bytes(sizes[i]), row[0], lines[1 + i]);
            assertEquals("=2", row[2], lines[1 + i]);
        }
        assertEquals("", lines[1 + sizes.length]);
        assertTrue(lines[2 + sizes.length].startsWith("round-trip time (ns)"));
        assertTrue(r.out().contains("\n6m  "), "6 MiB row in sweep");
    }

    @Test
    void shouldVerifyDataAcrossTheRendezvousThresholdWithAutoProgress()
    {
        final Run r = run("--progress", "auto", "-m", "msg", "-c", "-S", "100003", "-I", "50", "--warmup", "5",
            "--json");

        assertEquals(0, r.code, r.err());
        final Map<String, Object> o = Json.object(Json.parse(r.out()));
        assertEquals("AUTO", o.get("progress"));
        assertEquals("msg", o.get("op"));
        assertEquals(50.0, Json.number(o, "acked"));
    }

    @Test
    void shouldDetectCorruptedPayloads()
    {
        final org.agrona.concurrent.UnsafeBuffer b =
            new org.agrona.concurrent.UnsafeBuffer(java.nio.ByteBuffer.allocateDirect(300));
        PingpongLoop.fill(b, 300, 5);
        assertEquals(-1, PingpongLoop.verify(b, 300, 5));
        assertEquals(0, PingpongLoop.verify(b, 300, 6), "another message's pattern differs from byte 0");
        b.putByte(217, (byte) (b.getByte(217) ^ 1));
        assertEquals(217, PingpongLoop.verify(b, 300, 5));
        assertEquals(-1, PingpongLoop.verify(b, 217, 5));
    }

    @Test
    void shouldWriteParseableHgrmInMicroseconds(@TempDir final Path dir) throws IOException
    {
        final Path hgrm = dir.resolve("one.hgrm");
        final Run r = run("--progress", "manual", "-I", "1500", "--warmup", "10", "--json", "--hgrm",
            hgrm.toString());

        assertEquals(0, r.code, r.err());
        final Map<String, Object> rtt = Json.object(Json.object(Json.parse(r.out())).get("rtt_ns"));
        final List<String> lines = Files.readAllLines(hgrm, StandardCharsets.UTF_8);
        assertTrue(lines.get(0).trim().matches("Value\\s+Percentile\\s+TotalCount\\s+1/\\(1-Percentile\\)"),
            lines.get(0));
        double lastPercentile = -1;
        long lastCount = -1;
        int rows = 0;
        for (final String line : lines.subList(1, lines.size()))
        {
            if (line.isBlank() || line.startsWith("#"))
            {
                continue;
            }
            final String[] t = line.trim().split("\\s+");
            final double percentile = Double.parseDouble(t[1]);
            final long count = Long.parseLong(t[2]);
            assertTrue(percentile >= lastPercentile && count >= lastCount, line);
            lastPercentile = percentile;
            lastCount = count;
            rows++;
        }
        assertTrue(rows > 5, "percentile rows");
        assertEquals(1500, lastCount);
        final String maxLine = lines.stream().filter((l) -> l.startsWith("#[Max")).findFirst().orElseThrow();
        final Matcher m = Pattern.compile("#\\[Max\\s*=\\s*([0-9.]+), Total count\\s*=\\s*(\\d+)\\]").matcher(maxLine);
        assertTrue(m.matches(), maxLine);
        assertEquals(1500, Long.parseLong(m.group(2)));
        // the file's unit is microseconds: its max is the JSON max (ns) / 1000
        assertEquals(Json.number(rtt, "max") / 1000.0, Double.parseDouble(m.group(1)),
            Json.number(rtt, "max") / 1000.0 * 0.002 + 0.001);
    }

    private static int awaitPort(final Run server)
    {
        final long deadline = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < deadline)
        {
            final Matcher m = PORT.matcher(server.err());
            if (m.find())
            {
                return Integer.parseInt(m.group(1));
            }
            if (server.code != -1)
            {
                fail("server ended before listening: " + server.err());
            }
            Thread.yield();
            try
            {
                Thread.sleep(5);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
        throw new AssertionError("server did not listen: " + server.err());
    }

    private static Thread start(final Run server, final String... extra)
    {
        final Thread t = new Thread(() -> server.exec(args(extra)), "test-pingpong-server");
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Test
    void shouldRunServerAndClientOverLoopbackInOneJvm() throws InterruptedException
    {
        final Run server = new Run();
        final Thread t = start(server, "--server", "-B", "0", "--progress", "manual");
        final int port = awaitPort(server);

        final Run client = run("127.0.0.1", "-P", Integer.toString(port), "--progress", "manual", "-I", "1000",
            "--warmup", "50", "-S", "1024", "-c", "--json");
        t.join(30_000);

        assertEquals(0, client.code, client.err());
        assertEquals(0, server.code, server.err());
        final Map<String, Object> o = Json.object(Json.parse(client.out()));
        assertEquals(1024.0, Json.number(o, "size"));
        assertEquals(1000.0, Json.number(o, "iterations"));
        assertSaneRtt(o);
        final String[] row = server.out().split("\n")[1].trim().split("\\s+");
        assertEquals("1k", row[0]);
        assertEquals("1k", row[1]);
        assertEquals("=1k", row[2]);
        assertTrue(server.out().contains("each round trip timed by the client"), server.out());
        final long[] serverPercentiles = percentileRow(server.out(), "1k");
        final Map<String, Object> rtt = Json.object(o.get("rtt_ns"));
        assertEquals((long) Json.number(rtt, "p50"), serverPercentiles[0], "the server prints the client's p50");
        assertEquals((long) Json.number(rtt, "max"), serverPercentiles[5]);
    }

    @Test
    void shouldConnectMsgEndpointsThroughThePassiveEndpointInServerAndClientModes() throws InterruptedException
    {
        final Run server = new Run();
        final Thread t = start(server, "--server", "-B", "0", "-e", "msg", "--json");
        final int port = awaitPort(server);

        final Run client = run("localhost", "-P", Integer.toString(port), "-e", "msg", "-S", "all", "-I", "2",
            "--warmup", "0", "--json");
        t.join(30_000);

        assertEquals(0, client.code, client.err());
        assertEquals(0, server.code, server.err());
        final List<?> clientArray = (List<?>) Json.parse(client.out());
        final List<?> serverArray = (List<?>) Json.parse(server.out());
        assertEquals(clientArray.size(), serverArray.size());
        assertEquals("FI_EP_MSG", Json.object(serverArray.get(0)).get("ep_type"));
    }

    @Test
    void shouldRunDgramAndMsgEndpointsInProcess()
    {
        for (final String type : new String[] { "dgram", "msg" })
        {
            final Run r = run("--progress", "manual", "-e", type, "-I", "300", "--warmup", "10", "-c", "--json");

            assertEquals(0, r.code, type + ": " + r.err());
            assertEquals("FI_EP_" + type.toUpperCase(java.util.Locale.ROOT),
                Json.object(Json.parse(r.out())).get("ep_type"));
        }
    }

    private static void assertBadInput(final String expected, final String... extra)
    {
        final Run r = new Run().exec(extra);
        assertEquals(2, r.code, Arrays.toString(extra) + ": " + r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains(expected), r.err());
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r.err());
        assertEquals("", r.out());
    }

    @Test
    void shouldExitTwoWithOneLineForBadInput()
    {
        assertBadInput("unknown provider 'nosuch'", "pingpong", "-p", "nosuch");
        assertBadInput("inproc", "pingpong", "-p", "nosuch");
        assertBadInput("provider 'clitest' cannot open a fabric", "pingpong", "-p", "clitest");
        assertBadInput("provider 'clitest' offers no FI_EP_MSG endpoint with FI_TAGGED", "pingpong", "-p", "clitest",
            "-e", "msg");
        assertBadInput("--hgrm belongs on the client", "pingpong", "--server", "--hgrm", "x.hgrm");
        assertBadInput("invalid size 'abc'", "pingpong", "-p", "inproc", "-S", "abc");
        assertBadInput("invalid size '-5'", "pingpong", "-p", "inproc", "-S", "-5");
        assertBadInput("above inproc's max_msg_size", "pingpong", "-p", "inproc", "-S", "100000000");
        assertBadInput("unknown endpoint type 'stream'", "pingpong", "-e", "stream");
        assertBadInput("unknown transmit mode 'rma'", "pingpong", "-m", "rma");
        assertBadInput("unknown progress model 'sometimes'", "pingpong", "--progress", "sometimes");
        assertBadInput("unknown idle strategy 'lazy'", "pingpong", "--idle", "lazy");
        assertBadInput("-I 0", "pingpong", "-I", "0");
        assertBadInput("--warmup -1", "pingpong", "--warmup", "-1");
        assertBadInput("-B 70000", "pingpong", "--server", "-B", "70000");
        assertBadInput("either --server or a HOST", "pingpong", "--server", "somehost");
        assertBadInput("--frobnicate", "pingpong", "--frobnicate");
        assertBadInput("'x'", "pingpong", "-I", "x");
    }

    @Test
    void shouldSayThatTheServerRunsTheClientsParametersAndWhichOfItsOwnItIgnores() throws InterruptedException
    {
        final Run server = new Run();
        final Thread t = start(server, "--server", "-B", "0", "-I", "500", "-S", "1k", "--json");
        final int port = awaitPort(server);

        final Run client = run("127.0.0.1", "-P", Integer.toString(port), "-I", "20", "--warmup", "0", "-S", "4k",
            "--json");
        t.join(30_000);

        assertEquals(0, client.code, client.err());
        assertEquals(0, server.code, server.err());
        assertTrue(server.err().contains(" connected; running its parameters: tagged, 4k B, 20 iterations, 0 warm-up " +
            "(this server's -I 500 -S 1k not used)\n"), server.err());
        assertEquals(4096.0, Json.number(Json.object(Json.parse(client.out())), "size"));
    }

    @Test
    void shouldTakeSizesWithTheSuffixesTheTablePrints()
    {
        assertEquals(4096, PingpongCommand.size("4k"));
        assertEquals(1 << 20, PingpongCommand.size("1M"));
        assertEquals(1 << 30, PingpongCommand.size("1g"));
        assertEquals(64, PingpongCommand.size("64"));
        assertBadInput("invalid size '2g'", "pingpong", "-p", "inproc", "-S", "2g");
        assertBadInput("invalid size '1.5k'", "pingpong", "-p", "inproc", "-S", "1.5k");
    }

    @Test
    void shouldPrefixPicocliErrorsWithTheCommandPath()
    {
        final Run r = new Run().exec("pingpong", "--frobnicate");

        assertEquals(2, r.code);
        assertTrue(r.err().startsWith("jfabric pingpong: Unknown option: '--frobnicate'"), r.err());
    }

    @Test
    void shouldGenerateAShellCompletionScriptNamingTheSubcommandsAndOptions()
    {
        final Run r = new Run().exec("generate-completion");

        assertEquals(0, r.code, r.err());
        assertTrue(r.out().contains("complete -F _complete_jfabric"), r.out());
        assertTrue(r.out().contains("pingpong") && r.out().contains("--hgrm") && r.out().contains("--env"), r.out());
    }

    @Test
    void shouldExitOneNamingTheAddressWhenTheServerIsUnreachable() throws IOException
    {
        final int port;
        try (ServerSocket s = new ServerSocket(0))
        {
            port = s.getLocalPort();
        }

        final Run r = run("127.0.0.1", "-P", Integer.toString(port), "-I", "10");

        assertEquals(1, r.code, r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("cannot reach the pingpong server at 127.0.0.1:" + port), r.err());
        assertEquals("", r.out());
    }

    @Test
    void shouldExitOneWhenTheServerRefusesTheClientsParameters() throws InterruptedException
    {
        final Run server = new Run();
        final Thread t = start(server, "--server", "-B", "0", "-e", "dgram");
        final int port = awaitPort(server);

        final Run client = run("127.0.0.1", "-P", Integer.toString(port), "-e", "rdm", "-I", "10");
        t.join(30_000);

        assertEquals(1, client.code, client.err());
        assertEquals(1, server.code, server.err());
        assertEquals(1, client.err().lines().count(), client.err());
        assertTrue(client.err().contains("stopped: the client asks for provider inproc with FI_EP_RDM; this server " +
            "runs inproc with FI_EP_DGRAM"), client.err());
    }

    /**
     * A server made of the command's own pieces that answers {@code answers} pings of the first size and then
     * closes its control connection, as a server process that dies mid-run would.
     */
    @Test
    void shouldExitOneWithTheCountWhenThePeerDiesMidRun() throws Exception
    {
        final int answers = 37;
        final AtomicInteger answered = new AtomicInteger(-1);
        try (ServerSocket listener = new ServerSocket(0))
        {
            final Thread server = new Thread(() ->
            {
                try (PingpongControl control = PingpongControl.accept(listener, 20_000))
                {
                    final java.io.DataInputStream hello = control.expect(PingpongControl.HELLO, 20_000, "HELLO");
                    hello.readInt();
                    hello.readInt();
                    final PingpongParams params = PingpongParams.read(hello);
                    final io.jfabric.Info info = PingpongCommand.resolve("inproc", params.epType, params.tagged,
                        io.jfabric.Progress.MANUAL, null);
                    try (PingpongEndpoint side = PingpongEndpoint.open(info, params.tagged, params.maxSize(),
                        "yield", 20_000))
                    {
                        final byte[] name = side.name();
                        control.send(PingpongControl.NAME, (o) ->
                        {
                            o.writeInt(name.length);
                            o.write(name);
                        });
                        final java.io.DataInputStream peer = control.expect(PingpongControl.NAME, 20_000, "NAME");
                        final byte[] peerName = new byte[peer.readInt()];
                        peer.readFully(peerName);
                        side.peer(peerName);
                        final int size = control.expect(PingpongControl.SYNC, 20_000, "SYNC").readInt();
                        assertEquals(0, side.postRecv(size));
                        control.send(PingpongControl.READY, (o) -> o.writeInt(size));
                        final PingpongLoop.Stats stats = new PingpongLoop.Stats();
                        PingpongLoop.pong(side, size, answers, 0, true, false, stats);
                        answered.set(stats.completed());
                        // manual progress: push the last answer out before dying
                        for (int i = 0; i < 1000; i++)
                        {
                            side.domain().progress();
                        }
                    }
                }
                catch (final IOException ex)
                {
                    answered.set(-2);
                }
            }, "test-dying-server");
            server.setDaemon(true);
            server.start();

            final Run client = run("127.0.0.1", "-P", Integer.toString(listener.getLocalPort()),
                "--progress", "manual", "-I", "1000", "--warmup", "0");
            server.join(30_000);

            assertEquals(answers, answered.get());
            assertEquals(1, client.code, client.err());
            assertEquals(1, client.err().lines().count(), client.err());
            assertTrue(client.err().contains("closed the control connection during the 64 B run"), client.err());
            assertTrue(client.err().contains(answers + " of 1000 round trips completed"), client.err());
        }
    }

    /**
     * A client made of the command's own pieces that completes {@code trips} round trips and then closes its
     * control connection: the server exits 1 with the count.
     */
    @Test
    void shouldExitOneWithTheCountWhenTheClientDiesMidRun() throws Exception
    {
        final int trips = 23;
        final Run server = new Run();
        final Thread t = start(server, "--server", "-B", "0", "--progress", "manual");
        final int port = awaitPort(server);

        final PingpongParams params = new PingpongParams("inproc", io.jfabric.EndpointType.RDM, true, 500, 0, true,
            new int[] { 64 });
        final io.jfabric.Info info = PingpongCommand.resolve("inproc", params.epType, params.tagged,
            io.jfabric.Progress.MANUAL, null);
        final PingpongLoop.Stats stats = new PingpongLoop.Stats();
        try (PingpongControl control = PingpongControl.connect("127.0.0.1", port, 0, 20_000))
        {
            control.send(PingpongControl.HELLO, (o) ->
            {
                o.writeInt(PingpongControl.MAGIC);
                o.writeInt(PingpongControl.VERSION);
                params.write(o);
            });
            final java.io.DataInputStream name = control.expect(PingpongControl.NAME, 20_000, "NAME");
            final byte[] serverName = new byte[name.readInt()];
            name.readFully(serverName);
            try (PingpongEndpoint side = PingpongEndpoint.open(info, true, 64, "yield", 20_000))
            {
                side.peer(serverName);
                final byte[] own = side.name();
                control.send(PingpongControl.NAME, (o) ->
                {
                    o.writeInt(own.length);
                    o.write(own);
                });
                control.send(PingpongControl.SYNC, (o) -> o.writeInt(64));
                assertEquals(64, control.expect(PingpongControl.READY, 20_000, "READY").readInt());
                PingpongLoop.ping(side, 64, trips, 0, true, null, stats);
            }
        }
        t.join(30_000);

        assertEquals(0, stats.status());
        assertEquals(trips, stats.completed());
        assertEquals(1, server.code, server.err());
        final String[] lines = server.err().split("\n");
        assertEquals(3, lines.length, server.err());
        assertTrue(lines[0].contains("listening on control port"), lines[0]);
        assertTrue(lines[1].contains(" connected; running its parameters: tagged, 64 B, 500 iterations"), lines[1]);
        assertTrue(lines[2].contains("closed the control connection during the 64 B run"), lines[2]);
        assertTrue(lines[2].contains(trips + " of 500 round trips completed"), lines[2]);
    }
}
