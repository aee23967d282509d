package io.jfabric.provider.shm;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * An {@link UnsafeBuffer} over a shared file mapping (a ring file) that another process of the same user may cut
 * ({@code ftruncate}) while this one uses it: every access it makes either faults in a way HotSpot 17 turns into an
 * {@code InternalError} or is preceded, as closely as Java allows, by one that does.
 * <p>
 * Why (measured on HotSpot 17.0.15, see {@code providers/SHM.md}, "Limits"): a fault (SIGBUS) on a page past the end
 * of the file becomes an {@code InternalError} when it happens in compiled code (asynchronous: thrown at the
 * thread's next transition), in the interpreter's {@code Unsafe} get/put natives and in {@code Unsafe.copyMemory}
 * (synchronous: thrown when the call returns). Two operations fault in VM code that the signal handler does not
 * guard, and the JVM aborts (exit 134, hs_err file):
 * <ul>
 *   <li>{@code Unsafe.setMemory}, which Agrona's {@code setMemory} uses for 100 bytes and more (the ring zeroes every
 *   record it consumed, in the interpreter and in compiled code alike: the native is not an intrinsic in 17).
 *   Replaced here by copies from a private block of zeros ({@code Unsafe.copyMemory}: guarded, and as fast as a
 *   fill), and by plain long stores below {@link #COPY_THRESHOLD} bytes;</li>
 *   <li>{@code Unsafe.compareAndSetLong} and the other atomic updates when they run in the interpreter (before the
 *   caller is compiled, or after a deoptimisation): compiled, they are intrinsics and fault safely. Java cannot
 *   guard the native, and a guarded load of the same word just before does not help: its fault is only recorded,
 *   and the {@code InternalError} is thrown at a later transition, after the update (measured). So, while the
 *   process is young (its first {@link ShmConfiguration#CHECKED_UPDATES} atomic updates, configurable), every
 *   atomic update first checks the file's size (one {@code fstat}) and throws {@code InternalError} itself when the
 *   file was cut; the callers' existing catch turns that into EIO. Control-path updates (sender slots) check the
 *   size every time ({@link #checkSize()}). A cut landing between the check and an interpreted update (a few hundred
 *   nanoseconds), or any cut while an update runs interpreted after the young phase (a deoptimisation), still
 *   aborts the JVM: the residual exposure named in SHM.md.</li>
 * </ul>
 * Threading: as {@link UnsafeBuffer}; the zero block is shared and never written after class initialisation; the
 * young-phase counter is a benign race.
 */
final class ShmMappedBuffer extends UnsafeBuffer
{
    /** Lengths from which zeroing copies from the zero block instead of storing longs. */
    static final int COPY_THRESHOLD = 256;
    /** Bytes of the private zero block (fits a level-1 data cache). */
    private static final int ZEROS_LENGTH = 16 * 1024;
    private static final UnsafeBuffer ZEROS = new UnsafeBuffer(ByteBuffer.allocateDirect(ZEROS_LENGTH));
    /**
     * Atomic updates checked by an fstat in the young phase ({@link ShmConfiguration#CHECKED_UPDATES_PROP}; C1
     * compiles a method after a few hundred calls). Set by the first domain that opens.
     */
    private static volatile int youngUpdates = -1;
    /**
     * Checked updates left in the young phase, process-wide (compilation is per method, not per buffer). Plain
     * field shared by every agent thread: a lost decrement only lengthens the phase.
     */
    private static int coldUpdates = ShmConfiguration.CHECKED_UPDATES;

    private final FileChannel channel;
    private final long fileLength;
    private final Path path;

    /**
     * Over a whole mapping.
     *
     * @param mapped  the mapped file.
     * @param channel the file, for its size.
     * @param path    the file's path, for messages.
     */
    ShmMappedBuffer(final MappedByteBuffer mapped, final FileChannel channel, final Path path)
    {
        super(mapped);
        this.channel = channel;
        this.fileLength = mapped.capacity();
        this.path = path;
    }

    /**
     * Over a part of another buffer over the same mapping.
     *
     * @param buffer the buffer over the whole mapping.
     * @param offset where the part starts in it.
     * @param length of the part.
     */
    ShmMappedBuffer(final ShmMappedBuffer buffer, final int offset, final int length)
    {
        super(buffer, offset, length);
        this.channel = buffer.channel;
        this.fileLength = buffer.fileLength;
        this.path = buffer.path;
    }

    /**
     * Throw {@code InternalError} (what the JVM throws for a fault in a mapped file) when the file is shorter than
     * the mapping. One fstat; for control-path atomic updates and the young phase.
     *
     * @throws InternalError when the file was cut (or its size cannot be read).
     */
    void checkSize()
    {
        long size;
        try
        {
            size = channel.size();
        }
        catch (final IOException ex)
        {
            size = -1;
        }
        if (size < fileLength)
        {
            throw new InternalError("shm: " + path + " was cut to " + size + " bytes under its mapping of " +
                fileLength);
        }
    }

    /**
     * Start the young phase again (tests: the phase is process-wide and may be over when a test runs).
     */
    static void restartYoungPhase()
    {
        coldUpdates = youngUpdates < 0 ? ShmConfiguration.CHECKED_UPDATES : youngUpdates;
    }

    /**
     * Set the length of the young phase from the configuration, once per process (the first domain to open).
     *
     * @param updates atomic updates to check ({@link ShmConfiguration#checkedUpdates()}).
     */
    static synchronized void configureYoungPhase(final int updates)
    {
        if (youngUpdates < 0)
        {
            youngUpdates = updates;
            coldUpdates = updates;
        }
    }

    private void checkWhileYoung()
    {
        if (coldUpdates > 0)
        {
            coldUpdates--;
            checkSize();
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * Never {@code Unsafe.setMemory} (a fault in it aborts the JVM): zeros are copied from a private block, other
     * values stored a long at a time.
     */
    @Override
    public void setMemory(final int index, final int length, final byte value)
    {
        if (0 == value && length >= COPY_THRESHOLD)
        {
            int at = index;
            int left = length;
            while (left > 0)
            {
                final int n = Math.min(left, ZEROS_LENGTH);
                putBytes(at, ZEROS, 0, n);
                at += n;
                left -= n;
            }
            return;
        }
        final long pattern = (value & 0xFFL) * 0x0101010101010101L;
        final int end = index + length;
        int at = index;
        for (; at + Long.BYTES <= end; at += Long.BYTES)
        {
            putLong(at, pattern);
        }
        for (; at < end; at++)
        {
            putByte(at, value);
        }
    }

    /**
     * {@inheritDoc} Checked while the process is young (see the class comment).
     */
    @Override
    public boolean compareAndSetLong(final int index, final long expectedValue, final long updateValue)
    {
        checkWhileYoung();
        return super.compareAndSetLong(index, expectedValue, updateValue);
    }

    /**
     * {@inheritDoc} Checked while the process is young (see the class comment).
     */
    @Override
    public long compareAndExchangeLong(final int index, final long expectedValue, final long updateValue)
    {
        checkWhileYoung();
        return super.compareAndExchangeLong(index, expectedValue, updateValue);
    }

    /**
     * {@inheritDoc} Checked while the process is young (see the class comment).
     */
    @Override
    public long getAndSetLong(final int index, final long value)
    {
        checkWhileYoung();
        return super.getAndSetLong(index, value);
    }

    /**
     * {@inheritDoc} Checked while the process is young (see the class comment).
     */
    @Override
    public long getAndAddLong(final int index, final long delta)
    {
        checkWhileYoung();
        return super.getAndAddLong(index, delta);
    }

    /**
     * {@inheritDoc} Checked while the process is young (see the class comment).
     */
    @Override
    public boolean compareAndSetInt(final int index, final int expectedValue, final int updateValue)
    {
        checkWhileYoung();
        return super.compareAndSetInt(index, expectedValue, updateValue);
    }

    /**
     * {@inheritDoc} Checked while the process is young (see the class comment).
     */
    @Override
    public int compareAndExchangeInt(final int index, final int expectedValue, final int updateValue)
    {
        checkWhileYoung();
        return super.compareAndExchangeInt(index, expectedValue, updateValue);
    }

    /**
     * {@inheritDoc} Checked while the process is young (see the class comment).
     */
    @Override
    public int getAndSetInt(final int index, final int value)
    {
        checkWhileYoung();
        return super.getAndSetInt(index, value);
    }

    /**
     * {@inheritDoc} Checked while the process is young (see the class comment).
     */
    @Override
    public int getAndAddInt(final int index, final int delta)
    {
        checkWhileYoung();
        return super.getAndAddInt(index, delta);
    }
}
