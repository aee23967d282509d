package io.jfabric.aries;

/**
 * The layout of a 64-bit completion queue entry (uGNI's {@code gni_cq_entry_t}, decoded by the
 * {@code GNI_CQ_GET_*} macros). The bit positions are this emulator's; the fields are uGNI's.
 * <pre>
 *   63  62  61  60  59  58  57..56  55 ........... 32  31 ............. 0
 *  +---+---+---+---+---+---+------+------------------+------------------+
 *  | 0 | 0 | 0 |rec|err|rem| type |  inst id (24)    |  msg id (32)     |
 *  +---+---+---+---+---+---+------+------------------+------------------+
 * </pre>
 * {@code type}: {@link #TYPE_POST} for FMA/BTE/AMO/CQ-write completions, {@link #TYPE_SMSG} for mailbox events.
 * {@code rem}: 1 for a remote (target-side) event. {@code err}: the transaction failed
 * ({@code GNI_RC_TRANSACTION_ERROR}); {@code rec}: that failure is recoverable (a retry may succeed).
 * {@code inst id}: the event data set by {@code GNI_EpSetEventData} (local for local events, the sender's remote
 * value for remote events). {@code msg id}: the SMSG message id, the post id of a descriptor (low 32 bits), or the
 * value of a CQ write (low 32 bits).
 * <p>
 * Threading: pure functions, thread-safe.
 */
public final class GniCqEntry
{
    /** Type of FMA, BTE, AMO and CQ-write events. */
    public static final int TYPE_POST = 0;
    /** Type of SMSG events. */
    public static final int TYPE_SMSG = 1;

    private static final int INST_SHIFT = 32;
    private static final long INST_MASK = 0xFF_FFFFL;
    private static final int TYPE_SHIFT = 56;
    private static final long REMOTE_BIT = 1L << 58;
    private static final long ERROR_BIT = 1L << 59;
    private static final long RECOVERABLE_BIT = 1L << 60;

    private GniCqEntry()
    {
    }

    /**
     * Encode an entry.
     *
     * @param type        {@link #TYPE_POST} or {@link #TYPE_SMSG}.
     * @param instId      event data (24 bits kept).
     * @param msgId       message or post id (32 bits kept).
     * @param remote      a target-side event.
     * @param error       a failed transaction.
     * @param recoverable the failure may succeed when retried.
     * @return the entry.
     */
    public static long encode(
        final int type, final long instId, final long msgId, final boolean remote, final boolean error,
        final boolean recoverable)
    {
        return (msgId & 0xFFFF_FFFFL) | ((instId & INST_MASK) << INST_SHIFT) | ((long) (type & 3) << TYPE_SHIFT) |
            (remote ? REMOTE_BIT : 0) | (error ? ERROR_BIT : 0) | (error && recoverable ? RECOVERABLE_BIT : 0);
    }

    /**
     * @param entry an entry.
     * @return its type ({@code GNI_CQ_GET_TYPE}).
     */
    public static int type(final long entry)
    {
        return (int) ((entry >>> TYPE_SHIFT) & 3);
    }

    /**
     * @param entry an entry.
     * @return its 24-bit inst id / event data ({@code GNI_CQ_GET_INST_ID}).
     */
    public static int instId(final long entry)
    {
        return (int) ((entry >>> INST_SHIFT) & INST_MASK);
    }

    /**
     * @param entry an entry.
     * @return its message id ({@code GNI_CQ_GET_MSG_ID}), unsigned 32 bits.
     */
    public static long msgId(final long entry)
    {
        return entry & 0xFFFF_FFFFL;
    }

    /**
     * @param entry an entry.
     * @return true for a target-side event ({@code GNI_CQ_GET_SOURCE}).
     */
    public static boolean remote(final long entry)
    {
        return 0 != (entry & REMOTE_BIT);
    }

    /**
     * @param entry an entry.
     * @return true when the transaction failed ({@code GNI_CQ_STATUS_OK} is false).
     */
    public static boolean error(final long entry)
    {
        return 0 != (entry & ERROR_BIT);
    }

    /**
     * {@code GNI_CqErrorRecoverable}.
     *
     * @param entry an error entry.
     * @return true when retrying the transaction may succeed.
     */
    public static boolean recoverable(final long entry)
    {
        return 0 != (entry & RECOVERABLE_BIT);
    }
}
