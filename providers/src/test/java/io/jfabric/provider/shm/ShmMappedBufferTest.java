package io.jfabric.provider.shm;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ShmMappedBuffer} in one JVM: zeroing without {@code Unsafe.setMemory} gives the same bytes, and an atomic
 * update on a file cut under the mapping is refused with {@code InternalError} before it touches the memory (the
 * young-phase and control-path checks; a fault in an interpreted update would abort the JVM). Nothing here touches
 * a cut page.
 */
final class ShmMappedBufferTest
{
    private static final int LENGTH = 1 << 20;
    private Path file;
    private FileChannel channel;
    private MappedByteBuffer mapped;
    private ShmMappedBuffer buffer;

    @BeforeEach
    void map() throws IOException
    {
        file = Files.createTempFile("jfabric-mapped-", ".bin");
        channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        channel.write(ByteBuffer.allocate(LENGTH), 0);
        mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, LENGTH);
        buffer = new ShmMappedBuffer(mapped, channel, file);
    }

    @AfterEach
    void unmap() throws IOException
    {
        org.agrona.IoUtil.unmap(mapped);
        channel.close();
        Files.deleteIfExists(file);
    }

    @Test
    void shouldZeroExactlyTheRangeAcrossZeroBlockBoundariesAndOddLengths()
    {
        final int[][] ranges = {{3, 1}, {8, 99}, {100, 255}, {1000, 256}, {4097, 16 * 1024 + 13}, {70_001, 300_000}};
        for (final int[] range : ranges)
        {
            for (int i = 0; i < LENGTH; i++)
            {
                buffer.putByte(i, (byte) 0x5A);
            }
            buffer.setMemory(range[0], range[1], (byte) 0);
            for (int i = 0; i < LENGTH; i++)
            {
                final boolean inside = i >= range[0] && i < range[0] + range[1];
                assertEquals(inside ? 0 : 0x5A, buffer.getByte(i), "byte " + i + " of range " + range[0] + "+" +
                    range[1]);
            }
        }
    }

    @Test
    void shouldFillWithANonZeroValue()
    {
        buffer.setMemory(5, 1001, (byte) 0xC3);
        assertEquals(0, buffer.getByte(4));
        for (int i = 5; i < 1006; i++)
        {
            assertEquals((byte) 0xC3, buffer.getByte(i));
        }
        assertEquals(0, buffer.getByte(1006));
    }

    @Test
    void shouldRefuseAnAtomicUpdateOnACutFileBeforeTouchingIt() throws IOException
    {
        ShmMappedBuffer.restartYoungPhase();
        final ShmMappedBuffer part = new ShmMappedBuffer(buffer, 4096, 8192);
        assertTrue(part.compareAndSetLong(8, 0, 42));
        assertEquals(42, buffer.getLong(4096 + 8));
        buffer.checkSize();
        channel.truncate(LENGTH / 2);
        final InternalError error = assertThrows(InternalError.class, buffer::checkSize);
        assertTrue(error.getMessage().contains(file.toString()) && error.getMessage().contains(LENGTH / 2 + " bytes"),
            error.getMessage());
        // The page of this word still exists (below the cut), so even an unchecked update could not fault here.
        assertThrows(InternalError.class, () -> part.compareAndSetLong(8, 42, 43));
        assertThrows(InternalError.class, () -> part.getAndAddLong(8, 1));
        assertEquals(42, buffer.getLong(4096 + 8), "a refused update leaves the word alone");
    }
}
