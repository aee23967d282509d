package io.jfabric.provider.shm;

import io.jfabric.Progress;
import io.jfabric.provider.ChildOutput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Ring, lane and pool files cut ({@code ftruncate}) by another process of the same user while two child JVMs hammer
 * each other through them ({@link ShmCutChild}: tagged 4 KiB and 64 KiB sends, 1 MiB single-copy sends from the
 * shared pool, RMA writes and reads, both directions): every child must exit normally with the error reported to
 * it, never crash (no exit code 134, no {@code hs_err_pid*.log}). Every other round runs both children with
 * {@code -Xint}: every claim and commit then runs in the interpreter, where an atomic update (CAS) of a cut file
 * aborted the JVM (the ring design before the lanes claimed with a CAS and crashed there); the lanes' plain and
 * release stores fault into an {@code InternalError} in the interpreter as in compiled code. Every third round cuts
 * within 20 ms of the start, while the children insert each other.
 * <p>
 * What this shows, now that no code of jfabric updates mapped memory atomically (SHM.md "Lanes"): a cut at any
 * moment, interpreted or compiled, never aborts the JVM; the child learns of it as an error completion, an errno
 * from a post or from {@code av.insert} ({@code EIO}, or a peer that never becomes available because its ring was
 * cut before the insert), or an {@code InternalError}, which the JVM throws asynchronously and may therefore throw
 * out of the child's own code rather than a fabric call (the child then reports it as its result). What it does not
 * cover (SHM.md "Not done, limits"): an application's own CAS or {@code setMemory} on a pool block of a cut pool
 * (that memory is the application's; the child only reads and copies its block).
 */
final class ShmRingCutTest
{
    private static final String[] OPENS = {
        "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/java.util.zip=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens", "java.base/java.nio=ALL-UNNAMED"};
    private static final int ROUNDS = Integer.getInteger("test.shm.ringcut.rounds", 8);
    /** Kinds of cut, chosen by round. */
    private static final int KINDS = 8;

    @Test
    @Timeout(600) // eight rounds of two child JVMs, half of them interpreted, on a host that may be loaded
    void shouldReportAnErrorAndNeverCrashWhenRingOrPoolFilesAreCutWhileInUse() throws Exception
    {
        final long seed = Long.getLong("test.shm.ringcut.seed", System.nanoTime());
        final Random random = new Random(seed);
        for (int round = 0; round < ROUNDS; round++)
        {
            final long start = System.nanoTime();
            final String outcome = round(round, random, seed);
            System.out.println(outcome + "\n  (" + (System.nanoTime() - start) / 1_000_000 + " ms)");
        }
    }

    private static String round(final int round, final Random random, final long seed) throws Exception
    {
        final Path dir = ShmTests.useNewDirectory("jfabric-shm-cut-");
        final String a = "cut-a" + round;
        final String b = "cut-b" + round;
        final int what = round % KINDS;
        final boolean interpreted = 1 == (round & 1);
        // Every third round cuts within 20 ms of "go": while the children insert each other (the first lane file
        // created, the sender slot claimed under the table's lock) and, in -Xint rounds or early in the others, while
        // that code runs in the interpreter. The others cut at any moment of the first 400 ms.
        final long delayMs = 2 == round % 3 ? random.nextInt(20) : random.nextInt(400);
        final String where = "round " + round + " (seed " + seed + ", cut " + what + " after " + delayMs + " ms" +
            (interpreted ? ", -Xint" : "") + ")";
        // MANUAL progress: an asynchronous InternalError (a fault in compiled code, thrown at the thread's next
        // transition) can surface outside the transport; an AUTO agent thread dies of it (SHM.md, "Limits").
        try (Child ca = Child.start(dir, a, b, Progress.MANUAL, interpreted);
             Child cb = Child.start(dir, b, a, Progress.MANUAL, interpreted))
        {
            final long started = System.nanoTime();
            ca.awaitLine("READY", ShmTests.START_DEADLINE_NS, where);
            cb.awaitLine("READY", ShmTests.START_DEADLINE_NS, where);
            final long readyMs = (System.nanoTime() - started) / 1_000_000;
            ca.send("go");
            cb.send("go");
            Thread.sleep(delayMs);
            switch (what)
            {
                case 0:
                    cut(dir.resolve(a + ShmConfiguration.RING_SUFFIX), 0);
                    break;
                case 1:
                    cut(dir.resolve(b + ShmConfiguration.RING_SUFFIX), -1);
                    break;
                case 2:
                    cut(poolFile(dir, a, where), 0);
                    break;
                case 3:
                    cut(dir.resolve(b + ShmConfiguration.RING_SUFFIX), 0);
                    Thread.sleep(random.nextInt(20));
                    cut(dir.resolve(a + ShmConfiguration.RING_SUFFIX), -1);
                    break;
                case 4:
                case 6:
                    // The lane a writes into b (a claims and commits, b consumes), to 0 or to half.
                    cut(laneFile(dir, b, a, where), 4 == what ? 0 : -1);
                    break;
                default:
                    // Both lanes, one after the other, while both sides write and read them.
                    cut(laneFile(dir, a, b, where), -1);
                    Thread.sleep(random.nextInt(20));
                    cut(laneFile(dir, b, a, where), 0);
                    break;
            }
            final String ra = ca.result(where);
            final String rb = cb.result(where);
            return where + ", both READY " + readyMs + " ms after start:\n  " + a + " " + ra + "\n  " + b + " " + rb;
        }
        finally
        {
            ShmTests.deleteTree(dir);
        }
    }

    /**
     * Truncate a file to 0 bytes, or to half its size ({@code length} -1).
     */
    private static void cut(final Path file, final long length) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            channel.truncate(length < 0 ? channel.size() / 2 : length);
        }
    }

    /**
     * The lane file {@code writer} writes into {@code reader} ({@link ShmLaneFile#pathOf}), once it exists.
     */
    private static Path laneFile(final Path dir, final String reader, final String writer, final String where)
        throws Exception
    {
        final long deadline = System.nanoTime() + ShmTests.DEADLINE_NS;
        while (System.nanoTime() - deadline < 0)
        {
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir,
                reader + ".*." + writer + ".*" + ShmLaneFile.SUFFIX))
            {
                for (final Path file : files)
                {
                    return file;
                }
            }
            Thread.sleep(1);
        }
        fail("no lane file from " + writer + " into " + reader + " in " + where);
        return null;
    }

    private static Path poolFile(final Path dir, final String name, final String where) throws Exception
    {
        final long deadline = System.nanoTime() + ShmTests.DEADLINE_NS;
        while (System.nanoTime() - deadline < 0)
        {
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, name + ".*.pool"))
            {
                for (final Path file : files)
                {
                    return file;
                }
            }
            Thread.sleep(1);
        }
        fail("no pool file of " + name + " in " + where);
        return null;
    }

    /**
     * A child JVM running {@link ShmCutChild}, its crash log (if any) kept in {@code target/shm-children}.
     */
    private static final class Child implements AutoCloseable
    {
        private final String name;
        private final Process process;
        private final Path log;
        private final Path crashLog;
        private final OutputStream stdin;
        private final ChildOutput lines;

        private Child(final String name, final Process process, final Path log, final Path crashDir)
        {
            this.name = name;
            this.process = process;
            this.log = log;
            this.crashLog = crashDir.resolve("hs_err_pid" + process.pid() + ".log");
            this.stdin = process.getOutputStream();
            this.lines = new ChildOutput(process, "cut-" + name);
        }

        static Child start(
            final Path dir, final String name, final String peer, final Progress progress, final boolean interpreted)
            throws IOException
        {
            final Path logs = Paths.get("target", "shm-children").toAbsolutePath();
            Files.createDirectories(logs);
            final List<String> command = new ArrayList<>();
            command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx128m");
            command.add(interpreted ? "-Xint" : "-XX:TieredStopAtLevel=1");
            command.add("-XX:+UseSerialGC");
            command.add("-XX:ErrorFile=" + logs.resolve("hs_err_pid%p.log"));
            command.add("-XX:-CreateCoredumpOnCrash");
            command.addAll(List.of(OPENS));
            command.add("-D" + ShmConfiguration.DIR_PROP + "=" + dir);
            command.add("-D" + ShmConfiguration.RING_CAPACITY_PROP + "=" + (4 << 20));
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(ShmCutChild.class.getName());
            command.add(name);
            command.add(peer);
            command.add(progress.name());
            command.add("6000");
            final Path log = logs.resolve(name + "-" + System.nanoTime() + ".log");
            final Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
            return new Child(name, process, log, logs);
        }

        void send(final String line) throws IOException
        {
            stdin.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
            stdin.flush();
        }

        void awaitLine(final String expected, final long timeoutNs, final String where) throws Exception
        {
            final String line = lines.poll(timeoutNs, TimeUnit.NANOSECONDS);
            assertEquals(expected, line, () -> name + " in " + where + diagnostics());
        }

        /**
         * Wait for the child's exit; assert it did not crash, exited normally and was told about the cut.
         */
        String result(final String where) throws Exception
        {
            if (!process.waitFor(60, TimeUnit.SECONDS))
            {
                fail(name + " did not exit in " + where + diagnostics());
            }
            final int code = process.exitValue();
            assertFalse(Files.exists(crashLog), () -> name + " crashed (" + crashLog + ") in " + where + diagnostics());
            assertEquals(0, code, () -> name + " exit code " + code + " in " + where + diagnostics());
            // The child has exited, but its output reader may still be behind: read up to the end of its output.
            String result = null;
            for (final String line : lines.untilEof(ShmTests.DEADLINE_NS))
            {
                if (line.startsWith("RESULT "))
                {
                    result = line;
                }
            }
            assertNotNull(result, () -> name + " printed no result in " + where + diagnostics());
            final String text = result;
            assertTrue(!text.contains("errors=0 "), () -> name + " was told of no error in " + where + ": " + text);
            return text;
        }

        private String diagnostics()
        {
            try
            {
                final List<String> crash = Files.exists(crashLog) ? Files.readAllLines(crashLog) : List.of();
                return "\n--- " + name + " stderr ---\n" + (Files.exists(log) ? Files.readString(log) : "") +
                    (crash.isEmpty() ? "" : "\n--- crash log head ---\n" +
                    String.join("\n", crash.subList(0, Math.min(40, crash.size()))));
            }
            catch (final IOException ex)
            {
                return "";
            }
        }

        @Override
        public void close() throws InterruptedException
        {
            if (process.isAlive())
            {
                process.destroyForcibly();
                process.waitFor(20, TimeUnit.SECONDS);
            }
        }
    }
}
