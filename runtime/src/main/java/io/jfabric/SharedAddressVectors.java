package io.jfabric;

import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.SharedAddressTable;

/**
 * Opening the storage of named address vectors ({@code fi_av_attr.name}): the name's rules, the
 * {@code FI_SHARED_AV} check, and the choice between the transport's storage (shared between processes, for example
 * a file in shm's directory) and the runtime's in-JVM one.
 * <p>
 * Threading: stateless, any thread.
 */
final class SharedAddressVectors
{
    /** Longest name. */
    static final int MAX_NAME = 64;

    private SharedAddressVectors()
    {
    }

    static void checkName(final String name, final AvType type, final long caps)
    {
        if (name.isEmpty() || name.length() > MAX_NAME || '.' == name.charAt(0) ||
            !name.chars().allMatch(SharedAddressVectors::nameChar))
        {
            throw new FabricException(Errno.EINVAL, "address vector name '" + name + "': 1 to " + MAX_NAME +
                " letters, digits, '.', '_' or '-', not starting with '.'");
        }
        if ((caps & Flags.SHARED_AV) == 0)
        {
            throw new FabricException(Errno.EOPNOTSUPP, "a named address vector needs FI_SHARED_AV in the domain's " +
                "caps (fi_av(3): the name must be NULL without it)");
        }
        if (AvType.TABLE != type)
        {
            throw new FabricException(Errno.EINVAL, "a named address vector is FI_AV_TABLE (an index names the same " +
                "peer in every process), not " + type.fiName());
        }
    }

    private static boolean nameChar(final int c)
    {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || '.' == c || '_' == c ||
            '-' == c;
    }

    static SharedAddressTable open(
        final DomainTransport transport, final String provider, final String name, final boolean create,
        final int count)
    {
        final int capacity = Math.max(1, count);
        final SharedAddressTable table = transport.sharedAddressTable(name, create, capacity);
        return null != table ? table : JvmSharedAddressTables.open(provider, name, create, capacity);
    }
}
