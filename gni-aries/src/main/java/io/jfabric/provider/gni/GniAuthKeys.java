package io.jfabric.provider.gni;

import io.jfabric.Errno;
import io.jfabric.FabricException;

import java.util.HashMap;
import java.util.Map;

/**
 * The authorization keys of this process (GNI.md §2.8), by cookie: each key's user and provider registration limits
 * (from the fabric's defaults, {@link GniFabricOps}, when the key is first seen), whether it is in use (a domain
 * opened with it: its limits are frozen, {@code EAGAIN}), its MR mode while domains use it (a domain asking the
 * other mode is {@code EINVAL}), and in scalable mode the requested keys' bound (below the user limit:
 * {@code EKEYREJECTED}; a key in use is {@code ENOKEY} from the domain's registry, a domain being an emulated node of
 * its own). Rules upstream applies per node, here per process: at most
 * {@link #MAX_SCALABLE_PTAGS} keys in scalable mode at once and {@link #MAX_SCALABLE_REGISTRATIONS} scalable
 * registrations ({@code ENOSPC}).
 * <p>
 * Differences from upstream, documented in GNI-PROVIDER.md: a key's MR mode and its scalable-ptag slot are released
 * when the last domain using it closes (upstream keeps them for the life of the process); the provider limit is
 * enforced per domain by {@link GniProviderRegistrations} (the provider's own registrations are per operation here,
 * not provider vMDH keys).
 * <p>
 * Threading: thread-safe (control path, one lock).
 */
final class GniAuthKeys
{
    /** {@code MAX_VMDH_TAGS}: keys in scalable mode on a node. */
    static final int MAX_SCALABLE_PTAGS = 4;
    /** Scalable registrations on a node. */
    static final int MAX_SCALABLE_REGISTRATIONS = 4096;

    private static final Map<Integer, Key> KEYS = new HashMap<>();
    private static int scalablePtags;
    private static int scalableRegistrations;

    private static final class Key
    {
        long userLimit = GniFabricOps.value(GniOps.GNI_DEFAULT_USER_REGISTRATION_LIMIT);
        long provLimit = GniFabricOps.value(GniOps.GNI_DEFAULT_PROV_REGISTRATION_LIMIT);
        boolean enabled;
        int domains;
        boolean scalable;
    }

    private GniAuthKeys()
    {
    }

    private static Key key(final int cookie)
    {
        return KEYS.computeIfAbsent(cookie, c -> new Key());
    }

    /**
     * A domain opens with the key: enables it and binds its MR mode.
     *
     * @param cookie   the key's cookie.
     * @param scalable scalable (requested keys) or basic registration.
     * @throws FabricException EINVAL when domains use the key in the other mode; ENOSPC when a fifth key would be
     *                         in scalable mode.
     */
    static synchronized void openDomain(final int cookie, final boolean scalable)
    {
        final Key k = key(cookie);
        if (k.domains > 0 && k.scalable != scalable)
        {
            throw new FabricException(Errno.EINVAL, "gni: auth key 0x" + Integer.toHexString(cookie) + " is in use " +
                "with " + (k.scalable ? "scalable" : "basic") + " registration (one MR mode per key)");
        }
        if (0 == k.domains && scalable)
        {
            if (scalablePtags >= MAX_SCALABLE_PTAGS)
            {
                throw new FabricException(Errno.ENOSPC, "gni: " + MAX_SCALABLE_PTAGS + " keys are in scalable " +
                    "registration mode on this node already");
            }
            scalablePtags++;
        }
        k.enabled = true;
        k.scalable = scalable;
        k.domains++;
    }

    /**
     * A domain that {@link #openDomain opened} with the key closed.
     *
     * @param cookie the key's cookie.
     */
    static synchronized void closeDomain(final int cookie)
    {
        final Key k = KEYS.get(cookie);
        if (null != k && k.domains > 0 && 0 == --k.domains && k.scalable)
        {
            scalablePtags--;
        }
    }

    /**
     * A scalable registration asks for requested key {@code requested}.
     *
     * @param cookie    the key's cookie.
     * @param requested the requested MR key.
     * @return 0, {@code -EKEYREJECTED} at or above the user limit, {@code -ENOSPC} beyond the scalable registrations
     * of the node.
     */
    static synchronized int register(final int cookie, final long requested)
    {
        final Key k = key(cookie);
        k.enabled = true;
        if (requested < 0 || requested >= k.userLimit)
        {
            return -Errno.EKEYREJECTED.value();
        }
        if (scalableRegistrations >= MAX_SCALABLE_REGISTRATIONS)
        {
            return -Errno.ENOSPC.value();
        }
        scalableRegistrations++;
        return 0;
    }

    /**
     * A registration {@link #register} accepted ended (closed, or refused by the domain's registry afterwards).
     */
    static synchronized void release()
    {
        if (scalableRegistrations > 0)
        {
            scalableRegistrations--;
        }
    }

    static synchronized void limit(final int cookie, final int option, final long value)
    {
        if (GniOps.GNIX_TOTAL_KEYS_NEEDED == option || GniOps.GNIX_USER_KEY_MAX_PER_RANK == option)
        {
            throw new FabricException(Errno.EOPNOTSUPP, "gni auth key ops: option " + option + " is read-only");
        }
        if (GniOps.GNIX_USER_KEY_LIMIT != option && GniOps.GNIX_PROV_KEY_LIMIT != option)
        {
            throw new FabricException(Errno.EINVAL, "gni auth key ops: no option " + option);
        }
        final Key k = key(cookie);
        if (k.enabled)
        {
            throw new FabricException(Errno.EAGAIN, "gni auth key ops: key 0x" + Integer.toHexString(cookie) +
                " is in use: its limits can no longer change");
        }
        if (value < 0 || value >= GniFabricOps.MAX_REGISTRATION_LIMIT)
        {
            throw new FabricException(Errno.EINVAL, "gni auth key ops: limit " + value + " outside 0..4095");
        }
        if (GniOps.GNIX_USER_KEY_LIMIT == option)
        {
            k.userLimit = value;
        }
        else
        {
            k.provLimit = value;
        }
    }

    static synchronized long limit(final int cookie, final int option)
    {
        final Key k = KEYS.get(cookie);
        final long user = null == k ? GniFabricOps.value(GniOps.GNI_DEFAULT_USER_REGISTRATION_LIMIT) : k.userLimit;
        final long prov = null == k ? GniFabricOps.value(GniOps.GNI_DEFAULT_PROV_REGISTRATION_LIMIT) : k.provLimit;
        switch (option)
        {
            case GniOps.GNIX_USER_KEY_LIMIT:
                return user;
            case GniOps.GNIX_PROV_KEY_LIMIT:
                return prov;
            case GniOps.GNIX_TOTAL_KEYS_NEEDED:
                return user + prov;
            case GniOps.GNIX_USER_KEY_MAX_PER_RANK:
                // One rank per emulated node.
                return user;
            default:
                throw new FabricException(Errno.EINVAL, "gni auth key ops: no option " + option);
        }
    }
}
