package io.jfabric.agent.stress;

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
 * Runs the runtime module's jcstress tests (its own lock-free pieces: the completion ring, the counter cell, the
 * manual-progress guard) and exits non-zero when any failed or errored, so that {@code mvn verify} fails; jcstress
 * 0.16 itself exits 0 whatever the outcome, so this reads its final results line.
 * <p>
 * Arguments: {@code <mode> <report dir> [test regexp]}. Mode {@code short} (the build's default): sanity preset, one
 * fork, one JVM configuration, no split compilation, 2 CPUs, one 300 ms iteration per test. Any other mode is a
 * jcstress preset ({@code quick}, {@code default}, {@code tough}, {@code stress}) with every JVM configuration
 * jcstress detects: the full mode. jcstress's own output goes to {@code jcstress.log} in the report directory.
 */
public final class JcstressGate
{
    private static final Pattern RESULTS = Pattern.compile(
        "Results: (\\d+) planned; (\\d+) passed, (\\d+) failed, (\\d+) soft errs, (\\d+) hard errs");

    private JcstressGate()
    {
    }

    /**
     * Run the tests and exit 0 only if every planned result passed without errors.
     *
     * @param args mode, report directory, optional test regexp.
     * @throws Exception if jcstress cannot run.
     */
    public static void main(final String[] args) throws Exception
    {
        final String mode = args.length > 0 ? args[0] : "short";
        final String reportDir = args.length > 1 ? args[1] : "target/jcstress";
        final String filter = args.length > 2 ? args[2] : "io\\.jfabric\\.agent\\.stress\\..*Stress";
        final String opens = "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED " +
            "--add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED";
        final List<String> options = new ArrayList<>(List.of("-t", filter, "-r", reportDir));
        if ("short".equals(mode))
        {
            options.addAll(List.of("-m", "sanity", "-time", "300", "-iters", "1", "-fsm", "0", "-c", "2", "-f", "1",
                "-sc", "false", "-jvmArgs", opens + " -XX:+UseParallelGC -Xmx256m"));
        }
        else
        {
            options.addAll(List.of("-m", mode, "-jvmArgsPrepend", opens));
        }

        final PrintStream original = System.out;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final Path log = Paths.get(reportDir, "jcstress.log");
        Files.createDirectories(log.getParent());
        original.println("JCSTRESS GATE (runtime): " + mode + " mode, log in " + log);
        try (OutputStream logStream = Files.newOutputStream(log))
        {
            final PrintStream both = new PrintStream(new Tee(logStream, captured), true, StandardCharsets.UTF_8);
            System.setOut(both);
            try
            {
                org.openjdk.jcstress.Main.main(options.toArray(new String[0]));
            }
            finally
            {
                both.flush();
                System.setOut(original);
            }
        }

        final String output = captured.toString(StandardCharsets.UTF_8);
        final Matcher matcher = RESULTS.matcher(output);
        String line = null;
        long planned = 0;
        long passed = 0;
        long failed = 0;
        long soft = 0;
        long hard = 0;
        while (matcher.find())
        {
            line = matcher.group();
            planned = Long.parseLong(matcher.group(1));
            passed = Long.parseLong(matcher.group(2));
            failed = Long.parseLong(matcher.group(3));
            soft = Long.parseLong(matcher.group(4));
            hard = Long.parseLong(matcher.group(5));
        }
        if (output.contains("No scheduling is possible"))
        {
            // jcstress counts a test it cannot schedule (more actors than CPUs) as passed without running it.
            original.println("JCSTRESS GATE (runtime): a test has more actors than the CPUs given; failing the build");
            System.exit(3);
        }
        if (null == line)
        {
            original.println("JCSTRESS GATE (runtime): no results line; failing the build");
            System.exit(2);
        }
        if (0 == planned || 0 != failed || 0 != hard || passed + soft != planned ||
            !output.contains("Failed tests: No matches.") || !output.contains("Error tests: No matches."))
        {
            original.println("JCSTRESS GATE (runtime): FAILED (" + line + "); report in " + reportDir);
            System.exit(1);
        }
        original.println("JCSTRESS GATE (runtime): passed (" + line + ")");
        System.exit(0);
    }

    private static final class Tee extends OutputStream
    {
        private final OutputStream first;
        private final OutputStream second;

        Tee(final OutputStream first, final OutputStream second)
        {
            this.first = first;
            this.second = second;
        }

        @Override
        public void write(final int b) throws IOException
        {
            first.write(b);
            second.write(b);
        }

        @Override
        public void write(final byte[] bytes, final int offset, final int length) throws IOException
        {
            first.write(bytes, offset, length);
            second.write(bytes, offset, length);
        }

        @Override
        public void flush() throws IOException
        {
            first.flush();
            second.flush();
        }
    }
}
