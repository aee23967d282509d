package io.jfabric.spi;

/**
 * The data-path calls of an endpoint, one per entry of libfabric's operation tables ({@code fi_ops_msg},
 * {@code fi_ops_tagged}, {@code fi_ops_rma}, {@code fi_ops_atomic}). A provider names the ones it does not
 * offer in its {@link ProviderCapabilities}; the runtime answers such a call with the errno the provider chose
 * ({@code -ENOSYS}, as libfabric's {@code fi_no_*} table entries, or {@code -EOPNOTSUPP}) before it looks at
 * the arguments or writes a command.
 * <p>
 * The {@code *msg} entries cover every flag given to them: {@code fi_tsendmsg} with
 * {@code FI_INJECT | FI_REMOTE_CQ_DATA} is {@link #TSENDMSG}, not {@link #TINJECTDATA}, as in libfabric, where
 * they are separate table entries. Whole families a provider lacks are refused by its caps at getInfo, not here.
 * <p>
 * At most 64 constants: the runtime keeps the refused set as one bit mask.
 */
public enum Operation
{
    /** {@code fi_send}. */
    SEND,
    /** {@code fi_sendv}. */
    SENDV,
    /** {@code fi_sendmsg}. */
    SENDMSG,
    /** {@code fi_inject}. */
    INJECT,
    /** {@code fi_senddata}. */
    SENDDATA,
    /** {@code fi_injectdata}. */
    INJECTDATA,
    /** {@code fi_recv}. */
    RECV,
    /** {@code fi_recvv}. */
    RECVV,
    /** {@code fi_recvmsg}. */
    RECVMSG,
    /** {@code fi_tsend}. */
    TSEND,
    /** {@code fi_tsendv}. */
    TSENDV,
    /** {@code fi_tsendmsg}. */
    TSENDMSG,
    /** {@code fi_tinject}. */
    TINJECT,
    /** {@code fi_tsenddata}. */
    TSENDDATA,
    /** {@code fi_tinjectdata}. */
    TINJECTDATA,
    /** {@code fi_trecv}. */
    TRECV,
    /** {@code fi_trecvv}. */
    TRECVV,
    /** {@code fi_trecvmsg}. */
    TRECVMSG,
    /** {@code kfi_tsearch} (kfabric). */
    TSEARCH,
    /** {@code fi_read}. */
    READ,
    /** {@code fi_readv}. */
    READV,
    /** {@code fi_readmsg}. */
    READMSG,
    /** {@code fi_write}. */
    WRITE,
    /** {@code fi_writev}. */
    WRITEV,
    /** {@code fi_writemsg}. */
    WRITEMSG,
    /** {@code fi_inject_write}. */
    INJECT_WRITE,
    /** {@code fi_writedata}. */
    WRITEDATA,
    /** {@code fi_inject_writedata}. */
    INJECT_WRITEDATA,
    /** {@code fi_atomic}. */
    ATOMIC,
    /** {@code fi_atomicv}. */
    ATOMICV,
    /** {@code fi_atomicmsg}. */
    ATOMICMSG,
    /** {@code fi_inject_atomic}. */
    INJECT_ATOMIC,
    /** {@code fi_fetch_atomic}. */
    FETCH_ATOMIC,
    /** {@code fi_fetch_atomicv}. */
    FETCH_ATOMICV,
    /** {@code fi_fetch_atomicmsg}. */
    FETCH_ATOMICMSG,
    /** {@code fi_compare_atomic}. */
    COMPARE_ATOMIC,
    /** {@code fi_compare_atomicv}. */
    COMPARE_ATOMICV,
    /** {@code fi_compare_atomicmsg}. */
    COMPARE_ATOMICMSG;

    /**
     * This operation's bit in a refused-operations mask.
     *
     * @return {@code 1L << ordinal()}.
     */
    public long bit()
    {
        return 1L << ordinal();
    }
}
