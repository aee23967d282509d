package io.jfabric.matching;

/**
 * Return values of {@link MatchingEngine} calls.
 * <p>
 * Non-negative values are outcomes, negative values are {@code -errno} with the libfabric numbers
 * ({@code io.jfabric.Errno} in {@code runtime} holds the same values; this module does not depend on it):
 * <ul>
 *     <li>{@link #EAGAIN} ({@code FI_EAGAIN}, 11): a pool is exhausted at post time, the unexpected bound is
 *     reached on arrival (back-pressure the sender), or a multi-recv buffer with data in flight is cancelled.</li>
 *     <li>{@link #ENOMSG} ({@code FI_ENOMSG}, 42): PEEK, CLAIM or tsearch found nothing.</li>
 *     <li>{@link #ECANCELED} ({@code FI_ECANCELED}, 125): a posted receive was cancelled.</li>
 *     <li>{@link #EINVAL} ({@code FI_EINVAL}, 22): an invalid flag combination or argument.</li>
 *     <li>{@link #ENOENT} ({@code FI_ENOENT}, 2): cancel or drain found no posted receive.</li>
 * </ul>
 * Truncation is not a status: a match whose {@link MatchResult#overflow()} is positive is completed by the
 * agent with {@code FI_ETRUNC} ({@link #ETRUNC}, 265).
 * <p>
 * Threading: constants only.
 */
public final class MatchStatus
{
    /** The receive was posted; nothing unexpected matched it (or the drain found nothing more). */
    public static final int POSTED = 0;

    /** A match was made; the {@link MatchResult} holds both sides. */
    public static final int MATCHED = 1;

    /** An arrival matched no posted receive and was queued as unexpected. */
    public static final int QUEUED = 2;

    /** A message was dropped by DISCARD; {@link MatchResult#payloadHandle()} names the payload to free. */
    public static final int DISCARDED = 3;

    /** A message was found by PEEK (or tsearch) and left in place (claimed when CLAIM was given). */
    public static final int PEEKED = 4;

    /** {@code -FI_ENOENT}. */
    public static final int ENOENT = -2;

    /** {@code -FI_EAGAIN}. */
    public static final int EAGAIN = -11;

    /** {@code -FI_EINVAL}. */
    public static final int EINVAL = -22;

    /** {@code -FI_ENOMSG}. */
    public static final int ENOMSG = -42;

    /** {@code -FI_ECANCELED}. */
    public static final int ECANCELED = -125;

    /** {@code FI_ETRUNC} (positive errno): the agent completes a match with overflow with {@code -ETRUNC}. */
    public static final int ETRUNC = 265;

    private MatchStatus()
    {
    }
}
