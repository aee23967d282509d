package io.jfabric.matching;

/**
 * Receive flags understood by {@link MatchingEngine#postReceive}, with the libfabric bit values
 * ({@code fabric.h} / {@code fi_tagged.h}), so an agent passes the application's {@code flags} through.
 * Other bits are ignored by the engine.
 * <p>
 * Threading: constants only.
 */
public final class MatchFlags
{
    /** {@code FI_MSG}: set in {@link MatchResult#flags()} for an untagged match. */
    public static final long MSG = 1L << 1;

    /** {@code FI_TAGGED}: set in {@link MatchResult#flags()} for a tagged match. */
    public static final long TAGGED = 1L << 3;

    /** {@code FI_RECV}: set in {@link MatchResult#flags()} for every receive-side result. */
    public static final long RECV = 1L << 10;

    /**
     * {@code FI_MULTI_RECV}: on a post, the buffer takes many messages; in {@link MatchResult#flags()}, the
     * buffer has been released (its free space fell below the minimum or it was cancelled).
     */
    public static final long MULTI_RECV = 1L << 16;

    /** {@code FI_PEEK}: find an unexpected message without removing it. */
    public static final long PEEK = 1L << 19;

    /** {@code FI_DISCARD}: drop the found (PEEK) or claimed (CLAIM) message. */
    public static final long DISCARD = 1L << 58;

    /** {@code FI_CLAIM}: with PEEK reserve the message for the context; alone, receive the reserved one. */
    public static final long CLAIM = 1L << 59;

    /**
     * Engine-specific bit in {@link MatchResult#flags()}: the message came from a source not in the address
     * vector, {@link MatchResult#source()} holds the raw source key (the agent reports {@code FI_SOURCE_ERR}).
     */
    public static final long SOURCE_UNRESOLVED = 1L << 40;

    /** {@code FI_ADDR_UNSPEC}: any source. */
    public static final long ADDR_UNSPEC = -1L;

    private MatchFlags()
    {
    }
}
