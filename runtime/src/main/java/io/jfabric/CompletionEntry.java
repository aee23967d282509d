package io.jfabric;

/**
 * One completion as {@link CompletionQueue#read} returns it ({@code fi_cq_*_entry}); which fields are filled
 * follows the queue's {@link CqFormat}: CONTEXT the context; MSG also flags and len; DATA also buf and data;
 * TAGGED also tag. Unfilled fields read 0.
 * <p>
 * Mutable and reusable; not thread-safe: one reader owns it.
 */
public final class CompletionEntry
{
    long context;
    long flags;
    long len;
    long buf;
    long data;
    long tag;

    /**
     * @return the operation context.
     */
    public long context()
    {
        return context;
    }

    /**
     * @return the completion flags (FI_SEND, FI_RECV, FI_MSG, FI_TAGGED, FI_MULTI_RECV, FI_REMOTE_CQ_DATA ...).
     */
    public long flags()
    {
        return flags;
    }

    /**
     * @return the length received.
     */
    public long len()
    {
        return len;
    }

    /**
     * @return the address where received data starts (multi-recv: inside the posted buffer).
     */
    public long buf()
    {
        return buf;
    }

    /**
     * @return the remote CQ data.
     */
    public long data()
    {
        return data;
    }

    /**
     * @return the tag of a tagged receive.
     */
    public long tag()
    {
        return tag;
    }
}
