package io.jfabric.provider.gni;

import io.jfabric.Info;
import io.jfabric.MrMode;
import io.jfabric.spi.MemoryRegistrationPolicy;
import io.jfabric.spi.MemoryRegistrationPolicy.Form;

import java.util.EnumSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * gni's memory-registration rules (GNI.md §2.8, §5.6-1), as the runtime's registration policy of a domain:
 * <ul>
 *   <li>basic mode ({@code OFI_MR_BASIC_MAP}): {@code fi_mr_regv} and {@code fi_mr_regattr} segments 4 KiB-aligned
 *   ({@code EINVAL}); {@code fi_mr_reg} any alignment (the NIC rounds to pages); provider keys.</li>
 *   <li>scalable mode ({@code FI_MR_MMU_NOTIFY}): every registration 4 KiB-aligned ({@code EINVAL}); the key is
 *   the requested key, below the authorization key's user limit ({@code EKEYREJECTED}), not in use in the domain
 *   ({@code ENOKEY}, the runtime's registry), within the node's
 *   {@link GniAuthKeys#MAX_SCALABLE_REGISTRATIONS} ({@code ENOSPC}); {@link GniAuthKeys} counts them and gives
 *   them back when the region closes.</li>
 * </ul>
 * The key charged is the domain's (an {@code fi_mr_attr.auth_key} is checked for its size and form only).
 * <p>
 * Threading: thread-safe (policies are immutable and cached per key and mode).
 */
final class GniRegistrations
{
    /** Registration alignment of fi_gni(7): a 4 KiB page. */
    static final long PAGE = 4096;

    private static final MemoryRegistrationPolicy BASIC = MemoryRegistrationPolicy.builder().iovLimit(1)
        .alignment(PAGE, EnumSet.of(Form.REGV, Form.REGATTR)).build();
    private static final ConcurrentHashMap<Integer, MemoryRegistrationPolicy> SCALABLE = new ConcurrentHashMap<>();

    private GniRegistrations()
    {
    }

    /**
     * @param mrMode a domain's mr_mode.
     * @return whether it asks for scalable registration (requested keys).
     */
    static boolean scalable(final long mrMode)
    {
        return MrMode.BASIC != mrMode && 0 == (mrMode & MrMode.PROV_KEY) && 0 != (mrMode & MrMode.MMU_NOTIFY);
    }

    /**
     * @param info a candidate or a domain's info.
     * @return the registration policy of a domain opened with it.
     */
    static MemoryRegistrationPolicy policy(final Info info)
    {
        if (!scalable(info.domainAttr().mrMode()))
        {
            return BASIC;
        }
        final byte[] key = info.domainAttr().authKey();
        final int cookie;
        try
        {
            cookie = GniDomainTransport.cookie(key);
        }
        catch (final io.jfabric.FabricException ex)
        {
            // A malformed key fails the domain's open; the policy does not matter then.
            return BASIC;
        }
        return SCALABLE.computeIfAbsent(cookie, GniRegistrations::scalablePolicy);
    }

    private static MemoryRegistrationPolicy scalablePolicy(final int cookie)
    {
        return MemoryRegistrationPolicy.builder().iovLimit(1).alignment(PAGE)
            .keyMode(MemoryRegistrationPolicy.KeyMode.REQUESTED)
            .validator((form, addresses, lengths, count, access, requestedKey, authKey) ->
                GniAuthKeys.register(cookie, requestedKey))
            .releaser(key -> GniAuthKeys.release())
            .build();
    }
}
