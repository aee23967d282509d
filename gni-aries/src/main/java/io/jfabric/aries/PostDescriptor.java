package io.jfabric.aries;

/**
 * A post descriptor ({@code gni_post_descriptor_t}): what {@link GniEp#postFma}, {@link GniEp#postRdma},
 * {@link GniEp#ctPostFma} and {@link GniEp#postCqWrite} take and what {@link GniCq#getCompleted} hands back.
 * Mutable and owned by the caller (a provider keeps a pool of them); the NIC keeps a reference until the
 * transaction's completion event has been read, so a descriptor must not be changed while it is posted.
 * <p>
 * Threading: not thread-safe; owned by the posting thread until posted, by the NIC until completed.
 */
public final class PostDescriptor
{
    /** The transaction kind (type): one of {@code FMA_PUT, FMA_GET, RDMA_PUT, RDMA_GET, AMO, CQWRITE}. */
    public TransactionKind type;
    /** Local buffer address (PUT source, GET destination, fetching-AMO result). */
    public long localAddr;
    /** Handle of the local buffer's registration. */
    public final MemHandle localMemHandle = new MemHandle();
    /** Remote address. */
    public long remoteAddr;
    /** Handle of the remote registration, as the peer sent it. */
    public final MemHandle remoteMemHandle = new MemHandle();
    /** Bytes to move (AMO: ignored, the command fixes 4 or 8). */
    public long length;
    /** AMO command, one of {@link AmoCmd}'s constants. */
    public int amoCmd;
    /** First AMO operand (or the value of a CQ write). */
    public long firstOperand;
    /** Second AMO operand (compare-swap: the swap value; AX: the XOR mask). */
    public long secondOperand;
    /** A caller's id, returned in the CQ entry's msg id field (low 32 bits). */
    public long postId;
    /** The next descriptor of a chain ({@link GniEp#ctPostFma} only), or null. */
    public PostDescriptor next;
    /** The outcome, set by {@link GniCq#getCompleted}: {@link GniRc#SUCCESS} or an error code. */
    public int status;
    /** Why a failed transaction failed, as the target (or the fault that failed it) reported it: a {@link GniRc}
     * code such as {@link GniRc#PERMISSION_ERROR} (ptag/cookie or READ_ONLY), {@link GniRc#INVALID_PARAM} (handle,
     * check value or bounds), {@link GniRc#INVALID_STATE} (reserved pages not updated),
     * {@link GniRc#ALIGNMENT_ERROR}, {@link GniRc#TRANSACTION_ERROR} (injected or peer down). */
    public int errorDetail;

    /**
     * Reset every field to its default.
     *
     * @return this.
     */
    public PostDescriptor reset()
    {
        type = null;
        localAddr = 0;
        localMemHandle.set(0, 0);
        remoteAddr = 0;
        remoteMemHandle.set(0, 0);
        length = 0;
        amoCmd = 0;
        firstOperand = 0;
        secondOperand = 0;
        postId = 0;
        next = null;
        status = 0;
        errorDetail = 0;
        return this;
    }
}
