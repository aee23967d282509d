package io.jfabric.matching;

import java.util.ArrayDeque;

import org.agrona.collections.Long2ObjectHashMap;

import static io.jfabric.matching.MatchFlags.ADDR_UNSPEC;
import static io.jfabric.matching.PostedPool.NULL;

/**
 * The receive-side matching engine of one endpoint: posted receives (tagged and untagged, per source and any
 * source), unexpected messages (per source, bounded), peek/claim/discard, kfabric tsearch, multi-recv and
 * cancel. It decides matches only; the agent moves the payload named by {@link MatchResult#payloadHandle()}.
 * <p>
 * Rules it implements (OFI {@code fi_tagged(3)}, {@code fi_msg(3)}):
 * <ul>
 *     <li>A tagged message matches a receive when {@code (sendTag & ~ignore) == (recvTag & ~ignore)}; untagged
 *     messages match untagged receives in posting order.</li>
 *     <li>Posted receives match oldest-first; when a directed receive (a source fi_addr) and an any-source
 *     receive ({@link MatchFlags#ADDR_UNSPEC}) both match, the one posted earlier wins (one global posting
 *     sequence).</li>
 *     <li>Unmatched arrivals are queued per source in arrival order; a new receive searches them first (all
 *     of them oldest-first when it is any-source, its source's otherwise). The queue is bounded by entries
 *     and bytes; at the bound an arrival gets {@link MatchStatus#EAGAIN} and nothing is stored, so the
 *     transport back-pressures the sender and retries later.</li>
 *     <li>An arrival from a source not in the address vector ({@link #onUnresolvedArrival}) can match an
 *     any-source receive; otherwise it waits under its raw key until {@link #avInsert(long, long)} re-homes
 *     it, after which {@link #pollRehomedMatch(MatchResult)} delivers it to directed receives.</li>
 * </ul>
 * Results are written into a caller-owned {@link MatchResult}; no call allocates once the per-source queues of
 * the peers in use exist (they are created on a source's first directed post or first queued message).
 * <p>
 * Threading: not thread-safe, no locks or atomics; owned by the single domain agent thread.
 */
public final class MatchingEngine
{
    /** Unexpected entries allocated up front; the pool doubles from there up to the configured bound. */
    private static final int INITIAL_UNEXPECTED = 128;
    private final PostedPool posted;
    private final UnexpectedPool unexpected;
    private final TagStorage tagStorage;
    private final int tagBuckets;
    private final int indexDepth;
    private final int maxUnexpected;
    private final long maxUnexpectedBytes;
    private final PostedQueue taggedAny;
    private final PostedQueue untaggedAny;
    private final Long2ObjectHashMap<PostedQueue> taggedBySource = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<PostedQueue> untaggedBySource = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<UnexpectedList> unexpectedBySource = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<UnexpectedList> unexpectedByRawKey = new Long2ObjectHashMap<>();
    private final ArrayDeque<UnexpectedList> spareLists = new ArrayDeque<>();
    private long[] rehomed;
    private int rehomedHead;
    private int rehomedCount;
    private final long[] searchSource;
    private final long[] searchTag;
    private final long[] searchIgnore;
    private final long[] searchFlags;
    private final long[] searchContext;
    private int searchCount;
    private long postSeq;
    private long arrivalSeq;
    private long minMultiRecv;

    /**
     * Create an engine; all pools are allocated here.
     *
     * @param context configuration; {@link MatchingContext#conclude()} is called.
     */
    public MatchingEngine(final MatchingContext context)
    {
        context.conclude();
        posted = new PostedPool(context.rxSize());
        // The unexpected pool starts small and grows up to its bound: a large bound costs memory only when used.
        unexpected = new UnexpectedPool(Math.min(INITIAL_UNEXPECTED, context.unexpectedEntries()),
            context.unexpectedEntries(), TagStorage.LIST != context.tagStorage());
        tagStorage = context.tagStorage();
        tagBuckets = context.tagBuckets();
        indexDepth = context.indexDepth();
        maxUnexpected = context.unexpectedEntries();
        maxUnexpectedBytes = context.unexpectedBytes();
        minMultiRecv = context.minMultiRecv();
        taggedAny = newTaggedQueue();
        untaggedAny = new ListPostedQueue(posted);
        rehomed = new long[Math.min(INITIAL_UNEXPECTED, context.unexpectedEntries())];
        final int searches = context.pendingSearches();
        searchSource = new long[searches];
        searchTag = new long[searches];
        searchIgnore = new long[searches];
        searchFlags = new long[searches];
        searchContext = new long[searches];
    }

    /**
     * @return the storage strategy of posted tagged receives.
     */
    public TagStorage tagStorage()
    {
        return tagStorage;
    }

    /**
     * @return the current {@code FI_OPT_MIN_MULTI_RECV}.
     */
    public long minMultiRecv()
    {
        return minMultiRecv;
    }

    /**
     * Set {@code FI_OPT_MIN_MULTI_RECV}: a multi-recv buffer is released once its free space is below it.
     *
     * @param minimum at least 1.
     * @return 0, or {@link MatchStatus#EINVAL} for a value below 1 (unchanged).
     */
    public int minMultiRecv(final long minimum)
    {
        if (minimum < 1)
        {
            return MatchStatus.EINVAL;
        }
        minMultiRecv = minimum;
        return 0;
    }

    /**
     * @return number of posted receives (multi-recv buffers count once).
     */
    public int postedCount()
    {
        return posted.size;
    }

    /**
     * @return number of queued unexpected messages.
     */
    public int unexpectedCount()
    {
        return unexpected.size;
    }

    /**
     * @return total length of queued unexpected messages.
     */
    public long unexpectedBytes()
    {
        return unexpected.bytes;
    }

    /**
     * Post a receive, or with {@link MatchFlags#PEEK} / {@link MatchFlags#CLAIM} search the unexpected queue.
     * <ul>
     *     <li>No PEEK/CLAIM: the unexpected queue is searched first; a hit returns {@link MatchStatus#MATCHED}
     *     with both sides in {@code result} (nothing is posted); otherwise the receive is posted and
     *     {@link MatchStatus#POSTED} returned. A {@link MatchFlags#MULTI_RECV} buffer is always posted and, when
     *     an unexpected message is waiting, the first one is delivered at offset 0 ({@link MatchStatus#MATCHED});
     *     call {@link #drainMultiRecv(long, MatchResult)} with {@link MatchResult#receiveHandle()} for more.</li>
     *     <li>PEEK: {@link MatchStatus#PEEKED} with the message side, or {@link MatchStatus#ENOMSG}; with CLAIM
     *     the message is reserved for {@code context} (later searches skip it); with DISCARD it is dropped
     *     ({@link MatchStatus#DISCARDED}).</li>
     *     <li>CLAIM without PEEK: receives the message reserved for {@code context} ({@link MatchStatus#MATCHED}),
     *     with DISCARD drops it ({@link MatchStatus#DISCARDED}); {@link MatchStatus#ENOMSG} when none is
     *     reserved for this context.</li>
     * </ul>
     * Errors: {@link MatchStatus#EAGAIN} when the posted pool is full, {@link MatchStatus#EINVAL} for a negative
     * length, DISCARD without PEEK or CLAIM, PEEK|CLAIM|DISCARD, or MULTI_RECV with PEEK or CLAIM.
     *
     * @param tagged  tagged receive ({@code fi_trecv}) or untagged ({@code fi_recv}; tag and ignore unused).
     * @param source  fi_addr of the source, or {@link MatchFlags#ADDR_UNSPEC}.
     * @param tag     receive tag.
     * @param ignore  ignore mask.
     * @param context the operation context.
     * @param address buffer address.
     * @param length  buffer length.
     * @param flags   {@link MatchFlags} bits.
     * @param result  written with the outcome.
     * @return a {@link MatchStatus} value.
     */
    public int postReceive(
        final boolean tagged,
        final long source,
        final long tag,
        final long ignore,
        final long context,
        final long address,
        final long length,
        final long flags,
        final MatchResult result)
    {
        result.reset();
        final boolean peek = (flags & MatchFlags.PEEK) != 0;
        final boolean claim = (flags & MatchFlags.CLAIM) != 0;
        final boolean discard = (flags & MatchFlags.DISCARD) != 0;
        final boolean multi = (flags & MatchFlags.MULTI_RECV) != 0;
        final long recvTag = tagged ? tag : 0;
        final long recvIgnore = tagged ? ignore : 0;
        if (length < 0 || (multi && (peek || claim)) || (discard && !peek && !claim) || (peek && claim && discard))
        {
            return MatchStatus.EINVAL;
        }

        if (peek)
        {
            final int u = findUnexpected(tagged, source, recvTag, recvIgnore);
            if (NULL == u)
            {
                return MatchStatus.ENOMSG;
            }
            fillMessage(result, u);
            result.context = context;
            if (discard)
            {
                freeUnexpected(u);
                return MatchStatus.DISCARDED;
            }
            if (claim)
            {
                unexpected.state[u] |= UnexpectedPool.CLAIMED;
                unexpected.claimContext[u] = context;
            }
            return MatchStatus.PEEKED;
        }

        if (claim)
        {
            final int u = findClaimed(context);
            if (NULL == u)
            {
                return MatchStatus.ENOMSG;
            }
            fillMessage(result, u);
            result.context = context;
            if (discard)
            {
                freeUnexpected(u);
                return MatchStatus.DISCARDED;
            }
            fillSingleBuffer(result, context, address, length);
            freeUnexpected(u);
            return MatchStatus.MATCHED;
        }

        if (!multi)
        {
            final int u = findUnexpected(tagged, source, recvTag, recvIgnore);
            if (NULL != u)
            {
                fillMessage(result, u);
                fillSingleBuffer(result, context, address, length);
                freeUnexpected(u);
                return MatchStatus.MATCHED;
            }
        }

        final PostedPool pool = posted;
        final int e = pool.allocate();
        if (NULL == e)
        {
            return MatchStatus.EAGAIN;
        }
        pool.tag[e] = recvTag;
        // Untagged receives ignore every bit: any untagged message matches the oldest one.
        pool.ignore[e] = tagged ? recvIgnore : -1L;
        pool.context[e] = context;
        pool.address[e] = address;
        pool.length[e] = length;
        pool.consumed[e] = 0;
        pool.seq[e] = ++postSeq;
        pool.source[e] = source;
        pool.kind[e] = (tagged ? PostedPool.FLAG_TAGGED : 0) | (multi ? PostedPool.FLAG_MULTI : 0);
        pool.inFlight[e] = 0;
        postedQueue(tagged, source).append(e);
        result.receiveHandle = pool.handle(e);

        if (multi)
        {
            return drainInto(e, result);
        }
        return MatchStatus.POSTED;
    }

    /**
     * Deliver the next waiting unexpected message into a posted multi-recv buffer.
     *
     * @param receiveHandle from {@link MatchResult#receiveHandle()}.
     * @param result        written with the outcome.
     * @return {@link MatchStatus#MATCHED}, {@link MatchStatus#POSTED} when nothing more waits, or
     * {@link MatchStatus#ENOENT} when the handle no longer names a posted multi-recv buffer.
     */
    public int drainMultiRecv(final long receiveHandle, final MatchResult result)
    {
        result.reset();
        final int e = posted.entryOf(receiveHandle);
        if (NULL == e || (posted.kind[e] & PostedPool.FLAG_MULTI) == 0)
        {
            return MatchStatus.ENOENT;
        }
        result.receiveHandle = receiveHandle;
        return drainInto(e, result);
    }

    /**
     * A message arrived from a source in the address vector. It matches the oldest matching posted receive
     * (directed to {@code source} or any-source) or is queued as unexpected.
     *
     * @param source        fi_addr of the sender.
     * @param tagged        tagged message.
     * @param tag           the message tag (unused when untagged).
     * @param length        message length.
     * @param data          remote CQ data.
     * @param payloadHandle where the transport holds the payload.
     * @param result        written with the match.
     * @return {@link MatchStatus#MATCHED}, {@link MatchStatus#QUEUED}, {@link MatchStatus#EAGAIN} when the
     * unexpected bound is reached (back-pressure; nothing was stored), {@link MatchStatus#EINVAL} for a
     * negative length.
     */
    public int onArrival(
        final long source,
        final boolean tagged,
        final long tag,
        final long length,
        final long data,
        final long payloadHandle,
        final MatchResult result)
    {
        return arrival(source, false, tagged, tag, length, data, payloadHandle, true, result);
    }

    /**
     * {@link #onArrival(long, boolean, long, long, long, long, MatchResult)} for a receiver that may refuse to
     * store the message (flow control: its sender is over its credit, or the store is full): with
     * {@code mayQueue} false a message that matches no posted receive is not queued and
     * {@link MatchStatus#EAGAIN} is returned; a matching posted receive still gets it.
     *
     * @param source        fi_addr of the sender.
     * @param tagged        tagged message.
     * @param tag           the message tag (unused when untagged).
     * @param length        message length.
     * @param data          remote CQ data.
     * @param payloadHandle where the transport holds the payload.
     * @param mayQueue      false: match only, never queue.
     * @param result        written with the match.
     * @return as {@link #onArrival(long, boolean, long, long, long, long, MatchResult)}.
     */
    public int onArrival(
        final long source,
        final boolean tagged,
        final long tag,
        final long length,
        final long data,
        final long payloadHandle,
        final boolean mayQueue,
        final MatchResult result)
    {
        return arrival(source, false, tagged, tag, length, data, payloadHandle, mayQueue, result);
    }

    /**
     * A message arrived from a source not (yet) in the address vector. It can match an any-source receive
     * (the result carries {@link MatchFlags#SOURCE_UNRESOLVED} and the raw key as source); otherwise it is
     * queued under {@code rawSourceKey} until {@link #avInsert(long, long)}.
     *
     * @param rawSourceKey  the transport's key of the unknown sender's address.
     * @param tagged        tagged message.
     * @param tag           the message tag (unused when untagged).
     * @param length        message length.
     * @param data          remote CQ data.
     * @param payloadHandle where the transport holds the payload.
     * @param result        written with the match.
     * @return as {@link #onArrival}.
     */
    public int onUnresolvedArrival(
        final long rawSourceKey,
        final boolean tagged,
        final long tag,
        final long length,
        final long data,
        final long payloadHandle,
        final MatchResult result)
    {
        return arrival(rawSourceKey, true, tagged, tag, length, data, payloadHandle, true, result);
    }

    /**
     * {@link #onUnresolvedArrival(long, boolean, long, long, long, long, MatchResult)} with {@code mayQueue} as in
     * {@link #onArrival(long, boolean, long, long, long, long, boolean, MatchResult)}.
     *
     * @param rawSourceKey  the transport's key of the unknown sender's address.
     * @param tagged        tagged message.
     * @param tag           the message tag (unused when untagged).
     * @param length        message length.
     * @param data          remote CQ data.
     * @param payloadHandle where the transport holds the payload.
     * @param mayQueue      false: match only, never queue.
     * @param result        written with the match.
     * @return as {@link #onArrival}.
     */
    public int onUnresolvedArrival(
        final long rawSourceKey,
        final boolean tagged,
        final long tag,
        final long length,
        final long data,
        final long payloadHandle,
        final boolean mayQueue,
        final MatchResult result)
    {
        return arrival(rawSourceKey, true, tagged, tag, length, data, payloadHandle, mayQueue, result);
    }

    /**
     * The address with raw key {@code rawSourceKey} was inserted into the address vector as {@code fiAddr}:
     * its queued unexpected messages move to {@code fiAddr}'s queue (kept in arrival order). Call
     * {@link #pollRehomedMatch(MatchResult)} afterwards to match them against directed receives already posted
     * for {@code fiAddr}, and {@link #pollSearchEvent(MatchResult)} to answer deferred tsearch operations.
     *
     * @param rawSourceKey the key given to {@link #onUnresolvedArrival}.
     * @param fiAddr       the new fi_addr.
     * @return number of messages re-homed.
     */
    public int avInsert(final long rawSourceKey, final long fiAddr)
    {
        final UnexpectedList from = unexpectedByRawKey.remove(rawSourceKey);
        if (null == from)
        {
            return 0;
        }
        final UnexpectedPool pool = unexpected;
        final UnexpectedList to = unexpectedList(fiAddr, false);
        int count = 0;
        int u = from.head;
        while (NULL != u)
        {
            final int next = pool.next[u];
            pool.state[u] &= ~UnexpectedPool.UNRESOLVED;
            pool.source[u] = fiAddr;
            pool.insertBySeq(to, u);
            if (rehomedCount == rehomed.length)
            {
                compactRehomed();
                if (rehomedCount == rehomed.length)
                {
                    growRehomed();
                }
            }
            rehomed[(rehomedHead + rehomedCount) % rehomed.length] = pool.handle(u);
            rehomedCount++;
            count++;
            u = next;
        }
        recycle(from);
        return count;
    }

    /**
     * Match one re-homed message (see {@link #avInsert(long, long)}) against the directed receives posted for
     * its new source, oldest message first.
     *
     * @param result written with the match.
     * @return {@link MatchStatus#MATCHED}, or {@link MatchStatus#ENOMSG} when no re-homed message matches.
     */
    public int pollRehomedMatch(final MatchResult result)
    {
        result.reset();
        final UnexpectedPool pool = unexpected;
        while (rehomedCount > 0)
        {
            final long handle = rehomed[rehomedHead];
            rehomedHead = (rehomedHead + 1) % rehomed.length;
            rehomedCount--;
            final int u = pool.entryOf(handle);
            if (NULL == u || (pool.state[u] & (UnexpectedPool.CLAIMED | UnexpectedPool.UNRESOLVED)) != 0)
            {
                continue;
            }
            final boolean tagged = (pool.state[u] & UnexpectedPool.TAGGED) != 0;
            final PostedQueue queue = (tagged ? taggedBySource : untaggedBySource).get(pool.source[u]);
            if (null == queue)
            {
                continue;
            }
            final int e = queue.findOldest(pool.tag[u]);
            if (NULL == e)
            {
                continue;
            }
            fillMessage(result, u);
            freeUnexpected(u);
            deliver(e, result.messageLength, result);
            return MatchStatus.MATCHED;
        }
        return MatchStatus.ENOMSG;
    }

    /**
     * kfabric {@code kfi_tsearch}: search the unexpected tagged messages.
     * <p>
     * Returns 1 on an immediate hit ({@code result} holds tag, length, source, data, payload handle, and the
     * search's CLAIM/DISCARD bits in its flags);
     * with {@link MatchFlags#CLAIM} the message is reserved for {@code context} (later searches skip it, a CLAIM
     * receive with this context gets it), with {@link MatchFlags#DISCARD} it is dropped. Returns
     * {@link MatchStatus#ENOMSG} on an immediate miss. Returns 0 (deferred) when a directed search misses while
     * messages from unresolved sources could match: the answer comes from
     * {@link #pollSearchEvent(MatchResult)} once it is known. {@link MatchStatus#EAGAIN} when too many
     * searches are deferred, {@link MatchStatus#EINVAL} for CLAIM|DISCARD.
     *
     * @param source  fi_addr or {@link MatchFlags#ADDR_UNSPEC}.
     * @param tag     tag.
     * @param ignore  ignore mask.
     * @param flags   {@link MatchFlags#CLAIM}, {@link MatchFlags#DISCARD} or 0.
     * @param context context for CLAIM and for the deferred answer.
     * @param result  written with the hit.
     * @return 1, 0 or a negative status.
     */
    public int tsearch(
        final long source,
        final long tag,
        final long ignore,
        final long flags,
        final long context,
        final MatchResult result)
    {
        result.reset();
        if ((flags & MatchFlags.CLAIM) != 0 && (flags & MatchFlags.DISCARD) != 0)
        {
            return MatchStatus.EINVAL;
        }
        final int answer = searchNow(source, tag, ignore, flags, context, result);
        if (0 != answer)
        {
            return answer;
        }
        if (searchCount == searchSource.length)
        {
            return MatchStatus.EAGAIN;
        }
        final int i = searchCount++;
        searchSource[i] = source;
        searchTag[i] = tag;
        searchIgnore[i] = ignore;
        searchFlags[i] = flags;
        searchContext[i] = context;
        return 0;
    }

    /**
     * Answer one deferred tsearch whose outcome is now known, in the order they were deferred.
     *
     * @param result written with the hit (or only the context on a miss); on a hit its
     *               {@link MatchResult#flags()} include the search's {@link MatchFlags#CLAIM} or
     *               {@link MatchFlags#DISCARD}, so the caller can free a discarded message's payload.
     * @return 1 (hit, {@link MatchResult#context()} names the search), {@link MatchStatus#ENOMSG} (miss,
     * context set), or 0 when no deferred search can be answered yet.
     */
    public int pollSearchEvent(final MatchResult result)
    {
        for (int i = 0; i < searchCount; i++)
        {
            result.reset();
            final int answer = searchNow(
                searchSource[i], searchTag[i], searchIgnore[i], searchFlags[i], searchContext[i], result);
            if (0 != answer)
            {
                result.context = searchContext[i];
                for (int j = i + 1; j < searchCount; j++)
                {
                    searchSource[j - 1] = searchSource[j];
                    searchTag[j - 1] = searchTag[j];
                    searchIgnore[j - 1] = searchIgnore[j];
                    searchFlags[j - 1] = searchFlags[j];
                    searchContext[j - 1] = searchContext[j];
                }
                searchCount--;
                return answer;
            }
        }
        result.reset();
        return 0;
    }

    /**
     * The context of the oldest posted receive (for failing every posted receive when the transport can no longer
     * deliver; see {@link #cancel}). Meaningful only while {@link #postedCount()} is above 0.
     *
     * @return the context, or 0 when nothing is posted.
     */
    public long oldestPostedContext()
    {
        final PostedPool pool = posted;
        return NULL == pool.allHead ? 0 : pool.context[pool.allHead];
    }

    /**
     * Cancel the oldest posted receive with {@code context} ({@code fi_cancel}). Unexpected messages and PEEK
     * reservations are not cancellable.
     *
     * @param context the receive's context.
     * @param result  written with the receive (buffer, length, bytes consumed as offset for multi-recv;
     *                {@link MatchFlags#MULTI_RECV} set when a multi-recv buffer is released).
     * @return {@link MatchStatus#ECANCELED} (complete the receive with that error),
     * {@link MatchStatus#EAGAIN} when it is a multi-recv buffer with data in flight, or
     * {@link MatchStatus#ENOENT} when no posted receive has this context.
     */
    public int cancel(final long context, final MatchResult result)
    {
        result.reset();
        final PostedPool pool = posted;
        int e = pool.allHead;
        while (NULL != e && pool.context[e] != context)
        {
            e = pool.allNext[e];
        }
        if (NULL == e)
        {
            return MatchStatus.ENOENT;
        }
        final boolean multi = (pool.kind[e] & PostedPool.FLAG_MULTI) != 0;
        if (multi && pool.inFlight[e] > 0)
        {
            return MatchStatus.EAGAIN;
        }
        result.context = context;
        result.bufferAddress = pool.address[e];
        result.bufferLength = pool.length[e];
        result.offset = pool.consumed[e];
        result.tag = pool.tag[e];
        result.source = pool.source[e];
        result.receiveHandle = pool.handle(e);
        result.flags = MatchFlags.RECV | ((pool.kind[e] & PostedPool.FLAG_TAGGED) != 0 ?
            MatchFlags.TAGGED : MatchFlags.MSG) | (multi ? MatchFlags.MULTI_RECV : 0);
        pool.queueOf[e].remove(e);
        pool.free(e);
        return MatchStatus.ECANCELED;
    }

    /**
     * The agent finished copying one segment into a multi-recv buffer; cancel refuses a buffer with segments
     * in flight.
     *
     * @param receiveHandle from the segment's {@link MatchResult#receiveHandle()}.
     * @return true when the buffer is still posted and was updated, false when it is gone.
     */
    public boolean multiRecvSegmentComplete(final long receiveHandle)
    {
        final int e = posted.entryOf(receiveHandle);
        if (NULL == e || posted.inFlight[e] == 0)
        {
            return false;
        }
        posted.inFlight[e]--;
        return true;
    }

    /**
     * Drop handles of re-homed messages that are gone (matched, discarded) when the agent has not polled; at
     * most {@code capacity - 1} live ones can be waiting while another is being re-homed, so this makes room.
     */
    private void growRehomed()
    {
        final long[] grown = new long[rehomed.length * 2];
        for (int i = 0; i < rehomedCount; i++)
        {
            grown[i] = rehomed[(rehomedHead + i) % rehomed.length];
        }
        rehomed = grown;
        rehomedHead = 0;
    }

    private void compactRehomed()
    {
        final int capacity = rehomed.length;
        int kept = 0;
        for (int i = 0; i < rehomedCount; i++)
        {
            final long handle = rehomed[(rehomedHead + i) % capacity];
            if (NULL != unexpected.entryOf(handle))
            {
                rehomed[(rehomedHead + kept) % capacity] = handle;
                kept++;
            }
        }
        rehomedCount = kept;
    }

    private int arrival(
        final long source,
        final boolean unresolved,
        final boolean tagged,
        final long tag,
        final long length,
        final long data,
        final long payloadHandle,
        final boolean mayQueue,
        final MatchResult result)
    {
        result.reset();
        if (length < 0)
        {
            return MatchStatus.EINVAL;
        }
        final long msgTag = tagged ? tag : 0;
        final PostedPool pool = posted;
        int e = (tagged ? taggedAny : untaggedAny).findOldest(msgTag);
        final Long2ObjectHashMap<PostedQueue> bySource = tagged ? taggedBySource : untaggedBySource;
        if (!unresolved && !bySource.isEmpty())
        {
            final PostedQueue directed = bySource.get(source);
            if (null != directed)
            {
                final int d = directed.findOldest(msgTag);
                // Oldest wins when a directed and an any-source receive both match.
                if (NULL != d && (NULL == e || pool.seq[d] < pool.seq[e]))
                {
                    e = d;
                }
            }
        }

        if (NULL != e)
        {
            result.tag = msgTag;
            result.source = source;
            result.data = data;
            result.payloadHandle = payloadHandle;
            result.messageLength = length;
            result.flags = unresolved ? MatchFlags.SOURCE_UNRESOLVED : 0;
            deliver(e, length, result);
            return MatchStatus.MATCHED;
        }

        final UnexpectedPool upool = unexpected;
        if (!mayQueue || upool.size >= maxUnexpected ||
            (upool.size > 0 && upool.bytes + length > maxUnexpectedBytes))
        {
            return MatchStatus.EAGAIN;
        }
        final UnexpectedList list = unexpectedList(source, unresolved);
        final int u = upool.allocate(list);
        if (NULL == u)
        {
            return MatchStatus.EAGAIN;
        }
        upool.tag[u] = msgTag;
        upool.length[u] = length;
        upool.data[u] = data;
        upool.payload[u] = payloadHandle;
        upool.source[u] = source;
        upool.seq[u] = ++arrivalSeq;
        upool.claimContext[u] = 0;
        upool.state[u] = (tagged ? UnexpectedPool.TAGGED : 0) | (unresolved ? UnexpectedPool.UNRESOLVED : 0);
        if (tagged && upool.indexed())
        {
            upool.indexTag(u);
        }
        upool.bytes += length;
        return MatchStatus.QUEUED;
    }

    /**
     * Fill the receive side from posted entry {@code e} and consume it; the message side is already set.
     */
    private void deliver(final int e, final long messageLength, final MatchResult result)
    {
        final PostedPool pool = posted;
        final long capacity = pool.length[e];
        result.context = pool.context[e];
        result.bufferAddress = pool.address[e];
        result.bufferLength = capacity;
        final boolean tagged = (pool.kind[e] & PostedPool.FLAG_TAGGED) != 0;
        result.flags |= MatchFlags.RECV | (tagged ? MatchFlags.TAGGED : MatchFlags.MSG);
        if ((pool.kind[e] & PostedPool.FLAG_MULTI) != 0)
        {
            final long offset = pool.consumed[e];
            final long length = Math.min(messageLength, capacity - offset);
            result.offset = offset;
            result.length = length;
            result.overflow = messageLength - length;
            result.receiveHandle = pool.handle(e);
            pool.consumed[e] = offset + length;
            pool.inFlight[e]++;
            if (capacity - pool.consumed[e] < minMultiRecv)
            {
                result.flags |= MatchFlags.MULTI_RECV;
                pool.queueOf[e].remove(e);
                pool.free(e);
            }
        }
        else
        {
            final long length = Math.min(messageLength, capacity);
            result.offset = 0;
            result.length = length;
            result.overflow = messageLength - length;
            result.receiveHandle = pool.handle(e);
            pool.queueOf[e].remove(e);
            pool.free(e);
        }
    }

    private int drainInto(final int e, final MatchResult result)
    {
        final PostedPool pool = posted;
        final boolean tagged = (pool.kind[e] & PostedPool.FLAG_TAGGED) != 0;
        final int u = findUnexpected(tagged, pool.source[e], pool.tag[e], tagged ? pool.ignore[e] : 0);
        if (NULL == u)
        {
            return MatchStatus.POSTED;
        }
        fillMessage(result, u);
        final long length = unexpected.length[u];
        freeUnexpected(u);
        deliver(e, length, result);
        return MatchStatus.MATCHED;
    }

    private int searchNow(
        final long source,
        final long tag,
        final long ignore,
        final long flags,
        final long context,
        final MatchResult result)
    {
        final int u = findUnexpected(true, source, tag, ignore);
        if (NULL != u)
        {
            fillMessage(result, u);
            // The search's own CLAIM/DISCARD, so that the caller of a deferred answer knows what was done.
            result.flags |= flags & (MatchFlags.CLAIM | MatchFlags.DISCARD);
            result.context = context;
            if ((flags & MatchFlags.DISCARD) != 0)
            {
                freeUnexpected(u);
            }
            else if ((flags & MatchFlags.CLAIM) != 0)
            {
                unexpected.state[u] |= UnexpectedPool.CLAIMED;
                unexpected.claimContext[u] = context;
            }
            return 1;
        }
        if (ADDR_UNSPEC != source && unresolvedCouldMatch(tag, ignore))
        {
            return 0;
        }
        return MatchStatus.ENOMSG;
    }

    private boolean unresolvedCouldMatch(final long tag, final long ignore)
    {
        final UnexpectedPool pool = unexpected;
        final long mask = ~ignore;
        for (int u = pool.allHead; NULL != u; u = pool.allNext[u])
        {
            if ((pool.state[u] & (UnexpectedPool.UNRESOLVED | UnexpectedPool.TAGGED | UnexpectedPool.CLAIMED)) ==
                (UnexpectedPool.UNRESOLVED | UnexpectedPool.TAGGED) && ((pool.tag[u] ^ tag) & mask) == 0)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Oldest unclaimed unexpected message of the right kind matching the tag: across all sources (including
     * unresolved ones) for an any-source receive, from {@code source} only otherwise.
     */
    private int findUnexpected(final boolean tagged, final long source, final long tag, final long ignore)
    {
        final UnexpectedPool pool = unexpected;
        if (0 == pool.size)
        {
            return NULL;
        }
        final long[] tags = pool.tag;
        final int[] state = pool.state;
        final int want = tagged ? UnexpectedPool.TAGGED : 0;
        final long mask = ~ignore;
        if (tagged && 0 == ignore && pool.indexed())
        {
            // Exact-tag receive: only messages with this very tag can match; their chain is in arrival order.
            final int[] next = pool.hashNext;
            final long[] sources = pool.source;
            final boolean any = ADDR_UNSPEC == source;
            for (int u = pool.bucketHead(tag); NULL != u; u = next[u])
            {
                if (tags[u] == tag && (state[u] & UnexpectedPool.CLAIMED) == 0 &&
                    (any || ((state[u] & UnexpectedPool.UNRESOLVED) == 0 && sources[u] == source)))
                {
                    return u;
                }
            }
            return NULL;
        }
        if (ADDR_UNSPEC == source)
        {
            final int[] next = pool.allNext;
            for (int u = pool.allHead; NULL != u; u = next[u])
            {
                if ((state[u] & (UnexpectedPool.TAGGED | UnexpectedPool.CLAIMED)) == want &&
                    ((tags[u] ^ tag) & mask) == 0)
                {
                    return u;
                }
            }
            return NULL;
        }
        final UnexpectedList list = unexpectedBySource.get(source);
        if (null == list)
        {
            return NULL;
        }
        final int[] next = pool.next;
        for (int u = list.head; NULL != u; u = next[u])
        {
            if ((state[u] & (UnexpectedPool.TAGGED | UnexpectedPool.CLAIMED)) == want &&
                ((tags[u] ^ tag) & mask) == 0)
            {
                return u;
            }
        }
        return NULL;
    }

    private int findClaimed(final long context)
    {
        final UnexpectedPool pool = unexpected;
        for (int u = pool.allHead; NULL != u; u = pool.allNext[u])
        {
            if ((pool.state[u] & UnexpectedPool.CLAIMED) != 0 && pool.claimContext[u] == context)
            {
                return u;
            }
        }
        return NULL;
    }

    private void fillMessage(final MatchResult result, final int u)
    {
        final UnexpectedPool pool = unexpected;
        result.tag = pool.tag[u];
        result.source = pool.source[u];
        result.data = pool.data[u];
        result.payloadHandle = pool.payload[u];
        result.messageLength = pool.length[u];
        result.flags = MatchFlags.RECV |
            ((pool.state[u] & UnexpectedPool.TAGGED) != 0 ? MatchFlags.TAGGED : MatchFlags.MSG) |
            ((pool.state[u] & UnexpectedPool.UNRESOLVED) != 0 ? MatchFlags.SOURCE_UNRESOLVED : 0);
    }

    private static void fillSingleBuffer(
        final MatchResult result, final long context, final long address, final long capacity)
    {
        final long length = Math.min(result.messageLength, capacity);
        result.context = context;
        result.bufferAddress = address;
        result.bufferLength = capacity;
        result.offset = 0;
        result.length = length;
        result.overflow = result.messageLength - length;
    }

    private void freeUnexpected(final int u)
    {
        final UnexpectedList list = unexpected.listOf[u];
        unexpected.free(u);
        if (list.unresolved && UnexpectedPool.NULL == list.head)
        {
            unexpectedByRawKey.remove(list.key);
            recycle(list);
        }
    }

    private void recycle(final UnexpectedList list)
    {
        list.head = UnexpectedPool.NULL;
        list.tail = UnexpectedPool.NULL;
        spareLists.push(list);
    }

    private UnexpectedList unexpectedList(final long key, final boolean unresolved)
    {
        final Long2ObjectHashMap<UnexpectedList> map = unresolved ? unexpectedByRawKey : unexpectedBySource;
        UnexpectedList list = map.get(key);
        if (null == list)
        {
            list = spareLists.isEmpty() ? new UnexpectedList() : spareLists.pop();
            list.key = key;
            list.unresolved = unresolved;
            map.put(key, list);
        }
        return list;
    }

    private PostedQueue postedQueue(final boolean tagged, final long source)
    {
        if (ADDR_UNSPEC == source)
        {
            return tagged ? taggedAny : untaggedAny;
        }
        final Long2ObjectHashMap<PostedQueue> map = tagged ? taggedBySource : untaggedBySource;
        PostedQueue queue = map.get(source);
        if (null == queue)
        {
            queue = tagged ? newTaggedQueue() : new ListPostedQueue(posted);
            map.put(source, queue);
        }
        return queue;
    }

    private PostedQueue newTaggedQueue()
    {
        switch (tagStorage)
        {
            case INDEX:
                return new IndexedPostedQueue(posted, tagBuckets);
            case AUTO:
                return new AdaptivePostedQueue(posted, tagBuckets, indexDepth);
            default:
                return new ListPostedQueue(posted);
        }
    }

    /**
     * @return moves between list and index of every {@link TagStorage#AUTO} tagged queue so far (tests).
     */
    long indexSwitches()
    {
        long switches = 0;
        if (taggedAny instanceof AdaptivePostedQueue)
        {
            switches += ((AdaptivePostedQueue) taggedAny).switches();
            for (final PostedQueue queue : taggedBySource.values())
            {
                switches += ((AdaptivePostedQueue) queue).switches();
            }
        }
        return switches;
    }

    /**
     * @return whether the any-source tagged queue is in the index layout now (tests).
     */
    boolean anySourceIndexed()
    {
        return taggedAny instanceof AdaptivePostedQueue ? ((AdaptivePostedQueue) taggedAny).indexed() :
            TagStorage.INDEX == tagStorage;
    }
}
