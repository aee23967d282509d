package io.jfabric.matching;

import java.util.Arrays;

import org.agrona.BitUtil;
import org.agrona.collections.Hashing;

import static io.jfabric.matching.PostedPool.NULL;

/**
 * {@link TagStorage#INDEX}: receives with {@code ignore == 0} live in hash buckets by tag (each bucket chain in
 * posting order), wildcard receives in one ordered list. A search takes the first exact hit in the tag's
 * bucket and the first wildcard hit, and returns the one posted earlier (lower sequence), so oldest-wins holds
 * when exact and wildcard receives are mixed.
 * <p>
 * Threading: not thread-safe; owned by the domain agent.
 */
final class IndexedPostedQueue implements PostedQueue
{
    private final PostedPool pool;
    private final int[] bucketHead;
    private final int[] bucketTail;
    private final int mask;
    private int wildHead = NULL;
    private int wildTail = NULL;
    private int count;
    private int exactCount;

    IndexedPostedQueue(final PostedPool pool, final int buckets)
    {
        this.pool = pool;
        final int n = BitUtil.findNextPositivePowerOfTwo(buckets);
        bucketHead = new int[n];
        bucketTail = new int[n];
        Arrays.fill(bucketHead, NULL);
        Arrays.fill(bucketTail, NULL);
        mask = n - 1;
    }

    public void append(final int e)
    {
        final int[] next = pool.next;
        next[e] = NULL;
        if (0 == pool.ignore[e])
        {
            final int b = Hashing.hash(pool.tag[e], mask);
            final int t = bucketTail[b];
            pool.prev[e] = t;
            if (NULL != t)
            {
                next[t] = e;
            }
            else
            {
                bucketHead[b] = e;
            }
            bucketTail[b] = e;
            exactCount++;
        }
        else
        {
            pool.prev[e] = wildTail;
            if (NULL != wildTail)
            {
                next[wildTail] = e;
            }
            else
            {
                wildHead = e;
            }
            wildTail = e;
        }
        pool.queueOf[e] = this;
        count++;
    }

    public int findOldest(final long tag)
    {
        final long[] tags = pool.tag;
        final int[] next = pool.next;
        int exact = NULL;
        if (0 != exactCount)
        {
            for (int e = bucketHead[Hashing.hash(tag, mask)]; NULL != e; e = next[e])
            {
                if (tags[e] == tag)
                {
                    exact = e;
                    break;
                }
            }
        }

        final int wildStart = wildHead;
        if (NULL == wildStart)
        {
            return exact;
        }

        if (NULL == exact)
        {
            // No exact hit: the list strategy's walk, without sequence checks.
            return ListPostedQueue.firstMatch(pool, wildStart, tag);
        }

        final long[] ignores = pool.ignore;

        // The wildcard list is in posting order: once past the exact hit's sequence no older wildcard exists.
        final long[] seqs = pool.seq;
        final long limit = seqs[exact];
        for (int e = wildStart; NULL != e; e = next[e])
        {
            if (seqs[e] > limit)
            {
                break;
            }
            if (((tags[e] ^ tag) & ~ignores[e]) == 0)
            {
                return e;
            }
        }
        return exact;
    }

    public void remove(final int e)
    {
        final int[] next = pool.next;
        final int[] prev = pool.prev;
        final int p = prev[e];
        final int n = next[e];
        if (0 == pool.ignore[e])
        {
            final int b = Hashing.hash(pool.tag[e], mask);
            if (NULL != p)
            {
                next[p] = n;
            }
            else
            {
                bucketHead[b] = n;
            }
            if (NULL != n)
            {
                prev[n] = p;
            }
            else
            {
                bucketTail[b] = p;
            }
            exactCount--;
        }
        else
        {
            if (NULL != p)
            {
                next[p] = n;
            }
            else
            {
                wildHead = n;
            }
            if (NULL != n)
            {
                prev[n] = p;
            }
            else
            {
                wildTail = p;
            }
        }
        count--;
    }

    public boolean isEmpty()
    {
        return 0 == count;
    }
}
