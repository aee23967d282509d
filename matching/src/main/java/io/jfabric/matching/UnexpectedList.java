package io.jfabric.matching;

/**
 * The unexpected messages of one source (or one unresolved raw source key), in arrival order, linked through
 * {@link UnexpectedPool#next}/{@link UnexpectedPool#prev}.
 * <p>
 * Threading: not thread-safe; owned by the domain agent.
 */
final class UnexpectedList
{
    int head = UnexpectedPool.NULL;
    int tail = UnexpectedPool.NULL;
    long key;
    boolean unresolved;
}
