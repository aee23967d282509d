package io.jfabric.spi;

import io.jfabric.Errno;
import io.jfabric.FabricException;

import java.util.EnumSet;
import java.util.Set;

/**
 * A provider's rules for memory registration ({@code fi_mr_reg}, {@code fi_mr_regv}, {@code fi_mr_regattr}),
 * enforced by the runtime's {@code Domain.registerMemory} on the calling thread before the registration reaches
 * the domain agent, in this order:
 * <ol>
 *     <li>the segment count against {@link #iovLimit()} (and the domain's {@code mr_iov_limit}): {@code EINVAL};</li>
 *     <li>each segment's start address against {@link #alignment()} for the forms in {@link #alignedForms()}:
 *     {@code EINVAL} (fi_gni(7): registrations through {@code fi_mr_regv}/{@code fi_mr_regattr} must be
 *     page-aligned);</li>
 *     <li>an authorization key ({@code fi_mr_attr.auth_key}) against the provider's
 *     {@link ProviderCapabilities#authKeySize()}: {@code EOPNOTSUPP} when it takes none, {@code EINVAL} when
 *     longer;</li>
 *     <li>the provider's {@link #validator()}, which sees the whole request and answers 0 or a negative errno
 *     (for example {@code -EKEYREJECTED} for a requested key above a limit).</li>
 * </ol>
 * {@link #keyMode()} decides who chooses keys. Access-flag and range checks, and the key table, stay the runtime's
 * (one registry per domain, libfabric's {@code ofi_mr_map}).
 * <p>
 * Immutable and thread-safe; build with {@link #builder()}.
 */
public final class MemoryRegistrationPolicy
{
    /** The policy of a provider that adds no rule of its own. */
    public static final MemoryRegistrationPolicy DEFAULT = builder().build();

    /**
     * The registration call a request came through.
     */
    public enum Form
    {
        /** {@code fi_mr_reg}: one contiguous buffer. */
        REG,
        /** {@code fi_mr_regv}: several buffers. */
        REGV,
        /** {@code fi_mr_regattr}: an attribute structure (segments, access, key, auth key, context). */
        REGATTR
    }

    /**
     * Who chooses a region's key.
     */
    public enum KeyMode
    {
        /** As the domain's {@code mr_mode} says: the provider with {@code FI_MR_PROV_KEY} (or BASIC), else the
         * application's requested key. */
        MR_MODE,
        /** Always the provider (the requested key is ignored), whatever the mr_mode. */
        PROVIDER,
        /** Always the application's requested key (a key in use is {@code ENOKEY}), whatever the mr_mode. */
        REQUESTED
    }

    /**
     * A provider's last word on a registration, after the runtime's own checks passed.
     */
    @FunctionalInterface
    public interface Validator
    {
        /** Accepts every registration. */
        Validator ACCEPT_ALL = (form, addresses, lengths, count, access, requestedKey, authKey) -> 0;

        /**
         * Check one registration. Control path, any application thread: thread-safe.
         *
         * @param form         the call.
         * @param addresses    the segments' start addresses (the first {@code count} entries).
         * @param lengths      the segments' lengths.
         * @param count        the number of segments.
         * @param access       the access flags.
         * @param requestedKey the key the application asked for.
         * @param authKey      the region's authorization key, or null.
         * @return 0 to accept, or a negative errno to refuse (the registration fails with that errno).
         */
        int validate(
            Form form,
            long[] addresses,
            long[] lengths,
            int count,
            long access,
            long requestedKey,
            byte[] authKey);
    }

    /**
     * Told when a registration the {@link Validator} accepted ends: the region was closed, or the domain's registry
     * refused it after the validator (for example a requested key in use). A provider that counts registrations (keys
     * of an authorization key, a node's limit) gives its count back here. Called on the closing or registering
     * thread; a provider that needs none keeps {@link #NONE}.
     */
    @FunctionalInterface
    public interface Releaser
    {
        /** Nothing to release. */
        Releaser NONE = key -> { };

        /**
         * A registration ended.
         *
         * @param key the region's key (with requested keys, the key the validator saw).
         */
        void released(long key);
    }

    private final long alignment;
    private final Set<Form> alignedForms;
    private final int iovLimit;
    private final KeyMode keyMode;
    private final Validator validator;
    private final Releaser releaser;

    private MemoryRegistrationPolicy(final Builder b)
    {
        this.alignment = b.alignment;
        this.alignedForms = b.alignedForms.isEmpty() ? Set.of() : Set.copyOf(b.alignedForms);
        this.iovLimit = b.iovLimit;
        this.keyMode = b.keyMode;
        this.validator = b.validator;
        this.releaser = b.releaser;
    }

    /**
     * A builder with the defaults: no alignment, no iov limit of its own, keys by mr_mode, no validator.
     *
     * @return the builder.
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * The alignment a segment's start address must have in the {@link #alignedForms()}.
     *
     * @return bytes, a power of two; 1 means none.
     */
    public long alignment()
    {
        return alignment;
    }

    /**
     * The registration calls {@link #alignment()} applies to.
     *
     * @return the forms (immutable).
     */
    public Set<Form> alignedForms()
    {
        return alignedForms;
    }

    /**
     * The most segments one registration may have, on top of the domain's {@code mr_iov_limit}.
     *
     * @return the limit, at least 1.
     */
    public int iovLimit()
    {
        return iovLimit;
    }

    /**
     * Who chooses keys.
     *
     * @return the key mode.
     */
    public KeyMode keyMode()
    {
        return keyMode;
    }

    /**
     * The provider's check, run last.
     *
     * @return the validator ({@link Validator#ACCEPT_ALL} by default).
     */
    public Validator validator()
    {
        return validator;
    }

    /**
     * @return what is told when an accepted registration ends; {@link Releaser#NONE} by default.
     */
    public Releaser releaser()
    {
        return releaser;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String toString()
    {
        return "MemoryRegistrationPolicy{alignment=" + alignment + " " + alignedForms + ", iovLimit=" + iovLimit +
            ", keyMode=" + keyMode + "}";
    }

    /**
     * Builds a {@link MemoryRegistrationPolicy}. Not thread-safe.
     */
    public static final class Builder
    {
        private long alignment = 1;
        private final EnumSet<Form> alignedForms = EnumSet.noneOf(Form.class);
        private int iovLimit = Integer.MAX_VALUE;
        private KeyMode keyMode = KeyMode.MR_MODE;
        private Validator validator = Validator.ACCEPT_ALL;
        private Releaser releaser = Releaser.NONE;

        private Builder()
        {
        }

        /**
         * Segment start addresses must be multiples of {@code bytes} in every registration call.
         *
         * @param bytes a power of two, at least 1.
         * @return this.
         * @throws FabricException EINVAL when not a power of two.
         */
        public Builder alignment(final long bytes)
        {
            return alignment(bytes, EnumSet.allOf(Form.class));
        }

        /**
         * Segment start addresses must be multiples of {@code bytes} in the calls named.
         *
         * @param bytes a power of two, at least 1.
         * @param forms the calls the rule applies to.
         * @return this.
         * @throws FabricException EINVAL when not a power of two.
         */
        public Builder alignment(final long bytes, final Set<Form> forms)
        {
            if (bytes < 1 || Long.bitCount(bytes) != 1)
            {
                throw new FabricException(Errno.EINVAL, "MR alignment " + bytes + " is not a power of two");
            }
            alignment = bytes;
            alignedForms.clear();
            alignedForms.addAll(forms);
            return this;
        }

        /**
         * The most segments one registration may have.
         *
         * @param limit at least 1.
         * @return this.
         * @throws FabricException EINVAL below 1.
         */
        public Builder iovLimit(final int limit)
        {
            if (limit < 1)
            {
                throw new FabricException(Errno.EINVAL, "MR iov limit " + limit + " is below 1");
            }
            iovLimit = limit;
            return this;
        }

        /**
         * Who chooses keys.
         *
         * @param mode the key mode, not null.
         * @return this.
         */
        public Builder keyMode(final KeyMode mode)
        {
            keyMode = null == mode ? KeyMode.MR_MODE : mode;
            return this;
        }

        /**
         * The provider's own check.
         *
         * @param check the validator, not null.
         * @return this.
         */
        public Builder validator(final Validator check)
        {
            validator = null == check ? Validator.ACCEPT_ALL : check;
            return this;
        }

        /**
         * Set what is told when an accepted registration ends.
         *
         * @param release the releaser; null for {@link Releaser#NONE}.
         * @return this builder.
         */
        public Builder releaser(final Releaser release)
        {
            releaser = null == release ? Releaser.NONE : release;
            return this;
        }

        /**
         * @return the policy.
         */
        public MemoryRegistrationPolicy build()
        {
            return new MemoryRegistrationPolicy(this);
        }
    }
}
