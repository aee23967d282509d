package io.jfabric.agent;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.matching.MatchingContext;
import io.jfabric.matching.TagStorage;

/**
 * Property names and defaults of an endpoint's receive matching (see {@code runtime/RUNTIME.md}, "Matching
 * storage"): how posted tagged receives are stored. Read when an endpoint opens, never on the data path.
 * <p>
 * Threading: stateless, any thread. A value that cannot be read is {@code FabricException(EINVAL)} naming the
 * property, from the open that reads it.
 */
final class MatchingSettings
{
    /** Storage of posted tagged receives: {@code auto}, {@code list} or {@code index}. */
    static final String TAG_STORAGE_PROP = "jfabric.matching.tagStorage";
    /** Default of {@link #TAG_STORAGE_PROP}. */
    static final TagStorage TAG_STORAGE_DEFAULT = TagStorage.AUTO;
    /** Depth at which an {@code auto} queue of posted tagged receives moves to the hashed index. */
    static final String INDEX_DEPTH_PROP = "jfabric.matching.indexDepth";
    /** Default of {@link #INDEX_DEPTH_PROP}. */
    static final int INDEX_DEPTH_DEFAULT = 16;
    /** Most hash buckets per posted tagged queue (fewer for a small receive queue). */
    private static final int MAX_BUCKETS = 1024;

    private MatchingSettings()
    {
    }

    /**
     * @return {@link #TAG_STORAGE_PROP}.
     */
    static TagStorage tagStorage()
    {
        final String value = System.getProperty(TAG_STORAGE_PROP);
        if (null == value || value.isBlank())
        {
            return TAG_STORAGE_DEFAULT;
        }
        try
        {
            return TagStorage.parse(value);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new FabricException(Errno.EINVAL,
                "-D" + TAG_STORAGE_PROP + "='" + value + "' is not auto, list or index", ex);
        }
    }

    /**
     * @return {@link #INDEX_DEPTH_PROP}, from 1 to 2^20.
     */
    static int indexDepth()
    {
        final String value = System.getProperty(INDEX_DEPTH_PROP);
        if (null == value || value.isBlank())
        {
            return INDEX_DEPTH_DEFAULT;
        }
        try
        {
            final int depth = Integer.parseInt(value.trim());
            if (depth >= 1 && depth <= 1 << 20)
            {
                return depth;
            }
        }
        catch (final NumberFormatException ex)
        {
            throw new FabricException(Errno.EINVAL, "-D" + INDEX_DEPTH_PROP + "='" + value + "' is not a number", ex);
        }
        throw new FabricException(Errno.EINVAL, "-D" + INDEX_DEPTH_PROP + "='" + value + "' is not in 1..1048576");
    }

    /**
     * The matching configuration of one endpoint, with the settings read now.
     *
     * @param rxSize            posted-receive capacity.
     * @param unexpectedEntries most unexpected messages stored.
     * @return the context (not yet concluded).
     */
    static MatchingContext context(final int rxSize, final int unexpectedEntries)
    {
        return new MatchingContext()
            .rxSize(rxSize)
            .unexpectedEntries(unexpectedEntries)
            .unexpectedBytes(Long.MAX_VALUE)
            .tagStorage(tagStorage())
            .indexDepth(indexDepth())
            // A bucket per posted receive up to 1024: two int arrays of that length per tagged queue.
            .tagBuckets(Math.max(16, Math.min(MAX_BUCKETS, rxSize)));
    }
}
