/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MappedRingFileTest
{
    @TempDir
    Path dir;

    @Test
    void shouldDeliverCommandsWrittenThroughOneMappingToConsumerOnASecondMapping()
    {
        final Path path = dir.resolve("cmd.ring");
        try (MappedRingFile producerFile = MappedRingFile.create(path, RingKind.COMMAND, 64);
            MappedRingFile consumerFile = MappedRingFile.open(path, RingKind.COMMAND))
        {
            assertEquals(CommandRingDescriptor.requiredLength(64), path.toFile().length());
            assertEquals(64, consumerFile.capacity());
            final CommandRing producer = new ManyToOneCommandRing(producerFile.buffer());
            final CommandRing consumer = new ManyToOneCommandRing(consumerFile.buffer());
            final CommandRingTest.Recorder recorder = new CommandRingTest.Recorder();
            for (int i = 0; i < 150; i++)
            {
                assertTrue(CommandRingTest.post(producer, 1 + i % 3, (long) i << 16) > 0);
                assertEquals(1, consumer.drain(recorder, 10));
            }
            assertEquals(150, recorder.seen.size());
            assertEquals(149L << 16, recorder.seen.get(149)[0]);
        }
    }

    @Test
    void shouldContinueFromHeadAndTailWhenFileIsReopened()
    {
        final Path path = dir.resolve("cq.ring");
        try (MappedRingFile file = MappedRingFile.create(path, RingKind.COMPLETION, 16))
        {
            final CompletionRing ring = new OneToOneCompletionRing(file.buffer());
            for (int i = 0; i < 20; i++)
            {
                assertEquals(0, CompletionRingTest.writeNumbered(ring, i));
                if (i < 10)
                {
                    assertEquals(1, ring.read(new CompletionRingTest.Recorder(), 1));
                }
            }
        }
        try (MappedRingFile file = MappedRingFile.open(path, RingKind.COMPLETION))
        {
            final CompletionRing ring = new OneToOneCompletionRing(file.buffer());
            final CompletionRingTest.Recorder recorder = new CompletionRingTest.Recorder();
            assertEquals(10, ring.size());
            assertEquals(10, ring.read(recorder, 100));
            assertEquals(10L, recorder.seen.get(0)[0]);
            assertEquals(19L, recorder.seen.get(9)[0]);
        }
    }

    @Test
    void shouldShareSharedCompletionRingBetweenTwoMappings()
    {
        final Path path = dir.resolve("shared.ring");
        try (MappedRingFile first = MappedRingFile.create(path, RingKind.SHARED_COMPLETION, 32);
            MappedRingFile second = MappedRingFile.open(path, RingKind.SHARED_COMPLETION))
        {
            final CompletionRing producer = new SharedCompletionRing(first.buffer());
            final CompletionRing reader = new SharedCompletionRing(second.buffer());
            final CompletionRingTest.Recorder recorder = new CompletionRingTest.Recorder();
            for (int i = 0; i < 100; i++)
            {
                assertEquals(0, CompletionRingTest.writeNumbered(producer, i));
                assertEquals(1, reader.read(recorder, 5));
            }
            assertEquals(99L, recorder.seen.get(99)[0]);
        }
    }

    @Test
    void shouldRefuseTruncatedFileNamingFileAndSizes() throws IOException
    {
        final Path path = dir.resolve("truncated.ring");
        MappedRingFile.create(path, RingKind.COMMAND, 64).close();
        try (RandomAccessFile raf = new RandomAccessFile(path.toFile(), "rw"))
        {
            raf.setLength(CommandRingDescriptor.requiredLength(64) - 64);
        }
        final IllegalStateException ex = assertThrows(IllegalStateException.class,
            () -> MappedRingFile.open(path, RingKind.COMMAND));
        assertTrue(ex.getMessage().contains(path.toString()), ex.getMessage());
        assertTrue(ex.getMessage().contains(Integer.toString(CommandRingDescriptor.requiredLength(64))));
        assertTrue(ex.getMessage().contains(Integer.toString(CommandRingDescriptor.requiredLength(64) - 64)));
    }

    @Test
    void shouldRefuseFileShorterThanHeader() throws IOException
    {
        final Path path = dir.resolve("tiny.ring");
        Files.write(path, new byte[100]);
        final IllegalStateException ex = assertThrows(IllegalStateException.class,
            () -> MappedRingFile.open(path, RingKind.COMPLETION));
        assertTrue(ex.getMessage().contains("100 bytes"), ex.getMessage());
        assertTrue(ex.getMessage().contains("512"), ex.getMessage());
    }

    @Test
    void shouldRefuseFileOfAnotherKind()
    {
        final Path path = dir.resolve("kind.ring");
        MappedRingFile.create(path, RingKind.COMPLETION, 64).close();
        final IllegalStateException ex = assertThrows(IllegalStateException.class,
            () -> MappedRingFile.open(path, RingKind.COMMAND));
        assertTrue(ex.getMessage().contains("COMPLETION"), ex.getMessage());
        assertTrue(ex.getMessage().contains("COMMAND"), ex.getMessage());
    }

    @Test
    void shouldRefuseFileThatIsNotARing() throws IOException
    {
        final Path path = dir.resolve("garbage.ring");
        final byte[] bytes = new byte[CommandRingDescriptor.requiredLength(64)];
        for (int i = 0; i < bytes.length; i++)
        {
            bytes[i] = (byte) (i * 31);
        }
        Files.write(path, bytes);
        final IllegalStateException ex = assertThrows(IllegalStateException.class,
            () -> MappedRingFile.open(path, RingKind.COMMAND));
        assertTrue(ex.getMessage().contains("magic"), ex.getMessage());
    }

    @Test
    void shouldRefuseMissingFileNamingIt()
    {
        final Path path = dir.resolve("missing.ring");
        final IllegalStateException ex = assertThrows(IllegalStateException.class,
            () -> MappedRingFile.open(path, RingKind.COMMAND));
        assertTrue(ex.getMessage().contains(path.toString()), ex.getMessage());
    }

    @Test
    void shouldRefuseInvalidCapacityAtCreate()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> MappedRingFile.create(dir.resolve("bad.ring"), RingKind.COMMAND, 100));
        assertTrue(ex.getMessage().contains("100"), ex.getMessage());
    }
}
