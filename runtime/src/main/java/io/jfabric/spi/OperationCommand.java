package io.jfabric.spi;

/**
 * A decoded initiator command as an {@link OperationBackend} sees it in {@link OperationBackend#submit}: a reusable
 * view over the command's record in the domain's send ring, valid only during that call.
 * <p>
 * Buffers are described as lists of segments ({@link #LOCAL}, {@link #COMPARE}, {@link #RESULT}) and remote ranges
 * ({@link #remoteCount()}): raw addresses the back-end may read or write until it completes the operation (the
 * runtime pins the buffers' owners). An inject's payload is in the record itself ({@link #INLINE} in
 * {@link #flags()}) and must be copied during the call.
 * <p>
 * Threading: the domain agent's thread only.
 */
public interface OperationCommand
{
    /** A message send ({@code FI_MSG}). */
    int SEND = 1;
    /** A tagged send ({@code FI_TAGGED}). */
    int TAGGED_SEND = 2;
    /** An RMA write. */
    int WRITE = 11;
    /** An RMA read. */
    int READ = 12;
    /** An atomic (base, fetch or compare: {@link #atomicKind()}). */
    int ATOMIC = 15;

    /** Segment list: the local buffers (send payload, write source, read destination, atomic operands). */
    int LOCAL = 0;
    /** Segment list: the compare (or mask) values of a compare atomic. */
    int COMPARE = 1;
    /** Segment list: where a fetch or compare atomic's old values go. */
    int RESULT = 2;

    /** Atomic kind: base ({@code fi_atomic}). */
    int ATOMIC_BASE = 0;
    /** Atomic kind: fetching ({@code fi_fetch_atomic}). */
    int ATOMIC_FETCH = 1;
    /** Atomic kind: compare ({@code fi_compare_atomic}). */
    int ATOMIC_COMPARE = 2;

    /**
     * Flag in {@link #flags()}: the local payload is inline in the command (an inject); its one {@link #LOCAL}
     * segment lies in the ring record and is valid only during {@link OperationBackend#submit}.
     */
    long INLINE = 1L << 62;

    /**
     * @return {@link #SEND}, {@link #TAGGED_SEND}, {@link #WRITE}, {@link #READ} or {@link #ATOMIC}.
     */
    int opcode();

    /**
     * @return the id to pass to {@link OperationContext#complete} or {@link OperationContext#fail}; unique among
     * this domain's operations not yet completed.
     */
    int operation();

    /**
     * @return the initiating endpoint's index in its domain.
     */
    int endpoint();

    /**
     * @return the peer's key ({@link DomainTransport#resolve} of the address the application inserted).
     */
    long peer();

    /**
     * @return the operation's {@code io.jfabric.Flags} ({@code FI_INJECT}, {@code FI_REMOTE_CQ_DATA},
     * {@code FI_DELIVERY_COMPLETE}, {@code FI_FENCE}, {@code FI_MORE}, ...) and {@link #INLINE}.
     */
    long flags();

    /**
     * @return the application's operation context (for diagnostics: the runtime writes it into the completion).
     */
    long context();

    /**
     * @return the tag of a tagged send (0 otherwise).
     */
    long tag();

    /**
     * @return the remote CQ data (meaningful with {@code FI_REMOTE_CQ_DATA}).
     */
    long data();

    /**
     * @return the total bytes of the operation: message length, RMA length, atomic operand bytes (for
     * {@link #READ} the bytes read).
     */
    long length();

    /**
     * @param list {@link #LOCAL}, {@link #COMPARE} or {@link #RESULT}.
     * @return how many segments the list has (0 when the operation has no such list).
     */
    int segmentCount(int list);

    /**
     * @param list  the list.
     * @param index the segment, from 0.
     * @return the segment's raw address.
     */
    long segmentAddress(int list, int index);

    /**
     * @param list  the list.
     * @param index the segment, from 0.
     * @return the segment's length in bytes.
     */
    long segmentLength(int list, int index);

    /**
     * @return how many remote ranges an RMA or atomic has (0 for sends).
     */
    int remoteCount();

    /**
     * @param index the range, from 0.
     * @return its remote address (a virtual address or an offset, as the target's MR mode says).
     */
    long remoteAddress(int index);

    /**
     * @param index the range, from 0.
     * @return its length in bytes.
     */
    long remoteLength(int index);

    /**
     * @param index the range, from 0.
     * @return its remote key.
     */
    long remoteKey(int index);

    /**
     * @return {@link #ATOMIC_BASE}, {@link #ATOMIC_FETCH} or {@link #ATOMIC_COMPARE} (atomics only).
     */
    int atomicKind();

    /**
     * @return the atomic op's libfabric value ({@code io.jfabric.AtomicOp#value()}; atomics only).
     */
    int atomicOp();

    /**
     * @return the atomic datatype's libfabric value ({@code io.jfabric.AtomicDatatype#value()}; atomics only).
     */
    int atomicDatatype();
}
