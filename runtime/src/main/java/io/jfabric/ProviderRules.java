package io.jfabric;

import io.jfabric.spi.MemoryRegistrationPolicy;
import io.jfabric.spi.Provider;
import io.jfabric.spi.ProviderCapabilities;

/**
 * The runtime's enforcement of a provider's {@link ProviderCapabilities}, shared by discovery, domains and
 * endpoints so that every provider is held to its own description the same way (no provider is named here).
 * <p>
 * Stateless; control path (the data-path checks read the description's fields directly).
 */
final class ProviderRules
{
    /** The most segments the agent's registry takes in one region. */
    static final int AGENT_MR_IOV_LIMIT = 64;

    private ProviderRules()
    {
    }

    /**
     * A provider's description for an info; a provider that fails to give one is described by the defaults.
     */
    static ProviderCapabilities capabilitiesOf(final Provider provider, final Info info)
    {
        final ProviderCapabilities caps = provider.capabilities(info);
        return null == caps ? ProviderCapabilities.DEFAULT : caps;
    }

    /**
     * getInfo: why a provider info cannot meet the hints' authorization keys, or null when it can. A provider that
     * takes no key drops out for hints carrying one; a key longer than the provider takes drops it out too.
     */
    static String authKeyMismatch(final ProviderCapabilities caps, final Info hints)
    {
        if (null == hints)
        {
            return null;
        }
        final String domain = authKeyProblem(caps, hints.domainAttr().authKey(), "domain_attr.auth_key");
        return null != domain ? domain : authKeyProblem(caps, hints.epAttr().authKey(), "ep_attr.auth_key");
    }

    /**
     * Refuse an authorization key the provider does not take.
     *
     * @throws FabricException EOPNOTSUPP when the provider takes none, EINVAL when the key is longer than it takes.
     */
    static void checkAuthKey(final ProviderCapabilities caps, final byte[] key, final String what)
    {
        final String problem = authKeyProblem(caps, key, what);
        if (null != problem)
        {
            throw new FabricException(0 == caps.authKeySize() ? Errno.EOPNOTSUPP : Errno.EINVAL, problem);
        }
    }

    private static String authKeyProblem(final ProviderCapabilities caps, final byte[] key, final String what)
    {
        if (null == key)
        {
            return null;
        }
        if (0 == caps.authKeySize())
        {
            return what + ": the provider takes no authorization keys";
        }
        if (key.length > caps.authKeySize())
        {
            return what + ": " + key.length + " bytes, the provider takes at most " + caps.authKeySize();
        }
        return null;
    }

    /**
     * The mr_mode the domain's registry runs with: the info's, with {@code FI_MR_PROV_KEY} forced on or off by the
     * policy's key mode.
     */
    static long registryMrMode(final MemoryRegistrationPolicy policy, final long mrMode)
    {
        final long expanded = MrMode.BASIC == mrMode ? MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY :
            (MrMode.SCALABLE == mrMode ? 0 : mrMode);
        switch (policy.keyMode())
        {
            case PROVIDER:
                return expanded | MrMode.PROV_KEY;
            case REQUESTED:
                return expanded & ~MrMode.PROV_KEY;
            default:
                return mrMode;
        }
    }

    /**
     * The most segments one registration may have: the domain's {@code mr_iov_limit}, the policy's and the agent's,
     * whichever is smallest (at least 1).
     */
    static int mrIovLimit(final MemoryRegistrationPolicy policy, final Info info)
    {
        return (int) Math.max(1, Math.min(Math.min(AGENT_MR_IOV_LIMIT, info.domainAttr().mrIovLimit()),
            policy.iovLimit()));
    }

    /**
     * The policy's checks of one registration, in the documented order (count, alignment, auth key, validator).
     *
     * @throws FabricException EINVAL, EOPNOTSUPP or the validator's errno.
     */
    static void checkRegistration(
        final ProviderCapabilities caps,
        final int iovLimit,
        final MemoryRegistrationPolicy.Form form,
        final long[] addresses,
        final long[] lengths,
        final int count,
        final long access,
        final long requestedKey,
        final byte[] authKey)
    {
        final MemoryRegistrationPolicy policy = caps.memoryRegistration();
        if (count < 1 || count > iovLimit)
        {
            throw new FabricException(Errno.EINVAL, "registration of " + count + " segments: outside 1.." + iovLimit +
                " (mr_iov_limit)");
        }
        final long alignment = policy.alignment();
        if (alignment > 1 && policy.alignedForms().contains(form))
        {
            for (int i = 0; i < count; i++)
            {
                if (0 != (addresses[i] & (alignment - 1)))
                {
                    throw new FabricException(Errno.EINVAL, "segment " + i + " at 0x" +
                        Long.toHexString(addresses[i]) + " is not " + alignment + "-byte aligned (the provider's " +
                        form + " rule)");
                }
            }
        }
        checkAuthKey(caps, authKey, "fi_mr_attr.auth_key");
        final int answer = policy.validator().validate(form, addresses, lengths, count, access, requestedKey,
            null == authKey ? null : authKey.clone());
        if (answer < 0)
        {
            final Errno errno = Errno.of(-answer);
            throw new FabricException(null == errno ? Errno.EINVAL : errno, "the provider refused the " + form +
                " registration: " + Errno.strerror(answer));
        }
    }
}
