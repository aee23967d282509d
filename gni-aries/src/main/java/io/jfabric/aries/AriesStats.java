package io.jfabric.aries;

/**
 * Read-only counters of one node's NIC engine (GNI.md §3 {@code AriesStats}): what white-box tests and
 * {@code jfabric stat} read to check the model (credits hit 0, an overrun happened, a fault was retried). While a NIC
 * of the node is attached, the engine also publishes them as counters in the process's counters file
 * ({@link AriesCounters}), for other processes.
 * <p>
 * Threading: written under the node's lock by the engine and the API calls; read from the thread that steps the
 * node (deterministic mode) or, as plain reads that may be slightly stale, from any thread.
 */
public final class AriesStats
{
    final long[] posts = new long[TransactionKind.values().length];
    long chainedPosts;
    long creditStalls;
    long cqOverruns;
    long retransmits;
    long datagramsPosted;
    long datagramsMatched;
    long protectionNacks;
    long localProtectionFaults;
    long crossJobDrops;
    long transactionErrors;
    long framesSent;
    long framesReceived;
    long backPressured;

    /**
     * @param kind a transaction kind.
     * @return transactions of that kind posted (accepted with SUCCESS) by this node.
     */
    public long posts(final TransactionKind kind)
    {
        return posts[kind.ordinal()];
    }

    /**
     * @return chained FMA posts ({@code GNI_CtPostFma}) accepted by this node; their elements count in
     * {@link #posts(TransactionKind)} too.
     */
    public long chainedPosts()
    {
        return chainedPosts;
    }

    /**
     * @return SMSG sends answered NOT_DONE for want of a credit.
     */
    public long creditStalls()
    {
        return creditStalls;
    }

    /**
     * @return events dropped because a CQ was full (each overrun episode counts its lost events).
     */
    public long cqOverruns()
    {
        return cqOverruns;
    }

    /**
     * @return SMSG transmissions repeated by the emulated uGNI retransmit logic.
     */
    public long retransmits()
    {
        return retransmits;
    }

    /**
     * @return datagrams posted by this node's endpoints.
     */
    public long datagramsPosted()
    {
        return datagramsPosted;
    }

    /**
     * @return datagram exchanges matched at this node (as target).
     */
    public long datagramsMatched()
    {
        return datagramsMatched;
    }

    /**
     * @return remote accesses refused by this node's target-side protection checks (NACKed).
     */
    public long protectionNacks()
    {
        return protectionNacks;
    }

    /**
     * @return GET responses dropped because the local memory they land in was deregistered while the GET was in
     * flight (the GET fails, nothing more is written).
     */
    public long localProtectionFaults()
    {
        return localProtectionFaults;
    }

    /**
     * @return frames that arrived for a communication domain of another ptag or cookie (never matched).
     */
    public long crossJobDrops()
    {
        return crossJobDrops;
    }

    /**
     * @return error events this node's initiators received (faults, NACKs, unreachable peers).
     */
    public long transactionErrors()
    {
        return transactionErrors;
    }

    /**
     * @return frames offered to the wire.
     */
    public long framesSent()
    {
        return framesSent;
    }

    /**
     * @return frames received from the wire.
     */
    public long framesReceived()
    {
        return framesReceived;
    }

    /**
     * @return frames the wire refused for back-pressure (queued and sent later).
     */
    public long backPressured()
    {
        return backPressured;
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("AriesStats[posts=");
        for (final TransactionKind kind : TransactionKind.values())
        {
            sb.append(kind).append(':').append(posts[kind.ordinal()]).append(' ');
        }
        return sb.append("creditStalls=").append(creditStalls).append(" cqOverruns=").append(cqOverruns)
            .append(" retransmits=").append(retransmits).append(" datagrams=").append(datagramsPosted)
            .append('/').append(datagramsMatched).append(" protectionNacks=").append(protectionNacks)
            .append(" localProtectionFaults=").append(localProtectionFaults)
            .append(" crossJobDrops=").append(crossJobDrops).append(" transactionErrors=")
            .append(transactionErrors).append(']').toString();
    }
}
