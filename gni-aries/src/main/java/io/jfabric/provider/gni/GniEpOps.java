package io.jfabric.provider.gni;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.spi.OpsExtension;
import io.jfabric.spi.OpsType;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntPredicate;

/**
 * {@code FI_GNI_EP_OPS_1} of one endpoint (GNI.md §2.12): {@code GNI_HASH_TAG_IMPL} (u32, 0 = list, the default;
 * 1 = hashed list), written only before the endpoint is enabled ({@code EINVAL} afterwards) and read back. Tags are
 * matched by the runtime's matching engine whichever is chosen, so a receive posted with ignore bits is found
 * either way (upstream's hashed list missed it, GNI.md §2.16-1). Any other option is {@code EINVAL}.
 * <p>
 * Threading: thread-safe.
 */
final class GniEpOps implements OpsExtension
{
    private final AtomicIntegerArray hashTagImpl;
    private final int endpoint;
    private final IntPredicate enabled;

    GniEpOps(final AtomicIntegerArray hashTagImpl, final int endpoint, final IntPredicate enabled)
    {
        this.hashTagImpl = hashTagImpl;
        this.endpoint = endpoint;
        this.enabled = enabled;
    }

    @Override
    public String name()
    {
        return GniOps.FI_GNI_EP_OPS_1;
    }

    @Override
    public OpsType type(final int option)
    {
        return GniOps.GNI_HASH_TAG_IMPL == option ? OpsType.UINT32 : null;
    }

    @Override
    public long get(final int option)
    {
        return hashTagImpl.get(endpoint);
    }

    @Override
    public void set(final int option, final long value)
    {
        if (enabled.test(endpoint))
        {
            throw new FabricException(Errno.EINVAL, "gni ep ops: GNI_HASH_TAG_IMPL cannot change once the endpoint " +
                "is enabled");
        }
        if (value > 1)
        {
            throw new FabricException(Errno.EINVAL, "gni ep ops: GNI_HASH_TAG_IMPL " + value + " is neither 0 (list) " +
                "nor 1 (hashed list)");
        }
        hashTagImpl.set(endpoint, (int) value);
    }
}
