package io.jfabric.matching;

import java.util.Arrays;

import org.agrona.BitUtil;
import org.agrona.collections.Hashing;

/**
 * Struct-of-arrays pool of unexpected messages, sized by the configured entry bound. Each entry is in the
 * global arrival-order list (for any-source searches) and in its source's {@link UnexpectedList}; when indexed,
 * tagged entries are also chained per exact tag (arrival order) so an exact-tag receive finds them without a
 * walk over the whole queue.
 * <p>
 * Threading: not thread-safe; owned by the domain agent.
 */
final class UnexpectedPool
{
    static final int NULL = -1;
    static final int TAGGED = 1;
    static final int UNRESOLVED = 2;
    static final int CLAIMED = 4;
    static final int INDEXED = 8;

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
    final int[] hashNext;
    final int[] hashPrev;
    final int[] bucketHead;
    final int[] bucketTail;
    final int mask;
    int freeHead;
    int allHead = NULL;
    int allTail = NULL;
    int size;
    long bytes;

    /**
     * @param capacity entries.
     * @param indexed  also chain tagged entries by exact tag in hash buckets (for {@link TagStorage#INDEX}).
     */
    UnexpectedPool(final int capacity, final boolean indexed)
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
        if (indexed)
        {
            final int buckets = BitUtil.findNextPositivePowerOfTwo(capacity);
            hashNext = new int[capacity];
            hashPrev = new int[capacity];
            bucketHead = new int[buckets];
            bucketTail = new int[buckets];
            Arrays.fill(bucketHead, NULL);
            Arrays.fill(bucketTail, NULL);
            mask = buckets - 1;
        }
        else
        {
            hashNext = null;
            hashPrev = null;
            bucketHead = null;
            bucketTail = null;
            mask = 0;
        }
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

    boolean indexed()
    {
        return null != bucketHead;
    }

    /**
     * Chain a tagged entry, whose tag is set, at the tail of its tag's bucket (arrival order).
     */
    void indexTag(final int e)
    {
        final int b = Hashing.hash(tag[e], mask);
        final int t = bucketTail[b];
        hashPrev[e] = t;
        hashNext[e] = NULL;
        if (NULL != t)
        {
            hashNext[t] = e;
        }
        else
        {
            bucketHead[b] = e;
        }
        bucketTail[b] = e;
        state[e] |= INDEXED;
    }

    /**
     * @return the oldest entry in the bucket of {@code tag} (its chain may hold other tags), or NULL.
     */
    int bucketHead(final long tag)
    {
        return bucketHead[Hashing.hash(tag, mask)];
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
        if ((state[e] & INDEXED) != 0)
        {
            final int b = Hashing.hash(tag[e], mask);
            final int hp = hashPrev[e];
            final int hn = hashNext[e];
            if (NULL != hp)
            {
                hashNext[hp] = hn;
            }
            else
            {
                bucketHead[b] = hn;
            }
            if (NULL != hn)
            {
                hashPrev[hn] = hp;
            }
            else
            {
                bucketTail[b] = hp;
            }
        }
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
