package io.jfabric.cli;

import io.jfabric.Domain;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.loadtest.AeronTarget;
import io.jfabric.loadtest.ClosedLoopRig;
import io.jfabric.loadtest.FabricInfos;
import io.jfabric.loadtest.FabricTarget;
import io.jfabric.loadtest.FixedRateRig;
import io.jfabric.loadtest.LoadTarget;
import io.jfabric.loadtest.OpClass;
import io.jfabric.loadtest.PingpongEndpoint;
import io.jfabric.loadtest.RigResult;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.ShutdownSignalBarrier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code jfabric bench}: load tests of jfabric's providers beside Aeron (and, when installed, libfabric's
 * {@code fi_pingpong}), with a table, {@code .hgrm} percentile files, HdrHistogram interval logs, JSON and a PNG
 * percentile plot.
 * <ul>
 *     <li>{@code -m fixed} (default): a fixed-rate, coordinated-omission-free load test per rate
 *     ({@link FixedRateRig});</li>
 *     <li>{@code -m latency}: closed-loop ping-pong per size, one-way = round trip / 2 ({@link ClosedLoopRig});</li>
 *     <li>{@code -m bw}: a window of operations in flight, one pair: bandwidth;</li>
 *     <li>{@code -m mr}: the same over {@code --pairs} pairs, one thread each: aggregate message rate.</li>
 *     <li>{@code -m stream}: one-way message rate (msg, tagged): the measuring side sends in bursts as the window
 *     allows (default 1024 sent and not yet received), the answering side keeps receives posted and counts what
 *     arrived, nothing is echoed (as Aeron's throughput samples); {@code --pairs} pairs (default 1).</li>
 * </ul>
 * Every target runs through the same rig; repetitions alternate the targets (A B A B), and each row gives its ratio
 * to the first jfabric provider beside the raw figures. A signal (Ctrl-C) prints what was measured and removes
 * every file the run created.
 * <p>
 * Exit codes: 0 success, 1 a run failed, 2 bad input. Not thread-safe: one instance per invocation.
 */
@Command(
    name = "bench",
    sortOptions = false,
    description = {
        "Load tests: fixed-rate (coordinated-omission free), closed-loop latency, bandwidth and message rate,",
        "jfabric providers beside Aeron IPC/UDP and fi_pingpong; table, .hgrm, interval logs, JSON, PNG plot." })
public final class BenchCommand implements java.util.concurrent.Callable<Integer>
{
    /** Rates of the default fixed-rate run, operations per second. */
    public static final String DEFAULT_RATES = "10k,100k";
    /** The output directory without {@code --dir}. */
    public static final String DEFAULT_DIR = "bench-results";
    private static final String ALL_PEERS = "aeron-ipc,aeron-udp,fi_pingpong,ucx_perftest";
    private static final AtomicInteger AERON_DIRS = new AtomicInteger();
    /** {@code -m stream}: messages sent and not yet received at most, by default. */
    private static final int STREAM_WINDOW = 1024;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = { "-m", "--mode" }, paramLabel = "MODE", defaultValue = "fixed",
        description = "fixed (fixed-rate load), latency (closed-loop sweep), bw (bandwidth), mr (message rate, " +
            "--pairs pairs), stream (one-way message rate: msg, tagged) (default: ${DEFAULT-VALUE})")
    private String mode;

    @Option(names = { "-p", "--provider" }, paramLabel = "NAMES", defaultValue = "shm", split = ",",
        description = "jfabric providers, comma-separated (default: ${DEFAULT-VALUE})")
    private List<String> providers;

    @Option(names = "--op", paramLabel = "CLASS", defaultValue = "tagged",
        description = "message class: msg, tagged, write, read, atomic (default: ${DEFAULT-VALUE})")
    private String op;

    @Option(names = { "-S", "--size" }, paramLabel = "SIZES", defaultValue = "64", split = ",",
        description = "message sizes in bytes (4k, 1m: 1024-based), comma-separated (default: ${DEFAULT-VALUE})")
    private List<String> sizes;

    @Option(names = { "-r", "--rate" }, paramLabel = "RATES", defaultValue = DEFAULT_RATES, split = ",",
        description = "fixed: operations per second (10k, 1m: 1000-based), comma-separated (default: " +
            "${DEFAULT-VALUE})")
    private List<String> rates;

    @Option(names = "--peers", paramLabel = "PEERS", defaultValue = "aeron-ipc", split = ",",
        description = "peers run beside jfabric: aeron-ipc, aeron-udp, fi_pingpong, ucx_perftest, all or none " +
            "(default: ${DEFAULT-VALUE})")
    private List<String> peers;

    @Option(names = "--progress", paramLabel = "MODEL",
        description = "data progress: manual or auto (default: manual when the provider offers it)")
    private String progress;

    @Option(names = "--idle", paramLabel = "STRATEGY", defaultValue = "backoff",
        description = "idle strategy of the rig, the answering sides and AUTO progress threads: spin, backoff, " +
            "yield (default: ${DEFAULT-VALUE})")
    private String idle;

    @Option(names = { "-w", "--warmup" }, paramLabel = "N",
        description = "unrecorded warm-up: fixed, bw, mr, stream: seconds (default 1); latency: round trips (10000)")
    private Integer warmup;

    @Option(names = { "-n", "--iterations" }, paramLabel = "N",
        description = "measured part: fixed: one-second iterations (default 3); latency: round trips (50000); " +
            "bw, mr, stream: seconds (2)")
    private Integer iterations;

    @Option(names = "--window", paramLabel = "W",
        description = "operations in flight at most (fixed, bw, mr: default 64; stream: sent, not yet received, " +
            "default 1024)")
    private Integer window;

    @Option(names = "--pairs", paramLabel = "N", description = "mr, stream: pairs, one thread each (default 2; " +
        "stream 1)")
    private Integer pairs;

    @Option(names = { "-R", "--repetitions" }, paramLabel = "N", defaultValue = "2",
        description = "repetitions, alternating the targets (default: ${DEFAULT-VALUE})")
    private int repetitions;

    @Option(names = { "-d", "--dir" }, paramLabel = "DIR", defaultValue = DEFAULT_DIR,
        description = "where .hgrm, .hlog and .png files go (default: ${DEFAULT-VALUE})")
    private File dir;

    @Option(names = "--hgrm", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "write a percentile distribution (.hgrm, microseconds) per series (default: on)")
    private boolean hgrm;

    @Option(names = "--log", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "fixed: write an HdrHistogram interval log (.hlog) per series (default: on)")
    private boolean log;

    @Option(names = "--plot", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "draw the percentile plot (bench-MODE.png) (default: on)")
    private boolean plot;

    @Option(names = "--plot-size", paramLabel = "WxH", defaultValue = "1000x600",
        description = "plot size in pixels (default: ${DEFAULT-VALUE})")
    private String plotSize;

    @Option(names = "--json", description = "print JSON instead of the table")
    private boolean json;

    @Option(names = { "-q", "--quiet" }, description = "no progress bar")
    private boolean quiet;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "30",
        description = "the longest any wait may take (default: ${DEFAULT-VALUE})")
    private int timeout;

    @Option(names = { "-h", "--help" }, usageHelp = true, description = "show this help")
    private boolean help;

    private PrintWriter out;
    private PrintWriter err;
    private final PingpongInterrupt interrupt = new PingpongInterrupt();
    private final List<Runnable> active = new CopyOnWriteArrayList<>();
    private final List<Process> processes = new CopyOnWriteArrayList<>();
    /** Every file this run created, in order (what a signal removes). */
    private final List<File> created = new ArrayList<>();
    private final List<BenchSeries> series = new ArrayList<>();
    private final Map<String, String> missing = new LinkedHashMap<>();
    private final Map<BenchSeries, HistogramLogWriter> logs = new LinkedHashMap<>();
    private final Map<BenchSeries, PrintStream> logStreams = new LinkedHashMap<>();
    private boolean createdDir;
    private int plotWidth;
    private int plotHeight;
    private OpClass opClass;
    private BenchProgress bar;

    /**
     * The interrupt a signal raises (tests raise it to stop a run as Ctrl-C does).
     *
     * @return the interrupt.
     */
    PingpongInterrupt interrupt()
    {
        return interrupt;
    }

    /**
     * Validates the options, runs the measurements, prints and writes the results.
     *
     * @return the exit code.
     */
    @Override
    public Integer call()
    {
        out = spec.commandLine().getOut();
        err = spec.commandLine().getErr();
        interrupt.onRaise(this::stopActive);
        // as jfabric pingpong: the shutdown hook raises the interrupt and waits until the report is out and the
        // files are removed
        try (ShutdownSignalBarrier ignored = new ShutdownSignalBarrier(interrupt::raise))
        {
            return runAndReport();
        }
    }

    private void stopActive()
    {
        for (final Runnable r : active)
        {
            r.run();
        }
        for (final Process p : processes)
        {
            p.destroyForcibly();
        }
    }

    private int runAndReport()
    {
        try
        {
            run();
            if (interrupt.raised())
            {
                return stoppedBySignal(null);
            }
            return JfabricCommand.EXIT_OK;
        }
        catch (final PingpongFailure ex)
        {
            if (interrupt.raised())
            {
                return stoppedBySignal(ex.getMessage());
            }
            closeLogs();
            err.println("jfabric bench: " + ex.getMessage());
            return ex.exitCode();
        }
        catch (final RuntimeException ex)
        {
            closeLogs();
            err.println("jfabric bench: internal error: " + ex);
            return JfabricCommand.EXIT_NO_MATCH;
        }
        finally
        {
            out.flush();
            err.flush();
        }
    }

    private int stoppedBySignal(final String reason)
    {
        if (null != bar)
        {
            bar.clear();
        }
        closeLogs();
        if (series.stream().anyMatch(BenchSeries::measured))
        {
            report();
        }
        final int removed = removeCreated();
        err.println("jfabric bench: stopped by a signal" + (null != reason ? " (" + reason + ")" : "") + "; " +
            series.stream().filter(BenchSeries::measured).count() + " series measured (partial ones marked), " +
            removed + " files removed");
        return JfabricCommand.EXIT_NO_MATCH;
    }

    private int removeCreated()
    {
        int removed = 0;
        for (int i = created.size() - 1; i >= 0; i--)
        {
            if (created.get(i).delete())
            {
                removed++;
            }
        }
        created.clear();
        if (createdDir)
        {
            dir.delete();
        }
        return removed;
    }

    private void run()
    {
        final String m = mode.toLowerCase(Locale.ROOT);
        if (!List.of("fixed", "latency", "bw", "mr", "stream").contains(m))
        {
            throw PingpongFailure.badInput("unknown mode '" + mode + "' (fixed, latency, bw, mr, stream)");
        }
        try
        {
            opClass = OpClass.of(op);
        }
        catch (final IllegalArgumentException ex)
        {
            throw PingpongFailure.badInput(ex.getMessage());
        }
        try
        {
            Domain.idleStrategy(idle);
        }
        catch (final FabricException ex)
        {
            throw PingpongFailure.badInput("unknown idle strategy '" + idle + "' (spin, backoff, yield)");
        }
        final Progress model = progress(progress);
        final boolean fixed = "fixed".equals(m);
        final boolean latency = "latency".equals(m);
        final boolean stream = "stream".equals(m);
        if (stream && !opClass.echoed())
        {
            throw PingpongFailure.badInput("-m stream: --op msg or tagged (one-sided operations complete at the " +
                "initiator: -m mr measures their rate)");
        }
        final int warm = atLeast(warmup, latency ? 10_000 : 1, "--warmup", 0);
        final int measured = atLeast(iterations, latency ? 50_000 : fixed ? 3 : 2, "--iterations", 1);
        final int w = atLeast(window, latency ? 1 : stream ? STREAM_WINDOW : 64, "--window", 1);
        final int pairCount = "mr".equals(m) ? atLeast(pairs, 2, "--pairs", 1) :
            stream ? atLeast(pairs, 1, "--pairs", 1) : 1;
        if (repetitions < 1)
        {
            throw PingpongFailure.badInput("--repetitions " + repetitions + ": must be at least 1");
        }
        if (timeout < 1)
        {
            throw PingpongFailure.badInput("--timeout " + timeout + ": must be at least 1");
        }
        parsePlotSize();
        final Set<Integer> sizeSet = new LinkedHashSet<>();
        for (final String s : sizes)
        {
            sizeSet.add(OpClass.ATOMIC == opClass ? Long.BYTES : PingpongCommand.size(s));
        }
        final List<Long> rateList = new ArrayList<>();
        if (fixed)
        {
            for (final String r : rates)
            {
                rateList.add(rate(r));
            }
        }
        else
        {
            rateList.add(0L);
        }
        final List<String> peerList = peers(peers);
        final Map<String, Info> infos = new LinkedHashMap<>();
        for (final String p : providers)
        {
            infos.put(p, resolve(p.trim(), model));
        }
        prepareDir();
        final long timeoutMs = TimeUnit.SECONDS.toMillis(timeout);
        final List<String> targets = new ArrayList<>(infos.keySet());
        for (final String peer : peerList)
        {
            if (peer.startsWith("aeron"))
            {
                targets.add(peer);
            }
            else
            {
                externalPeer(peer, latency, targets);
            }
        }
        final double perRun = fixed ? warm + measured : latency ? 1 : warm + measured;
        bar = new BenchProgress(err, BenchProgress.wanted(quiet),
            perRun * sizeSet.size() * rateList.size() * repetitions * targets.size());
        for (final int size : sizeSet)
        {
            for (final long rate : rateList)
            {
                final List<BenchSeries> row = new ArrayList<>();
                for (final String t : targets)
                {
                    final boolean jf = infos.containsKey(t);
                    final String label = jf ? t + " " + opClass.label() :
                        "fi_pingpong".equals(t) ? "fi_pingpong shm " + opClass.label() : t.replace('-', ' ');
                    final BenchSeries s = new BenchSeries(label, jf, m, size, rate, w, pairCount);
                    series.add(s);
                    row.add(s);
                }
                for (int rep = 0; rep < repetitions && !interrupt.raised(); rep++)
                {
                    for (int i = 0; i < targets.size() && !interrupt.raised(); i++)
                    {
                        final String t = targets.get(i);
                        final BenchSeries s = row.get(i);
                        bar.what(s.title() + " (" + (rep + 1) + "/" + repetitions + ")");
                        if (null != s.missing)
                        {
                            bar.advance(perRun);
                            continue;
                        }
                        measure(t, infos.get(t), s, m, warm, measured, timeoutMs);
                        if (!fixed)
                        {
                            bar.advance(perRun);
                        }
                    }
                }
            }
        }
        bar.clear();
        closeLogs();
        if (interrupt.raised())
        {
            return;
        }
        report();
        writeFiles();
        final List<String> failures = new ArrayList<>();
        for (final BenchSeries s : series)
        {
            if (s.partial)
            {
                final int status = s.repetitions.get(s.repetitions.size() - 1).status();
                failures.add(s.title() + ": " + Errno.strerror(-status));
            }
        }
        if (!failures.isEmpty())
        {
            throw PingpongFailure.failed("runs failed: " + String.join(", ", failures));
        }
    }

    private void externalPeer(final String peer, final boolean latency, final List<String> targets)
    {
        final File program = BenchExternal.which(peer);
        if (null == program)
        {
            missing.put(peer, "not installed (not on PATH)");
        }
        else if ("fi_pingpong".equals(peer) && latency && opClass.echoed())
        {
            targets.add(peer);
        }
        else if ("fi_pingpong".equals(peer))
        {
            missing.put(peer, "installed at " + program + ", but it measures closed-loop msg/tagged latency only " +
                "(-m latency --op msg|tagged)");
        }
        else
        {
            missing.put(peer, "installed at " + program + ", but jfabric bench does not drive it yet");
        }
    }

    private void measure(
        final String target, final Info info, final BenchSeries s, final String m, final int warm,
        final int measured, final long timeoutMs)
    {
        if ("fi_pingpong".equals(target))
        {
            try
            {
                final double rtt = BenchExternal.fiPingpong(BenchExternal.which(target), OpClass.TAGGED == opClass,
                    s.size, measured, timeoutMs, processes);
                s.addExternal(rtt);
            }
            catch (final IOException ex)
            {
                if (!interrupt.raised())
                {
                    s.missing = "failed: " + ex.getMessage();
                }
            }
            return;
        }
        final List<LoadTarget> opened = new ArrayList<>();
        try
        {
            for (int p = 0; p < s.pairs; p++)
            {
                opened.add(open(target, info, s.size, s.window, timeoutMs, "stream".equals(m)));
            }
        }
        catch (final RuntimeException ex)
        {
            for (final LoadTarget t : opened)
            {
                t.close();
            }
            if (ex instanceof IllegalArgumentException)
            {
                s.missing = ex.getMessage();
                return;
            }
            throw PingpongFailure.failed(s.title() + ": cannot open: " + ex.getMessage());
        }
        try
        {
            final RigResult r;
            if ("fixed".equals(m))
            {
                r = fixedRate(opened.get(0), s, warm, measured, timeoutMs);
            }
            else if ("latency".equals(m))
            {
                r = closedLoop(opened.get(0), timeoutMs, (rig, t) -> rig.latency(t, warm, measured));
            }
            else
            {
                r = throughput(opened, s, warm, measured, timeoutMs, "stream".equals(m));
            }
            s.add(r);
        }
        finally
        {
            for (final LoadTarget t : opened)
            {
                t.close();
            }
        }
    }

    private LoadTarget open(
        final String target, final Info info, final int size, final int w, final long timeoutMs, final boolean oneWay)
    {
        if (null != info)
        {
            return oneWay ? FabricTarget.openOneWay(info, opClass, size, w, idle, timeoutMs) :
                FabricTarget.open(info, opClass, size, w, idle, timeoutMs);
        }
        final File aeronDir = new File(System.getProperty("java.io.tmpdir"), "jfabric-bench-aeron-" +
            ProcessHandle.current().pid() + "-" + AERON_DIRS.incrementAndGet());
        final AeronTarget.Kind kind = "aeron-udp".equals(target) ? AeronTarget.Kind.UDP : AeronTarget.Kind.IPC;
        return oneWay ? AeronTarget.openOneWay(kind, size, w, idle, aeronDir, timeoutMs) :
            AeronTarget.open(kind, size, w, idle, aeronDir, timeoutMs);
    }

    private RigResult fixedRate(
        final LoadTarget target, final BenchSeries s, final int warm, final int measured, final long timeoutMs)
    {
        final FixedRateRig rig = new FixedRateRig(rigIdle(), timeoutMs);
        final Runnable stop = () ->
        {
            rig.stop();
            target.abort();
        };
        active.add(stop);
        try
        {
            return rig.run(target, s.rate, warm, measured, (index, warmupIteration, interval, startedNs, sent) ->
            {
                bar.advance(1);
                if (!warmupIteration && log)
                {
                    logInterval(s, interval, startedNs);
                }
            });
        }
        finally
        {
            active.remove(stop);
        }
    }

    private interface ClosedRun
    {
        RigResult run(ClosedLoopRig rig, LoadTarget target);
    }

    private RigResult closedLoop(final LoadTarget target, final long timeoutMs, final ClosedRun run)
    {
        final ClosedLoopRig rig = new ClosedLoopRig(rigIdle(), timeoutMs);
        final Runnable stop = () ->
        {
            rig.stop();
            target.abort();
        };
        active.add(stop);
        try
        {
            return run.run(rig, target);
        }
        finally
        {
            active.remove(stop);
        }
    }

    private RigResult throughput(
        final List<LoadTarget> targets, final BenchSeries s, final int warm, final int measured,
        final long timeoutMs, final boolean oneWay)
    {
        final long warmNs = TimeUnit.SECONDS.toNanos(warm);
        final long runNs = TimeUnit.SECONDS.toNanos(measured);
        final ClosedRun run = oneWay ? (rig, t) -> rig.stream(t, s.window, warmNs, runNs) :
            (rig, t) -> rig.throughput(t, s.window, warmNs, runNs);
        if (1 == targets.size())
        {
            return closedLoop(targets.get(0), timeoutMs, run);
        }
        final List<AtomicReference<RigResult>> results = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        for (final LoadTarget t : targets)
        {
            final AtomicReference<RigResult> result = new AtomicReference<>();
            results.add(result);
            final Thread thread = new Thread(() -> result.set(closedLoop(t, timeoutMs, run)), "jfabric-bench-pair");
            thread.setDaemon(true);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
        RigResult merged = null;
        for (int i = 0; i < threads.size(); i++)
        {
            try
            {
                threads.get(i).join(warmNs / 1_000_000 + runNs / 1_000_000 + timeoutMs);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            final RigResult r = results.get(i).get();
            if (null == r)
            {
                throw PingpongFailure.failed(s.title() + ": pair " + i + " did not finish");
            }
            if (null == merged)
            {
                merged = r;
            }
            else
            {
                merged.merge(r);
            }
        }
        return merged;
    }

    private IdleStrategy rigIdle()
    {
        // Every target over a network (the aeron provider, Aeron UDP): waits back off as Aeron's samples do.
        final boolean network = List.of("aeron").containsAll(providers) &&
            List.of("aeron-udp", "none").containsAll(peers);
        return PingpongEndpoint.waitStrategy(idle, network);
    }

    private void logInterval(final BenchSeries s, final Histogram interval, final long startedNs)
    {
        try
        {
            final long nowMs = System.currentTimeMillis();
            final long startMs = nowMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNs);
            HistogramLogWriter writer = logs.get(s);
            if (null == writer)
            {
                final File f = new File(dir, s.stem() + ".hlog");
                final PrintStream ps = new PrintStream(create(f), false, StandardCharsets.UTF_8);
                writer = new HistogramLogWriter(ps);
                writer.outputComment("jfabric bench " + s.mode + " " + s.title() + ", round trips in microseconds");
                writer.outputLogFormatVersion();
                // the log's time base is the start of its first measured interval
                writer.outputStartTime(startMs);
                writer.setBaseTime(startMs);
                writer.outputLegend();
                logs.put(s, writer);
                logStreams.put(s, ps);
            }
            final double base = writer.getBaseTime();
            // seconds since the log's base time, values in microseconds (as the .hgrm files)
            writer.outputIntervalHistogram((startMs - base) / 1000.0, (nowMs - base) / 1000.0, interval, 1000.0);
        }
        catch (final IOException ex)
        {
            throw PingpongFailure.failed("cannot write the interval log of " + s.title() + ": " + ex.getMessage());
        }
    }

    private void closeLogs()
    {
        for (final PrintStream ps : logStreams.values())
        {
            ps.close();
        }
        logStreams.clear();
        logs.clear();
    }

    private FileOutputStream create(final File f) throws FileNotFoundException
    {
        final boolean existed = f.exists();
        final FileOutputStream stream = new FileOutputStream(f);
        if (!existed)
        {
            created.add(f);
        }
        return stream;
    }

    private void prepareDir()
    {
        if (!(hgrm || log || plot))
        {
            return;
        }
        if (!dir.isDirectory())
        {
            if (!dir.mkdirs())
            {
                throw PingpongFailure.badInput("--dir " + dir + ": cannot create the directory");
            }
            createdDir = true;
        }
    }

    private void writeFiles()
    {
        final List<String> written = new ArrayList<>();
        try
        {
            if (hgrm)
            {
                for (final BenchSeries s : series)
                {
                    if (s.hasHistogram())
                    {
                        final File f = new File(dir, s.stem() + ".hgrm");
                        try (PrintStream ps = new PrintStream(create(f), false, StandardCharsets.UTF_8))
                        {
                            s.histogram.outputPercentileDistribution(ps, 1000.0);
                        }
                        written.add(f.getPath());
                    }
                }
            }
            for (final BenchSeries s : series)
            {
                if (s.hasHistogram() && log && "fixed".equals(s.mode))
                {
                    written.add(new File(dir, s.stem() + ".hlog").getPath());
                }
            }
            if (plot && series.stream().anyMatch(BenchSeries::hasHistogram))
            {
                final File f = plotFile();
                final boolean existed = f.exists();
                BenchPlot.write(f, plotTitle(), series, plotWidth, plotHeight);
                if (!existed)
                {
                    created.add(f);
                }
                written.add(f.getPath());
            }
        }
        catch (final IOException ex)
        {
            throw PingpongFailure.failed("cannot write to " + dir + ": " + ex.getMessage());
        }
        if (!json && !written.isEmpty())
        {
            out.println();
            out.println("files: " + String.join(" ", written));
            out.flush();
        }
    }

    File plotFile()
    {
        return new File(dir, "bench-" + mode.toLowerCase(Locale.ROOT) + ".png");
    }

    private String plotTitle()
    {
        return "jfabric bench " + mode.toLowerCase(Locale.ROOT) + ": " + opClass.label() +
            ("fixed".equals(mode.toLowerCase(Locale.ROOT)) ? ", round trip from the scheduled send time" :
            ", round trip");
    }

    private void report()
    {
        if (json)
        {
            out.println(BenchReport.json(mode.toLowerCase(Locale.ROOT), opClass, repetitions, series, missing));
        }
        else
        {
            out.print(BenchReport.table(mode.toLowerCase(Locale.ROOT), opClass, repetitions, series, missing));
        }
        out.flush();
    }

    private void parsePlotSize()
    {
        final String[] parts = plotSize.toLowerCase(Locale.ROOT).split("x");
        try
        {
            if (2 == parts.length)
            {
                plotWidth = Integer.parseInt(parts[0]);
                plotHeight = Integer.parseInt(parts[1]);
                if (plotWidth >= 200 && plotHeight >= 150 && plotWidth <= 8000 && plotHeight <= 8000)
                {
                    return;
                }
            }
        }
        catch (final NumberFormatException ex)
        {
            // below
        }
        throw PingpongFailure.badInput("--plot-size " + plotSize + ": WIDTHxHEIGHT in pixels, 200x150 to 8000x8000");
    }

    private Info resolve(final String provider, final Progress model)
    {
        if (provider.isEmpty())
        {
            throw PingpongFailure.badInput("empty provider name");
        }
        try
        {
            if (null == model)
            {
                try
                {
                    return FabricInfos.resolve(provider, opClass.caps(), Progress.MANUAL);
                }
                catch (final FabricException ex)
                {
                    // no MANUAL info: the provider's default below
                }
            }
            return FabricInfos.resolve(provider, opClass.caps(), model);
        }
        catch (final FabricException ex)
        {
            throw PingpongFailure.badInput("provider '" + provider + "' offers no RDM endpoint for " +
                opClass.label() + (null != model ? " with " + model + " progress" : "") + " (" + ex.getMessage() +
                ")");
        }
    }

    private static List<String> peers(final List<String> given)
    {
        final List<String> result = new ArrayList<>();
        for (final String g : given)
        {
            final String p = g.trim().toLowerCase(Locale.ROOT);
            switch (p)
            {
                case "none":
                    break;
                case "all":
                    for (final String a : ALL_PEERS.split(","))
                    {
                        if (!result.contains(a))
                        {
                            result.add(a);
                        }
                    }
                    break;
                case "aeron-ipc":
                case "aeron-udp":
                case "fi_pingpong":
                case "ucx_perftest":
                    if (!result.contains(p))
                    {
                        result.add(p);
                    }
                    break;
                default:
                    throw PingpongFailure.badInput("unknown peer '" + g + "' (" + ALL_PEERS + ", all, none)");
            }
        }
        return result;
    }

    static long rate(final String text)
    {
        final String t = text.trim().toLowerCase(Locale.ROOT);
        final long factor = t.endsWith("k") ? 1_000 : t.endsWith("m") ? 1_000_000 : 1;
        try
        {
            final long value = Long.parseLong(1 == factor ? t : t.substring(0, t.length() - 1)) * factor;
            if (value >= 1 && value <= 100_000_000L && !t.startsWith("+"))
            {
                return value;
            }
        }
        catch (final NumberFormatException ex)
        {
            // below
        }
        throw PingpongFailure.badInput("invalid rate '" + text + "' (operations per second, 1 to 100m, with an " +
            "optional k or m suffix, 1000-based)");
    }

    private static Progress progress(final String text)
    {
        if (null == text)
        {
            return null;
        }
        switch (text.toLowerCase(Locale.ROOT))
        {
            case "manual":
                return Progress.MANUAL;
            case "auto":
                return Progress.AUTO;
            default:
                throw PingpongFailure.badInput("unknown progress model '" + text + "' (manual, auto)");
        }
    }

    private static int atLeast(final Integer value, final int dflt, final String option, final int min)
    {
        if (null == value)
        {
            return dflt;
        }
        if (value < min)
        {
            throw PingpongFailure.badInput(option + " " + value + ": must be at least " + min);
        }
        return value;
    }
}
