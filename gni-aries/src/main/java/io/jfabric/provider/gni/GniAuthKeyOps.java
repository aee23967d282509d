package io.jfabric.provider.gni;

import io.jfabric.spi.OpsExtension;
import io.jfabric.spi.OpsType;

/**
 * {@code FI_GNI_FAB_OPS_2} ({@code FI_GNI_FABRIC_OPS_2}), the authorization-key extension of GNI.md §2.12:
 * {@link #set(byte[], int, long)} and {@link #get(byte[], int)} take the key ({@code struct fi_gni_auth_key}, 8 bytes;
 * null or empty = the job's default key) as upstream's {@code set_val(key, keylen, opt, val)} does; reach them with
 * {@code OpenOps.as(GniAuthKeyOps.class)}. Through plain {@code OpenOps.set/get} the options act on the default key.
 * Options: {@link GniOps#GNIX_USER_KEY_LIMIT}, {@link GniOps#GNIX_PROV_KEY_LIMIT} (i32; {@code EAGAIN} once the
 * key is in use, {@code EINVAL} at 4096 or above), {@link GniOps#GNIX_TOTAL_KEYS_NEEDED},
 * {@link GniOps#GNIX_USER_KEY_MAX_PER_RANK} (read-only: {@code EOPNOTSUPP} to set).
 * <p>
 * Threading: thread-safe.
 */
public final class GniAuthKeyOps implements OpsExtension
{
    private final String name;

    GniAuthKeyOps(final String name)
    {
        this.name = name;
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public OpsType type(final int option)
    {
        return option >= GniOps.GNIX_USER_KEY_LIMIT && option <= GniOps.GNIX_USER_KEY_MAX_PER_RANK ? OpsType.INT32 :
            null;
    }

    @Override
    public long get(final int option)
    {
        return get(null, option);
    }

    @Override
    public void set(final int option, final long value)
    {
        set(null, option, value);
    }

    /**
     * {@code set_val} of one key.
     *
     * @param authKey the key, or null for the default key.
     * @param option  {@link GniOps#GNIX_USER_KEY_LIMIT} or {@link GniOps#GNIX_PROV_KEY_LIMIT}.
     * @param value   the limit.
     * @throws io.jfabric.FabricException EAGAIN once the key is in use; EINVAL for a bad key, option or value;
     *                                    EOPNOTSUPP for a read-only option.
     */
    public void set(final byte[] authKey, final int option, final long value)
    {
        GniAuthKeys.limit(GniDomainTransport.cookie(authKey), option, value);
    }

    /**
     * {@code get_val} of one key (the fabric's defaults for a key not seen yet).
     *
     * @param authKey the key, or null for the default key.
     * @param option  an option of this extension.
     * @return the value.
     * @throws io.jfabric.FabricException EINVAL for a bad key or option.
     */
    public long get(final byte[] authKey, final int option)
    {
        return GniAuthKeys.limit(GniDomainTransport.cookie(authKey), option);
    }
}
