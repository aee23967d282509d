package io.jfabric.provider.gni;

/**
 * What upstream's {@code gnix_nic_alloc} reads from the domain's {@code FI_GNI_DOMAIN_OPS_1} values (GNI.md §2.12,
 * "NIC alloc"), read here at the same point: when the domain's first endpoint opens (upstream allocates the NIC in
 * {@code fi_endpoint}; the domain exists before, so the extension can set them first). The mailbox geometry
 * ({@code GNI_MBOX_MAX_CREDIT}, {@code GNI_MBOX_MSG_MAX_SIZE}: every VC's SMSG mailboxes, hence the eager limit),
 * the RX CQ's entries ({@code GNI_RX_CQ_SIZE}: mailbox events beyond it overrun), the TX CQ's entries and TX
 * descriptors ({@code GNI_TX_CQ_SIZE}: posts beyond them queue, {@link GniTxDescriptors}), the VC connect timeout
 * ({@code GNI_DGRAM_PROGRESS_TIMEOUT} × {@value #CONNECT_PERIODS}, unless {@code jfabric.gni.connectTimeoutMs} is
 * set) and {@code GNI_EAGER_AUTO_PROGRESS}. Values set after it are kept and read back and change nothing, as
 * upstream's. Immutable.
 */
final class GniNicGeometry
{
    /** Datagram progress periods a VC connect waits for its answer (3000 ms with the default 100 ms). */
    static final long CONNECT_PERIODS = 30;

    final int mboxMaxCredit;
    final int mboxMsgMaxSize;
    final int rxCqSize;
    /** {@code GNI_TX_CQ_SIZE}: the TX CQ's entries and TX descriptors ({@link GniTxDescriptors}). */
    final int txCqSize;
    final long connectTimeoutNs;
    final boolean eagerAutoProgress;

    private GniNicGeometry(
        final int mboxMaxCredit, final int mboxMsgMaxSize, final int rxCqSize, final int txCqSize,
        final long connectTimeoutNs, final boolean eagerAutoProgress)
    {
        this.mboxMaxCredit = mboxMaxCredit;
        this.mboxMsgMaxSize = mboxMsgMaxSize;
        this.rxCqSize = rxCqSize;
        this.txCqSize = txCqSize;
        this.connectTimeoutNs = connectTimeoutNs;
        this.eagerAutoProgress = eagerAutoProgress;
    }

    /**
     * Read the domain's values now.
     *
     * @param ops the domain's extension.
     * @return the NIC's geometry.
     */
    static GniNicGeometry read(final GniDomainOps ops)
    {
        final long periodMs = ops.get(GniOps.GNI_DGRAM_PROGRESS_TIMEOUT);
        return new GniNicGeometry(
            (int) ops.get(GniOps.GNI_MBOX_MAX_CREDIT),
            (int) ops.get(GniOps.GNI_MBOX_MSG_MAX_SIZE),
            (int) Math.min(Integer.MAX_VALUE, ops.get(GniOps.GNI_RX_CQ_SIZE)),
            GniTxDescriptors.entries(ops.get(GniOps.GNI_TX_CQ_SIZE)),
            GniConfiguration.connectTimeoutNs(Math.max(1, periodMs) * CONNECT_PERIODS),
            0 != ops.get(GniOps.GNI_EAGER_AUTO_PROGRESS));
    }
}
