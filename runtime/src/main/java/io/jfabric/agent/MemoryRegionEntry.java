package io.jfabric.agent;

/**
 * One registered memory region as the {@link MemoryRegistry} keeps it: its key, access flags and iov
 * segments. For offset addressing each segment also has its first logical offset (segments are laid end to
 * end, the first at offset 0).
 * <p>
 * Immutable after construction; owned by the registry (domain agent thread).
 */
final class MemoryRegionEntry
{
    final long key;
    final long access;
    final long[] bases;
    final long[] lengths;
    final long[] logicalStarts;
    final long totalLength;

    MemoryRegionEntry(final long key, final long access, final long[] bases, final long[] lengths)
    {
        this.key = key;
        this.access = access;
        this.bases = bases;
        this.lengths = lengths;
        this.logicalStarts = new long[bases.length];
        long total = 0;
        for (int i = 0; i < bases.length; i++)
        {
            logicalStarts[i] = total;
            total += lengths[i];
        }
        this.totalLength = total;
    }
}
