package io.jfabric.agent;

import org.agrona.collections.Hashing;

import java.util.Arrays;
import java.util.function.LongUnaryOperator;

/**
 * The requests this domain sent that still wait for an answer from a peer: the runtime's own request → answer
 * table, kept by the domain agent for every frame transport. It lets the agent fail them itself (error completions)
 * when the transport reports the peer down, and refuse answers nobody asked for (a restarted peer must never
 * receive answers meant for its predecessor, nor one for an operation already failed).
 * <p>
 * The protocol (see {@link FrameDescriptor}) answers:
 * <ul>
 *     <li>an eager MSG/TAGGED with {@code FLAG_ACK_REQUESTED} (delivery complete) by an ACK,</li>
 *     <li>an RTS (rendezvous send) by a FIN (after CTS and data chunks),</li>
 *     <li>a WRITE, and a streamed WRITE_RTS (after the target's CTS and the data chunks), by an RMA_ACK,</li>
 *     <li>a READ_REQ by a READ_RESP or, when streamed, by RDATA chunks flagged READ_DATA, the last flagged LAST,</li>
 *     <li>an ATOMIC by an ATOMIC_RESP,</li>
 *     <li>a CTS (rendezvous pull of a receive) by RDATA chunks, the last flagged LAST; a CTS flagged RMA_WRITE
 *     (a target's pull of a streamed write) by the initiator's RDATA chunks, recorded as
 *     {@link #ANSWER_WRITE_DATA} so that its slots never mix with rendezvous slots.</li>
 * </ul>
 * Each record is keyed by (peer key, local endpoint, cookie, answer opcode); the cookie of a CTS record is the
 * receiver's slot. Records with equal keys are interchangeable: they describe the same completion.
 * <p>
 * Storage: open addressing with linear probing over primitive arrays, backward-shift deletion; it grows (the only
 * allocation) when half full. Records of a peer reported down move to a FIFO of failures, which the agent turns
 * into error completions ({@link #failures()}, {@link #consumeFailure()}), retrying while a CQ is full.
 * <p>
 * Threading: not thread-safe; owned by the domain agent.
 */
final class AwaitedAnswers
{
    /**
     * The record kind of a target's pull of a streamed RMA write (its CTS flagged RMA_WRITE): answered by RDATA
     * chunks flagged RMA_WRITE naming the target's write slot. Not an opcode: only this table uses it.
     */
    static final byte ANSWER_WRITE_DATA = (byte) -FrameDescriptor.OPCODE_RDATA;

    private long[] peer;
    private long[] cookie;
    private long[] flags;
    private long[] tag;
    private int[] localEndpoint;
    private byte[] answer;
    private int mask;
    private int size;

    private long[] failPeer = new long[64];
    private long[] failCookie = new long[64];
    private long[] failFlags = new long[64];
    private long[] failTag = new long[64];
    private int[] failEndpoint = new int[64];
    private int[] failStatus = new int[64];
    private byte[] failAnswer = new byte[64];
    private int failHead;
    private int failCount;

    AwaitedAnswers(final int initialCapacity)
    {
        allocate(Integer.highestOneBit(Math.max(16, initialCapacity - 1) << 1));
    }

    private void allocate(final int capacity)
    {
        peer = new long[capacity];
        cookie = new long[capacity];
        flags = new long[capacity];
        tag = new long[capacity];
        localEndpoint = new int[capacity];
        answer = new byte[capacity];
        mask = capacity - 1;
        size = 0;
    }

    /**
     * @return records waiting for an answer.
     */
    int size()
    {
        return size;
    }

    /**
     * @return failed records not yet turned into completions.
     */
    int failures()
    {
        return failCount;
    }

    private static int hash(final long peerKey, final int endpoint, final long cookieValue, final byte answerOpcode,
        final int mask)
    {
        return Hashing.hash(peerKey * 31 + cookieValue * 0x9E3779B97F4A7C15L + endpoint * 131L + answerOpcode, mask);
    }

    /**
     * Remember a request that waits for an answer.
     *
     * @param peerKey      the peer (its key names its endpoint).
     * @param endpoint     the local endpoint that sent it.
     * @param cookieValue  the cookie the answer echoes (a CTS: the receiver's slot).
     * @param answerOpcode the answer's opcode.
     * @param frameFlags   flags the answer will carry.
     * @param tagValue     the completion kind the answer carries in its tag.
     */
    void add(
        final long peerKey,
        final int endpoint,
        final long cookieValue,
        final byte answerOpcode,
        final long frameFlags,
        final long tagValue)
    {
        if ((size + 1) * 2 > answer.length)
        {
            grow();
        }
        int i = hash(peerKey, endpoint, cookieValue, answerOpcode, mask);
        while (0 != answer[i])
        {
            i = (i + 1) & mask;
        }
        peer[i] = peerKey;
        localEndpoint[i] = endpoint;
        cookie[i] = cookieValue;
        answer[i] = answerOpcode;
        flags[i] = frameFlags;
        tag[i] = tagValue;
        size++;
    }

    /**
     * Find a record.
     *
     * @param peerKey      the answering peer.
     * @param endpoint     the local endpoint the answer is for.
     * @param cookieValue  the echoed cookie (RDATA: the slot).
     * @param answerOpcode the answer's opcode (CTS looks for the FIN record of its RTS).
     * @return the record's index, or -1.
     */
    int find(final long peerKey, final int endpoint, final long cookieValue, final byte answerOpcode)
    {
        int i = hash(peerKey, endpoint, cookieValue, answerOpcode, mask);
        while (0 != answer[i])
        {
            if (answer[i] == answerOpcode && peer[i] == peerKey && cookie[i] == cookieValue &&
                localEndpoint[i] == endpoint)
            {
                return i;
            }
            i = (i + 1) & mask;
        }
        return -1;
    }

    /**
     * Remove the record at {@code index} (from {@link #find}); backward-shift keeps probe chains intact.
     *
     * @param index the record.
     */
    void removeAt(final int index)
    {
        int hole = index;
        int i = (index + 1) & mask;
        while (0 != answer[i])
        {
            final int home = hash(peer[i], localEndpoint[i], cookie[i], answer[i], mask);
            // Move i into the hole when its home is not in (hole, i] (cyclically).
            final boolean stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
            if (!stays)
            {
                copy(i, hole);
                hole = i;
            }
            i = (i + 1) & mask;
        }
        answer[hole] = 0;
        size--;
    }

    private void copy(final int from, final int to)
    {
        peer[to] = peer[from];
        localEndpoint[to] = localEndpoint[from];
        cookie[to] = cookie[from];
        answer[to] = answer[from];
        flags[to] = flags[from];
        tag[to] = tag[from];
    }

    private void grow()
    {
        final long[] oldPeer = peer;
        final long[] oldCookie = cookie;
        final long[] oldFlags = flags;
        final long[] oldTag = tag;
        final int[] oldEndpoint = localEndpoint;
        final byte[] oldAnswer = answer;
        allocate(oldAnswer.length * 2);
        for (int i = 0; i < oldAnswer.length; i++)
        {
            if (0 != oldAnswer[i])
            {
                add(oldPeer[i], oldEndpoint[i], oldCookie[i], oldAnswer[i], oldFlags[i], oldTag[i]);
            }
        }
    }

    /**
     * Fail every record of a peer domain (all its endpoints): they move to the failure FIFO.
     *
     * @param domainOf   the peer domain a record's key belongs to ({@code DomainTransport.peerDomain}).
     * @param peerDomain the dead peer domain.
     * @param status     the positive errno the operations fail with.
     * @return number of records failed.
     */
    int failPeer(final LongUnaryOperator domainOf, final long peerDomain, final int status)
    {
        int failed = 0;
        int i = 0;
        while (i < answer.length)
        {
            if (0 != answer[i] && domainOf.applyAsLong(peer[i]) == peerDomain)
            {
                enqueueFailure(peer[i], localEndpoint[i], cookie[i], answer[i], flags[i], tag[i], status);
                removeAt(i);
                failed++;
                // the backward shift may have moved another record into i: look at i again
            }
            else
            {
                i++;
            }
        }
        return failed;
    }

    /**
     * Queue a failure for a request that could not even be sent to a dead peer but that the runtime treats as
     * sent (a CTS: the receive must still complete), or for a record of a dead peer.
     *
     * @param peerKey      the peer.
     * @param endpoint     local endpoint.
     * @param cookieValue  cookie or slot.
     * @param answerOpcode the answer.
     * @param frameFlags   answer flags.
     * @param tagValue     answer tag.
     * @param status       the positive errno.
     */
    void enqueueFailure(
        final long peerKey,
        final int endpoint,
        final long cookieValue,
        final byte answerOpcode,
        final long frameFlags,
        final long tagValue,
        final int status)
    {
        if (failCount == failAnswer.length)
        {
            growFailures();
        }
        final int i = (failHead + failCount) % failAnswer.length;
        failPeer[i] = peerKey;
        failEndpoint[i] = endpoint;
        failCookie[i] = cookieValue;
        failAnswer[i] = answerOpcode;
        failFlags[i] = frameFlags;
        failTag[i] = tagValue;
        failStatus[i] = status;
        failCount++;
    }

    private void growFailures()
    {
        final int n = failAnswer.length;
        final long[] p = new long[n * 2];
        final long[] c = new long[n * 2];
        final long[] f = new long[n * 2];
        final long[] t = new long[n * 2];
        final int[] e = new int[n * 2];
        final int[] st = new int[n * 2];
        final byte[] a = new byte[n * 2];
        for (int k = 0; k < failCount; k++)
        {
            final int i = (failHead + k) % n;
            p[k] = failPeer[i];
            c[k] = failCookie[i];
            f[k] = failFlags[i];
            t[k] = failTag[i];
            e[k] = failEndpoint[i];
            st[k] = failStatus[i];
            a[k] = failAnswer[i];
        }
        failPeer = p;
        failCookie = c;
        failFlags = f;
        failTag = t;
        failEndpoint = e;
        failStatus = st;
        failAnswer = a;
        failHead = 0;
    }

    /**
     * @return the oldest failure's answer opcode (or {@link #ANSWER_WRITE_DATA}); {@link #failures()} &gt; 0.
     */
    byte failedAnswer()
    {
        return failAnswer[failHead];
    }

    /**
     * @return the oldest failure's peer key.
     */
    long failedPeer()
    {
        return failPeer[failHead];
    }

    /**
     * @return the oldest failure's local endpoint.
     */
    int failedEndpoint()
    {
        return failEndpoint[failHead];
    }

    /**
     * @return the oldest failure's cookie (a pull: the slot).
     */
    long failedCookie()
    {
        return failCookie[failHead];
    }

    /**
     * @return the oldest failure's frame flags, as the request carried them.
     */
    long failedFlags()
    {
        return failFlags[failHead];
    }

    /**
     * @return the oldest failure's completion kind (ACK, FIN).
     */
    long failedTag()
    {
        return failTag[failHead];
    }

    /**
     * @return the oldest failure's positive errno.
     */
    int failedStatus()
    {
        return failStatus[failHead];
    }

    /**
     * Drop the oldest failure (its operation completed with the error).
     */
    void consumeFailure()
    {
        failHead = (failHead + 1) % failAnswer.length;
        failCount--;
    }

    /**
     * Forget everything.
     */
    void clear()
    {
        Arrays.fill(answer, (byte) 0);
        size = 0;
        failCount = 0;
        failHead = 0;
    }
}
