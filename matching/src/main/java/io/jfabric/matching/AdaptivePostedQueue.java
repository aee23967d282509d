package io.jfabric.matching;

import static io.jfabric.matching.PostedPool.NULL;

/**
 * {@link TagStorage#AUTO}: a posted queue that is a {@link ListPostedQueue} while it is shallow and moves its
 * entries into an {@link IndexedPostedQueue} once it holds {@code indexDepth} receives of which at least one is an
 * exact tag; it goes back to the list when it empties. Both structures are allocated when the queue is created,
 * and the move re-links pool entries in posting order without allocating, so matching stays oldest-first across
 * the switch (the two strategies return the same entry for every search, see {@link PostedQueue}).
 * <p>
 * The shallow case, which is the latency case (a few receives posted ahead of their messages), keeps the list's
 * single compare; a deep queue of exact tags costs a hash probe per search instead of a walk.
 * <p>
 * Threading: not thread-safe; owned by the domain agent.
 */
final class AdaptivePostedQueue implements PostedQueue
{
    private final PostedPool pool;
    private final ListPostedQueue list;
    private final IndexedPostedQueue index;
    private final int indexDepth;
    private boolean indexed;
    private int count;
    private int exactCount;
    private long switches;

    AdaptivePostedQueue(final PostedPool pool, final int buckets, final int indexDepth)
    {
        this.pool = pool;
        this.list = new ListPostedQueue(pool);
        this.index = new IndexedPostedQueue(pool, buckets);
        this.indexDepth = indexDepth;
    }

    public void append(final int e)
    {
        if (0 == pool.ignore[e])
        {
            exactCount++;
        }
        count++;
        if (indexed)
        {
            index.append(e);
        }
        else
        {
            list.append(e);
            if (count >= indexDepth && 0 != exactCount)
            {
                moveToIndex();
            }
        }
        pool.queueOf[e] = this;
    }

    public int findOldest(final long tag)
    {
        return indexed ? index.findOldest(tag) : list.findOldest(tag);
    }

    public void remove(final int e)
    {
        if (0 == pool.ignore[e])
        {
            exactCount--;
        }
        count--;
        if (indexed)
        {
            index.remove(e);
            if (0 == count)
            {
                // Empty: every bucket and the wildcard list are empty too, so the switch back is free.
                indexed = false;
                switches++;
            }
        }
        else
        {
            list.remove(e);
        }
    }

    public boolean isEmpty()
    {
        return 0 == count;
    }

    /**
     * @return true while the entries are in the hashed index.
     */
    boolean indexed()
    {
        return indexed;
    }

    /**
     * @return how many times the queue moved between the list and the index (both directions).
     */
    long switches()
    {
        return switches;
    }

    private void moveToIndex()
    {
        final int[] next = pool.next;
        int e = list.head();
        list.clear();
        while (NULL != e)
        {
            // Read the successor first: the index's append overwrites the entry's links.
            final int n = next[e];
            index.append(e);
            pool.queueOf[e] = this;
            e = n;
        }
        indexed = true;
        switches++;
    }
}
