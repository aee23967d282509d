/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring.stress;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a module's jcstress tests and exits non-zero when any failed or errored, or when one could not be scheduled,
 * so that {@code mvn verify} fails. Used by {@code ringbuffers} and, through this module's test-jar (which holds only
 * this class), by {@code runtime} with its own test filter.
 * jcstress 0.16 itself exits 0 whatever the outcome, so the gate reads its final results line.
 * <p>
 * Arguments: {@code <mode> <report dir> [test regexp]}. Mode {@code short} (the build's default): sanity preset, one
 * fork, one JVM configuration, no split compilation, 2 CPUs, one 300 ms iteration per test, about fifteen seconds.
 * Any other mode is a jcstress preset ({@code quick}, {@code default}, {@code tough}, {@code stress}) run with all
 * JVM configurations jcstress detects: the full mode. jcstress's own output goes to {@code jcstress.log} in the
 * report directory.
 */
public final class JcstressGate
{
    private static final String OPENS = "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED " +
        "--add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED";
    private static final Pattern RESULTS = Pattern.compile(
        "Results: (\\d+) planned; (\\d+) passed, (\\d+) failed, (\\d+) soft errs, (\\d+) hard errs");

    private JcstressGate()
    {
    }

    /**
     * Run the tests and exit 0 only if every planned result passed without errors.
     *
     * @param args mode, report directory, optional test regexp (default: this module's stress tests).
     * @throws Exception if jcstress cannot run.
     */
    public static void main(final String[] args) throws Exception
    {
        final String mode = args.length > 0 ? args[0] : "short";
        final String reportDir = args.length > 1 ? args[1] : "target/jcstress";
        final String filter = args.length > 2 ? args[2] : "io\\.jfabric\\.ring\\.stress\\..*Stress";

        final List<String> options = new ArrayList<>();
        options.add("-t");
        options.add(filter);
        options.add("-r");
        options.add(reportDir);
        if ("short".equals(mode))
        {
            options.add("-m");
            options.add("sanity");
            options.add("-time");
            options.add("300");
            options.add("-iters");
            options.add("1");
            options.add("-fsm");
            options.add("0");
            options.add("-c");
            options.add("2");
            options.add("-f");
            options.add("1");
            options.add("-sc");
            options.add("false");
            options.add("-jvmArgs");
            options.add(OPENS + " -XX:+UseParallelGC -Xmx256m");
        }
        else
        {
            options.add("-m");
            options.add(mode);
            options.add("-jvmArgsPrepend");
            options.add(OPENS);
        }

        final PrintStream original = System.out;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final Path log = Paths.get(reportDir, "jcstress.log");
        Files.createDirectories(log.getParent());
        original.println("JCSTRESS GATE: running jcstress (" + mode + " mode), log in " + log);
        try (OutputStream logStream = Files.newOutputStream(log))
        {
            final PrintStream tee = new PrintStream(new TeeStream(logStream, captured), true, StandardCharsets.UTF_8);
            System.setOut(tee);
            try
            {
                org.openjdk.jcstress.Main.main(options.toArray(new String[0]));
            }
            finally
            {
                tee.flush();
                System.setOut(original);
            }
        }

        final String output = captured.toString(StandardCharsets.UTF_8);
        final Matcher matcher = RESULTS.matcher(output);
        String last = null;
        long planned = 0;
        long passed = 0;
        long failed = 0;
        long softErrors = 0;
        long hardErrors = 0;
        while (matcher.find())
        {
            last = matcher.group();
            planned = Long.parseLong(matcher.group(1));
            passed = Long.parseLong(matcher.group(2));
            failed = Long.parseLong(matcher.group(3));
            softErrors = Long.parseLong(matcher.group(4));
            hardErrors = Long.parseLong(matcher.group(5));
        }
        if (output.contains("No scheduling is possible"))
        {
            // jcstress counts a test it cannot schedule (more actors than CPUs) as passed without running it.
            original.println("JCSTRESS GATE: a test has more actors than the CPUs given; failing the build");
            System.exit(3);
        }
        if (null == last)
        {
            original.println("JCSTRESS GATE: no results line found; failing the build");
            System.exit(2);
        }
        if (0 == planned || 0 != failed || 0 != hardErrors || passed + softErrors != planned ||
            !output.contains("Failed tests: No matches.") || !output.contains("Error tests: No matches."))
        {
            original.println("JCSTRESS GATE: FAILED (" + last + "); report in " + reportDir);
            System.exit(1);
        }
        original.println("JCSTRESS GATE: passed (" + last + ")");
        System.exit(0);
    }

    private static final class TeeStream extends OutputStream
    {
        private final OutputStream first;
        private final OutputStream second;

        TeeStream(final OutputStream first, final OutputStream second)
        {
            this.first = first;
            this.second = second;
        }

        public void write(final int b) throws IOException
        {
            first.write(b);
            second.write(b);
        }

        public void write(final byte[] bytes, final int offset, final int length) throws IOException
        {
            first.write(bytes, offset, length);
            second.write(bytes, offset, length);
        }

        public void flush() throws IOException
        {
            first.flush();
            second.flush();
        }
    }
}
