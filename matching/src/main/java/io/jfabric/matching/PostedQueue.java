package io.jfabric.matching;

/**
 * One queue of posted receives (any-source or one source; tagged or untagged), searched oldest-first.
 * Implementations differ in storage ({@link TagStorage}) but must return the same entry.
 * <p>
 * Threading: not thread-safe; owned by the domain agent.
 */
interface PostedQueue
{
    /**
     * Append an entry whose fields are already set in the pool; its sequence is higher than any present.
     *
     * @param e pool index.
     */
    void append(int e);

    /**
     * The oldest entry whose tag matches: {@code (tag & ~ignore) == (postedTag & ~ignore)}.
     *
     * @param tag the arriving message's tag.
     * @return pool index or {@link PostedPool#NULL}.
     */
    int findOldest(long tag);

    /**
     * Unlink an entry that is in this queue.
     *
     * @param e pool index.
     */
    void remove(int e);

    /**
     * @return true when the queue holds no entry.
     */
    boolean isEmpty();
}
