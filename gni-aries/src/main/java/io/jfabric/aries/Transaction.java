package io.jfabric.aries;

/**
 * The initiator's record of one transaction in flight: what completes it and where its event goes. Pooled by the
 * engine; its wire id is {@code slot | generation << 20}, so an answer for a finished transaction never matches
 * the slot's next use.
 * <p>
 * Threading: not thread-safe; touched under the node's lock.
 */
final class Transaction
{
    static final int SLOT_BITS = 20;
    static final int SLOT_MASK = (1 << SLOT_BITS) - 1;

    final int slot;
    int generation;
    boolean active;
    TransactionKind kind;
    PostDescriptor descriptor;
    GniEp ep;
    GniCq cq;
    Transaction parent;
    int remaining;
    boolean failed;
    boolean recoverable;
    int detail;
    long peer;
    long localAddr;
    long length;
    int amoCmd;
    long msgId;
    /** Finished; its event waits for the virtual clock (timing model). */
    boolean counted;
    long dueNs;

    Transaction(final int slot)
    {
        this.slot = slot;
    }

    int wireId()
    {
        return slot | (generation << SLOT_BITS);
    }

    void reset()
    {
        active = false;
        generation = (generation + 1) & 0x7FF;
        kind = null;
        descriptor = null;
        ep = null;
        cq = null;
        parent = null;
        remaining = 0;
        failed = false;
        recoverable = false;
        detail = 0;
        peer = -1;
        localAddr = 0;
        length = 0;
        amoCmd = 0;
        msgId = 0;
        counted = false;
        dueNs = 0;
    }
}
