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
    INDEX;

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
