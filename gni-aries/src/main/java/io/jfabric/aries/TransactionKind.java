package io.jfabric.aries;

/**
 * The kinds of network transaction the NIC carries: what statistics count and what fault rules select.
 */
public enum TransactionKind
{
    /** A datagram ({@code GNI_EpPostDataWId}). */
    DATAGRAM,
    /** An SMSG mailbox send. */
    SMSG,
    /** {@code GNI_POST_FMA_PUT}. */
    FMA_PUT,
    /** {@code GNI_POST_FMA_GET}. */
    FMA_GET,
    /** {@code GNI_POST_RDMA_PUT} (BTE). */
    RDMA_PUT,
    /** {@code GNI_POST_RDMA_GET} (BTE). */
    RDMA_GET,
    /** {@code GNI_POST_AMO}. */
    AMO,
    /** {@code GNI_POST_CQWRITE}. */
    CQWRITE
}
