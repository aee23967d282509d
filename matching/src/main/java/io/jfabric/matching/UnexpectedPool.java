package io.jfabric.matching;

/**
 * Struct-of-arrays pool of unexpected messages, sized by the configured entry bound. Each entry is in the
 * global arrival-order list (for any-source searches) and in its source's {@link UnexpectedList}.
 * <p>
 * Threading: not thread-safe; owned by the domain agent.
 */
final class UnexpectedPool
{
    static final int NULL = -1;
    static final int TAGGED = 1;
    static final int UNRESOLVED = 2;
    static final int CLAIMED = 4;

    final long[] tag;
    final long[] length;
    final long[] data;
    final long[] payload;
    final long[] source;
    final long[] seq;
    final long[] claimContext;
    final int[] state;
    final int[] generation;
    final int[] next;
    final int[] prev;
    final int[] allNext;
    final int[] allPrev;
    final UnexpectedList[] listOf;
    int freeHead;
    int allHead = NULL;
    int allTail = NULL;
    int size;
    long bytes;

    UnexpectedPool(final int capacity)
    {
        tag = new long[capacity];
        length = new long[capacity];
        data = new long[capacity];
        payload = new long[capacity];
        source = new long[capacity];
        seq = new long[capacity];
        claimContext = new long[capacity];
        state = new int[capacity];
        generation = new int[capacity];
        next = new int[capacity];
        prev = new int[capacity];
        allNext = new int[capacity];
        allPrev = new int[capacity];
        listOf = new UnexpectedList[capacity];
        for (int i = 0; i < capacity; i++)
        {
            next[i] = i + 1 < capacity ? i + 1 : NULL;
        }
        freeHead = 0;
    }

    int capacity()
    {
        return tag.length;
    }

    /**
     * Take an entry, append it to the global list and to {@code list}.
     */
    int allocate(final UnexpectedList list)
    {
        final int e = freeHead;
        if (NULL != e)
        {
            freeHead = next[e];
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
            appendTo(list, e);
            size++;
        }
        return e;
    }

    void appendTo(final UnexpectedList list, final int e)
    {
        prev[e] = list.tail;
        next[e] = NULL;
        if (NULL != list.tail)
        {
            next[list.tail] = e;
        }
        else
        {
            list.head = e;
        }
        list.tail = e;
        listOf[e] = list;
    }

    /**
     * Insert into {@code list} keeping arrival (sequence) order; used when re-homing.
     */
    void insertBySeq(final UnexpectedList list, final int e)
    {
        int after = list.tail;
        while (NULL != after && seq[after] > seq[e])
        {
            after = prev[after];
        }
        if (NULL == after)
        {
            prev[e] = NULL;
            next[e] = list.head;
            if (NULL != list.head)
            {
                prev[list.head] = e;
            }
            else
            {
                list.tail = e;
            }
            list.head = e;
        }
        else
        {
            final int n = next[after];
            prev[e] = after;
            next[e] = n;
            next[after] = e;
            if (NULL != n)
            {
                prev[n] = e;
            }
            else
            {
                list.tail = e;
            }
        }
        listOf[e] = list;
    }

    void unlinkFromList(final int e)
    {
        final UnexpectedList list = listOf[e];
        final int p = prev[e];
        final int n = next[e];
        if (NULL != p)
        {
            next[p] = n;
        }
        else
        {
            list.head = n;
        }
        if (NULL != n)
        {
            prev[n] = p;
        }
        else
        {
            list.tail = p;
        }
        listOf[e] = null;
    }

    void free(final int e)
    {
        unlinkFromList(e);
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
        bytes -= length[e];
        state[e] = 0;
        generation[e]++;
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
        if (e < 0 || e >= tag.length || generation[e] != (int) (handle >>> 32) || null == listOf[e])
        {
            return NULL;
        }
        return e;
    }
}
