package io.jfabric.aries;

import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * The receive side of an SMSG mailbox: {@code maxCredit} slots of {@code msgMaxSize} bytes in direct memory, filled
 * in arrival order (the sender's order on one endpoint pair) and consumed by GetNext/Release in the same order.
 * A slot may be filled but not yet visible (the CQE-before-data fault).
 * <p>
 * Threading: not thread-safe; touched under the node's lock.
 */
final class Mailbox
{
    final int maxCredit;
    /** {@code maxCredit - 1} when it is a power of two, else -1. */
    private final int mask;
    final int msgMaxSize;
    /**
     * Bytes from one slot to the next: {@code roundUp64(msgMaxSize + 16)}, the slot of
     * {@link SmsgAttr#bufferSizeNeeded()}'s formula (a 16-byte slot header, 64-byte aligned). Besides matching the
     * documented buffer size, the stride is not a power of two, so that consecutive slots do not all fall into the
     * same CPU cache sets (a 16384-byte stride made every deposit a conflict miss).
     */
    final int stride;
    final GniCq rxCq;
    final UnsafeBuffer slots;
    final int[] lengths;
    final int[] tags;
    final long[] visibleAtStep;
    long head;
    /** Written by the engine under the node's lock after the slot; volatile for GetNext's lock-free empty check. */
    volatile long tail;
    boolean current;

    Mailbox(final int maxCredit, final int msgMaxSize, final GniCq rxCq)
    {
        this.maxCredit = maxCredit;
        this.mask = Integer.bitCount(maxCredit) == 1 ? maxCredit - 1 : -1;
        this.msgMaxSize = msgMaxSize;
        this.rxCq = rxCq;
        this.stride = (msgMaxSize + 16 + 63) & ~63;
        this.slots = new UnsafeBuffer(ByteBuffer.allocateDirect(maxCredit * stride));
        this.lengths = new int[maxCredit];
        this.tags = new int[maxCredit];
        this.visibleAtStep = new long[maxCredit];
    }

    boolean full()
    {
        return tail - head >= maxCredit;
    }

    /**
     * @param sequence a message's sequence number.
     * @return its slot: a mask for a power-of-two credit count (the default 64), else the remainder (a 64-bit
     * division, tens of cycles, was several per message).
     */
    int slot(final long sequence)
    {
        return mask >= 0 ? (int) (sequence & mask) : (int) (sequence % maxCredit);
    }

    int slotOffset(final int slot)
    {
        return slot * stride;
    }
}
