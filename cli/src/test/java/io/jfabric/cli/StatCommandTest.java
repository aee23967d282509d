package io.jfabric.cli;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code jfabric stat} run in this JVM against the counters files of real child JVMs ({@link StatChild}: an shm
 * domain running a tagged send loop, with two distinct errors logged): the list, counters that rise between two
 * reads, {@code --watch}, the error log, a stopped then killed child's file reported stale and reclaimed, and bad
 * input. Every mode is parsed from {@code --json}. Each test uses its own counters directory, never the user's.
 * Waits are bounded by a watchdog deadline with a backoff, never timed assertions.
 */
@Timeout(180)
class StatCommandTest
{
    private static final long DEADLINE_MS = 60_000;
    private static final String[] OPENS = {
        "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens", "java.base/java.nio=ALL-UNNAMED"};

    @TempDir
    static Path shared;

    private static Child child;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    /**
     * A running {@link StatChild}: its stdout lines in a queue, its counters file.
     */
    private static final class Child implements AutoCloseable
    {
        final Process process;
        final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final Path file;

        Child(final Path dir) throws IOException, InterruptedException
        {
            final List<String> command = new ArrayList<>();
            command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx64m");
            command.add("-XX:TieredStopAtLevel=1");
            command.add("-XX:+UseSerialGC");
            command.addAll(Arrays.asList(OPENS));
            command.add("-Djfabric.counters.dir=" + dir.resolve("counters"));
            command.add("-Djfabric.shm.dir=" + dir.resolve("shm"));
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(StatChild.class.getName());
            process = new ProcessBuilder(command).redirectError(dir.resolve("child.err").toFile()).start();
            final Thread reader = new Thread(() ->
            {
                try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
                {
                    String line;
                    while (null != (line = in.readLine()))
                    {
                        lines.add(line);
                    }
                }
                catch (final IOException ignore)
                {
                    // the child went away
                }
                lines.add("EOF");
            }, "stat-child-out");
            reader.setDaemon(true);
            reader.start();
            final String line = lines.poll(DEADLINE_MS, TimeUnit.MILLISECONDS);
            if (null == line || !line.startsWith("FILE "))
            {
                process.destroyForcibly();
                fail("the child did not start: " + line + "; stderr: " + Files.readString(dir.resolve("child.err")));
            }
            file = Paths.get(line.substring("FILE ".length()));
        }

        long pid()
        {
            return process.pid();
        }

        /** Ask the child to close its domain; wait for it (bounded). */
        String stop() throws IOException, InterruptedException
        {
            process.getOutputStream().write('\n');
            process.getOutputStream().flush();
            final String line = lines.poll(DEADLINE_MS, TimeUnit.MILLISECONDS);
            process.waitFor(DEADLINE_MS, TimeUnit.MILLISECONDS);
            return line;
        }

        @Override
        public void close()
        {
            process.destroyForcibly();
        }
    }

    @BeforeAll
    static void startChild() throws Exception
    {
        child = new Child(shared);
    }

    @AfterAll
    static void stopChild() throws Exception
    {
        if (null != child)
        {
            try
            {
                assertEquals("CLOSED", child.stop());
                // a clean close removes the counters file
                assertFalse(Files.exists(child.file));
            }
            finally
            {
                child.close();
            }
        }
    }

    private int run(final String... args)
    {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        final String[] all = new String[args.length + 1];
        all[0] = "stat";
        System.arraycopy(args, 0, all, 1, args.length);
        return JfabricCommand.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(all);
    }

    private Map<String, Object> runJson(final String... args)
    {
        final int code = run(args);
        assertEquals(0, code, err.toString());
        assertEquals("", err.toString());
        return Json.object(Json.parse(out.toString()));
    }

    private static String dirOf(final Path base)
    {
        return base.resolve("counters").toString();
    }

    @SuppressWarnings("unchecked")
    private static List<Object> array(final Map<String, Object> object, final String key)
    {
        final Object value = object.get(key);
        assertTrue(value instanceof List, key + " is not an array: " + value);
        return (List<Object>) value;
    }

    private static Map<String, Object> onlyDomain(final Map<String, Object> sample)
    {
        final List<Object> domains = array(sample, "domains");
        assertEquals(1, domains.size(), "domains: " + domains);
        return Json.object(domains.get(0));
    }

    private static long counter(final Map<String, Object> sample, final String key)
    {
        return (long) Json.number(Json.object(onlyDomain(sample).get("counters")), key);
    }

    @Test
    void shouldListTheLiveChildWithItsPidStartAndFile()
    {
        final long before = System.currentTimeMillis();
        final Map<String, Object> list = runJson("--dir", dirOf(shared), "--json");

        assertEquals(dirOf(shared), list.get("directory"));
        final List<Object> processes = array(list, "processes");
        assertEquals(1, processes.size(), processes.toString());
        final Map<String, Object> p = Json.object(processes.get(0));
        assertEquals(child.pid(), (long) Json.number(p, "pid"));
        assertEquals("alive", p.get("state"));
        assertEquals(child.file.toString(), p.get("file"));
        final long start = (long) Json.number(p, "processStartMs");
        final long created = (long) Json.number(p, "createdMs");
        assertEquals(child.process.info().startInstant().orElseThrow().toEpochMilli(), start, 1000.0);
        assertTrue(start <= created && created <= before, start + " <= " + created + " <= " + before);
        assertTrue(Json.number(p, "fileAgeMs") >= before - created);
        assertFalse(p.containsKey("defect"));

        assertEquals(0, run("--dir", dirOf(shared)), err.toString());
        final String[] lines = out.toString().split("\n");
        assertEquals("1 counters file in " + dirOf(shared), lines[0]);
        assertTrue(lines[1].startsWith("PID"), lines[1]);
        assertTrue(lines[2].startsWith(child.pid() + " ") && lines[2].contains(" alive ") &&
            lines[2].endsWith(child.file.toString()), lines[2]);
    }

    @Test
    void shouldTakeTheDirectoryFromTheEnvironmentAndExitWithTheCommandsCode() throws Exception
    {
        final Map<String, Object> list = Json.object(Json.parse(launch(dirOf(shared), true, 0, "--json")));
        final Map<String, Object> p = Json.object(array(list, "processes").get(0));
        assertEquals(child.pid(), (long) Json.number(p, "pid"));
        assertEquals(dirOf(shared), list.get("directory"));

        assertEquals("jfabric stat: no counters files in " + shared.resolve("none") +
            " (no jfabric process has a domain open; another directory: --dir or -Djfabric.counters.dir)\n",
            launch(shared.resolve("none").toString(), true, 1, "--errors"));

        // without the JVM flag Agrona's buffers cannot be used: one line that names it
        final String noFlag = launch(dirOf(shared), false, 1, "--counters");
        assertTrue(noFlag.startsWith("jfabric stat: cannot use jdk.internal.misc (java.lang.IllegalAccessError: ") &&
            noFlag.endsWith("); start the JVM with --add-exports java.base/jdk.internal.misc=ALL-UNNAMED\n") &&
            1 == noFlag.split("\n").length, noFlag);
    }

    /**
     * {@code jfabric stat} in a JVM of its own with {@code JFABRIC_COUNTERS_DIR} set (and the JVM flag, or not): its
     * standard output when it exits 0, else its standard error.
     */
    private static String launch(final String dir, final boolean flag, final int exitCode, final String... args)
        throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        if (flag)
        {
            command.addAll(Arrays.asList(OPENS));
        }
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(JfabricCommand.class.getName());
        command.add("stat");
        command.addAll(Arrays.asList(args));
        final ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("JFABRIC_COUNTERS_DIR", dir);
        final Path stdout = Files.createTempFile(shared, "stat", ".out");
        final Path stderr = Files.createTempFile(shared, "stat", ".err");
        final Process stat = pb.redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        try
        {
            assertTrue(stat.waitFor(DEADLINE_MS, TimeUnit.MILLISECONDS), "jfabric stat did not finish");
            assertEquals(exitCode, stat.exitValue(), Files.readString(stderr));
            return Files.readString(0 == exitCode ? stdout : stderr);
        }
        finally
        {
            stat.destroyForcibly();
        }
    }

    @Test
    void shouldReadCountersThatRiseWhileTheChildSends() throws InterruptedException
    {
        final String pid = Long.toString(child.pid());
        final Map<String, Object> first = runJson("--dir", dirOf(shared), "--pid", pid, "--json");

        assertEquals(child.pid(), (long) Json.number(first, "pid"));
        assertEquals("alive", first.get("state"));
        assertEquals(4, (long) Json.number(first, "processErrors"));
        final Map<String, Object> domain = onlyDomain(first);
        assertEquals("shm", domain.get("provider"));
        assertEquals(new TreeSet<>(Arrays.asList(StatSample.KEYS)),
            new TreeSet<>(Json.object(domain.get("counters")).keySet()));
        assertEquals(Set.of("shm ring-full retries", "shm peers seen dead"),
            Json.object(domain.get("transport")).keySet());
        assertEquals(4, counter(first, "errors"));
        assertEquals(0, counter(first, "peerFailures"));
        assertEquals(0, counter(first, "cqFullHolds"));

        // a second read once the loop has sent more (bounded wait, backoff)
        final long deadline = System.currentTimeMillis() + DEADLINE_MS;
        Map<String, Object> second;
        do
        {
            Thread.sleep(20);
            second = runJson("--dir", dirOf(shared), "--pid", pid, "--json");
        }
        while (!allRose(first, second, "commands", "framesIn", "framesOut", "dutyCycles") &&
            System.currentTimeMillis() < deadline);

        for (final String key : List.of("commands", "framesIn", "framesOut", "dutyCycles"))
        {
            assertTrue(counter(second, key) > counter(first, key),
                key + ": " + counter(first, key) + " then " + counter(second, key));
        }
        assertTrue(counter(second, "maxDutyCycleNs") >= counter(first, "maxDutyCycleNs"));
        assertTrue(counter(second, "maxDutyCycleNs") > 0);
        // its own sends: every frame out came back in (give or take the ones in flight at the read)
        assertTrue(counter(second, "framesOut") > 0 && counter(second, "framesIn") > 0);
        assertEquals(0, counter(second, "peerFailures"));
        assertEquals(Json.number(first, "createdMs"), Json.number(second, "createdMs"));

        // the text form: the same process, each counter on its line
        assertEquals(0, run("--dir", dirOf(shared), "--pid", pid), err.toString());
        final String text = out.toString();
        assertTrue(text.contains("  pid " + pid + " alive, started "), text);
        assertTrue(text.contains("  domain 1: shm "), text);
        assertTrue(text.matches("(?s).*\n    frames in +\\d+\n.*"), text);
        assertTrue(text.matches("(?s).*\n    errors +4\n.*"), text);
        assertTrue(text.matches("(?s).*\n    shm ring-full retries +\\d+\n.*"), text);
    }

    @Test
    void shouldWatchTheOnlyLiveProcessForCountSamples()
    {
        assertEquals(0, run("--dir", dirOf(shared), "--watch", "--count", "3", "--interval", "50", "--json"),
            err.toString());

        final String[] lines = out.toString().split("\n");
        assertEquals(3, lines.length, out.toString());
        long lastTime = 0;
        long lastCycles = -1;
        for (final String line : lines)
        {
            final Map<String, Object> sample = Json.object(Json.parse(line));
            assertEquals(child.pid(), (long) Json.number(sample, "pid"));
            final long time = (long) Json.number(sample, "timeMs");
            final long cycles = counter(sample, "dutyCycles");
            assertTrue(time > lastTime, time + " after " + lastTime);
            assertTrue(cycles >= lastCycles, cycles + " after " + lastCycles);
            lastTime = time;
            lastCycles = cycles;
        }

        assertEquals(0, run("--dir", dirOf(shared), "--counters", "-w", "--count", "2", "--interval", "50"),
            err.toString());
        final String[] samples = out.toString().split("\n\n");
        assertEquals(2, samples.length, out.toString());
        assertFalse(samples[0].contains("/s"), samples[0]);
        assertTrue(samples[1].matches("(?s).*\n    duty cycles +\\d+ +-?\\d+/s\n.*"), samples[1]);
        assertTrue(samples[1].matches("(?s).*\n    unexpected depth +\\d+\n.*"), samples[1]);
    }

    @Test
    void shouldPrintTheDistinctErrorLogWithCountsAndTimes()
    {
        final Map<String, Object> log = runJson("--dir", dirOf(shared), "--errors", "--json");

        assertEquals(child.pid(), (long) Json.number(log, "pid"));
        final List<Object> errors = array(log, "errors");
        assertEquals(2, errors.size(), errors.toString());
        final Map<String, Object> a = Json.object(errors.get(0));
        final Map<String, Object> b = Json.object(errors.get(1));
        assertEquals(3, (long) Json.number(a, "count"));
        assertTrue(((String) a.get("text")).startsWith("java.lang.IllegalStateException: " + StatChild.ERROR_A +
            "\n\tat io.jfabric.cli.StatChild.main("), (String) a.get("text"));
        assertEquals(1, (long) Json.number(b, "count"));
        assertTrue(((String) b.get("text")).startsWith("java.lang.IllegalArgumentException: " + StatChild.ERROR_B));
        assertTrue(Json.number(a, "firstMs") <= Json.number(a, "lastMs"));
        assertTrue(Json.number(a, "lastMs") <= Json.number(b, "firstMs"));
        assertEquals(Json.number(b, "firstMs"), Json.number(b, "lastMs"));
        assertTrue(Json.number(a, "firstMs") >= Json.number(log, "createdMs"));

        assertEquals(0, run("--dir", dirOf(shared), "--pid", Long.toString(child.pid()), "-e"), err.toString());
        final String text = out.toString();
        assertTrue(text.startsWith("2 distinct errors of pid " + child.pid() + " (alive, "), text);
        assertTrue(text.contains("\n3 observations, first "), text);
        assertTrue(text.contains("\n1 observation, first "), text);
        assertTrue(text.contains("java.lang.IllegalStateException: " + StatChild.ERROR_A + "\n"), text);
    }

    @Test
    void shouldReadAStoppedProcessThenReportItStaleWhenKilledAndReclaimIt(@TempDir final Path dir) throws Exception
    {
        try (Child stopped = new Child(dir))
        {
            final String pid = Long.toString(stopped.pid());
            signal("-STOP", stopped.pid());
            awaitStopped(stopped.pid());
            // stopped (as a stuck process): its file still reads, its lock is still held
            final Map<String, Object> frozen = runJson("--dir", dirOf(dir), "--pid", pid, "--json");
            assertEquals("alive", frozen.get("state"));
            assertEquals(4, counter(frozen, "errors"));
            final Map<String, Object> again = runJson("--dir", dirOf(dir), "--pid", pid, "--json");
            assertEquals(counter(frozen, "framesIn"), counter(again, "framesIn"));
            assertEquals(counter(frozen, "dutyCycles"), counter(again, "dutyCycles"));

            stopped.process.destroyForcibly();   // SIGKILL: no shutdown hook runs, the file stays
            assertTrue(stopped.process.waitFor(DEADLINE_MS, TimeUnit.MILLISECONDS));
            assertEquals(137, stopped.process.exitValue());
            assertTrue(Files.exists(stopped.file));

            final Map<String, Object> list = runJson("--dir", dirOf(dir), "--json");
            final Map<String, Object> p = Json.object(array(list, "processes").get(0));
            assertEquals("stale", p.get("state"));
            assertEquals(stopped.pid(), (long) Json.number(p, "pid"));
            // a dead process's counters still read, as they were when it died
            final Map<String, Object> dead = runJson("--dir", dirOf(dir), "--pid", pid, "--json");
            assertEquals("stale", dead.get("state"));
            assertEquals(counter(frozen, "framesIn"), counter(dead, "framesIn"));
            // --watch of a dead process: one sample, then it says why it stops
            assertEquals(0, run("--dir", dirOf(dir), "--pid", pid, "--watch", "--interval", "10", "--json"));
            assertEquals(1, out.toString().split("\n").length, out.toString());
            assertEquals("stale", Json.object(Json.parse(out.toString())).get("state"));
            assertOneLine("jfabric stat: pid " + pid + " is stale (its counters no longer change); stopped watching");
            // no live process: --counters has none to choose
            assertEquals(1, run("--dir", dirOf(dir), "--counters"));
            assertOneLine("jfabric stat: no live jfabric process in " + dirOf(dir) + " (1 stale or unreadable file");

            final Map<String, Object> reclaimed = runJson("--dir", dirOf(dir), "--reclaim", "--json");
            final List<Object> removed = array(reclaimed, "reclaimed");
            assertEquals(1, removed.size(), removed.toString());
            assertEquals(stopped.file.toString(), Json.object(removed.get(0)).get("file"));
            assertEquals(stopped.pid(), (long) Json.number(Json.object(removed.get(0)), "pid"));
            assertEquals(List.of(), array(reclaimed, "processes"));
            assertFalse(Files.exists(stopped.file));

            assertEquals(1, run("--dir", dirOf(dir)));
            assertOneLine("jfabric stat: no counters files in " + dirOf(dir));
        }
    }

    @Test
    void shouldRefuseUnknownPidNoFilesAndACorruptFileWithOneLine(@TempDir final Path dir) throws IOException
    {
        assertEquals(2, run("--dir", dirOf(shared), "--pid", "999999999"));
        assertOneLine("jfabric stat: no counters file of pid 999999999 in " + dirOf(shared) + " (pids there: " +
            child.pid() + ")");

        assertEquals(1, run("--dir", dir.resolve("none").toString()));
        assertOneLine("jfabric stat: no counters files in " + dir.resolve("none"));
        assertEquals(1, run("--dir", dir.resolve("none").toString(), "--errors"));
        assertOneLine("jfabric stat: no counters files in " + dir.resolve("none"));

        final Path corruptDir = Files.createDirectory(dir.resolve("corrupt"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        final Path corrupt = corruptDir.resolve("counters-4242-1a2b.cnc");
        final byte[] junk = new byte[4096];
        Arrays.fill(junk, (byte) 'x');
        Files.write(corrupt, junk);
        assertEquals(1, run("--file", corrupt.toString()));
        assertOneLine("jfabric stat: counters file " + corrupt + ": not a counters file (magic 7878787878787878)");
        assertEquals(1, run("--dir", corruptDir.toString(), "--pid", "4242", "--json"));
        assertOneLine("jfabric stat: counters file " + corrupt + ": not a counters file (magic 7878787878787878)");

        // listed as what it is; its lock is free, so the counters code's rule reclaims it
        final Map<String, Object> list = runJson("--dir", corruptDir.toString(), "--json");
        final Map<String, Object> p = Json.object(array(list, "processes").get(0));
        assertEquals(4242, (long) Json.number(p, "pid"));
        assertEquals("stale", p.get("state"));
        assertEquals("not a counters file (magic 7878787878787878)", p.get("defect"));
        assertEquals(0, run("--dir", corruptDir.toString()), err.toString());
        assertTrue(out.toString().contains("\n4242     stale   -   ") &&
            out.toString().endsWith(corrupt + "  (corrupt: not a counters file (magic 7878787878787878))\n"),
            out.toString());
        final Map<String, Object> reclaimed = runJson("--dir", corruptDir.toString(), "--reclaim", "--json");
        assertEquals(1, array(reclaimed, "reclaimed").size());
        assertFalse(Files.exists(corrupt));

        assertEquals(2, run("--pid", "1", "--file", corrupt.toString()));
        assertOneLine("jfabric stat: --pid and --file both name the process; give one");
        assertEquals(2, run("--count", "2"));
        assertOneLine("jfabric stat: --count N (N >= 1) goes with --watch");
        assertEquals(2, run("--bogus"));
        assertNotNull(err.toString());
        assertTrue(err.toString().startsWith("jfabric stat: Unknown option: '--bogus'"), err.toString());
    }

    private static boolean allRose(final Map<String, Object> first, final Map<String, Object> second,
        final String... keys)
    {
        for (final String key : keys)
        {
            if (counter(second, key) <= counter(first, key))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Wait (bounded, backoff) until every thread of a process is stopped ({@code T} in {@code /proc/<pid>/task/
     * <tid>/stat}): a SIGSTOP is delivered asynchronously, thread by thread.
     */
    private static void awaitStopped(final long pid) throws IOException, InterruptedException
    {
        final Path tasks = Paths.get("/proc", Long.toString(pid), "task");
        final long deadline = System.currentTimeMillis() + DEADLINE_MS;
        while (true)
        {
            boolean stopped = true;
            try (Stream<Path> list = Files.list(tasks))
            {
                for (final Path task : (Iterable<Path>) list::iterator)
                {
                    try
                    {
                        final String stat = Files.readString(task.resolve("stat"));
                        // "<tid> (<comm>) <state> ...": the state follows the last ')'
                        final char state = stat.charAt(stat.lastIndexOf(')') + 2);
                        stopped &= 'T' == state || 't' == state;
                    }
                    catch (final NoSuchFileException ex)
                    {
                        // a thread that ended meanwhile
                    }
                }
            }
            if (stopped)
            {
                return;
            }
            if (System.currentTimeMillis() > deadline)
            {
                fail("pid " + pid + " did not stop");
            }
            Thread.sleep(10);
        }
    }

    private void assertOneLine(final String expectedStart)
    {
        final String text = err.toString();
        assertTrue(text.startsWith(expectedStart), text);
        assertEquals(1, text.split("\n").length, text);
        assertTrue(text.endsWith("\n"), text);
    }

    private static void signal(final String signal, final long pid) throws IOException, InterruptedException
    {
        final Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).inheritIO().start();
        assertTrue(kill.waitFor(DEADLINE_MS, TimeUnit.MILLISECONDS));
        assertEquals(0, kill.exitValue());
    }
}
