package io.jfabric;

import org.agrona.DirectBuffer;

/**
 * The attributes of a memory registration ({@code struct fi_mr_attr}, for {@code fi_mr_regattr}): the segments
 * (iov), the access flags, the offset, the requested key, the application's context, the authorization key and the
 * memory interface. Immutable; built with {@link #builder()}.
 * <p>
 * What jfabric honours: segments are direct buffers (an iov entry is a buffer; wrap a sub-range as its own
 * {@code UnsafeBuffer} to register part of one); {@code offset} must be 0 (the man page reserves it); an
 * authorization key is refused (no provider has per-region auth keys yet); only host memory
 * ({@link #IFACE_SYSTEM}) can be registered.
 * <p>
 * Threading: immutable, thread-safe.
 */
public final class MrAttr
{
    /** {@code FI_HMEM_SYSTEM}: host memory, the only interface jfabric registers. */
    public static final int IFACE_SYSTEM = 0;

    private final DirectBuffer[] iov;
    private final int count;
    private final long access;
    private final long offset;
    private final long requestedKey;
    private final long context;
    private final byte[] authKey;
    private final int iface;

    private MrAttr(final Builder b)
    {
        this.iov = null == b.iov ? new DirectBuffer[0] : b.iov.clone();
        this.count = b.count;
        this.access = b.access;
        this.offset = b.offset;
        this.requestedKey = b.requestedKey;
        this.context = b.context;
        this.authKey = null == b.authKey ? null : b.authKey.clone();
        this.iface = b.iface;
    }

    /**
     * @return a builder with every field zero (no segments).
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * @return the segments ({@code mr_iov}); a copy of the array.
     */
    public DirectBuffer[] iov()
    {
        return iov.clone();
    }

    /**
     * @return how many segments are used ({@code iov_count}).
     */
    public int count()
    {
        return count;
    }

    /**
     * @return the access flags.
     */
    public long access()
    {
        return access;
    }

    /**
     * @return the offset (reserved: must be 0).
     */
    public long offset()
    {
        return offset;
    }

    /**
     * @return the requested key.
     */
    public long requestedKey()
    {
        return requestedKey;
    }

    /**
     * @return the application's context for the region.
     */
    public long context()
    {
        return context;
    }

    /**
     * @return the authorization key, or null.
     */
    public byte[] authKey()
    {
        return null == authKey ? null : authKey.clone();
    }

    /**
     * @return the memory interface ({@link #IFACE_SYSTEM}).
     */
    public int iface()
    {
        return iface;
    }

    /**
     * Builds an {@link MrAttr}.
     */
    public static final class Builder
    {
        private DirectBuffer[] iov;
        private int count;
        private long access;
        private long offset;
        private long requestedKey;
        private long context;
        private byte[] authKey;
        private int iface = IFACE_SYSTEM;

        private Builder()
        {
        }

        /**
         * @param segments the segments, all used.
         * @return this.
         */
        public Builder iov(final DirectBuffer... segments)
        {
            this.iov = segments;
            this.count = null == segments ? 0 : segments.length;
            return this;
        }

        /**
         * @param segments the segments.
         * @param used     how many of them are used.
         * @return this.
         */
        public Builder iov(final DirectBuffer[] segments, final int used)
        {
            this.iov = segments;
            this.count = used;
            return this;
        }

        /**
         * @param flags READ, WRITE, REMOTE_READ, REMOTE_WRITE, SEND, RECV.
         * @return this.
         */
        public Builder access(final long flags)
        {
            this.access = flags;
            return this;
        }

        /**
         * @param value the offset (reserved, 0).
         * @return this.
         */
        public Builder offset(final long value)
        {
            this.offset = value;
            return this;
        }

        /**
         * @param key the key wanted.
         * @return this.
         */
        public Builder requestedKey(final long key)
        {
            this.requestedKey = key;
            return this;
        }

        /**
         * @param value the application's context.
         * @return this.
         */
        public Builder context(final long value)
        {
            this.context = value;
            return this;
        }

        /**
         * @param key the authorization key, or null.
         * @return this.
         */
        public Builder authKey(final byte[] key)
        {
            this.authKey = key;
            return this;
        }

        /**
         * @param value the memory interface.
         * @return this.
         */
        public Builder iface(final int value)
        {
            this.iface = value;
            return this;
        }

        /**
         * @return the attributes.
         */
        public MrAttr build()
        {
            return new MrAttr(this);
        }
    }
}
