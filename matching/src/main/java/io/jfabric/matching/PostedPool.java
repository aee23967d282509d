package io.jfabric.matching;

/**
 * Struct-of-arrays pool of posted receives, sized by {@code rx_size}. An entry lives in exactly one
 * {@link PostedQueue} (linked through {@link #next}/{@link #prev}) and in the all-posted list (linked through
 * {@link #allNext}/{@link #allPrev}) used by cancel.
 * <p>
 * Threading: not thread-safe; owned by the domain agent.
 */
final class PostedPool
{
    static final int NULL = -1;
    static final int FLAG_TAGGED = 1;
    static final int FLAG_MULTI = 2;

    final long[] tag;
    final long[] ignore;
    final long[] context;
    final long[] address;
    final long[] length;
    final long[] consumed;
    final long[] seq;
    final long[] source;
    final int[] kind;
    final int[] inFlight;
    final int[] generation;
    final int[] next;
    final int[] prev;
    final int[] allNext;
    final int[] allPrev;
    final PostedQueue[] queueOf;
    int freeHead;
    int allHead = NULL;
    int allTail = NULL;
    int size;

    PostedPool(final int capacity)
    {
        tag = new long[capacity];
        ignore = new long[capacity];
        context = new long[capacity];
        address = new long[capacity];
        length = new long[capacity];
        consumed = new long[capacity];
        seq = new long[capacity];
        source = new long[capacity];
        kind = new int[capacity];
        inFlight = new int[capacity];
        generation = new int[capacity];
        next = new int[capacity];
        prev = new int[capacity];
        allNext = new int[capacity];
        allPrev = new int[capacity];
        queueOf = new PostedQueue[capacity];
        for (int i = 0; i < capacity; i++)
        {
            next[i] = i + 1 < capacity ? i + 1 : NULL;
        }
        freeHead = 0;
    }

    int allocate()
    {
        final int e = freeHead;
        if (NULL != e)
        {
            freeHead = next[e];
            next[e] = NULL;
            prev[e] = NULL;
            allPrev[e] = allTail;
            allNext[e] = NULL;
            if (NULL != allTail)
            {
                allNext[allTail] = e;
            }
            else
            {
                allHead = e;
            }
            allTail = e;
            size++;
        }
        return e;
    }

    void free(final int e)
    {
        final int p = allPrev[e];
        final int n = allNext[e];
        if (NULL != p)
        {
            allNext[p] = n;
        }
        else
        {
            allHead = n;
        }
        if (NULL != n)
        {
            allPrev[n] = p;
        }
        else
        {
            allTail = p;
        }
        queueOf[e] = null;
        generation[e]++;
        inFlight[e] = 0;
        next[e] = freeHead;
        freeHead = e;
        size--;
    }

    long handle(final int e)
    {
        return ((long) generation[e] << 32) | e;
    }

    int entryOf(final long handle)
    {
        final int e = (int) handle;
        if (e < 0 || e >= tag.length || generation[e] != (int) (handle >>> 32) || null == queueOf[e])
        {
            return NULL;
        }
        return e;
    }
}
