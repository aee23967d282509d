package io.jfabric.aries;

/**
 * The optional timing model (off by default): a virtual-clock completion time for every local event, from
 * per-transaction costs, for what-if runs (GNI.md §5.5). The initiator's engine is a serial pipe: a transaction
 * occupies it for {@code bytes / bandwidth} after the previous one, then its event is due {@code latency + hops ×
 * hop latency} later (plus the BTE set-up for RDMA posts). The engine holds each completed event until the node's
 * virtual clock reaches its due time; the clock jumps to the next due time whenever an engine step finds nothing
 * else to do, so runs are deterministic and take no wall-clock time.
 * <p>
 * Only the initiator's local events are timed; deposits, remote events and the target's work are not delayed.
 * <p>
 * Defaults are <b>estimates</b>, not measurements: 1.3 µs nearest-neighbour latency and 10 GB/s per direction
 * (public Aries figures quoted in GNI.md §5.5, "to be confirmed"), 100 ns per router hop and 1 µs BTE set-up
 * (assumptions, flagged as such there).
 * <p>
 * Threading: configuration, read by the engine; set it before the node opens.
 */
public final class TimingModel
{
    private long latencyNs = 1_300;
    private long hopNs = 100;
    private int hops;
    private long bytesPerSecond = 10_000_000_000L;
    private long bteSetupNs = 1_000;

    /**
     * @param latencyNs one transaction's latency with no extra hops, nanoseconds.
     * @return this.
     */
    public TimingModel latencyNs(final long latencyNs)
    {
        this.latencyNs = latencyNs;
        return this;
    }

    /**
     * @param hopNs latency per extra router hop, nanoseconds.
     * @return this.
     */
    public TimingModel hopNs(final long hopNs)
    {
        this.hopNs = hopNs;
        return this;
    }

    /**
     * @param hops extra router hops between the nodes.
     * @return this.
     */
    public TimingModel hops(final int hops)
    {
        this.hops = hops;
        return this;
    }

    /**
     * @param bytesPerSecond the engine's bandwidth.
     * @return this.
     */
    public TimingModel bytesPerSecond(final long bytesPerSecond)
    {
        this.bytesPerSecond = bytesPerSecond;
        return this;
    }

    /**
     * @param bteSetupNs extra cost of an RDMA (BTE) post, nanoseconds.
     * @return this.
     */
    public TimingModel bteSetupNs(final long bteSetupNs)
    {
        this.bteSetupNs = bteSetupNs;
        return this;
    }

    /**
     * @param bytes bytes moved.
     * @return nanoseconds the engine is busy moving them.
     */
    long transferNs(final long bytes)
    {
        return bytes * 1_000_000_000L / bytesPerSecond;
    }

    /**
     * @param kind the transaction kind.
     * @return nanoseconds from leaving the engine to the local event.
     */
    long latencyNs(final TransactionKind kind)
    {
        final long base = latencyNs + hops * hopNs;
        return TransactionKind.RDMA_PUT == kind || TransactionKind.RDMA_GET == kind ? base + bteSetupNs : base;
    }
}
