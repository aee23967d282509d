package io.jfabric.matching;

import static io.jfabric.matching.PostedPool.NULL;

/**
 * {@link TagStorage#LIST}: one doubly linked list in posting order; a search walks it from the oldest entry.
 * <p>
 * Threading: not thread-safe; owned by the domain agent.
 */
final class ListPostedQueue implements PostedQueue
{
    private final PostedPool pool;
    private int head = NULL;
    private int tail = NULL;

    ListPostedQueue(final PostedPool pool)
    {
        this.pool = pool;
    }

    public void append(final int e)
    {
        final int[] next = pool.next;
        pool.prev[e] = tail;
        next[e] = NULL;
        if (NULL != tail)
        {
            next[tail] = e;
        }
        else
        {
            head = e;
        }
        tail = e;
        pool.queueOf[e] = this;
    }

    public int findOldest(final long tag)
    {
        return firstMatch(pool, head, tag);
    }

    /**
     * The oldest entry from {@code start} on whose tag matches under its ignore mask: the list strategy's walk,
     * also the index strategy's walk over its wildcard receives (one loop, so both compile alike).
     *
     * @param pool  the entries.
     * @param start the first entry, or {@code NULL}.
     * @param tag   the arriving tag.
     * @return the entry or {@code NULL}.
     */
    static int firstMatch(final PostedPool pool, final int start, final long tag)
    {
        final long[] tags = pool.tag;
        final long[] ignores = pool.ignore;
        final int[] next = pool.next;
        for (int e = start; NULL != e; e = next[e])
        {
            if (((tags[e] ^ tag) & ~ignores[e]) == 0)
            {
                return e;
            }
        }
        return NULL;
    }

    public void remove(final int e)
    {
        final int[] next = pool.next;
        final int[] prev = pool.prev;
        final int p = prev[e];
        final int n = next[e];
        if (NULL != p)
        {
            next[p] = n;
        }
        else
        {
            head = n;
        }
        if (NULL != n)
        {
            prev[n] = p;
        }
        else
        {
            tail = p;
        }
    }

    public boolean isEmpty()
    {
        return NULL == head;
    }

    /**
     * @return the oldest entry, or {@code NULL}.
     */
    int head()
    {
        return head;
    }

    /**
     * Forget every entry without touching their links (the caller re-links them elsewhere).
     */
    void clear()
    {
        head = NULL;
        tail = NULL;
    }
}
