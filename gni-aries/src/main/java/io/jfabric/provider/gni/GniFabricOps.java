package io.jfabric.provider.gni;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.spi.OpsExtension;
import io.jfabric.spi.OpsType;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@code FI_GNI_FAB_OPS_1} ({@code FI_GNI_FABRIC_OPS_1}), the process-wide settings of GNI.md §2.12:
 * {@code GNI_WAIT_THREAD_SLEEP} (u32 µs, 20), {@code GNI_DEFAULT_USER_REGISTRATION_LIMIT} (u32, 192, at most 4096),
 * {@code GNI_DEFAULT_PROV_REGISTRATION_LIMIT} (u32, 64, at most 4096) and {@code GNI_WAIT_SHARED_MEMORY_TIMEOUT}
 * (u32 s, 30). The registration limits are what an authorization key gets when it is first seen
 * ({@link GniAuthKeys}). An unknown option is {@code EINVAL} for get as for set (upstream's get answered 0 for it,
 * GNI.md §2.16-4). Process globals: every fabric's extension shows the same values.
 * <p>
 * Threading: thread-safe.
 */
final class GniFabricOps implements OpsExtension
{
    static final int OPTIONS = 4;
    static final long MAX_REGISTRATION_LIMIT = 4096;
    private static final long[] DEFAULTS = {20, 192, 64, 30};
    private static final AtomicLongArray VALUES = new AtomicLongArray(DEFAULTS);

    private final String name;

    GniFabricOps(final String name)
    {
        this.name = name;
    }

    static long value(final int option)
    {
        return VALUES.get(option);
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public OpsType type(final int option)
    {
        return option >= 0 && option < OPTIONS ? OpsType.UINT32 : null;
    }

    @Override
    public long get(final int option)
    {
        return VALUES.get(option);
    }

    @Override
    public void set(final int option, final long value)
    {
        if ((GniOps.GNI_DEFAULT_USER_REGISTRATION_LIMIT == option ||
            GniOps.GNI_DEFAULT_PROV_REGISTRATION_LIMIT == option) && value > MAX_REGISTRATION_LIMIT)
        {
            throw new FabricException(Errno.EINVAL, "gni fabric ops: a registration limit of " + value +
                " is above " + MAX_REGISTRATION_LIMIT);
        }
        VALUES.set(option, value);
    }
}
