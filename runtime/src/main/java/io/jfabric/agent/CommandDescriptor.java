package io.jfabric.agent;

/**
 * Layout of one command an application thread writes into a domain's command ring
 * ({@link io.jfabric.ring.CommandQueue}: the opcode and the length travel beside it, as the record type and length of
 * an Agrona {@code ManyToOneRingBuffer} record). Little-endian, 8-byte aligned:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                       endpoint index                          |  0
 *  |                  iov count / inject length                    |  4
 *  |                         flags (64)                            |  8
 *  |                        context (64)                           | 16
 *  |                   buffer address (64)                         | 24
 *  |                    buffer length (64)                         | 32
 *  |        peer key (sends) or source fi_addr (receives) (64)     | 40
 *  |                           tag (64)                            | 48
 *  |                       ignore mask (64)                        | 56
 *  |                   remote CQ data (64)                         | 64
 *  |     pin slot + 1 (32, {@link PinTable}; 0: none) |  reserved  | 72
 *  +---------------------------------------------------------------+
 *  |  inject payload, or iov count x (address 64, length 64) ...   | 80
 *  +---------------------------------------------------------------+
 * </pre>
 * Only addresses and ids cross the ring; no object reference does. The objects that own the buffers stay
 * reachable in the endpoint's {@link PinTable} under the pin slot until the agent releases it (issue 10).
 * <p>
 * With {@link #FLAG_RMA_IOV} (RMA and atomics to several remote ranges) the tag field holds the offset, from the
 * start of the record, of a remote list: count (64), then count x (remote address 64, length 64, key 64); the
 * ignore field is unused. Atomics with {@link #FLAG_IOV} hold, in the address, result address and compare
 * address fields, the record offsets of segment lists (count, then count x (address, length)) instead of
 * addresses; 0 means no list.
 */
public final class CommandDescriptor
{
    /** Msg send (send, sendv, sendmsg, inject, senddata, injectdata). */
    public static final int OP_SEND = 1;
    /** Tagged send. */
    public static final int OP_TSEND = 2;
    /** Msg receive. */
    public static final int OP_RECV = 3;
    /** Tagged receive (including PEEK/CLAIM/DISCARD). */
    public static final int OP_TRECV = 4;
    /**
     * Cancel a posted receive (control ring): context = the receive's context, tag = the receive ring's producer
     * position when the cancel was posted (receives before it are posted first), data = reply sequence.
     */
    public static final int OP_CANCEL = 5;
    /** An address was inserted into an address vector: context = AV id, peer = key, tag = fi_addr. */
    public static final int OP_AV_INSERT = 6;
    /** An address was removed: context = AV id, peer = key. */
    public static final int OP_AV_REMOVE = 7;
    /** Set FI_OPT_MIN_MULTI_RECV: length = the minimum. */
    public static final int OP_MIN_MULTI_RECV = 8;
    /** No-op used to wake the agent. */
    public static final int OP_NOP = 9;
    /** kfabric tsearch answered as a completion: peer = source, tag, ignore, flags (CLAIM/DISCARD), context. */
    public static final int OP_TSEARCH = 10;
    /** RMA write: address/length (or inline/iov), peer, tag = remote address, ignore = key, data = CQ data. */
    public static final int OP_WRITE = 11;
    /** RMA read: address/length of the local buffer, peer, tag = remote address, ignore = key. */
    public static final int OP_READ = 12;
    /** Register memory (control): address, length, flags = access, tag = requested key, data = reply sequence. */
    public static final int OP_MR_REG = 13;
    /** Close a memory region (control): tag = key, data = reply sequence. */
    public static final int OP_MR_CLOSE = 14;
    /**
     * Atomic (base, fetch or compare): address/length = operand vector (or inline), tag = remote address,
     * ignore = key, data = {@link #atomicCode}; then the result and compare addresses at
     * {@link #RESULT_ADDRESS_OFFSET} and {@link #COMPARE_ADDRESS_OFFSET}.
     */
    public static final int OP_ATOMIC = 15;
    /**
     * Close an endpoint (control): endpoint index, data = reply sequence (answered in the cancel reply slots). The
     * agent withdraws the endpoint and ends the streams that read its buffers before the caller lets them go.
     */
    public static final int OP_EP_CLOSE = 16;
    /**
     * Hold a deferred counter work item (control): context = the item's trigger context handle
     * ({@link TriggerTable}).
     */
    public static final int OP_TRIGGER_WORK = 40;
    /**
     * Bind a counter to a memory region (control): flags = {@code FI_REMOTE_WRITE}/{@code FI_REMOTE_READ}, tag = key,
     * data = reply sequence; the counter is staged in the agent ({@code DomainAgent.stageRegionCounter}).
     */
    public static final int OP_MR_BIND = 41;
    /** Atomic commands: offset of the result vector address (fetch, compare). */
    public static final int RESULT_ADDRESS_OFFSET = 80;
    /** Atomic commands: offset of the compare vector address (compare). */
    public static final int COMPARE_ADDRESS_OFFSET = 88;
    /** Atomic commands: length of the fixed part (inline operands follow). */
    public static final int ATOMIC_HEADER_LENGTH = 96;

    /**
     * Pack an atomic's family, op and datatype into one value.
     *
     * @param kind     0 base, 1 fetch, 2 compare ({@code AtomicCapabilities.Kind} ordinal).
     * @param op       the op's libfabric value.
     * @param datatype the datatype's libfabric value.
     * @return the code.
     */
    public static long atomicCode(final int kind, final int op, final int datatype)
    {
        return ((long) kind << 16) | ((long) op << 8) | datatype;
    }

    /** Offset of the endpoint index. */
    public static final int ENDPOINT_OFFSET = 0;
    /** Offset of the iov count (0: single buffer) or the inject length. */
    public static final int COUNT_OFFSET = 4;
    /** Offset of the operation flags. */
    public static final int FLAGS_OFFSET = 8;
    /** Offset of the operation context. */
    public static final int CONTEXT_OFFSET = 16;
    /** Offset of the buffer address. */
    public static final int ADDRESS_OFFSET = 24;
    /** Offset of the buffer length. */
    public static final int LENGTH_OFFSET = 32;
    /** Offset of the peer key or source fi_addr. */
    public static final int PEER_OFFSET = 40;
    /** Offset of the tag. */
    public static final int TAG_OFFSET = 48;
    /** Offset of the ignore mask. */
    public static final int IGNORE_OFFSET = 56;
    /** Offset of the remote CQ data. */
    public static final int DATA_OFFSET = 64;
    /**
     * Offset of the pin slot (int): the {@link PinTable} slot of the operation's buffers plus one; 0 (what a
     * consumed, zeroed record holds, so a writer that leaves it out pins nothing) for none.
     */
    public static final int PIN_OFFSET = 72;
    /** Length of the fixed part; inject payload or iov entries follow. */
    public static final int HEADER_LENGTH = 80;
    /** Bytes per iov entry (address, length). */
    public static final int IOV_ENTRY_LENGTH = 16;

    /** Internal flag: the payload is carried inline in the command (inject). */
    public static final long FLAG_INLINE = 1L << 62;
    /** Internal flag: the command carries an iov list instead of one buffer. */
    public static final long FLAG_IOV = 1L << 61;
    /** Internal flag: the command carries a remote list (several {@code fi_rma_iov} entries). */
    public static final long FLAG_RMA_IOV = 1L << 60;
    /** Bytes of one remote list entry in a command (remote address, length, key). */
    public static final int REMOTE_ENTRY_LENGTH = 24;

    /**
     * Round a record offset up to 8 bytes (lists after an inline payload stay aligned).
     *
     * @param offset the offset.
     * @return the aligned offset.
     */
    public static int align8(final int offset)
    {
        return (offset + 7) & ~7;
    }

    private CommandDescriptor()
    {
    }
}
