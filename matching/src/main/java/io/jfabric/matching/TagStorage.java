package io.jfabric.matching;

/**
 * How posted tagged receives are stored and searched. Both give the same matches (oldest-first).
 * <p>
 * The gni option {@code GNI_HASH_TAG_IMPL} maps to it: {@code false} (the gni default) is {@link #LIST},
 * {@code true} is {@link #INDEX}.
 * <p>
 * Threading: immutable.
 */
public enum TagStorage
{
    /** One ordered list per queue; a search walks it oldest-first. O(depth). */
    LIST,

    /**
     * Exact-tag receives ({@code ignore == 0}) in hash buckets, wildcard receives in an ordered list; a search
     * takes the older of the first exact hit and the first wildcard hit by posting sequence. Queued unexpected
     * tagged messages are also chained by exact tag, so an exact-tag receive finds its message without walking
     * the unexpected queue (wildcard receives still walk it).
     */
    INDEX,

    /**
     * Each posted tagged queue is a {@link #LIST} while shallow and moves to the {@link #INDEX} layout once it holds
     * {@link MatchingContext#indexDepth()} receives, at least one of them an exact tag; it returns to the list when
     * it empties. The move re-links the entries in posting order and allocates nothing (both layouts exist from the
     * queue's creation). Queued unexpected tagged messages are chained by exact tag as with {@link #INDEX}.
     */
    AUTO;

    /**
     * Parse a setting value: {@code list}, {@code index} or {@code auto}, any case.
     *
     * @param value the text.
     * @return the storage.
     * @throws IllegalArgumentException for any other text.
     */
    public static TagStorage parse(final String value)
    {
        for (final TagStorage storage : values())
        {
            if (storage.name().equalsIgnoreCase(value.trim()))
            {
                return storage;
            }
        }
        throw new IllegalArgumentException("not list, index or auto: " + value);
    }

    /**
     * Map the gni {@code GNI_HASH_TAG_IMPL} option value.
     *
     * @param hashTagImpl the option value.
     * @return {@link #INDEX} for {@code true}, {@link #LIST} otherwise.
     */
    public static TagStorage fromGniHashTagImpl(final boolean hashTagImpl)
    {
        return hashTagImpl ? INDEX : LIST;
    }
}
