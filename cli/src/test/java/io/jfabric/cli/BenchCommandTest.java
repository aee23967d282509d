package io.jfabric.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.imageio.ImageIO;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jfabric bench} in each mode, briefly, over inproc (and Aeron IPC as the peer): the JSON parsed and its
 * values checked against each other and the options; the PNG decodes at the size asked for; the interrupt a signal
 * raises prints the partial table and removes every file the run created.
 */
@Timeout(180)
class BenchCommandTest
{
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(final String... args)
    {
        final List<String> all = new ArrayList<>(List.of("bench", "--quiet"));
        all.addAll(List.of(args));
        return JfabricCommand.commandLine(new PrintWriter(out), new PrintWriter(err))
            .execute(all.toArray(new String[0]));
    }

    private JsonObject json()
    {
        return JsonParser.parseString(out.toString().trim()).getAsJsonObject();
    }

    private static JsonObject series(final JsonObject root, final String target, final int size)
    {
        for (final JsonElement e : root.getAsJsonArray("series"))
        {
            final JsonObject o = e.getAsJsonObject();
            if (target.equals(o.get("target").getAsString()) && size == o.get("size").getAsInt())
            {
                return o;
            }
        }
        throw new AssertionError("no series " + target + " " + size + " in " + root);
    }

    private static void assertPercentilesOrdered(final JsonObject s)
    {
        final JsonObject rtt = s.getAsJsonObject("rtt_ns");
        final long min = rtt.get("min").getAsLong();
        final long p50 = rtt.get("p50").getAsLong();
        final long p99 = rtt.get("p99").getAsLong();
        final long max = rtt.get("max").getAsLong();
        assertTrue(0 < min && min <= p50 && p50 <= p99 && p99 <= max, rtt.toString());
    }

    @Test
    void shouldRunTheFixedRateTestAndDrawThePlotAtTheSizeAskedFor(@TempDir final Path tmp) throws IOException
    {
        final Path dir = tmp.resolve("out");
        assertEquals(0, run("-p", "inproc", "--peers", "none", "-r", "300", "-w", "0", "-n", "1", "-R", "1",
            "--json", "-d", dir.toString(), "--plot-size", "640x400"), err.toString());
        final JsonObject root = json();
        assertEquals("fixed", root.get("mode").getAsString());
        assertEquals("tagged", root.get("op").getAsString());
        final JsonObject s = series(root, "inproc tagged", 64);
        assertEquals(300, s.get("rate").getAsLong());
        final long started = s.get("started").getAsLong();
        assertTrue(started > 0 && started <= 300, s.toString());
        assertEquals(started, s.get("completed").getAsLong(), "every started operation completed (drained)");
        assertEquals(started, s.getAsJsonObject("rtt_ns").get("count").getAsLong());
        final JsonArray counts = s.getAsJsonArray("repetitions").get(0).getAsJsonObject()
            .getAsJsonArray("iteration_counts");
        assertEquals(1, counts.size());
        assertEquals(started, counts.get(0).getAsLong());
        // the rate is reached, or the shortfall is reported
        assertEquals(started < 300 ? 1 : 0, s.getAsJsonArray("warnings").size(), s.toString());
        assertPercentilesOrdered(s);
        assertEquals(1.0, s.getAsJsonObject("ratio").get("p50").getAsDouble(), 1e-9);

        final File png = dir.resolve("bench-fixed.png").toFile();
        final BufferedImage image = ImageIO.read(png);
        assertNotNull(image, "not a PNG ImageIO decodes");
        assertEquals(640, image.getWidth());
        assertEquals(400, image.getHeight());
        final String hgrm = Files.readString(dir.resolve("inproc-tagged-64B-300ps.hgrm"));
        assertTrue(hgrm.contains("#[Mean"), hgrm);
        final String hlog = Files.readString(dir.resolve("inproc-tagged-64B-300ps.hlog"));
        assertTrue(hlog.contains("#[StartTime:") && hlog.lines().anyMatch((l) -> l.matches("^[0-9.]+,.*")), hlog);
    }

    @Test
    void shouldSweepSizesClosedLoopBesideAeronIpcAndNameMissingPeers(@TempDir final Path tmp)
    {
        assertEquals(0, run("-m", "latency", "-p", "inproc", "--peers", "aeron-ipc,ucx_perftest", "-S", "64,1k",
            "-w", "200", "-n", "500", "-R", "2", "--json", "--no-plot", "--no-hgrm", "-d", tmp.toString()),
            err.toString());
        final JsonObject root = json();
        assertEquals(4, root.getAsJsonArray("series").size());
        for (final String target : List.of("inproc tagged", "aeron ipc"))
        {
            for (final int size : new int[] { 64, 1024 })
            {
                final JsonObject s = series(root, target, size);
                assertEquals(1000, s.get("completed").getAsLong(), s.toString());
                assertEquals(2, s.getAsJsonArray("repetitions").size());
                assertPercentilesOrdered(s);
                assertEquals(s.getAsJsonObject("rtt_ns").get("p50").getAsLong() / 2.0,
                    s.getAsJsonObject("one_way_ns").get("p50").getAsDouble(), 1e-9);
                assertEquals("inproc tagged", s.getAsJsonObject("ratio").get("base").getAsString());
            }
        }
        final JsonObject aeron = series(root, "aeron ipc", 64);
        final double ratio = aeron.getAsJsonObject("ratio").get("p50").getAsDouble();
        final double expected = aeron.getAsJsonObject("rtt_ns").get("p50").getAsDouble() /
            series(root, "inproc tagged", 64).getAsJsonObject("rtt_ns").get("p50").getAsDouble();
        assertEquals(expected, ratio, 1e-9);
        if (null == BenchExternal.which("ucx_perftest"))
        {
            assertEquals("not installed (not on PATH)",
                root.getAsJsonObject("missing_peers").get("ucx_perftest").getAsString());
        }
    }

    @Test
    void shouldMeasureBandwidthWithAWindowAndMessageRateOverPairs(@TempDir final Path tmp)
    {
        assertEquals(0, run("-m", "bw", "-p", "inproc", "--op", "write", "-S", "4k", "--window", "8", "-w", "0",
            "-n", "1", "-R", "1", "--peers", "none", "--json", "-d", tmp.toString()), err.toString());
        final JsonObject bw = series(json(), "inproc write", 4096);
        assertEquals(8, bw.get("window").getAsInt());
        final double ops = bw.get("ops_per_sec").getAsDouble();
        assertTrue(ops > 0, bw.toString());
        assertEquals(ops * 4096 / 1e6, bw.get("mb_per_sec").getAsDouble(), 1e-6);
        assertEquals(bw.get("started").getAsLong(), bw.get("completed").getAsLong());

        out.getBuffer().setLength(0);
        assertEquals(0, run("-m", "mr", "-p", "inproc", "--op", "msg", "-S", "8", "--window", "4", "--pairs", "2",
            "-w", "0", "-n", "1", "-R", "1", "--peers", "none", "--json", "-d", tmp.toString()), err.toString());
        final JsonObject mr = series(json(), "inproc msg", 8);
        assertEquals(2, mr.get("pairs").getAsInt());
        assertTrue(mr.get("completed").getAsLong() > 0, mr.toString());
        assertEquals(mr.get("completed").getAsLong(), mr.getAsJsonObject("rtt_ns").get("count").getAsLong());
        assertTrue(Files.exists(tmp.resolve("bench-mr.png")));
    }

    @Test
    void shouldStreamOneWayAndCountEveryMessageReceived(@TempDir final Path tmp)
    {
        assertEquals(0, run("-m", "stream", "-p", "inproc", "-S", "8", "--window", "256", "-w", "0", "-n", "1",
            "-R", "1", "--peers", "aeron-ipc", "--json", "-d", tmp.toString()), err.toString());
        final JsonObject root = json();
        assertEquals("stream", root.get("mode").getAsString(), root.toString());
        for (final String label : new String[] { "inproc tagged", "aeron ipc" })
        {
            final JsonObject s = series(root, label, 8);
            assertEquals(256, s.get("window").getAsInt());
            assertEquals(1, s.get("pairs").getAsInt());
            // every message sent during the measured second was received (the answering side checks their order)
            assertTrue(s.get("completed").getAsLong() > 0, s.toString());
            assertEquals(s.get("started").getAsLong(), s.get("completed").getAsLong(), s.toString());
            assertTrue(s.get("ops_per_sec").getAsDouble() > 0, s.toString());
        }
        assertEquals(2, run("-m", "stream", "-p", "inproc", "--op", "write", "--peers", "none"));
        assertTrue(err.toString().contains("-m stream: --op msg or tagged"), err.toString());
    }

    @Test
    void shouldRefuseBadInputWithExitTwo()
    {
        assertEquals(2, run("-m", "nosuch"));
        assertTrue(err.toString().contains("unknown mode 'nosuch'"), err.toString());
        assertEquals(2, run("--op", "put"));
        assertEquals(2, run("-r", "0"));
        assertEquals(2, run("--peers", "nosuch"));
        assertEquals(2, run("--plot-size", "10x10"));
    }

    @Test
    void shouldPrintWhatWasMeasuredAndRemoveEveryFileWhenInterrupted(@TempDir final Path tmp)
        throws InterruptedException
    {
        final Path dir = tmp.resolve("created-by-the-run");
        final BenchCommand bench = new BenchCommand();
        final CommandLine cl = new CommandLine(bench);
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        final AtomicInteger code = new AtomicInteger(-1);
        final Thread runner = new Thread(() -> code.set(cl.execute("--quiet", "-p", "inproc", "--peers", "none",
            "-r", "200", "-w", "0", "-n", "60", "-R", "1", "-d", dir.toString())), "bench-under-test");
        runner.start();
        // the interval log is written after the first measured second: something measured and a file created
        final Path log = dir.resolve("inproc-tagged-64B-200ps.hlog");
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!Files.exists(log) && runner.isAlive() && System.nanoTime() < deadline)
        {
            Thread.sleep(20);
        }
        assertTrue(Files.exists(log), "no interval log: " + err);
        bench.interrupt().raise();
        runner.join(60_000);
        assertFalse(runner.isAlive());
        assertEquals(JfabricCommand.EXIT_NO_MATCH, code.get(), err.toString());
        assertTrue(err.toString().contains("stopped by a signal"), err.toString());
        assertTrue(out.toString().contains("inproc tagged (partial)"), out.toString());
        assertFalse(Files.exists(dir), "files left behind: " + (Files.exists(dir) ? dir.toFile().list().length : 0));
    }
}
