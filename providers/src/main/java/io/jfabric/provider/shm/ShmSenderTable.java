package io.jfabric.provider.shm;

import org.agrona.concurrent.UnsafeBuffer;

import static io.jfabric.provider.shm.ShmRingDescriptor.MAX_NAME_LENGTH;
import static io.jfabric.provider.shm.ShmRingDescriptor.SLOT_GENERATION_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.SLOT_INCARNATION_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.SLOT_NAME_LENGTH_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.SLOT_NAME_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.SLOT_PID_OFFSET;
import static io.jfabric.provider.shm.ShmRingDescriptor.SLOT_START_TIME_OFFSET;

/**
 * The sender table of a ring file ({@link ShmRingDescriptor}) as a publication protocol without atomic updates.
 * Writers of the table (a writer claiming a slot, the owner releasing one) hold the table's file lock, so they
 * never race each other, and use plain and release stores only; the owner's agent reads it without the lock:
 * <ul>
 *   <li>publish: pid, start time, name and name length (plain), then the incarnation (release), then the table's
 *   generation + 1 (release);</li>
 *   <li>read: the generation (acquire); for each slot the incarnation (acquire), then the name: a non-zero
 *   incarnation seen means its name is complete;</li>
 *   <li>release: the incarnation to 0 (release) first, so that a reader never pairs a released slot's stale name
 *   with a later incarnation; then the generation.</li>
 * </ul>
 * Stateless: static methods over the mapped file's buffer (tests and the jcstress test use a direct buffer).
 */
final class ShmSenderTable
{
    private ShmSenderTable()
    {
    }

    /**
     * Publish a writer in a free slot (caller holds the table lock and checked the slot is free).
     *
     * @param b           the ring file's buffer.
     * @param slot        the slot.
     * @param incarnation the writer's incarnation, not 0.
     * @param pid         the writer's pid.
     * @param startTime   the writer's process start time.
     * @param name        the writer's name, ASCII, at most {@link ShmRingDescriptor#MAX_NAME_LENGTH} bytes.
     */
    static void publish(
        final UnsafeBuffer b, final int slot, final long incarnation, final long pid, final long startTime,
        final byte[] name)
    {
        final int at = ShmRingDescriptor.slotOffset(slot);
        b.putLong(at + SLOT_PID_OFFSET, pid);
        b.putLong(at + SLOT_START_TIME_OFFSET, startTime);
        b.putBytes(at + SLOT_NAME_OFFSET, name);
        b.putInt(at + SLOT_NAME_LENGTH_OFFSET, name.length);
        b.putLongRelease(at + SLOT_INCARNATION_OFFSET, incarnation);
        bumpGeneration(b);
    }

    /**
     * Free a slot if it still holds {@code incarnation} (caller holds the table lock).
     *
     * @param b           the ring file's buffer.
     * @param slot        the slot.
     * @param incarnation the incarnation expected in it.
     * @return true when freed.
     */
    static boolean release(final UnsafeBuffer b, final int slot, final long incarnation)
    {
        final int at = ShmRingDescriptor.slotOffset(slot);
        if (b.getLongVolatile(at + SLOT_INCARNATION_OFFSET) != incarnation)
        {
            return false;
        }
        b.putLongRelease(at + SLOT_INCARNATION_OFFSET, 0);
        b.putInt(at + SLOT_NAME_LENGTH_OFFSET, 0);
        bumpGeneration(b);
        return true;
    }

    private static void bumpGeneration(final UnsafeBuffer b)
    {
        // Under the table lock: a plain read and a release store, never an atomic add.
        b.putLongRelease(SLOT_GENERATION_OFFSET, b.getLong(SLOT_GENERATION_OFFSET) + 1);
    }

    /**
     * @param b the ring file's buffer.
     * @return the table's generation (acquire).
     */
    static long generation(final UnsafeBuffer b)
    {
        return b.getLongVolatile(SLOT_GENERATION_OFFSET);
    }

    /**
     * @param b    the ring file's buffer.
     * @param slot a slot.
     * @return its writer's incarnation (acquire), 0 when free.
     */
    static long incarnation(final UnsafeBuffer b, final int slot)
    {
        return b.getLongVolatile(ShmRingDescriptor.slotOffset(slot) + SLOT_INCARNATION_OFFSET);
    }

    /**
     * The name of a slot's writer; read after a non-zero {@link #incarnation} of the slot.
     *
     * @param b    the ring file's buffer.
     * @param slot a slot.
     * @return the name, or null when the slot holds no valid one.
     */
    static String name(final UnsafeBuffer b, final int slot)
    {
        final int at = ShmRingDescriptor.slotOffset(slot);
        final int length = b.getInt(at + SLOT_NAME_LENGTH_OFFSET);
        if (length < 1 || length > MAX_NAME_LENGTH)
        {
            return null;
        }
        final String writer = b.getStringWithoutLengthAscii(at + SLOT_NAME_OFFSET, length);
        return ShmRingDescriptor.validName(writer) ? writer : null;
    }
}
