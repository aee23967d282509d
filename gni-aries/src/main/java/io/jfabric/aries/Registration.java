package io.jfabric.aries;

import java.util.BitSet;

/**
 * One memory registration of a NIC: an MDD (or a vMDH slot) and the pages it covers. Owned by its NIC.
 * <p>
 * Threading: not thread-safe; touched under the node's lock.
 */
final class Registration
{
    final int index;
    final boolean vmdh;
    int generation;
    boolean live;
    long base;
    long pages;
    boolean readOnly;
    /** {@link GniNic#MEM_NO_REMOTE_READ}. */
    boolean noRead;
    /** The registered range as asked (not rounded to pages): the bounds of an index-only vMDH access. */
    long start;
    long length;
    boolean reserved;
    GniCq dstCq;
    final BitSet updated = new BitSet();

    Registration(final int index, final boolean vmdh)
    {
        this.index = index;
        this.vmdh = vmdh;
    }

    long end()
    {
        return base + pages * MemHandle.PAGE_SIZE;
    }

    /**
     * @return true when every page of {@code [address, address + length)} has been made live (always for a
     * registration that was not reserved).
     */
    boolean pagesLive(final long address, final long length)
    {
        if (!reserved)
        {
            return true;
        }
        final int first = (int) ((address - base) / MemHandle.PAGE_SIZE);
        final int last = (int) ((address + Math.max(length, 1) - 1 - base) / MemHandle.PAGE_SIZE);
        return updated.nextClearBit(first) > last;
    }
}
