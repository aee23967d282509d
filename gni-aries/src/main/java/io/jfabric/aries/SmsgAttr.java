package io.jfabric.aries;

/**
 * SMSG mailbox attributes ({@code gni_smsg_attr_t}, type {@code GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT}). The emulated
 * NIC keeps a mailbox's slots itself (off-heap, allocated at {@link GniEp#smsgInit}), so the buffer, offset and
 * memory handle fields of uGNI's structure are not needed; what remains is its geometry and the CQ that receives
 * the mailbox's remote events (in uGNI, the destination CQ of the mailbox memory's registration).
 * <p>
 * Threading: not thread-safe; a value holder read once by {@link GniEp#smsgInit}.
 */
public final class SmsgAttr
{
    /** Default credits per mailbox (upstream {@code mbox_maxcredit}, {@code src/gnix_dom.c:294}). */
    public static final int DEFAULT_MAX_CREDIT = 64;
    /** Default largest message, header and data (upstream {@code mbox_msg_maxsize}, {@code src/gnix_dom.c:295}). */
    public static final int DEFAULT_MSG_MAX_SIZE = 16384;
    /** Absolute largest message, {@code GNI_SMSG_MAX_SIZE}. */
    public static final int MAX_SIZE = 65535;

    /** Messages the mailbox holds (the sender's credits). */
    public int maxCredit = DEFAULT_MAX_CREDIT;
    /** Largest message, header plus data, in bytes. */
    public int msgMaxSize = DEFAULT_MSG_MAX_SIZE;
    /** The CQ that receives a remote SMSG event per deposited message (local attributes only). */
    public GniCq rxCq;

    /**
     * {@code GNI_SmsgBufferSizeNeeded}: bytes one mailbox of this geometry takes, by the emulator's formula
     * {@code roundUp64(maxCredit * roundUp64(msgMaxSize + 16) + 64)} (GNI.md §5.1; uGNI's is not public).
     *
     * @return bytes.
     */
    public long bufferSizeNeeded()
    {
        return roundUp64((long) maxCredit * roundUp64(msgMaxSize + 16L) + 64);
    }

    private static long roundUp64(final long value)
    {
        return (value + 63) & ~63L;
    }
}
