package io.jfabric.cli;

import io.jfabric.DomainAttr;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.InfoFormat;
import io.jfabric.Progress;
import io.jfabric.Domain;
import io.jfabric.spi.Provider;
import org.agrona.concurrent.ShutdownSignalBarrier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * {@code jfabric pingpong}: a ping-pong latency test with {@code fi_pingpong}'s flags and table, plus round-trip
 * percentiles from HdrHistogram.
 * <ul>
 *     <li>no address: both sides in this process, each on its own thread with its own fabric, domain and endpoint
 *     (the server side on a thread of its own, talking to this thread over a loopback control connection);</li>
 *     <li>{@code --server}: wait for one client on the control port ({@code -B}, default 47592);</li>
 *     <li>{@code HOST}: connect to a server's control port ({@code -P}, default 47592).</li>
 * </ul>
 * Exit codes: 0 success, 1 the run failed (peer unreachable, peer gone, timeout, data check), 2 bad input. Every
 * error is one line on standard error, never a stack trace.
 * <p>
 * Not thread-safe: one instance per invocation.
 */
@Command(
    name = "pingpong",
    sortOptions = false,
    description = {
        "Ping-pong latency test, as fi_pingpong, with HdrHistogram round-trip percentiles.",
        "Without HOST both sides run in this process; --server waits for a client; HOST connects to a server." })
public final class PingpongCommand implements Callable<Integer>
{
    /**
     * The provider used without {@code -p}: {@code shm} (the main job). Set to null to use the first provider
     * {@link Fabric#getInfo} returns for the endpoint type and transmit mode that can open a fabric instead.
     */
    public static final String DEFAULT_PROVIDER = "shm";
    /** The control port of {@code fi_pingpong}. */
    public static final int DEFAULT_CONTROL_PORT = 47592;
    /** Round trips measured per size without {@code -I}. */
    public static final int DEFAULT_ITERATIONS = 100_000;
    /** Warm-up round trips per size without {@code --warmup}. */
    public static final int DEFAULT_WARMUP = 20_000;
    /** Message size without {@code -S}. */
    public static final int DEFAULT_SIZE = 64;
    /** Seconds any wait may take without {@code --timeout}. */
    public static final int DEFAULT_TIMEOUT_S = 30;
    /** Largest size of the {@code -S all} sweep (as {@code fi_pingpong}: 4 MiB + 2 MiB), capped by max_msg_size. */
    public static final int SWEEP_LIMIT = (1 << 22) + (1 << 21);

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = { "-p", "--provider" }, paramLabel = "NAME",
        description = "provider name (default: shm)")
    private String provider;

    @Option(names = { "-e", "--ep-type" }, paramLabel = "TYPE", defaultValue = "rdm",
        description = "endpoint type: rdm, dgram or msg (default: ${DEFAULT-VALUE})")
    private String epType;

    @Option(names = { "-m", "--transmit-mode" }, paramLabel = "MODE", defaultValue = "tagged",
        description = "transmit mode: msg or tagged (default: ${DEFAULT-VALUE})")
    private String transmitMode;

    @Option(names = { "-I", "--iterations" }, paramLabel = "N",
        description = "round trips measured per size (default: " + DEFAULT_ITERATIONS + ")")
    private Integer iterations;

    @Option(names = { "-S", "--size" }, paramLabel = "SIZE",
        description = "message size in bytes (4k, 1m: 1024-based), or 'all' for fi_pingpong's sweep (default: " +
            DEFAULT_SIZE + ")")
    private String size;

    @Option(names = { "-B", "--src-port" }, paramLabel = "PORT",
        description = "source control port (server: " + DEFAULT_CONTROL_PORT + ", 0 = any; client: any)")
    private Integer srcPort;

    @Option(names = { "-P", "--dst-port" }, paramLabel = "PORT",
        description = "destination control port (client: " + DEFAULT_CONTROL_PORT + ")")
    private Integer dstPort;

    @Option(names = { "-c", "--check" }, description = "data-integrity checks: fill and verify every payload")
    private boolean check;

    @Option(names = { "-d", "--domain" }, paramLabel = "NAME", description = "domain name")
    private String domain;

    @Option(names = "--progress", paramLabel = "MODEL",
        description = "data progress: manual or auto (default: manual when the provider offers it)")
    private String progress;

    @Option(names = "--idle", paramLabel = "STRATEGY", defaultValue = "backoff",
        description = "idle strategy of completion waits and AUTO progress threads: spin, backoff or yield " +
            "(default: ${DEFAULT-VALUE})")
    private String idle;

    @Option(names = "--warmup", paramLabel = "N",
        description = "warm-up round trips per size, not measured (default: " + DEFAULT_WARMUP + ", at most -I)")
    private Integer warmup;

    @Option(names = "--hgrm", paramLabel = "FILE",
        description = "write the round-trip percentile distribution (microseconds) to FILE (-S all: FILE-<size>)")
    private String hgrm;

    @Option(names = "--json", description = "print the figures as JSON (an array for -S all) instead of the table")
    private boolean json;

    @Option(names = "--server", description = "wait for a client on the control port")
    private boolean server;

    @Option(names = "--timeout", paramLabel = "SECONDS",
        description = "the longest any wait may take (default: " + DEFAULT_TIMEOUT_S + ")")
    private Integer timeout;

    @Option(names = { "-v", "--verbose" }, description = "print the fabric info used to standard error")
    private boolean verbose;

    @Option(names = { "-h", "--help" }, usageHelp = true, description = "show this help")
    private boolean help;

    @Parameters(index = "0", arity = "0..1", paramLabel = "HOST", description = "the server to connect to")
    private String host;

    private PrintWriter out;
    private PrintWriter err;
    private boolean headerPrinted;
    private final PingpongInterrupt interrupt = new PingpongInterrupt();
    /** Every result passed to the sink so far, in order (what a signal's partial report prints). */
    private final List<PingpongResult> reported = new ArrayList<>();

    /**
     * Validates the options, runs the ping-pong in the mode they select and prints the figures.
     *
     * @return the exit code.
     */
    @Override
    public Integer call()
    {
        out = spec.commandLine().getOut();
        err = spec.commandLine().getErr();
        // SIGINT/SIGTERM: the JVM's shutdown hook raises the interrupt, then waits until this barrier is closed, so the
        // run can report what it has and close its endpoints (shm removes its ring files on close) before the exit
        try (ShutdownSignalBarrier ignored = new ShutdownSignalBarrier(interrupt::raise))
        {
            // the barrier closes (and so lets the JVM exit) only after the report below is printed and flushed:
            // try-with-resources closes before its own catch clauses run, hence the inner try
            return runAndReport();
        }
    }

    private int runAndReport()
    {
        try
        {
            run();
            return JfabricCommand.EXIT_OK;
        }
        catch (final PingpongFailure ex)
        {
            if (interrupt.raised())
            {
                if (!reported.isEmpty())
                {
                    report(reported, reported.size() > 1);
                }
                final String message = ex.getMessage();
                err.println("jfabric pingpong: " +
                    (message.contains("stopped by a signal") ? message : "stopped by a signal (" + message + ")"));
                return ex.exitCode();
            }
            err.println("jfabric pingpong: " + ex.getMessage());
            return ex.exitCode();
        }
        catch (final RuntimeException ex)
        {
            err.println("jfabric pingpong: internal error: " + ex);
            return JfabricCommand.EXIT_NO_MATCH;
        }
        finally
        {
            out.flush();
            err.flush();
        }
    }

    private void run()
    {
        final EndpointType type = endpointType(epType);
        final boolean tagged = tagged(transmitMode);
        final Progress progressModel = progress(progress);
        final int n = positive(iterations, DEFAULT_ITERATIONS, "-I", 1);
        // without --warmup: 20000 (past the JIT compile thresholds), at most -I (a sweep with a small -I stays short)
        final int warm = positive(warmup, Math.min(DEFAULT_WARMUP, n), "--warmup", 0);
        final long timeoutMs = TimeUnit.SECONDS.toMillis(positive(timeout, DEFAULT_TIMEOUT_S, "--timeout", 1));
        try
        {
            Domain.idleStrategy(idle);
        }
        catch (final FabricException ex)
        {
            throw PingpongFailure.badInput("unknown idle strategy '" + idle + "' (spin, backoff, yield)");
        }
        final boolean sweep = "all".equalsIgnoreCase(size);
        final int fixedSize = sweep ? -1 : size(size);
        if (server && null != host)
        {
            throw PingpongFailure.badInput("give either --server or a HOST, not both");
        }
        if (server && null != hgrm)
        {
            throw PingpongFailure.badInput("--hgrm belongs on the client, which times the round trips");
        }
        final int src = port(srcPort, "-B");
        final int dst = port(dstPort, "-P");
        if (null != host && null != dstPort && 0 == dst)
        {
            throw PingpongFailure.badInput("-P 0: the client needs the server's control port");
        }
        if (null != hgrm)
        {
            final File parent = new File(hgrm).getAbsoluteFile().getParentFile();
            if (null == parent || !parent.isDirectory())
            {
                throw PingpongFailure.badInput("--hgrm " + hgrm + ": no such directory");
            }
        }

        final Info info = resolvePreferringManual(provider, type, tagged, progressModel, domain);
        final long maxMsgSize = info.epAttr().maxMsgSize();
        final int[] sizes;
        if (sweep)
        {
            sizes = sweepSizes((int) Math.min(SWEEP_LIMIT, maxMsgSize));
        }
        else
        {
            if (fixedSize > maxMsgSize)
            {
                throw PingpongFailure.badInput("size " + fixedSize + " is above " + info.fabricAttr().provName() +
                    "'s max_msg_size " + maxMsgSize);
            }
            sizes = new int[] { fixedSize };
        }
        if (verbose)
        {
            err.print(InfoFormat.summary(info));
            err.flush();
        }
        final PingpongParams params = new PingpongParams(info.fabricAttr().provName(), type, tagged, n, warm, check,
            sizes);
        final Consumer<PingpongResult> sink = (r) ->
        {
            reported.add(r);
            if (!json)
            {
                printRow(r);
            }
        };
        final List<PingpongResult> results;
        if (server)
        {
            results = serve(info, src, timeoutMs, sink);
        }
        else if (null != host)
        {
            try (PingpongControl control = PingpongControl.connect(host, 0 == dst ? DEFAULT_CONTROL_PORT : dst, src,
                timeoutMs))
            {
                results = new PingpongSession(info, idle, timeoutMs, sink).interruptible(interrupt)
                    .client(control, params);
            }
        }
        else
        {
            results = inProcess(info, params, timeoutMs, sink);
        }
        report(results, sweep);
    }

    private List<PingpongResult> serve(
        final Info info, final int src, final long timeoutMs, final Consumer<PingpongResult> sink)
    {
        final int port = null == srcPort ? DEFAULT_CONTROL_PORT : src;
        try (ServerSocket listener = new ServerSocket())
        {
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(port), 1);
            interrupt.onRaise(() -> closeQuietly(listener));
            err.println("jfabric pingpong: server listening on control port " + listener.getLocalPort() + " (" +
                info.fabricAttr().provName() + ", " + info.epAttr().type().fiName() + ")");
            err.flush();
            try (PingpongControl control = PingpongControl.accept(listener, timeoutMs))
            {
                listener.close();
                final PingpongSession session = new PingpongSession(info, idle, timeoutMs, sink)
                    .interruptible(interrupt)
                    .helloAccepted(this::adopted)
                    .runStarted((size) ->
                    {
                        if (verbose)
                        {
                            err.println("jfabric pingpong: " + size + " B run started");
                            err.flush();
                        }
                    });
                return session.server(control);
            }
        }
        catch (final IOException ex)
        {
            throw PingpongFailure.failed("cannot listen on control port " + port + ": " +
                PingpongControl.reason(ex));
        }
    }

    /**
     * The server runs the client's parameters: say so, and name this server's own options that they replace.
     */
    private void adopted(final PingpongParams client, final String peer)
    {
        final CommandLine.ParseResult given = spec.commandLine().getParseResult();
        final List<String> ignored = new ArrayList<>();
        if (null != iterations && iterations != client.iterations)
        {
            ignored.add("-I " + iterations);
        }
        if (null != warmup && warmup != client.warmup)
        {
            ignored.add("--warmup " + warmup);
        }
        if (null != size && !size.equals(client.sizesText()) &&
            !(client.sizeCount() == 1 && !"all".equalsIgnoreCase(size) && size(size) == client.size(0)))
        {
            ignored.add("-S " + size);
        }
        if (given.hasMatchedOption("-m") && tagged(transmitMode) != client.tagged)
        {
            ignored.add("-m " + transmitMode);
        }
        if (check && !client.check)
        {
            ignored.add("-c");
        }
        err.println("jfabric pingpong: client " + peer + " connected; running its parameters: " + client.op() + ", " +
            client.sizesText() + " B, " + client.iterations + " iterations, " + client.warmup + " warm-up" +
            (client.check ? ", data checks" : "") +
            (ignored.isEmpty() ? "" : " (this server's " + String.join(" ", ignored) + " not used)"));
        err.flush();
    }

    private List<PingpongResult> inProcess(
        final Info info, final PingpongParams params, final long timeoutMs, final Consumer<PingpongResult> sink)
    {
        final ServerSocket listener;
        try
        {
            listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            interrupt.onRaise(() -> closeQuietly(listener));
        }
        catch (final IOException ex)
        {
            throw PingpongFailure.failed("cannot open a loopback control port: " + PingpongControl.reason(ex));
        }
        final AtomicReference<RuntimeException> serverFailure = new AtomicReference<>();
        final Thread serverThread = new Thread(() ->
        {
            try (ServerSocket l = listener; PingpongControl control = PingpongControl.accept(l, timeoutMs))
            {
                new PingpongSession(info, idle, timeoutMs, (r) -> { }).interruptible(interrupt).server(control);
            }
            catch (final IOException | RuntimeException ex)
            {
                serverFailure.set(ex instanceof RuntimeException ? (RuntimeException) ex :
                    PingpongFailure.failed(PingpongControl.reason(ex)));
            }
        }, "jfabric-pingpong-server");
        serverThread.setDaemon(true);
        serverThread.start();
        List<PingpongResult> results = null;
        PingpongFailure failure = null;
        try (PingpongControl control = PingpongControl.connect(
            InetAddress.getLoopbackAddress().getHostAddress(), listener.getLocalPort(), 0, timeoutMs))
        {
            results = new PingpongSession(info, idle, timeoutMs, sink).interruptible(interrupt).client(control, params);
        }
        catch (final PingpongFailure ex)
        {
            failure = ex;
        }
        finally
        {
            try
            {
                serverThread.join(timeoutMs + 5_000);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        if (null != failure)
        {
            final RuntimeException serverSide = serverFailure.get();
            // the server's own reason, unless the client's message carries it already (from the ERROR frame)
            if (null != serverSide && !failure.getMessage().contains(String.valueOf(serverSide.getMessage())))
            {
                throw new PingpongFailure(failure.exitCode(), failure.getMessage() + " (server side: " +
                    serverSide.getMessage() + ")");
            }
            throw failure;
        }
        return results;
    }

    private static void closeQuietly(final ServerSocket socket)
    {
        try
        {
            socket.close();
        }
        catch (final IOException ignore)
        {
            // stopping on a signal: the accept fails and reports
        }
    }

    private void printRow(final PingpongResult result)
    {
        if (!headerPrinted)
        {
            out.print(PingpongResult.tableHeader());
            headerPrinted = true;
        }
        out.print(result.tableRow());
        out.flush();
    }

    private void report(final List<PingpongResult> results, final boolean sweep)
    {
        if (json)
        {
            // an array for a sweep (on the server: when the client sent several sizes)
            out.println(PingpongResult.json(results, sweep || results.size() > 1));
        }
        else
        {
            out.println();
            out.println("round-trip time (ns), each round trip timed" + (server ? " by the client" : "") +
                ", HdrHistogram:");
            out.print(PingpongResult.percentileHeader());
            for (final PingpongResult r : results)
            {
                out.print(r.percentileRow());
            }
        }
        out.flush();
        if (null != hgrm)
        {
            for (final PingpongResult r : results)
            {
                writeHgrm(results.size() > 1 || sweep ? hgrmName(hgrm, r.size()) : hgrm, r);
            }
        }
    }

    private static void writeHgrm(final String file, final PingpongResult result)
    {
        try (PrintStream ps = new PrintStream(new FileOutputStream(file), false, StandardCharsets.UTF_8))
        {
            // HdrHistogram's tools read the distribution in the unit it is printed in: ns / 1000 = microseconds
            result.histogram().outputPercentileDistribution(ps, 1000.0);
            if (ps.checkError())
            {
                throw new IOException("write error");
            }
        }
        catch (final IOException ex)
        {
            throw PingpongFailure.failed("cannot write " + file + ": " + PingpongControl.reason(ex));
        }
    }

    /**
     * The file name of one size of a sweep: {@code rtt.hgrm} → {@code rtt-64.hgrm}.
     *
     * @param file the --hgrm argument.
     * @param size the size.
     * @return the name.
     */
    static String hgrmName(final String file, final int size)
    {
        final int slash = file.lastIndexOf(File.separatorChar);
        final int dot = file.lastIndexOf('.');
        return dot > slash + 1 ? file.substring(0, dot) + "-" + size + file.substring(dot) : file + "-" + size;
    }

    /**
     * {@code fi_pingpong}'s {@code -S all} sizes: 0, 1, then each power of two and the half-way size above it
     * (2, 3, 4, 6, 8, 12, ...), up to {@code limit}.
     *
     * @param limit the largest size.
     * @return the sizes.
     */
    static int[] sweepSizes(final int limit)
    {
        final List<Integer> sizes = new ArrayList<>();
        sizes.add(0);
        if (limit >= 1)
        {
            sizes.add(1);
        }
        for (long p = 2; p <= limit; p <<= 1)
        {
            sizes.add((int) p);
            if (p + p / 2 <= limit)
            {
                sizes.add((int) (p + p / 2));
            }
        }
        return sizes.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * As {@link #resolve}; without a progress model, MANUAL when the provider offers it (a ping-pong's waiting
     * thread drives progress best itself, and it is the main job's setting), else the provider's default.
     */
    static Info resolvePreferringManual(
        final String providerName, final EndpointType type, final boolean tagged, final Progress progress,
        final String domainName)
    {
        if (null == progress)
        {
            try
            {
                return resolve(providerName, type, tagged, Progress.MANUAL, domainName);
            }
            catch (final PingpongFailure ex)
            {
                // no MANUAL info: the provider's default below, with its own error if that fails too
            }
        }
        return resolve(providerName, type, tagged, progress, domainName);
    }

    /**
     * The info to run with: the first of getInfo's answers for the hints whose provider can open a fabric.
     */
    static Info resolve(
        final String providerName, final EndpointType type, final boolean tagged, final Progress progress,
        final String domainName)
    {
        final String name = null != providerName ? providerName : DEFAULT_PROVIDER;
        if (null != name && Fabric.providers().stream().noneMatch((p) -> p.name().equals(name)))
        {
            throw PingpongFailure.badInput("unknown provider '" + name + "' (providers: " + providerNames() + ")");
        }
        final DomainAttr.Builder domainAttr = DomainAttr.builder();
        if (null != progress)
        {
            domainAttr.dataProgress(progress);
        }
        if (null != domainName)
        {
            domainAttr.name(domainName);
        }
        final Info hints = Info.builder()
            .caps(tagged ? Flags.TAGGED : Flags.MSG)
            .epAttr(EpAttr.builder().type(type).build())
            .fabricAttr(FabricAttr.builder().provName(name).build())
            .domainAttr(domainAttr.build())
            .build();
        final String wanted = type.fiName() + " endpoint with " + (tagged ? "FI_TAGGED" : "FI_MSG") +
            (null != progress ? " and " + progress + " progress" : "") +
            (null != domainName ? " in domain '" + domainName + "'" : "");
        final List<Info> infos;
        try
        {
            infos = Fabric.getInfo(hints);
        }
        catch (final FabricException ex)
        {
            throw PingpongFailure.badInput((null != name ? "provider '" + name + "' offers" : "no provider offers") +
                " no " + wanted);
        }
        for (final Info info : infos)
        {
            try
            {
                Fabric.open(info).close();
                return info;
            }
            catch (final FabricException ex)
            {
                // a discovery-only provider (it cannot open a fabric): try the next answer
            }
        }
        throw PingpongFailure.badInput((null != name ? "provider '" + name + "' cannot" : "no provider can") +
            " open a fabric for a " + wanted);
    }

    private static String providerNames()
    {
        final StringBuilder sb = new StringBuilder();
        for (final Provider p : Fabric.providers())
        {
            sb.append(sb.length() > 0 ? ", " : "").append(p.name());
        }
        return sb.toString();
    }

    private static EndpointType endpointType(final String text)
    {
        final String t = text.toLowerCase(Locale.ROOT);
        switch (t)
        {
            case "rdm":
            case "fi_ep_rdm":
                return EndpointType.RDM;
            case "dgram":
            case "fi_ep_dgram":
                return EndpointType.DGRAM;
            case "msg":
            case "fi_ep_msg":
                return EndpointType.MSG;
            default:
                throw PingpongFailure.badInput("unknown endpoint type '" + text + "' (rdm, dgram, msg)");
        }
    }

    private static boolean tagged(final String text)
    {
        switch (text.toLowerCase(Locale.ROOT))
        {
            case "tagged":
                return true;
            case "msg":
                return false;
            default:
                throw PingpongFailure.badInput("unknown transmit mode '" + text + "' (msg, tagged)");
        }
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

    /**
     * A size as {@code -S} takes it: a byte count, with an optional 1024-based suffix as the table prints sizes
     * ({@code 4k} = 4096, {@code 1m}, {@code 1g}; either case).
     */
    static int size(final String text)
    {
        if (null == text)
        {
            return DEFAULT_SIZE;
        }
        final String t = text.trim().toLowerCase(Locale.ROOT);
        final int shift = t.endsWith("k") ? 10 : t.endsWith("m") ? 20 : t.endsWith("g") ? 30 : 0;
        try
        {
            final long value = Long.parseLong(0 == shift ? t : t.substring(0, t.length() - 1)) << shift;
            if (value >= 0 && value <= Integer.MAX_VALUE && !t.startsWith("+"))
            {
                return (int) value;
            }
        }
        catch (final NumberFormatException ex)
        {
            // reported below
        }
        throw PingpongFailure.badInput("invalid size '" + text + "' (a byte count from 0 with an optional k, m or g " +
            "suffix, 1024-based, or 'all')");
    }

    private static int positive(final Integer value, final int dflt, final String option, final int min)
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

    private static int port(final Integer value, final String option)
    {
        if (null == value)
        {
            return 0;
        }
        if (value < 0 || value > 65535)
        {
            throw PingpongFailure.badInput(option + " " + value + ": a port is 0..65535");
        }
        return value;
    }
}
