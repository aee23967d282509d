package io.jfabric.matching;

/**
 * Configuration of one {@link MatchingEngine}: pool sizes, the unexpected-message bound, the tag storage and
 * the multi-recv minimum. Fluent setters return {@code this}; {@link #conclude()} validates.
 * <p>
 * Threading: not thread-safe; build it on the control path before handing it to the engine.
 */
public final class MatchingContext
{
    private int rxSize = 1024;
    private int unexpectedEntries = 1024;
    private long unexpectedBytes = 64L * 1024 * 1024;
    private TagStorage tagStorage = TagStorage.LIST;
    private int tagBuckets = 1024;
    private int indexDepth = 16;
    private long minMultiRecv = 64;
    private int pendingSearches = 16;

    /**
     * Number of posted receives the endpoint can hold ({@code rx_attr->size}); posting more gives EAGAIN.
     *
     * @param rxSize at least 1.
     * @return this.
     */
    public MatchingContext rxSize(final int rxSize)
    {
        this.rxSize = rxSize;
        return this;
    }

    /**
     * @return the posted-receive pool size.
     */
    public int rxSize()
    {
        return rxSize;
    }

    /**
     * Bound on the number of queued unexpected messages; beyond it arrivals get EAGAIN (back-pressure).
     *
     * @param unexpectedEntries at least 1.
     * @return this.
     */
    public MatchingContext unexpectedEntries(final int unexpectedEntries)
    {
        this.unexpectedEntries = unexpectedEntries;
        return this;
    }

    /**
     * @return the bound on queued unexpected messages.
     */
    public int unexpectedEntries()
    {
        return unexpectedEntries;
    }

    /**
     * Bound on the total length of queued unexpected messages; an arrival that would exceed it gets EAGAIN,
     * except into an empty queue (so a message larger than the bound still makes progress).
     *
     * @param unexpectedBytes at least 1.
     * @return this.
     */
    public MatchingContext unexpectedBytes(final long unexpectedBytes)
    {
        this.unexpectedBytes = unexpectedBytes;
        return this;
    }

    /**
     * @return the bound on the bytes of queued unexpected messages.
     */
    public long unexpectedBytes()
    {
        return unexpectedBytes;
    }

    /**
     * Storage strategy of posted tagged receives.
     *
     * @param tagStorage not null.
     * @return this.
     */
    public MatchingContext tagStorage(final TagStorage tagStorage)
    {
        this.tagStorage = tagStorage;
        return this;
    }

    /**
     * @return the storage strategy of posted tagged receives.
     */
    public TagStorage tagStorage()
    {
        return tagStorage;
    }

    /**
     * Hash buckets per posted queue for {@link TagStorage#INDEX} and {@link TagStorage#AUTO}; rounded up to a power
     * of two.
     *
     * @param tagBuckets at least 1.
     * @return this.
     */
    public MatchingContext tagBuckets(final int tagBuckets)
    {
        this.tagBuckets = tagBuckets;
        return this;
    }

    /**
     * @return hash buckets per posted queue.
     */
    public int tagBuckets()
    {
        return tagBuckets;
    }

    /**
     * Depth at which a posted tagged queue of {@link TagStorage#AUTO} moves from the list to the index (when one of
     * its receives is an exact tag).
     *
     * @param indexDepth at least 1.
     * @return this.
     */
    public MatchingContext indexDepth(final int indexDepth)
    {
        this.indexDepth = indexDepth;
        return this;
    }

    /**
     * @return the depth at which an {@link TagStorage#AUTO} queue moves to the index.
     */
    public int indexDepth()
    {
        return indexDepth;
    }

    /**
     * Initial {@code FI_OPT_MIN_MULTI_RECV}: a multi-recv buffer is released when its free space is below it.
     *
     * @param minMultiRecv at least 1.
     * @return this.
     */
    public MatchingContext minMultiRecv(final long minMultiRecv)
    {
        this.minMultiRecv = minMultiRecv;
        return this;
    }

    /**
     * @return the initial multi-recv minimum.
     */
    public long minMultiRecv()
    {
        return minMultiRecv;
    }

    /**
     * Number of deferred tsearch operations that may be outstanding; more give EAGAIN.
     *
     * @param pendingSearches at least 1.
     * @return this.
     */
    public MatchingContext pendingSearches(final int pendingSearches)
    {
        this.pendingSearches = pendingSearches;
        return this;
    }

    /**
     * @return the number of deferred tsearch operations that may be outstanding.
     */
    public int pendingSearches()
    {
        return pendingSearches;
    }

    /**
     * Validate the values.
     *
     * @return this.
     * @throws IllegalArgumentException naming the first invalid value (maps to {@code FI_EINVAL}).
     */
    public MatchingContext conclude()
    {
        if (rxSize < 1)
        {
            throw new IllegalArgumentException("rxSize must be >= 1: " + rxSize);
        }
        if (unexpectedEntries < 1)
        {
            throw new IllegalArgumentException("unexpectedEntries must be >= 1: " + unexpectedEntries);
        }
        if (unexpectedBytes < 1)
        {
            throw new IllegalArgumentException("unexpectedBytes must be >= 1: " + unexpectedBytes);
        }
        if (null == tagStorage)
        {
            throw new IllegalArgumentException("tagStorage must not be null");
        }
        if (tagBuckets < 1 || tagBuckets > (1 << 30))
        {
            throw new IllegalArgumentException("tagBuckets must be in 1..2^30: " + tagBuckets);
        }
        if (indexDepth < 1)
        {
            throw new IllegalArgumentException("indexDepth must be >= 1: " + indexDepth);
        }
        if (minMultiRecv < 1)
        {
            throw new IllegalArgumentException("minMultiRecv must be >= 1: " + minMultiRecv);
        }
        if (pendingSearches < 1)
        {
            throw new IllegalArgumentException("pendingSearches must be >= 1: " + pendingSearches);
        }
        return this;
    }
}
