package io.jfabric.matching;

import java.util.Arrays;

import org.agrona.BitUtil;
import org.agrona.collections.Hashing;

/**
 * Struct-of-arrays pool of unexpected messages. It starts small and doubles, on the agent thread, when an arrival
 * finds no free entry, up to the configured entry bound (memory is used lazily and never given back: the arrays of
 * a flood stay for the next one). Each entry is in the
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

    long[] tag;
    long[] length;
    long[] data;
    long[] payload;
    long[] source;
    long[] seq;
    long[] claimContext;
    int[] state;
    int[] generation;
    int[] next;
    int[] prev;
    int[] allNext;
    int[] allPrev;
    UnexpectedList[] listOf;
    int[] hashNext;
    int[] hashPrev;
    int[] bucketHead;
    int[] bucketTail;
    int mask;
    private final int maxCapacity;
    int freeHead;
    int allHead = NULL;
    int allTail = NULL;
    int size;
    long bytes;

    /**
     * @param capacity    entries allocated now.
     * @param maxCapacity most entries ever (the pool doubles up to it when full).
     * @param indexed     also chain tagged entries by exact tag in hash buckets (for {@link TagStorage#INDEX}).
     */
    UnexpectedPool(final int capacity, final int maxCapacity, final boolean indexed)
    {
        this.maxCapacity = Math.max(1, maxCapacity);
        final int initial = Math.max(1, Math.min(capacity, this.maxCapacity));
        tag = new long[initial];
        length = new long[initial];
        data = new long[initial];
        payload = new long[initial];
        source = new long[initial];
        seq = new long[initial];
        claimContext = new long[initial];
        state = new int[initial];
        generation = new int[initial];
        next = new int[initial];
        prev = new int[initial];
        allNext = new int[initial];
        allPrev = new int[initial];
        listOf = new UnexpectedList[initial];
        if (indexed)
        {
            final int buckets = BitUtil.findNextPositivePowerOfTwo(initial);
            hashNext = new int[initial];
            hashPrev = new int[initial];
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
        for (int i = 0; i < initial; i++)
        {
            next[i] = i + 1 < initial ? i + 1 : NULL;
        }
        freeHead = 0;
    }

    /**
     * Double the arrays (capped at the bound); the new entries join the free list. Entry indices, handles and
     * list links stay valid; the tag index is rebuilt in arrival order for the wider hash.
     *
     * @return true when there is a free entry now.
     */
    private boolean grow()
    {
        final int old = tag.length;
        if (old >= maxCapacity)
        {
            return false;
        }
        final int capacity = (int) Math.min(maxCapacity, 2L * old);
        tag = Arrays.copyOf(tag, capacity);
        length = Arrays.copyOf(length, capacity);
        data = Arrays.copyOf(data, capacity);
        payload = Arrays.copyOf(payload, capacity);
        source = Arrays.copyOf(source, capacity);
        seq = Arrays.copyOf(seq, capacity);
        claimContext = Arrays.copyOf(claimContext, capacity);
        state = Arrays.copyOf(state, capacity);
        generation = Arrays.copyOf(generation, capacity);
        next = Arrays.copyOf(next, capacity);
        prev = Arrays.copyOf(prev, capacity);
        allNext = Arrays.copyOf(allNext, capacity);
        allPrev = Arrays.copyOf(allPrev, capacity);
        listOf = Arrays.copyOf(listOf, capacity);
        for (int i = old; i < capacity; i++)
        {
            next[i] = i + 1 < capacity ? i + 1 : freeHead;
        }
        freeHead = old;
        if (null != bucketHead)
        {
            hashNext = Arrays.copyOf(hashNext, capacity);
            hashPrev = Arrays.copyOf(hashPrev, capacity);
            final int buckets = BitUtil.findNextPositivePowerOfTwo(capacity);
            bucketHead = new int[buckets];
            bucketTail = new int[buckets];
            Arrays.fill(bucketHead, NULL);
            Arrays.fill(bucketTail, NULL);
            mask = buckets - 1;
            // Re-chain in arrival order (the global list is in arrival order), so each bucket stays oldest-first.
            for (int e = allHead; NULL != e; e = allNext[e])
            {
                if ((state[e] & INDEXED) != 0)
                {
                    indexTag(e);
                }
            }
        }
        return true;
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
        if (NULL == freeHead && !grow())
        {
            return NULL;
        }
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
