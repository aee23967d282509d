package io.jfabric.spi;

import io.jfabric.Errno;
import io.jfabric.FabricException;

/**
 * What a provider offers beyond its {@link io.jfabric.Info} attributes, described once and enforced by the runtime
 * for every provider alike (the runtime never tests a provider's name):
 * <ul>
 *     <li>{@link #atomics()}: the atomic op × datatype table of each family. {@code Endpoint.atomicValid} and its
 *     fetch/compare forms and {@code Domain.queryAtomic} answer from it, and an atomic outside it fails at post
 *     with {@code -EOPNOTSUPP}; the target's agent executes only what it holds.</li>
 *     <li>{@link #memoryRegistration()}: alignment, iov limit, key mode and the provider's validation hook.</li>
 *     <li>{@link #authKeySize()}: whether authorization keys are accepted ({@code domain_attr.auth_key},
 *     {@code ep_attr.auth_key}, {@code fi_mr_attr.auth_key}) and how long they may be. A provider that takes none
 *     drops out of getInfo for hints carrying a key, and a domain, endpoint or registration with one fails with
 *     {@code EOPNOTSUPP}.</li>
 *     <li>{@link #refusal(Operation)}: the data-path calls the provider does not offer, answered with
 *     {@code -ENOSYS} or {@code -EOPNOTSUPP} at post.</li>
 *     <li>{@link #multiRecvCompletion()}: how the release of a multi-recv buffer is reported.</li>
 * </ul>
 * Named {@code fi_open_ops} extensions are not listed here: the per-fabric object, the domain transport and the
 * endpoint hooks answer them ({@link FabricBackend#openOps}, {@link DomainTransport#openOps(String)},
 * {@link DomainTransport#openOps(int, String)}).
 * <p>
 * Immutable and thread-safe; build with {@link #builder()}. The runtime asks for it once per open domain
 * ({@link Provider#capabilities(io.jfabric.Info)}) and once per candidate info in getInfo.
 */
public final class ProviderCapabilities
{
    /** Bytes of one atomic vector in the default table (the runtime executor's). */
    public static final int DEFAULT_ATOMIC_BYTES = 256;
    /** The description of a provider that says nothing: the runtime's full behaviour. */
    public static final ProviderCapabilities DEFAULT = builder().build();

    /**
     * How a multi-recv buffer's release shows in the completion queue.
     */
    public enum MultiRecvCompletion
    {
        /** The completion of the message that consumed the buffer carries {@code FI_MULTI_RECV} (libfabric's util
         * providers, the runtime's default). */
        WITH_LAST_MESSAGE,
        /** No message completion carries {@code FI_MULTI_RECV}; after the last one, a separate entry with the
         * buffer's context, flags {@code FI_MULTI_RECV}, length 0 and buffer 0 (fi_gni(7)). */
        SEPARATE_ENTRY
    }

    private final AtomicCapabilities atomics;
    private final MemoryRegistrationPolicy memoryRegistration;
    private final int authKeySize;
    private final long refusedOperations;
    private final int[] refusals;
    private final MultiRecvCompletion multiRecvCompletion;
    private final boolean localShutdown;
    private final AddressVectorRules addressVectors;

    private ProviderCapabilities(final Builder b)
    {
        this.atomics = b.atomics;
        this.memoryRegistration = b.memoryRegistration;
        this.authKeySize = b.authKeySize;
        this.refusedOperations = b.refusedOperations;
        this.refusals = b.refusals.clone();
        this.multiRecvCompletion = b.multiRecvCompletion;
        this.localShutdown = b.localShutdown;
        this.addressVectors = b.addressVectors;
    }

    /**
     * @return the provider's address vector rules ({@link AddressVectorRules#DEFAULT} unless set).
     */
    public AddressVectorRules addressVectors()
    {
        return addressVectors;
    }

    /**
     * Whether {@code fi_shutdown} is local only: the endpoint goes down with its own {@code FI_SHUTDOWN} event and
     * the connected peer is not told (fi_gni(7), KNOWN BUGS). Closing an endpoint still tells the peer.
     *
     * @return true when the peer is not notified; false (the default) when both sides get {@code FI_SHUTDOWN}.
     */
    public boolean localShutdown()
    {
        return localShutdown;
    }

    /**
     * A builder holding the defaults: the executor's full atomic table (256-byte vectors), the default MR policy,
     * no authorization keys, every operation offered, {@link MultiRecvCompletion#WITH_LAST_MESSAGE}.
     *
     * @return the builder.
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * The atomic table.
     *
     * @return the table.
     */
    public AtomicCapabilities atomics()
    {
        return atomics;
    }

    /**
     * The memory-registration policy.
     *
     * @return the policy.
     */
    public MemoryRegistrationPolicy memoryRegistration()
    {
        return memoryRegistration;
    }

    /**
     * The longest authorization key accepted.
     *
     * @return bytes; 0 when the provider takes no keys.
     */
    public int authKeySize()
    {
        return authKeySize;
    }

    /**
     * The refused operations as a bit mask ({@link Operation#bit()}).
     *
     * @return the mask; 0 when every operation is offered.
     */
    public long refusedOperations()
    {
        return refusedOperations;
    }

    /**
     * The answer to a refused operation. Allocates nothing.
     *
     * @param operation the call.
     * @return 0 when offered, else {@code -ENOSYS} or {@code -EOPNOTSUPP}.
     */
    public int refusal(final Operation operation)
    {
        return refusals[operation.ordinal()];
    }

    /**
     * How a multi-recv buffer's release is reported.
     *
     * @return the mode.
     */
    public MultiRecvCompletion multiRecvCompletion()
    {
        return multiRecvCompletion;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String toString()
    {
        final StringBuilder refused = new StringBuilder();
        for (final Operation op : Operation.values())
        {
            if (0 != refusals[op.ordinal()])
            {
                refused.append(refused.length() > 0 ? ", " : "").append(op).append('=')
                    .append(Errno.of(-refusals[op.ordinal()]));
            }
        }
        return "ProviderCapabilities{" + atomics + ", " + memoryRegistration + ", authKeySize=" + authKeySize +
            ", refused=[" + refused + "], multiRecv=" + multiRecvCompletion + "}";
    }

    /**
     * Builds {@link ProviderCapabilities}. Not thread-safe.
     */
    public static final class Builder
    {
        private AtomicCapabilities atomics = AtomicCapabilities.full(DEFAULT_ATOMIC_BYTES);
        private MemoryRegistrationPolicy memoryRegistration = MemoryRegistrationPolicy.DEFAULT;
        private int authKeySize;
        private long refusedOperations;
        private final int[] refusals = new int[Operation.values().length];
        private MultiRecvCompletion multiRecvCompletion = MultiRecvCompletion.WITH_LAST_MESSAGE;
        private boolean localShutdown;
        private AddressVectorRules addressVectors = AddressVectorRules.DEFAULT;

        private Builder()
        {
        }

        /**
         * The atomic table ({@link AtomicCapabilities#full}, narrowed with {@code without}/{@code intersect}, or
         * built from {@link AtomicCapabilities#none} with {@code with}).
         *
         * @param table the table, not null.
         * @return this.
         */
        public Builder atomics(final AtomicCapabilities table)
        {
            if (null == table)
            {
                throw new FabricException(Errno.EINVAL, "atomic table is null");
            }
            atomics = table;
            return this;
        }

        /**
         * The memory-registration policy.
         *
         * @param policy the policy, not null.
         * @return this.
         */
        public Builder memoryRegistration(final MemoryRegistrationPolicy policy)
        {
            if (null == policy)
            {
                throw new FabricException(Errno.EINVAL, "memory registration policy is null");
            }
            memoryRegistration = policy;
            return this;
        }

        /**
         * Accept authorization keys up to {@code bytes} long (0: none).
         *
         * @param bytes the longest key, 0 or more.
         * @return this.
         */
        public Builder authKeySize(final int bytes)
        {
            if (bytes < 0)
            {
                throw new FabricException(Errno.EINVAL, "auth key size " + bytes + " is negative");
            }
            authKeySize = bytes;
            return this;
        }

        /**
         * The provider does not offer a call: the runtime answers it with {@code -errno} at post.
         *
         * @param operation the call.
         * @param errno     {@link Errno#ENOSYS} (libfabric's {@code fi_no_*}) or {@link Errno#EOPNOTSUPP}.
         * @return this.
         * @throws FabricException EINVAL for another errno.
         */
        public Builder refuse(final Operation operation, final Errno errno)
        {
            if (Errno.ENOSYS != errno && Errno.EOPNOTSUPP != errno)
            {
                throw new FabricException(Errno.EINVAL, "an operation is refused with ENOSYS or EOPNOTSUPP, not " +
                    errno);
            }
            refusals[operation.ordinal()] = errno.negated();
            refusedOperations |= operation.bit();
            return this;
        }

        /**
         * Make {@code fi_shutdown} local only (see {@link ProviderCapabilities#localShutdown()}).
         *
         * @param local true: the peer is not told.
         * @return this.
         */
        public Builder localShutdown(final boolean local)
        {
            localShutdown = local;
            return this;
        }

        /**
         * How a multi-recv buffer's release is reported.
         *
         * @param mode the mode, not null.
         * @return this.
         */
        public Builder multiRecvCompletion(final MultiRecvCompletion mode)
        {
            multiRecvCompletion = null == mode ? MultiRecvCompletion.WITH_LAST_MESSAGE : mode;
            return this;
        }

        /**
         * The provider's own address vector rules.
         *
         * @param rules the rules, not null.
         * @return this.
         */
        public Builder addressVectors(final AddressVectorRules rules)
        {
            if (null == rules)
            {
                throw new FabricException(Errno.EINVAL, "address vector rules are null");
            }
            addressVectors = rules;
            return this;
        }

        /**
         * @return the description.
         */
        public ProviderCapabilities build()
        {
            return new ProviderCapabilities(this);
        }
    }
}
