package io.jfabric.agent;

/**
 * The one frame format every transport carries. Little-endian, fixed 64-byte header then the payload:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  |    version    |    opcode     |           reserved            |  0
 *  +---------------+---------------+-------------------------------+
 *  |                  destination endpoint index                   |  4
 *  |                      source peer key (64)                     |  8
 *  |                            tag (64)                           | 16
 *  |                      remote CQ data (64)                      | 24
 *  |                     message length (64)                       | 32
 *  |                          flags (64)                           | 40
 *  |            cookie: initiator's op context (64)                | 48
 *  |                   sequence (64, per domain)                   | 56
 *  +---------------------------------------------------------------+
 *  |                         payload ...                           | 64
 *  +---------------------------------------------------------------+
 * </pre>
 * RMA frames ({@link #OPCODE_WRITE}, {@link #OPCODE_READ_REQ}) carry a 16-byte extension (remote address, key)
 * between the header and the payload. A {@link #OPCODE_ACK} frame has no payload; it returns the cookie, the
 * flags and the length of a
 * delivery-complete send to its initiator (destination endpoint = the initiator's endpoint; the tag field holds
 * the operation kind, FI_MSG or FI_TAGGED).
 * <p>
 * Transfers that do not fit one frame are <em>streamed</em>: the side that holds the data sends it in
 * {@link #OPCODE_RDATA} chunks, each naming the destination address at the receiving side, once the other side
 * has answered (a rendezvous send and a large RMA write wait for a {@link #OPCODE_CTS}; a large RMA read is
 * streamed by the target as soon as it has checked the request). Chunks never cross a segment boundary of
 * either side. Requests and answers name the buffers of both sides as lists (little-endian, 8-byte aligned):
 * <pre>
 *  segment list:  count (64), then count x (address 64, length 64)
 *  remote list:   count (64), then count x (remote address 64, length 64, key 64)
 * </pre>
 * with at most {@code DomainAgent.MAX_IOV} entries each. {@link #OPCODE_RTS} carries the sender's segment list,
 * {@link #OPCODE_WRITE_RTS} the initiator's segment list then the remote list, a {@link #FLAG_STREAM}
 * {@link #OPCODE_READ_REQ} the initiator's destination segment list then the remote list, and
 * {@link #OPCODE_CTS} the source segment list (echoed) then the destination segment list. A single-frame
 * {@link #OPCODE_WRITE} or {@link #OPCODE_ATOMIC} to several remote ranges ({@link #FLAG_REMOTE_IOV}) has the
 * remote list right after the RMA extension, before its payload. Every remote range is checked before any byte
 * of the operation is written at the target.
 * <p>
 * Direct path: where the transport maps the data holder's segments into the other side
 * ({@code DomainTransport.directAddress}, for example a shm peer's shared pool), a receiver that matched an
 * {@link #OPCODE_RTS} copies the data itself and answers {@link #OPCODE_FIN} at once, and the target of a
 * {@link #OPCODE_WRITE_RTS} copies after its checks and answers {@link #OPCODE_RMA_ACK}: no {@link #OPCODE_CTS},
 * no {@link #OPCODE_RDATA}. Nothing on the wire changes; the request/answer pairs stay the same.
 */
final class FrameDescriptor
{
    /** Current version. */
    public static final byte VERSION = 1;
    /** Untagged message, eager. */
    public static final byte OPCODE_MSG = 1;
    /** Tagged message, eager. */
    public static final byte OPCODE_TAGGED = 2;
    /**
     * Delivery acknowledgement: tag = completion kind, data = status (0, or an errno such as ENORX or
     * ECONNREFUSED).
     */
    public static final byte OPCODE_ACK = 3;
    /** RMA write: RMA extension, then the payload. */
    public static final byte OPCODE_WRITE = 4;
    /** RMA read request: RMA extension; data = the initiator's local buffer address, length = bytes wanted. */
    public static final byte OPCODE_READ_REQ = 5;
    /** RMA read response: tag = the initiator's local buffer address, data = status (0 or errno), payload. */
    public static final byte OPCODE_READ_RESP = 6;
    /** RMA write acknowledgement: tag = completion flags, data = status (0 or errno). */
    public static final byte OPCODE_RMA_ACK = 7;
    /**
     * Atomic: RMA extension, data = {@code CommandDescriptor.atomicCode}, tag = the initiator's result address,
     * payload = operand vector then (compare family) the compare vector; length = operand bytes.
     */
    public static final byte OPCODE_ATOMIC = 8;
    /** Atomic response: tag = the initiator's result address, data = status, payload = old values (fetch, compare). */
    public static final byte OPCODE_ATOMIC_RESP = 9;
    /**
     * Rendezvous request-to-send: a message above the eager threshold; RMA extension address = the sender's
     * buffer; length = message length; tag, data, cookie as an eager message; the payload stays at the sender.
     */
    public static final byte OPCODE_RTS = 10;
    /**
     * Rendezvous clear-to-send (receiver to sender, after matching): RMA extension address = the sender's
     * buffer, tag = the receiver's buffer address, length = bytes to pull, data = receiver's slot, cookie echoed.
     */
    public static final byte OPCODE_CTS = 11;
    /**
     * Data chunk of a streamed transfer: tag = destination address, data = the receiver's slot (rendezvous) or the
     * target's write slot ({@link #FLAG_RMA_WRITE}), cookie = the operation's context, flag LAST on the final
     * chunk. A sender whose endpoint closed mid-stream ends it with an empty LAST chunk flagged
     * {@link #FLAG_FAILED} with the errno in the sequence field.
     */
    public static final byte OPCODE_RDATA = 12;
    /**
     * Rendezvous finished (receiver to sender): cookie = the send's context, tag = completion kind, data = status
     * (0, or an errno such as ENORX or ECONNREFUSED).
     */
    public static final byte OPCODE_FIN = 13;
    /**
     * Streamed RMA write request (initiator to target): RMA extension = the first remote range; data = remote CQ
     * data; length = bytes; cookie = the initiator's context; payload = the initiator's segment list then the
     * remote list. The target checks every range, then answers with a {@link #OPCODE_CTS} flagged
     * {@link #FLAG_RMA_WRITE} (data = its write slot) or with an {@link #OPCODE_RMA_ACK} carrying the error.
     */
    public static final byte OPCODE_WRITE_RTS = 14;
    /**
     * Flow-control credit (receiver to sender, unsolicited, on the answer lane): data = messages, length = eager
     * payload bytes the receiving endpoint has consumed so far of what the destination endpoint sent it (absolute
     * counts since the sender's current epoch; see {@code FlowControl}). No payload; cookie, tag and flags are 0.
     */
    public static final byte OPCODE_CREDIT = 15;
    /** Connection management (connection request, accept, reject, shutdown): see {@link ConnectionFrames}. */
    public static final byte OPCODE_CM = 16;

    /** Offset of the version byte. */
    public static final int VERSION_OFFSET = 0;
    /** Offset of the opcode byte. */
    public static final int OPCODE_OFFSET = 1;
    /** Offset of the destination endpoint index. */
    public static final int DST_ENDPOINT_OFFSET = 4;
    /** Offset of the source peer key (the one field a transport may rewrite: {@code DomainTransport}). */
    public static final int SRC_KEY_OFFSET = io.jfabric.spi.DomainTransport.SOURCE_KEY_OFFSET;
    /** Offset of the tag. */
    public static final int TAG_OFFSET = 16;
    /** Offset of the remote CQ data. */
    public static final int DATA_OFFSET = 24;
    /** Offset of the message length. */
    public static final int LENGTH_OFFSET = 32;
    /** Offset of the flags. */
    public static final int FLAGS_OFFSET = 40;
    /** Offset of the cookie. */
    public static final int COOKIE_OFFSET = 48;
    /** Offset of the sequence. */
    public static final int SEQUENCE_OFFSET = 56;
    /** Header length; the payload follows. */
    public static final int HEADER_LENGTH = 64;
    /** RMA frames (WRITE, READ_REQ): offset of the remote address in the 16-byte extension after the header. */
    public static final int RMA_ADDRESS_OFFSET = 64;
    /** RMA frames: offset of the MR key. */
    public static final int RMA_KEY_OFFSET = 72;
    /** Header plus RMA extension. */
    public static final int RMA_HEADER_LENGTH = 80;

    /** Frame flag: the initiator wants an {@link #OPCODE_ACK} (delivery complete). */
    public static final long FLAG_ACK_REQUESTED = 1L;
    /** Frame flag: the initiator wants a completion for the send (echoed in the ACK). */
    public static final long FLAG_WANT_COMPLETION = 4L;
    /** Frame flag: an atomic of the fetch or compare family (echoed in the response). */
    public static final long FLAG_FETCHING = 8L;
    /** Frame flag: a rendezvous message is tagged. */
    public static final long FLAG_TAGGED = 16L;
    /** Frame flag: last chunk of a rendezvous transfer. */
    public static final long FLAG_LAST = 32L;
    /** Frame flag: remote CQ data is present. */
    public static final long FLAG_REMOTE_CQ_DATA = 2L;
    /** Frame flag: a CTS or RDATA frame of a streamed RMA write (data = the target's write slot). */
    public static final long FLAG_RMA_WRITE = 64L;
    /** Frame flag: an RDATA frame of a streamed RMA read (target to initiator; cookie = the read's context). */
    public static final long FLAG_READ_DATA = 128L;
    /** Frame flag: a READ_REQ whose payload holds the destination segment list and the remote list. */
    public static final long FLAG_STREAM = 256L;
    /** Frame flag: a WRITE or ATOMIC frame with a remote list after the RMA extension. */
    public static final long FLAG_REMOTE_IOV = 512L;
    /**
     * Frame flag: an ATOMIC frame whose payload ends with the initiator's result segment list; the response
     * carries the list again after the old values.
     */
    public static final long FLAG_RESULT_IOV = 1024L;
    /**
     * Frame flag: an empty LAST {@link #OPCODE_RDATA} that ends a stream whose source endpoint closed; the
     * sequence field holds the errno the operation fails with.
     */
    public static final long FLAG_FAILED = 2048L;

    /**
     * Does this opcode travel on the answer lane (ACK, FIN, RMA_ACK, READ_RESP, ATOMIC_RESP, CTS, RDATA, and the
     * unsolicited CREDIT)? The agent sends them on the transport's answer lane
     * ({@code DomainTransport.LANE_ANSWER}), read first, so that completions, rendezvous data and credits never wait
     * behind requests. Of these only CREDIT answers no request of its own ({@link #isSolicitedAnswer}).
     *
     * @param opcode a frame's opcode.
     * @return true for answers.
     */
    public static boolean isAnswer(final byte opcode)
    {
        switch (opcode)
        {
            case OPCODE_ACK:
            case OPCODE_FIN:
            case OPCODE_RMA_ACK:
            case OPCODE_READ_RESP:
            case OPCODE_ATOMIC_RESP:
            case OPCODE_RDATA:
            case OPCODE_CTS:
            case OPCODE_CREDIT:
                return true;
            default:
                return false;
        }
    }

    /**
     * Is this opcode an answer to one of the receiver's own requests (every answer-lane opcode but CREDIT)? The
     * agent drops a solicited answer nobody waits for ({@link AwaitedAnswers}); a CREDIT is never tracked and always
     * taken.
     *
     * @param opcode a frame's opcode.
     * @return true for ACK, FIN, RMA_ACK, READ_RESP, ATOMIC_RESP, CTS and RDATA.
     */
    public static boolean isSolicitedAnswer(final byte opcode)
    {
        return OPCODE_CREDIT != opcode && isAnswer(opcode);
    }

    /** Bytes of a list's count. */
    public static final int LIST_COUNT_LENGTH = 8;
    /** Bytes of one segment list entry (address, length). */
    public static final int SEGMENT_LENGTH = 16;
    /** Bytes of one remote list entry (remote address, length, key). */
    public static final int REMOTE_ENTRY_LENGTH = 24;

    private FrameDescriptor()
    {
    }
}
