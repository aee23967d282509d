package io.jfabric.provider.shm;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One buffer class behind every ring in the product (issue 11: two {@code AtomicBuffer} classes reaching the same
 * Agrona ring call sites and the agent's flyweights made them bimorphic): no product source subclasses
 * {@code UnsafeBuffer} or implements {@code AtomicBuffer} (shm's guarded subclass is gone with the CAS it guarded),
 * and shm's lanes are plain {@code UnsafeBuffer}s, as are the command, completion and inproc rings.
 */
class OneRingBufferClassTest
{
    private static final Pattern OTHER_BUFFER = Pattern.compile(
        "extends\\s+(UnsafeBuffer|AbstractMutableDirectBuffer)\\b|implements\\s+[^{]*\\bAtomicBuffer\\b");

    @Test
    void shouldHaveNoBufferClassOfItsOwnInAnyModule() throws IOException
    {
        final Path root = Paths.get("..").toAbsolutePath().normalize();
        final List<String> offenders = new ArrayList<>();
        int scanned = 0;
        try (Stream<Path> modules = Files.list(root))
        {
            for (final Path module : modules.toList())
            {
                final Path sources = module.resolve("src/main/java");
                if (!Files.isDirectory(sources))
                {
                    continue;
                }
                try (Stream<Path> files = Files.walk(sources))
                {
                    for (final Path file : files.filter(f -> f.toString().endsWith(".java")).toList())
                    {
                        scanned++;
                        if (OTHER_BUFFER.matcher(Files.readString(file)).find())
                        {
                            offenders.add(root.relativize(file).toString());
                        }
                    }
                }
            }
        }
        assertTrue(scanned > 100, "the product's sources were found (" + scanned + " files under " + root + ")");
        assertEquals(List.of(), offenders, "product classes that are buffers of their own");
    }

    @Test
    void shouldRunShmLanesOverPlainUnsafeBuffers() throws IOException
    {
        final Path dir = Files.createTempDirectory("jfabric-shm-onebuffer-");
        try (ShmLaneFile lane = ShmLaneFile.writer(dir, "r", 1, "w", 2, ShmConfiguration.MIN_RING_CAPACITY))
        {
            assertEquals(UnsafeBuffer.class, lane.requests().buffer().getClass());
            assertEquals(UnsafeBuffer.class, lane.answers().buffer().getClass());
        }
        finally
        {
            ShmTests.deleteTree(dir);
        }
    }
}
