package io.jfabric.provider.shm;

import io.jfabric.agent.FrameDescriptor;
import org.agrona.collections.Hashing;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The frames this domain sent that still wait for an answer from a peer, so that the transport can answer them
 * itself, with an error, when the peer dies, and can refuse answers nobody asked for (a restarted peer must never
 * receive answers meant for its predecessor).
 * <p>
 * The runtime's protocol (see {@link FrameDescriptor}) answers:
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
 * allocation) when half full. Failed records move to a FIFO from which {@link #nextFailure} builds the answer
 * frames.
 * <p>
 * Threading: not thread-safe; owned by the domain agent (called from the transport's offer and poll).
 */
final class OutstandingOperations
{
    /** Status the transport puts in the answers it makes up for a dead peer ({@code FI_EIO}). */
    static final int DEAD_PEER_STATUS = io.jfabric.Errno.EIO.value();

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
    private byte[] failAnswer = new byte[64];
    private int failHead;
    private int failCount;

    private final UnsafeBuffer frame = new UnsafeBuffer(ByteBuffer.allocateDirect(FrameDescriptor.HEADER_LENGTH));

    OutstandingOperations(final int initialCapacity)
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
     * The answer opcode a request frame waits for, or 0 when it needs none.
     *
     * @param opcode     the request's opcode.
     * @param frameFlags its frame flags.
     * @return the answer opcode or 0.
     */
    static byte answerOf(final byte opcode, final long frameFlags)
    {
        switch (opcode)
        {
            case FrameDescriptor.OPCODE_MSG:
            case FrameDescriptor.OPCODE_TAGGED:
                return (frameFlags & FrameDescriptor.FLAG_ACK_REQUESTED) != 0 ? FrameDescriptor.OPCODE_ACK : 0;
            case FrameDescriptor.OPCODE_RTS:
                return FrameDescriptor.OPCODE_FIN;
            case FrameDescriptor.OPCODE_WRITE:
            case FrameDescriptor.OPCODE_WRITE_RTS:
                return FrameDescriptor.OPCODE_RMA_ACK;
            case FrameDescriptor.OPCODE_READ_REQ:
                return FrameDescriptor.OPCODE_READ_RESP;
            case FrameDescriptor.OPCODE_ATOMIC:
                return FrameDescriptor.OPCODE_ATOMIC_RESP;
            case FrameDescriptor.OPCODE_CTS:
                return (frameFlags & FrameDescriptor.FLAG_RMA_WRITE) != 0 ? ANSWER_WRITE_DATA :
                    FrameDescriptor.OPCODE_RDATA;
            default:
                return 0;
        }
    }

    /**
     * Is this opcode an answer to one of our requests (so that it must match a record to be delivered)?
     *
     * @param opcode the opcode.
     * @return true for ACK, FIN, RMA_ACK, READ_RESP, ATOMIC_RESP, RDATA and CTS.
     */
    static boolean isAnswer(final byte opcode)
    {
        // A CREDIT travels on the answer lane but answers no request: it is never tracked, never filtered.
        return FrameDescriptor.isSolicitedAnswer(opcode);
    }

    /**
     * @return records waiting for an answer.
     */
    int size()
    {
        return size;
    }

    /**
     * @return failed records whose answer frames are not yet delivered.
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
     * @param peerIndex the peer's entry index ({@code peerKey >>> 16}).
     * @return number of records failed.
     */
    int failPeer(final int peerIndex)
    {
        int failed = 0;
        int i = 0;
        while (i < answer.length)
        {
            if (0 != answer[i] && (int) (peer[i] >>> ShmDomainTransport.ENDPOINT_BITS) == peerIndex)
            {
                enqueueFailure(peer[i], localEndpoint[i], cookie[i], answer[i], flags[i], tag[i]);
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
     * Queue a made-up answer for a request that could not even be sent to a dead peer but that the runtime
     * treats as sent (a CTS: the receive must still complete).
     *
     * @param peerKey      the peer.
     * @param endpoint     local endpoint.
     * @param cookieValue  cookie or slot.
     * @param answerOpcode the answer.
     * @param frameFlags   answer flags.
     * @param tagValue     answer tag.
     */
    void enqueueFailure(
        final long peerKey,
        final int endpoint,
        final long cookieValue,
        final byte answerOpcode,
        final long frameFlags,
        final long tagValue)
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
        final byte[] a = new byte[n * 2];
        for (int k = 0; k < failCount; k++)
        {
            final int i = (failHead + k) % n;
            p[k] = failPeer[i];
            c[k] = failCookie[i];
            f[k] = failFlags[i];
            t[k] = failTag[i];
            e[k] = failEndpoint[i];
            a[k] = failAnswer[i];
        }
        failPeer = p;
        failCookie = c;
        failFlags = f;
        failTag = t;
        failEndpoint = e;
        failAnswer = a;
        failHead = 0;
    }

    /**
     * Build the answer frame of the oldest failure, without removing it ({@link #consumeFailure} does).
     *
     * @return the frame (header only, {@link FrameDescriptor#HEADER_LENGTH} bytes), or null when none waits.
     */
    UnsafeBuffer nextFailure()
    {
        if (0 == failCount)
        {
            return null;
        }
        final int i = failHead;
        final UnsafeBuffer h = frame;
        h.setMemory(0, FrameDescriptor.HEADER_LENGTH, (byte) 0);
        h.putByte(FrameDescriptor.VERSION_OFFSET, FrameDescriptor.VERSION);
        h.putByte(FrameDescriptor.OPCODE_OFFSET, failAnswer[i]);
        h.putInt(FrameDescriptor.DST_ENDPOINT_OFFSET, failEndpoint[i]);
        h.putLong(FrameDescriptor.SRC_KEY_OFFSET, failPeer[i]);
        if (FrameDescriptor.OPCODE_RDATA == failAnswer[i] || ANSWER_WRITE_DATA == failAnswer[i])
        {
            // The last (empty) chunk of the slot, flagged FAILED with the status in the sequence field.
            h.putByte(FrameDescriptor.OPCODE_OFFSET, FrameDescriptor.OPCODE_RDATA);
            h.putLong(FrameDescriptor.DATA_OFFSET, failCookie[i]);
            h.putLong(FrameDescriptor.FLAGS_OFFSET, FrameDescriptor.FLAG_LAST | FrameDescriptor.FLAG_FAILED |
                (ANSWER_WRITE_DATA == failAnswer[i] ? FrameDescriptor.FLAG_RMA_WRITE : 0));
            h.putLong(FrameDescriptor.SEQUENCE_OFFSET, DEAD_PEER_STATUS);
        }
        else
        {
            h.putLong(FrameDescriptor.TAG_OFFSET, failTag[i]);
            h.putLong(FrameDescriptor.DATA_OFFSET, DEAD_PEER_STATUS);
            h.putLong(FrameDescriptor.FLAGS_OFFSET, failFlags[i]);
            h.putLong(FrameDescriptor.COOKIE_OFFSET, failCookie[i]);
        }
        return h;
    }

    /**
     * Drop the oldest failure (its frame was delivered).
     */
    void consumeFailure()
    {
        failHead = (failHead + 1) % failAnswer.length;
        failCount--;
    }

    /**
     * Forget everything (transport close).
     */
    void clear()
    {
        Arrays.fill(answer, (byte) 0);
        size = 0;
        failCount = 0;
        failHead = 0;
    }
}
