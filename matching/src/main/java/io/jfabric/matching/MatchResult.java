package io.jfabric.matching;

/**
 * Reusable result of one {@link MatchingEngine} call: the receive side (context, buffer, offset, delivered
 * length, overflow) and the message side (source, tag, length, CQ data, payload handle). Create one per agent
 * and pass it to every call; each call overwrites the fields it reports and leaves the rest as
 * {@link #reset()} set them.
 * <p>
 * Threading: not thread-safe; owned by the domain agent.
 */
public final class MatchResult
{
    long context;
    long bufferAddress;
    long bufferLength;
    long offset;
    long length;
    long overflow;
    long messageLength;
    long tag;
    long source;
    long data;
    long payloadHandle;
    long receiveHandle;
    long flags;

    /**
     * Create a result in the {@link #reset()} state.
     */
    public MatchResult()
    {
        reset();
    }

    /**
     * Clear every field (handles to -1, the rest to 0).
     *
     * @return this.
     */
    public MatchResult reset()
    {
        context = 0;
        bufferAddress = 0;
        bufferLength = 0;
        offset = 0;
        length = 0;
        overflow = 0;
        messageLength = 0;
        tag = 0;
        source = MatchFlags.ADDR_UNSPEC;
        data = 0;
        payloadHandle = -1;
        receiveHandle = -1;
        flags = 0;
        return this;
    }

    /**
     * @return the receive's context (or the claim context of a tsearch).
     */
    public long context()
    {
        return context;
    }

    /**
     * @return the receive buffer's start address.
     */
    public long bufferAddress()
    {
        return bufferAddress;
    }

    /**
     * @return the receive buffer's length.
     */
    public long bufferLength()
    {
        return bufferLength;
    }

    /**
     * @return where the payload goes inside the buffer (non-zero only for multi-recv); on a multi-recv
     * release by cancel, the bytes consumed.
     */
    public long offset()
    {
        return offset;
    }

    /**
     * @return the bytes to copy into the buffer at {@link #offset()}.
     */
    public long length()
    {
        return length;
    }

    /**
     * @return the bytes of the message that did not fit; positive means complete with {@code FI_ETRUNC}.
     */
    public long overflow()
    {
        return overflow;
    }

    /**
     * @return the full length of the message as sent.
     */
    public long messageLength()
    {
        return messageLength;
    }

    /**
     * @return the message's tag (0 for untagged).
     */
    public long tag()
    {
        return tag;
    }

    /**
     * @return the message's source fi_addr, or its raw key when {@link MatchFlags#SOURCE_UNRESOLVED} is set.
     */
    public long source()
    {
        return source;
    }

    /**
     * @return the remote CQ data that came with the message.
     */
    public long data()
    {
        return data;
    }

    /**
     * @return the transport's handle of the payload (copy it, or free it on DISCARD), -1 when none.
     */
    public long payloadHandle()
    {
        return payloadHandle;
    }

    /**
     * @return the posted receive's handle (for {@link MatchingEngine#multiRecvSegmentComplete(long)} and
     * {@link MatchingEngine#drainMultiRecv(long, MatchResult)}), -1 when none.
     */
    public long receiveHandle()
    {
        return receiveHandle;
    }

    /**
     * @return completion flags: {@link MatchFlags#RECV}, {@link MatchFlags#TAGGED} or {@link MatchFlags#MSG},
     * {@link MatchFlags#MULTI_RECV} when a multi-recv buffer was released, {@link MatchFlags#SOURCE_UNRESOLVED}.
     */
    public long flags()
    {
        return flags;
    }

    /**
     * @return true when a multi-recv buffer was released by this result (post the MULTI_RECV completion).
     */
    public boolean multiRecvReleased()
    {
        return (flags & MatchFlags.MULTI_RECV) != 0;
    }
}
